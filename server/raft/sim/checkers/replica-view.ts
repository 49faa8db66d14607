// What the checkers read of a running node: RaftNode satisfies it, and the checkers' tests pass plain objects.
import type { NodeId } from '../../core/types.ts';
import type { RaftLogView } from '../../core/raft-log.ts';

export interface ReplicaView {
  readonly id: NodeId;
  readonly term: number;
  readonly log: RaftLogView;
  isLeader(): boolean;
}

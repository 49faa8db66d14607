// Reads where the node serves them. RaftNode serves no lease or read-index reads; what the API relies on is
// read-your-write through any node: a client that wrote at index i asks a node to wait until it has applied i
// (waitForApplied) and then reads its state machine. That read must see a state at or after i, and that state must
// be the committed history's at its index (never a state no other node reached).
import type { NodeId } from '../../core/types.ts';
import type { History } from './history.ts';
import { SafetyViolation } from './safety-violation.ts';

export interface ReadObservation {
  readonly node: NodeId;
  /** The index the reader waited for (its own acknowledged write). */
  readonly waitedFor: number;
  /** The state the node's state machine showed once the wait resolved. */
  readonly index: number;
  readonly hash: number;
}

export function checkRead(read: ReadObservation, history: History): void {
  if (read.index < read.waitedFor) {
    throw new SafetyViolation('read your writes', `${read.node} answered a wait for index ${read.waitedFor} while its state machine was at ${read.index}`);
  }
  const committed = history.committed.get(read.index);
  if (read.index > 0 && committed && committed.hash !== read.hash) {
    throw new SafetyViolation('read your writes', `${read.node} served a state at ${read.index} that differs from the committed history's`);
  }
}

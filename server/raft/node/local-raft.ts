// Opens a raft node over a data directory: the log and hard state in <dir>/raft.db, snapshots in <dir>/snapshots.
// A controller that is not (yet) part of a cluster is a one-voter cluster of itself.
import { join } from 'node:path';
import type { Logger } from '../../../common/log/logger.ts';
import type { Configuration } from '../core/types.ts';
import { FileSnapshotStore } from '../storage/file-snapshot-store.ts';
import { LevelRaftStore } from '../storage/level-raft-store.ts';
import { RaftNode, defaultTiming, type RaftNodeTiming, type RaftStateMachine, type SnapshotPolicy } from './raft-node.ts';
import { InProcessTransport, type RaftTransport } from './raft-transport.ts';

export interface LocalRaftOptions {
  readonly id: string;
  readonly dataDir: string;
  readonly stateMachine: RaftStateMachine;
  readonly logger: Logger;
  readonly timing?: RaftNodeTiming;
  readonly snapshotPolicy?: SnapshotPolicy;
  readonly bootstrap?: Configuration;
  readonly transport?: RaftTransport;
  readonly random?: () => number;
}

export interface LocalRaft {
  readonly node: RaftNode;
  close(): Promise<void>;
}

export const defaultSnapshotPolicy: SnapshotPolicy = { intervalMs: 120_000, threshold: 500, trailingLogs: 500 };

export async function openLocalRaft(options: LocalRaftOptions): Promise<LocalRaft> {
  const store = await LevelRaftStore.open(join(options.dataDir, 'raft.db'));
  let snapshots: FileSnapshotStore | undefined;
  try {
    snapshots = await FileSnapshotStore.open(join(options.dataDir, 'snapshots'), {
      onCorrupt: (name, reason) => options.logger.warn('skipping a corrupt raft snapshot', { file: name, reason }),
    });
    const node = await RaftNode.start({
      id: options.id,
      store,
      snapshots,
      stateMachine: options.stateMachine,
      transport: options.transport ?? new InProcessTransport(),
      timing: options.timing ?? defaultTiming,
      snapshotPolicy: options.snapshotPolicy ?? defaultSnapshotPolicy,
      bootstrap: options.bootstrap ?? { voters: [options.id], nonVoters: [] },
      // Election jitter only; nothing about safety depends on it.
      random: options.random ?? Math.random,
      logger: options.logger,
    });
    const opened = snapshots;
    return {
      node,
      async close() {
        await node.close();
        await store.close();
        await opened.close();
      },
    };
  } catch (error) {
    await store.close();
    await snapshots?.close();
    throw error;
  }
}

// Opens a raft node over a data directory: the log and hard state in <dir>/raft.db (a write-ahead log; a LevelDB
// raft.db of an earlier release is migrated on first open), snapshots in <dir>/snapshots.
// A controller that is not (yet) part of a cluster is a one-voter cluster of itself.
import { join } from 'node:path';
import type { Logger } from '../../../common/log/logger.ts';
import type { Configuration } from '../core/types.ts';
import { FileSnapshotStore } from '../storage/file-snapshot-store.ts';
import { openRaftStore } from '../storage/raft-db-migration.ts';
import type { RaftStore } from '../storage/raft-storage.ts';
import { RaftNode, defaultTiming, type ClusterRaft, type RaftNodeTiming, type RaftStateMachine, type SnapshotPolicy } from './raft-node.ts';
import { InProcessTransport, type RaftTransport } from './raft-transport.ts';
import type { ProposalTracer } from './proposal-tracer.ts';

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
  /**
   * What a brand-new node (no log, no snapshot) does: bootstrap itself as a one-voter cluster at once, or wait
   * uninitialized to be bootstrapped (`agent controller init`) or added to a cluster. A node with state from the
   * first release (a log but no configuration in it) is always a one-voter cluster of itself.
   */
  readonly newNode?: 'bootstrap-single-voter' | 'wait-for-cluster';
  /** This node's control address, recorded in the configuration when it bootstraps. */
  readonly address?: string;
  readonly onSnapshotRestored?: (restored: { index: number; hadData: boolean }) => void;
  /** Traces the proposals this node takes as leader (unset: none). */
  readonly proposalTracer?: ProposalTracer;
}

export interface LocalRaft {
  readonly node: RaftNode;
  close(): Promise<void>;
}

export const defaultSnapshotPolicy: SnapshotPolicy = { intervalMs: 120_000, threshold: 500, trailingLogs: 500 };

/** The log and snapshots of a data directory, opened; and the configuration a node starts with when neither holds
 * one (a log from the first release, without a configuration: a one-voter cluster of itself; else none). */
export interface RaftFiles {
  readonly store: RaftStore;
  readonly snapshots: FileSnapshotStore;
  readonly bootstrap: Configuration;
  close(): Promise<void>;
}

export async function openRaftFiles(id: string, dataDir: string, logger: Logger, bootstrap?: Configuration): Promise<RaftFiles> {
  const store = await openRaftStore(join(dataDir, 'raft.db'), {
    onMigrated: ({ firstIndex, lastIndex }) => logger.info('migrated raft.db from LevelDB to the write-ahead log', { firstIndex, lastIndex }),
  });
  try {
    const snapshots = await FileSnapshotStore.open(join(dataDir, 'snapshots'), {
      onCorrupt: (name, reason) => logger.warn('skipping a corrupt raft snapshot', { file: name, reason }),
    });
    return {
      store,
      snapshots,
      bootstrap: bootstrap ?? ((await hasState(store)) ? { voters: [id], nonVoters: [] } : { voters: [], nonVoters: [] }),
      async close() {
        await store.close();
        await snapshots.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

export async function openLocalRaft(options: LocalRaftOptions): Promise<LocalRaft> {
  const files = await openRaftFiles(options.id, options.dataDir, options.logger, options.bootstrap);
  try {
    const node = await RaftNode.start({
      id: options.id,
      store: files.store,
      snapshots: files.snapshots,
      stateMachine: options.stateMachine,
      transport: options.transport ?? new InProcessTransport(),
      timing: options.timing ?? defaultTiming,
      snapshotPolicy: options.snapshotPolicy ?? defaultSnapshotPolicy,
      bootstrap: files.bootstrap,
      // Election jitter only; nothing about safety depends on it.
      random: options.random ?? Math.random,
      logger: options.logger,
      ...(options.onSnapshotRestored ? { onSnapshotRestored: options.onSnapshotRestored } : {}),
      ...(options.proposalTracer ? { proposalTracer: options.proposalTracer } : {}),
    });
    if ((options.newNode ?? 'bootstrap-single-voter') === 'bootstrap-single-voter' && node.isUninitialized()) {
      await bootstrapSingleVoter(node, options.id, options.address);
    }
    return {
      node,
      async close() {
        await node.close();
        await files.close();
      },
    };
  } catch (error) {
    await files.close();
    throw error;
  }
}

async function hasState(store: RaftStore): Promise<boolean> {
  return (await store.hardState()) !== undefined || (await store.lastIndex()) > 0;
}

/** Bootstraps a new node as the only voter of a new cluster and waits until it leads. */
export async function bootstrapSingleVoter(node: Pick<ClusterRaft, 'bootstrap' | 'isLeader' | 'appliedIndex' | 'status'>, id: string, address: string | undefined, timeoutMs = 10_000): Promise<void> {
  node.bootstrap({ voters: [id], nonVoters: [], ...(address ? { addresses: { [id]: address } } : {}) });
  const deadline = Date.now() + timeoutMs;
  while (!node.isLeader() || node.appliedIndex() < node.status().commit) {
    if (Date.now() > deadline) throw new Error('raft: the new cluster did not elect this node within the timeout');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

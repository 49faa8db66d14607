// Forced single-voter recovery: on the stopped storage of a member that survived the loss of its cluster's majority,
// apply everything its log holds and make it the only voter of a one-member cluster, which new members then join.
// Like hashicorp raft's RecoverCluster, every entry in the survivor's log is kept, committed or not: a write
// acknowledged to a client was committed by a majority, and if the survivor holds it, it must survive; what only
// the lost members held is gone. The caller makes sure no process uses the storage.
//
// Crash safety, by the order of the writes (a crash at any point, then a restart or a second run):
//   1. the state machine restores the newest snapshot if it is ahead, then applies the log's tail: raft's files are
//      untouched, so the node still starts as the old configuration (it takes what its state machine applied as
//      committed, RaftLog.restore); running the recovery again finishes it;
//   2. a snapshot at the last index, with the one-voter configuration, is saved (atomically): from here the node
//      starts as the one-voter cluster, because the core takes the configuration from the newest snapshot plus the
//      config entries after it, and there are none after it (the old log ends at the snapshot, with its term, so
//      RaftNode.start keeps it and RaftLog.restore skips it);
//   3. the log is reset, and 4. the hard state written: both only tidy what step 2 already decided.
import type { Logger } from '../../../common/log/logger.ts';
import type { ConfigEntryData } from '../core/raft-core.ts';
import type { Configuration, Entry, HardState, NodeId, Snapshot, SnapshotMeta } from '../core/types.ts';
import type { CommittedEntry, LogCommand } from '../state-machine.ts';
import type { RaftStore, SnapshotStore } from '../storage/raft-storage.ts';
import type { RaftStateMachine } from './raft-node.ts';

export interface ForcedRecovery {
  /** The last index of the survivor's log (or snapshot): the recovered cluster's history ends here. */
  readonly index: number;
  /** The term of the entry at `index`. */
  readonly term: number;
  /** The configuration the survivor's log and snapshot held last. */
  readonly previous: Configuration;
  /** The configuration now: this node, the only voter. */
  readonly configuration: Configuration;
  /** entries applied from the log beyond the state machine's applied index */
  readonly applied: number;
}

export interface ForceSingleVoterOptions {
  readonly id: NodeId;
  /** This node's address in the new configuration (default: the one the last configuration recorded). */
  readonly address?: string;
  readonly store: RaftStore;
  readonly snapshots: SnapshotStore;
  readonly stateMachine: RaftStateMachine;
  readonly logger: Logger;
}

/** Entries read from the store and applied at a time. */
const batchEntries = 256;

/** Forces the configuration of the stopped storage down to `id` alone (see the file's comment for the order). */
export async function forceSingleVoter(options: ForceSingleVoterOptions): Promise<ForcedRecovery> {
  const { id, store, snapshots, stateMachine, logger } = options;
  // Everything is read and checked first: a refusal writes nothing.
  const plan = await planRecovery(options);
  if (plan.restore) {
    logger.info('restoring the state machine from a snapshot', { index: plan.restore.meta.index, term: plan.restore.meta.term });
    await stateMachine.restore(plan.restore.data, plan.restore.meta.index);
  }
  let applied = 0;
  for (let from = stateMachine.appliedIndex() + 1; from <= plan.index; from += batchEntries) {
    const entries = await readEntries(store, from, Math.min(from + batchEntries - 1, plan.index));
    await stateMachine.apply(entries.map(toCommitted));
    applied += entries.length;
  }
  if (stateMachine.appliedIndex() !== plan.index) {
    throw new Error(`raft recovery: the state machine is at index ${stateMachine.appliedIndex()} after applying the log through ${plan.index}; nothing of raft's was changed`);
  }
  const address = options.address ?? plan.previous.addresses?.[id];
  const configuration: Configuration = { voters: [id], nonVoters: [], ...(address ? { addresses: { [id]: address } } : {}) };
  const copied = stateMachine.snapshot();
  const data = stateMachine.snapshotIsAsync ? await copied : copied;
  await snapshots.save({ meta: { index: plan.index, term: plan.term, configuration }, data });
  await store.reset();
  const term = Math.max(plan.hardState?.term ?? 0, plan.term);
  // The vote stays when the term does: a node never votes twice in one term (clearing it would let this one).
  const vote = plan.hardState && plan.hardState.term === term ? plan.hardState.vote : null;
  await store.setHardState({ term, vote, commit: plan.index });
  logger.warn('raft configuration forced to this node alone', {
    index: plan.index,
    term: plan.term,
    appliedFromLog: applied,
    previousVoters: plan.previous.voters,
    previousNonVoters: plan.previous.nonVoters,
  });
  return { index: plan.index, term: plan.term, previous: plan.previous, configuration, applied };
}

interface RecoveryPlan {
  /** A snapshot the state machine is behind (restored first). */
  readonly restore: Snapshot | undefined;
  readonly index: number;
  readonly term: number;
  readonly previous: Configuration;
  readonly hardState: HardState | undefined;
}

/** Reads the storage and decides the recovery, or refuses it (as RaftNode.start reads it: the same snapshot, the
 * same log, the same configuration). */
async function planRecovery(options: ForceSingleVoterOptions): Promise<RecoveryPlan> {
  const { id, store, snapshots, stateMachine } = options;
  const hardState = await store.hardState();
  const [newest] = await snapshots.list();
  let meta: SnapshotMeta | undefined = newest;
  let restore: Snapshot | undefined;
  const appliedBefore = stateMachine.appliedIndex();
  if (newest && newest.index > appliedBefore) {
    // The newest valid one: a snapshot whose data fails its checksum gives way to the next older.
    const loaded = await snapshots.latest();
    meta = loaded?.meta;
    if (loaded && loaded.meta.index > appliedBefore) restore = loaded;
  }
  const first = await store.firstIndex();
  let last = await store.lastIndex();
  if (last < first) last = 0;
  if (last > 0 && meta && (await supersededBy(store, meta, first, last))) last = 0;
  if (!meta && last === 0 && hardState === undefined && appliedBefore === 0) {
    throw new Error(`raft recovery: nothing to recover: ${id} has no raft log, snapshot or hard state (a node that never joined a cluster)`);
  }
  const snapshotIndex = meta?.index ?? 0;
  const applied = Math.max(appliedBefore, restore?.meta.index ?? 0);
  const index = Math.max(snapshotIndex, last);
  if (applied > index) {
    throw new Error(`raft recovery: the state machine has applied index ${applied}, past the end of the raft log and snapshots (${index}); the raft files do not belong to this state`);
  }
  if (applied < index && Math.max(applied, snapshotIndex) + 1 < first) {
    throw new Error(`raft recovery: the raft log starts at index ${first} but the state machine has applied only ${applied} and no snapshot covers the entries between`);
  }
  const previous = await lastConfiguration(store, meta, Math.max(first, snapshotIndex + 1), last);
  if (!previous.voters.includes(id) && !previous.nonVoters.includes(id)) {
    const members = [...previous.voters, ...previous.nonVoters];
    throw new Error(`raft recovery: ${id} is not a member of the last configuration (${members.length > 0 ? `voters ${previous.voters.join(', ') || 'none'}, non-voters ${previous.nonVoters.join(', ') || 'none'}` : 'it holds none'}); only a member's data can be recovered`);
  }
  const term = index === snapshotIndex && meta ? meta.term : (await readEntries(store, index, index))[0]!.term;
  return { restore, index, term, previous, hardState };
}

/** True when the newest snapshot replaced the whole stored log (a crash interrupted its installation; RaftNode.start
 * discards such a log). */
async function supersededBy(store: RaftStore, snapshot: SnapshotMeta, first: number, last: number): Promise<boolean> {
  if (last < snapshot.index) return true;
  if (snapshot.index < first) return false;
  const [atSnapshot] = await store.entries(snapshot.index, snapshot.index);
  return atSnapshot !== undefined && atSnapshot.term !== snapshot.term;
}

/** The configuration the stored files end with, as a start would take it up; reads only (the quorum check of
 * `controller recover` asks its voters before anything is forced). */
export async function lastStoredConfiguration(store: RaftStore, snapshots: SnapshotStore): Promise<Configuration> {
  const [meta] = await snapshots.list();
  const first = await store.firstIndex();
  let last = await store.lastIndex();
  if (last < first) last = 0;
  if (last > 0 && meta && (await supersededBy(store, meta, first, last))) last = 0;
  return lastConfiguration(store, meta, Math.max(first, (meta?.index ?? 0) + 1), last);
}

/** The configuration in effect at the end of the log: its last config entry after the snapshot, else the snapshot's. */
async function lastConfiguration(store: RaftStore, snapshot: SnapshotMeta | undefined, from: number, last: number): Promise<Configuration> {
  let configuration: Configuration = snapshot?.configuration ?? { voters: [], nonVoters: [] };
  for (let start = from; start <= last; start += batchEntries) {
    for (const entry of await readEntries(store, start, Math.min(start + batchEntries - 1, last))) {
      if (entry.type === 'config') configuration = (entry.data as ConfigEntryData).configuration;
    }
  }
  return configuration;
}

/** Entries [from, to], all of them: a hole in the stored log is refused rather than skipped. */
async function readEntries(store: RaftStore, from: number, to: number): Promise<Entry[]> {
  const entries = await store.entries(from, to);
  if (entries.length !== to - from + 1 || entries[0]?.index !== from) {
    throw new Error(`raft recovery: the raft log is missing entries between ${from} and ${to}`);
  }
  return entries;
}

/** As RaftNode applies them: raft's own entries advance the applied index as no-ops. */
function toCommitted(entry: Entry): CommittedEntry {
  return {
    index: entry.index,
    term: entry.term,
    command: entry.type === 'normal' ? (entry.data as LogCommand) : { type: entry.type === 'config' ? 'raft.config' : 'raft.noop' },
  };
}

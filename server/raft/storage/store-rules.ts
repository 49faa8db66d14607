// The rules every store implementation shares, so the memory and disk stores reject the same bad input with the
// same message and order snapshots the same way.
import type { Configuration, Entry, EntryType, HardState, Snapshot, SnapshotMeta } from '../core/types.ts';

const entryTypes: ReadonlySet<EntryType> = new Set<EntryType>(['normal', 'config', 'noop']);

const isIndex = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * Checks a batch for `append` against the store's current bounds. A non-empty log must not gain a gap; an empty one
 * (new, reset, or compacted away) accepts any start, because the snapshot that emptied it fixes where the log resumes.
 */
export function checkAppend(entries: readonly Entry[], firstIndex: number, lastIndex: number): void {
  let previous: Entry | undefined;
  for (const entry of entries) {
    if (!isIndex(entry.index) || entry.index === 0) {
      throw new Error(`append: index ${String(entry.index)} is not a positive safe integer`);
    }
    if (!isIndex(entry.term)) throw new Error(`append: entry ${entry.index} has term ${String(entry.term)}, not a non-negative integer`);
    if (!entryTypes.has(entry.type)) throw new Error(`append: entry ${entry.index} has unknown type ${JSON.stringify(entry.type)}`);
    if (previous !== undefined) {
      if (entry.index !== previous.index + 1) {
        throw new Error(`append: entries are not contiguous: index ${entry.index} follows index ${previous.index}`);
      }
      if (entry.term < previous.term) {
        throw new Error(`append: term ${entry.term} at index ${entry.index} is lower than term ${previous.term} before it`);
      }
    }
    previous = entry;
  }
  const start = entries[0]!.index;
  if (firstIndex <= lastIndex && start > lastIndex + 1) {
    throw new Error(`append: entries start at index ${start}, leaving a gap after lastIndex ${lastIndex}`);
  }
}

/**
 * An in-memory log (`log[i]` has index `first + i`) after appending `entries`, which replace every held entry from
 * their first index on; checked by checkAppend first. The memory store and the simulator's disk share it.
 */
export function appendEntries(log: Entry[], first: number, entries: readonly Entry[]): { log: Entry[]; first: number } {
  if (entries.length === 0) return { log, first };
  checkAppend(entries, first, first + log.length - 1);
  const start = entries[0]!.index;
  if (log.length === 0 || start < first) return { log: entries.slice(), first: start };
  log.length = start - first;
  for (const entry of entries) log.push(entry);
  return { log, first };
}

export function checkCompact(index: number): void {
  if (!isIndex(index)) throw new Error(`compact: index ${String(index)} is not a non-negative integer`);
}

export function checkHardState(state: HardState): void {
  if (!isIndex(state.term)) throw new Error(`setHardState: term ${String(state.term)} is not a non-negative integer`);
  if (state.vote !== null && (typeof state.vote !== 'string' || state.vote === '')) {
    throw new Error(`setHardState: vote ${JSON.stringify(state.vote)} is neither a node id nor null`);
  }
  if (!isIndex(state.commit)) throw new Error(`setHardState: commit ${String(state.commit)} is not a non-negative integer`);
}

/** Copies only the fields we own, so extra properties never reach the disk and later mutation cannot leak in. */
export const copyHardState = (state: HardState): HardState => ({ term: state.term, vote: state.vote, commit: state.commit });

export function isConfiguration(value: unknown): value is Configuration {
  const isIds = (ids: unknown) => Array.isArray(ids) && ids.every((id) => typeof id === 'string');
  return typeof value === 'object' && value !== null && isIds((value as Configuration).voters) && isIds((value as Configuration).nonVoters);
}

export const copyMeta = (meta: SnapshotMeta): SnapshotMeta => ({
  index: meta.index,
  term: meta.term,
  // Addresses travel with the membership: a cluster restarted from snapshots alone must still find itself.
  configuration: {
    voters: [...meta.configuration.voters],
    nonVoters: [...meta.configuration.nonVoters],
    ...(meta.configuration.addresses ? { addresses: { ...meta.configuration.addresses } } : {}),
  },
});

/** Throws unless the snapshot's index, term and configuration are well formed. */
export function checkSnapshotMeta(meta: SnapshotMeta): void {
  if (!isIndex(meta.index)) throw new Error(`save: snapshot index ${String(meta.index)} is not a non-negative integer`);
  if (!isIndex(meta.term)) throw new Error(`save: snapshot term ${String(meta.term)} is not a non-negative integer`);
  if (!isConfiguration(meta.configuration)) throw new Error('save: snapshot configuration needs voters and nonVoters arrays of node ids');
}

export const notSerialisable = (data: unknown) => new Error(`save: snapshot data (${typeof data}) is not JSON-serialisable`);

/** Validates a snapshot for `save` and returns its data as JSON, as the memory store keeps it (the file store encodes
 * in pieces, chunked-json.ts). */
export function encodeSnapshot(snapshot: Snapshot): string {
  checkSnapshotMeta(snapshot.meta);
  const json = JSON.stringify(snapshot.data);
  if (json === undefined) throw notSerialisable(snapshot.data);
  return json;
}

/** Newest first: by index, then by term (a later term's snapshot at the same index replaces the earlier one). */
export const newestFirst = (a: Pick<SnapshotMeta, 'index' | 'term'>, b: Pick<SnapshotMeta, 'index' | 'term'>): number =>
  b.index - a.index || b.term - a.term;

export function checkRetain(retain: number): number {
  if (!Number.isSafeInteger(retain) || retain < 1) throw new Error(`snapshot store: retain ${String(retain)} must be an integer of at least 1`);
  return retain;
}

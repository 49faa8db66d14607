// The durable side of raft, one interface per role. The core keeps the live log in memory; these make it survive
// restarts. Every write resolves only once it is synced, because messages that depend on it follow.
import type { Entry, HardState, Snapshot, SnapshotMeta } from '../core/types.ts';

export interface LogStore {
  /** Index of the first entry held (after compaction), or lastIndex + 1 when empty. */
  firstIndex(): Promise<number>;
  lastIndex(): Promise<number>;
  /** Entries in [from, to] (inclusive), in order; missing ones are not returned. */
  entries(from: number, to: number): Promise<Entry[]>;
  /** Deletes every entry at or after entries[0].index, then appends `entries`; synced. */
  append(entries: readonly Entry[]): Promise<void>;
  /** Deletes every entry at or before `index` (they are in a snapshot). */
  compact(index: number): Promise<void>;
  /** Deletes every entry (a snapshot replaced the whole log). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export interface StableStore {
  hardState(): Promise<HardState | undefined>;
  setHardState(state: HardState): Promise<void>;
  close(): Promise<void>;
}

/** Log and hard state in one store, so a Ready's entries and hard state are synced in one write. */
export interface RaftStore extends LogStore, StableStore {
  /**
   * append(entries) and setHardState(state) as one atomic write; either may be empty. Synced unless `sync` is
   * false, which the node asks for only when nothing but the commit index changed (it is recomputed after a crash).
   */
  persist(entries: readonly Entry[], state: HardState | undefined, options?: { sync?: boolean }): Promise<void>;
}

export interface SnapshotStore {
  /** Writes the snapshot (temp file, fsync, rename) and keeps only the newest `retain`. */
  save(snapshot: Snapshot): Promise<void>;
  /** The newest snapshot whose checksum verifies, or undefined; corrupt ones are skipped. */
  latest(): Promise<Snapshot | undefined>;
  list(): Promise<SnapshotMeta[]>;
  close(): Promise<void>;
}

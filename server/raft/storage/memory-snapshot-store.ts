// The in-memory reference SnapshotStore, with the file store's semantics: data is kept as JSON (so later changes to
// the state machine's objects cannot reach a saved snapshot, and what comes back is what a file would give), only
// the newest `retain` are kept, and everything saved counts as synced.
import type { Snapshot, SnapshotMeta } from '../core/types.ts';
import type { SnapshotStore } from './raft-storage.ts';
import { checkRetain, copyMeta, encodeSnapshot, newestFirst } from './store-rules.ts';

export interface MemorySnapshotStoreOptions {
  /** How many snapshots to keep, newest by (index, term); default 5. */
  readonly retain?: number;
}

interface Kept {
  readonly meta: SnapshotMeta;
  readonly json: string;
}

export class MemorySnapshotStore implements SnapshotStore {
  private readonly retain: number;
  /** Newest first. */
  private kept: Kept[] = [];
  private closed = false;

  constructor(options: MemorySnapshotStoreOptions = {}) {
    this.retain = checkRetain(options.retain ?? 5);
  }

  /** An independent store holding the same snapshots, open even if this one is closed. */
  clone(): MemorySnapshotStore {
    const copy = new MemorySnapshotStore({ retain: this.retain });
    copy.kept = this.kept.slice();
    return copy;
  }

  async save(snapshot: Snapshot): Promise<void> {
    this.assertOpen();
    const json = encodeSnapshot(snapshot);
    const meta = copyMeta(snapshot.meta);
    // A second save at the same (index, term) replaces the first, as a rename over the same file name does.
    const others = this.kept.filter((kept) => kept.meta.index !== meta.index || kept.meta.term !== meta.term);
    this.kept = [...others, { meta, json }].sort((a, b) => newestFirst(a.meta, b.meta)).slice(0, this.retain);
  }

  async latest(): Promise<Snapshot | undefined> {
    this.assertOpen();
    const newest = this.kept[0];
    return newest === undefined ? undefined : { meta: copyMeta(newest.meta), data: JSON.parse(newest.json) as unknown };
  }

  async list(): Promise<SnapshotMeta[]> {
    this.assertOpen();
    return this.kept.map((kept) => copyMeta(kept.meta));
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('snapshot store is closed');
  }
}

// A simulated controller's disk: what survives its crashes. The raft log and hard state (the WAL), the snapshots and
// the model's applied state, each as the disk holds them; the stores below write to it through a process's
// SimIoQueue, so a write counts only once it has landed.
import type { Entry, HardState, NodeId, Snapshot, SnapshotMeta } from '../core/types.ts';
import type { RaftStore, SnapshotStore } from '../storage/raft-storage.ts';
import { appendEntries, checkCompact, checkHardState, copyHardState, copyMeta, encodeSnapshot, newestFirst } from '../storage/store-rules.ts';
import { DurableStateChecker } from './checkers/durable-state.ts';
import { SafetyViolation } from './checkers/safety-violation.ts';
import type { DurableLast, DurableView } from './checkers/durable-view.ts';
import type { SimIoQueue, WriteOutcome } from './sim-io.ts';

/** The model's state: the index of the last applied entry and a running hash of everything applied. */
export interface ModelState {
  readonly index: number;
  readonly hash: number;
}

/** Snapshots kept, newest first (as FileSnapshotStore's default retention). */
const defaultRetainedSnapshots = 2;

export class SimDisk implements DurableView {
  /** entries[i].index === first + i; when empty, first - 1 is the last index compacted away. */
  entries: Entry[] = [];
  first = 1;
  hardState: HardState | undefined;
  /** Newest first; the data as the file holds it (JSON). */
  snapshots: { readonly meta: SnapshotMeta; readonly json: string }[] = [];
  model: ModelState = { index: 0, hash: 0 };
  /** Writes issued while it is set fail with ENOSPC. */
  full = false;
  private readonly durableState: DurableStateChecker;

  /** `report` hears a broken durable-state rule at once, even from a write landing as its process crashes. */
  constructor(
    readonly node: NodeId,
    private readonly report: (violation: SafetyViolation) => void,
    private readonly retainedSnapshots = defaultRetainedSnapshots,
  ) {
    this.durableState = new DurableStateChecker(node);
  }

  termAt(index: number): number | 'covered' | undefined {
    const snapshot = this.snapshots[0]?.meta;
    if (snapshot && index < snapshot.index) return 'covered';
    if (index >= this.first && index <= this.lastIndex) return this.entries[index - this.first]!.term;
    if (snapshot && index === snapshot.index) return snapshot.term;
    return undefined;
  }

  last(): DurableLast {
    const snapshot = this.snapshots[0]?.meta;
    const entry = this.entries[this.entries.length - 1];
    if (entry && (!snapshot || entry.index > snapshot.index)) return { index: entry.index, term: entry.term };
    return snapshot ? { index: snapshot.index, term: snapshot.term } : { index: 0, term: 0 };
  }

  get lastIndex(): number {
    return this.first + this.entries.length - 1;
  }

  append(entries: readonly Entry[]): void {
    ({ log: this.entries, first: this.first } = appendEntries(this.entries, this.first, entries));
  }


  setHardState(state: HardState): void {
    checkHardState(state);
    this.hardState = copyHardState(state);
    try {
      this.durableState.check(this.hardState);
    } catch (error) {
      if (error instanceof SafetyViolation) this.report(error);
      else throw error;
    }
  }

  compact(index: number): void {
    checkCompact(index);
    if (index < this.first) return;
    this.entries = index >= this.lastIndex ? [] : this.entries.slice(index - this.first + 1);
    this.first = index + 1;
  }

  reset(): void {
    this.entries = [];
    this.first = 1;
  }

  /** Keeps an encoded snapshot; a second at the same (index, term) replaces the first, as a rename does. */
  saveSnapshot(meta: SnapshotMeta, json: string): void {
    const others = this.snapshots.filter((kept) => kept.meta.index !== meta.index || kept.meta.term !== meta.term);
    this.snapshots = [...others, { meta, json }].sort((a, b) => newestFirst(a.meta, b.meta)).slice(0, this.retainedSnapshots);
  }
}

/** The raft log and hard state of one process, on a SimDisk. Reads see what the disk holds (the node reads only at
 * start, when nothing of its own is in flight). */
export class SimRaftStore implements RaftStore {
  private closed = false;

  constructor(
    private readonly disk: SimDisk,
    private readonly io: SimIoQueue,
    private readonly outcome: () => WriteOutcome,
  ) {}

  async firstIndex(): Promise<number> {
    this.assertOpen();
    return this.disk.first;
  }

  async lastIndex(): Promise<number> {
    this.assertOpen();
    return this.disk.lastIndex;
  }

  async entries(from: number, to: number): Promise<Entry[]> {
    this.assertOpen();
    const { disk } = this;
    const start = Math.max(Math.ceil(from), disk.first) - disk.first;
    const end = Math.min(Math.floor(to), disk.lastIndex) - disk.first;
    return start > end ? [] : disk.entries.slice(start, end + 1);
  }

  async hardState(): Promise<HardState | undefined> {
    this.assertOpen();
    return this.disk.hardState;
  }

  append(entries: readonly Entry[]): Promise<void> {
    return this.write(() => this.disk.append(entries));
  }

  setHardState(state: HardState): Promise<void> {
    return this.write(() => this.disk.setHardState(state));
  }

  /** One record: entries and hard state land together or not at all. */
  persist(entries: readonly Entry[], state: HardState | undefined): Promise<void> {
    return this.write(() => {
      if (state) checkHardState(state);
      this.disk.append(entries);
      if (state) this.disk.setHardState(state);
    });
  }

  compact(index: number): Promise<void> {
    return this.write(() => this.disk.compact(index));
  }

  reset(): Promise<void> {
    return this.write(() => this.disk.reset());
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private write(land: () => void): Promise<void> {
    if (this.closed) return Promise.reject(new Error('raft store is closed'));
    return this.io.issue(this.outcome(), land);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('raft store is closed');
  }
}

/** The snapshot directory of one process: a save is a temp file, fsync and rename, so it lands whole or not at all. */
export class SimSnapshotStore implements SnapshotStore {
  private closed = false;

  constructor(
    private readonly disk: SimDisk,
    private readonly io: SimIoQueue,
    private readonly outcome: () => WriteOutcome,
  ) {}

  async save(snapshot: Snapshot): Promise<void> {
    this.assertOpen();
    // Encoded when saved, as the file store writes it: later changes to the objects cannot reach it.
    const json = encodeSnapshot(snapshot);
    const meta = copyMeta(snapshot.meta);
    await this.io.issue(this.outcome(), () => this.disk.saveSnapshot(meta, json));
  }

  async latest(): Promise<Snapshot | undefined> {
    this.assertOpen();
    const newest = this.disk.snapshots[0];
    return newest && { meta: copyMeta(newest.meta), data: JSON.parse(newest.json) as unknown };
  }

  async list(): Promise<SnapshotMeta[]> {
    this.assertOpen();
    return this.disk.snapshots.map((kept) => copyMeta(kept.meta));
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('snapshot store is closed');
  }
}

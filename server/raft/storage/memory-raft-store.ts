// The in-memory reference LogStore and StableStore, with the same semantics as the LevelDB store. Everything it holds
// counts as synced, so a simulated crash keeps all of it; clone() gives a restarted node its own copy.
// Entries are kept by reference (never copied) because they are immutable and the simulator appends many.
import type { Entry, HardState } from '../core/types.ts';
import type { RaftStore } from './raft-storage.ts';
import { appendEntries, checkCompact, checkHardState, copyHardState } from './store-rules.ts';

export class MemoryRaftStore implements RaftStore {
  /**
   * `log[i]` has index `first + i`. When the log is empty, `first - 1` is the last index compacted away (0 if none),
   * which is what lastIndex() reports, as the LevelDB store does.
   */
  private log: Entry[] = [];
  private first = 1;
  private state: HardState | undefined;
  private closed = false;

  /** An independent store holding the same state, open even if this one is closed. */
  clone(): MemoryRaftStore {
    const copy = new MemoryRaftStore();
    copy.log = this.log.slice();
    copy.first = this.first;
    copy.state = this.state;
    return copy;
  }

  async firstIndex(): Promise<number> {
    this.assertOpen();
    return this.first;
  }

  async lastIndex(): Promise<number> {
    this.assertOpen();
    return this.first + this.log.length - 1;
  }

  async entries(from: number, to: number): Promise<Entry[]> {
    this.assertOpen();
    const start = Math.max(Math.ceil(from), this.first) - this.first;
    const end = Math.min(Math.floor(to), this.first + this.log.length - 1) - this.first;
    return start > end ? [] : this.log.slice(start, end + 1);
  }

  async append(entries: readonly Entry[]): Promise<void> {
    this.assertOpen();
    ({ log: this.log, first: this.first } = appendEntries(this.log, this.first, entries));
  }


  async persist(entries: readonly Entry[], state: HardState | undefined): Promise<void> {
    if (state) checkHardState(state);
    await this.append(entries);
    if (state) await this.setHardState(state);
  }

  async compact(index: number): Promise<void> {
    this.assertOpen();
    checkCompact(index);
    if (index < this.first) return;
    const last = this.first + this.log.length - 1;
    this.log = index >= last ? [] : this.log.slice(index - this.first + 1);
    this.first = index + 1;
  }

  async reset(): Promise<void> {
    this.assertOpen();
    this.log = [];
    this.first = 1;
  }

  async hardState(): Promise<HardState | undefined> {
    this.assertOpen();
    return this.state;
  }

  async setHardState(state: HardState): Promise<void> {
    this.assertOpen();
    checkHardState(state);
    this.state = copyHardState(state);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('raft store is closed');
  }
}

// The core's view of the log: a snapshot boundary plus every entry after it, held in memory. Which entries are
// durable is tracked with `stableIndex`, so Ready hands the driver exactly the entries it has not yet persisted.
import { entryJson } from './entry-json.ts';
import type { Entry, Snapshot } from './types.ts';

/** What may be read of a log without changing it. */
export interface RaftLogView {
  readonly snapshotIndex: number;
  readonly committed: number;
  lastIndex(): number;
  term(index: number): number | undefined;
  entry(index: number): Entry | undefined;
}

export class RaftLog implements RaftLogView {
  /** Index and term of the last entry covered by the snapshot (0/0 for none). */
  snapshotIndex = 0;
  snapshotTerm = 0;
  /** entries[i].index === snapshotIndex + 1 + i */
  private entries: Entry[] = [];
  /** Entries with index <= stableIndex are durable; a truncation below it lowers it. */
  stableIndex = 0;
  committed = 0;
  /** Highest index handed to the driver for applying. */
  applied = 0;
  /** Lowest index removed by a conflicting append since the owner last looked (Infinity: none). */
  truncatedFrom = Infinity;

  static restore(snapshot: { index: number; term: number } | undefined, entries: readonly Entry[], committed: number, applied: number): RaftLog {
    const log = new RaftLog();
    if (snapshot) {
      log.snapshotIndex = snapshot.index;
      log.snapshotTerm = snapshot.term;
    }
    for (const entry of entries) {
      if (entry.index <= log.snapshotIndex) continue;
      if (entry.index !== log.lastIndex() + 1) throw new Error(`raft log: stored entries are not contiguous at ${entry.index}`);
      log.entries.push(entry);
    }
    log.stableIndex = log.lastIndex();
    // What the state machine durably applied was committed, even if the stored commit index lags behind it (it is
    // written with the entries, and a data dir from the one-voter log has none at all).
    log.committed = Math.max(Math.min(Math.max(committed, applied), log.lastIndex()), log.snapshotIndex);
    log.applied = Math.max(log.snapshotIndex, Math.min(applied, log.committed));
    return log;
  }

  firstIndex(): number {
    return this.snapshotIndex + 1;
  }

  lastIndex(): number {
    return this.snapshotIndex + this.entries.length;
  }

  lastTerm(): number {
    return this.entries.length > 0 ? this.entries[this.entries.length - 1]!.term : this.snapshotTerm;
  }

  /** Term of the entry at `index`; undefined when compacted away (below the snapshot) or beyond the end. */
  term(index: number): number | undefined {
    if (index === this.snapshotIndex) return this.snapshotTerm;
    if (index < this.snapshotIndex || index > this.lastIndex()) return undefined;
    return this.entries[index - this.snapshotIndex - 1]!.term;
  }

  entry(index: number): Entry | undefined {
    if (index <= this.snapshotIndex || index > this.lastIndex()) return undefined;
    return this.entries[index - this.snapshotIndex - 1];
  }

  /** Entries in [from, to], at most `maxEntries` and about `maxBytes` (always at least one). */
  slice(from: number, to: number, maxEntries = Infinity, maxBytes = Infinity): Entry[] {
    const start = Math.max(from, this.firstIndex());
    const end = Math.min(to, this.lastIndex());
    const out: Entry[] = [];
    let bytes = 0;
    const bounded = maxBytes !== Infinity;
    for (let index = start; index <= end && out.length < maxEntries; index++) {
      const entry = this.entries[index - this.snapshotIndex - 1]!;
      if (bounded) {
        bytes += approximateSize(entry);
        if (out.length > 0 && bytes > maxBytes) break;
      }
      out.push(entry);
    }
    return out;
  }

  matchTerm(index: number, term: number): boolean {
    return this.term(index) === term;
  }

  /** A candidate's log is at least as up to date as ours (§5.4.1). */
  isUpToDate(lastIndex: number, lastTerm: number): boolean {
    return lastTerm > this.lastTerm() || (lastTerm === this.lastTerm() && lastIndex >= this.lastIndex());
  }

  append(entries: readonly Entry[]): void {
    if (entries.length === 0) return;
    const first = entries[0]!.index;
    if (first > this.lastIndex() + 1) throw new Error(`raft log: gap appending ${first} after ${this.lastIndex()}`);
    if (first <= this.committed) throw new Error(`raft log: refusing to overwrite committed entry ${first} (committed ${this.committed})`);
    this.truncateFrom(first);
    for (const entry of entries) this.entries.push(entry);
  }

  /**
   * Follower side of AppendEntries once prevIndex/prevTerm matched: skips entries already present with the same
   * term, truncates at the first conflict, appends the rest. Returns the index of the last new entry.
   */
  maybeAppend(prevIndex: number, entries: readonly Entry[]): number {
    let index = 0;
    for (; index < entries.length; index++) {
      const entry = entries[index]!;
      if (entry.index <= this.snapshotIndex) continue;
      const existing = this.term(entry.index);
      if (existing === undefined || existing !== entry.term) break;
    }
    const rest = entries.slice(index);
    if (rest.length > 0) this.append(rest);
    return prevIndex + entries.length;
  }

  commitTo(index: number): boolean {
    const target = Math.min(index, this.lastIndex());
    if (target <= this.committed) return false;
    this.committed = target;
    return true;
  }

  /** The highest index that may be applied: committed and durable here, so what is applied never runs ahead of
   * the stored log (a restart rebuilds the log from the store and takes what was applied as committed). */
  applicable(): number {
    return Math.min(this.committed, this.stableIndex);
  }

  /**
   * Entries committed, durable here and not yet handed out for applying. Never entries of the same Ready's unstable
   * batch: the driver applies a Ready's committed entries while it persists that Ready's new ones.
   */
  nextCommitted(maxEntries = Infinity): Entry[] {
    const upTo = this.applicable();
    if (upTo <= this.applied) return [];
    return this.slice(this.applied + 1, upTo, maxEntries);
  }

  appliedTo(index: number): void {
    if (index > this.applied) this.applied = index;
  }

  /** Entries the driver has not persisted yet; the first one replaces whatever the store holds from its index. */
  unstableEntries(): Entry[] {
    return this.slice(this.stableIndex + 1, this.lastIndex());
  }

  /** Marks entries up to `index` durable, unless that entry was replaced since it was handed out. */
  stableTo(index: number, term: number): void {
    if (this.term(index) === term && index > this.stableIndex) this.stableIndex = index;
  }

  /** Drops entries up to and including `index` (they are covered by a snapshot at that index). */
  compact(index: number): void {
    if (index <= this.snapshotIndex) return;
    if (index > this.applied) throw new Error(`raft log: cannot compact ${index} beyond applied ${this.applied}`);
    const term = this.term(index)!;
    this.entries = this.entries.slice(index - this.snapshotIndex);
    this.snapshotIndex = index;
    this.snapshotTerm = term;
  }

  /** Replaces the whole log with a snapshot's boundary (an installed snapshot). */
  restoreSnapshot(snapshot: Snapshot): void {
    this.entries = [];
    this.snapshotIndex = snapshot.meta.index;
    this.snapshotTerm = snapshot.meta.term;
    this.committed = snapshot.meta.index;
    this.applied = snapshot.meta.index;
    this.stableIndex = snapshot.meta.index;
  }

  /** Finds the last index <= `index` whose term is <= `term`: the leader's jump on a rejected append. */
  findConflictByTerm(index: number, term: number): number {
    let probe = Math.min(index, this.lastIndex());
    while (probe > this.snapshotIndex) {
      const probeTerm = this.term(probe)!;
      if (probeTerm <= term) return probe;
      probe--;
    }
    return probe;
  }

  private truncateFrom(index: number): void {
    if (index <= this.lastIndex()) {
      this.entries.length = index - this.snapshotIndex - 1;
      if (this.stableIndex >= index) this.stableIndex = index - 1;
      this.truncatedFrom = Math.min(this.truncatedFrom, index);
    }
  }
}

/** An entry's size as sent: the length of its JSON, made once per entry and reused for the log file and frames. */
function approximateSize(entry: Entry): number {
  return entryJson(entry).length;
}

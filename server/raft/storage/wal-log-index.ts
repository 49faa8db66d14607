// The log's bounds and where each live entry sits on disk. Entry data stays on disk (entries() is only read at
// start-up); replay and live writes apply the same operations here, so a reopened store ends where the running one
// stopped.
export interface RecordLocation {
  readonly segment: number;
  readonly offset: number;
  readonly length: number;
}

export class WalLogIndex {
  /** locations[i] holds entry first + i; entries of one record share one object. Empty: first - 1 is the position. */
  private locations: RecordLocation[] = [];
  private start = 1;

  get first(): number {
    return this.start;
  }

  get last(): number {
    return this.start + this.locations.length - 1;
  }

  get empty(): boolean {
    return this.locations.length === 0;
  }

  /** The segment holding the oldest live entry: every earlier segment only holds entries that are gone. */
  get oldestSegment(): number | undefined {
    return this.locations[0]?.segment;
  }

  /** An empty log whose last compacted index is `position`. */
  startAt(position: number): void {
    this.locations = [];
    this.start = position + 1;
  }

  /** Entries from..to (checked by checkAppend) were written in the record at `location`. */
  append(from: number, to: number, location: RecordLocation): void {
    if (this.locations.length === 0 || from < this.start) {
      this.locations = [];
      this.start = from;
    } else {
      this.locations.length = from - this.start;
    }
    for (let index = from; index <= to; index++) this.locations.push(location);
  }

  /** As LevelRaftStore: nothing below firstIndex; past lastIndex, an empty log positioned at `index`. */
  compact(index: number): void {
    if (index < this.start) return;
    this.locations = index >= this.last ? [] : this.locations.slice(index - this.start + 1);
    this.start = index + 1;
  }

  /** Runs of consecutive entries in [from, to] that share a record, oldest first. */
  runs(from: number, to: number): Array<{ from: number; to: number; location: RecordLocation }> {
    const runs: Array<{ from: number; to: number; location: RecordLocation }> = [];
    for (let index = from; index <= to; index++) {
      const location = this.locations[index - this.start]!;
      const run = runs[runs.length - 1];
      if (run !== undefined && run.location === location) run.to = index;
      else runs.push({ from: index, to: index, location });
    }
    return runs;
  }
}

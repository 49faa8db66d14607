// A stable sort of rows by a string key (missing keys last, equal keys in the rows' given order) done a bounded slice
// at a time, so a build of 1M rows never holds the event loop for more than one slice (see slice-scheduler.ts). Each
// step() reads, compares or moves at most `sliceRows` rows: first the keys are read, then blocks of rows are sorted
// (a block is at most `sliceRows` rows), then the blocks are merged pairwise, bottom-up, resuming mid-merge, then the
// rows are laid out in order. The rows are a fixed copy: changes made meanwhile are the caller's to apply after.
// Pure: no timers; the caller decides when the next step runs.

export interface SortedResult<T> {
  readonly rows: T[];
  readonly keys: (string | undefined)[];
}

type Phase = 'keys' | 'blocks' | 'merge' | 'layout' | 'done';

export class SlicedSort<T> {
  private phase: Phase = 'keys';
  private readonly keys: (string | undefined)[];
  private src: Int32Array;
  private dst: Int32Array;
  private readonly block: number;
  /** Where the current phase has got to: the next row (keys, blocks, layout) or pair (merge). */
  private at = 0;
  private width: number;
  // The merge in progress: left run [i, mid), right run [j, hi), written from `out`.
  private merging = false;
  private i = 0;
  private mid = 0;
  private j = 0;
  private hi = 0;
  private out = 0;
  private outRows: T[] = [];
  private outKeys: (string | undefined)[] = [];
  /** The most rows one step handled (what bounds a slice; a test reads it). */
  rowsInLongestSlice = 0;

  constructor(
    private readonly rows: readonly T[],
    private readonly key: (row: T) => string | undefined,
    private readonly sliceRows: number,
  ) {
    if (!Number.isInteger(sliceRows) || sliceRows < 2) throw new Error(`sliced sort: sliceRows ${sliceRows} must be an integer of at least 2`);
    const n = rows.length;
    this.keys = new Array(n);
    this.src = new Int32Array(n);
    this.dst = new Int32Array(n);
    for (let k = 0; k < n; k++) this.src[k] = k;
    this.block = Math.min(sliceRows, 4096);
    this.width = this.block;
  }

  get done(): boolean {
    return this.phase === 'done';
  }

  /** Does at most `sliceRows` rows of work; true once the order is ready (result()). */
  step(): boolean {
    let budget = this.sliceRows;
    const n = this.rows.length;
    while (budget > 0 && this.phase !== 'done') {
      if (this.phase === 'keys') {
        const end = Math.min(n, this.at + budget);
        for (let k = this.at; k < end; k++) this.keys[k] = this.key(this.rows[k]!);
        budget -= end - this.at;
        this.at = end;
        if (end === n) this.next('blocks');
      } else if (this.phase === 'blocks') {
        const size = Math.min(this.block, n - this.at);
        // A whole block or nothing: a block never spans two slices.
        if (size > budget && budget < this.sliceRows) break;
        const keys = this.keys;
        this.src.subarray(this.at, this.at + size).sort((a, b) => compareKeys(keys[a], keys[b]) || a - b);
        budget -= size;
        this.at += size;
        if (this.at >= n) this.next(this.width >= n ? 'layout' : 'merge');
      } else if (this.phase === 'merge') {
        budget = this.mergeSome(budget);
      } else {
        const end = Math.min(n, this.at + budget);
        const order = this.src;
        for (let k = this.at; k < end; k++) {
          const from = order[k]!;
          this.outRows[k] = this.rows[from]!;
          this.outKeys[k] = this.keys[from];
        }
        budget -= end - this.at;
        this.at = end;
        if (end === n) this.next('done');
      }
    }
    this.rowsInLongestSlice = Math.max(this.rowsInLongestSlice, this.sliceRows - budget);
    return this.phase === 'done';
  }

  /** The rows in order and each one's key beside it; only once done. */
  result(): SortedResult<T> {
    if (this.phase !== 'done') throw new Error('sliced sort: result() before the sort is done');
    return { rows: this.outRows, keys: this.outKeys };
  }

  private next(phase: Phase): void {
    this.phase = phase;
    this.at = 0;
    if (phase === 'layout') {
      this.outRows = new Array(this.rows.length);
      this.outKeys = new Array(this.rows.length);
    }
  }

  /** Merges runs of `width` into runs of twice that, moving at most `budget` rows; gives back the budget left. */
  private mergeSome(budget: number): number {
    const n = this.rows.length;
    const keys = this.keys;
    while (budget > 0) {
      if (!this.merging) {
        if (this.at >= n) {
          [this.src, this.dst] = [this.dst, this.src];
          this.width *= 2;
          this.at = 0;
          if (this.width >= n) {
            this.next('layout');
            return budget;
          }
          continue;
        }
        this.i = this.at;
        this.mid = Math.min(this.at + this.width, n);
        this.j = this.mid;
        this.hi = Math.min(this.at + 2 * this.width, n);
        this.out = this.at;
        this.merging = true;
      }
      const { src, dst, mid, hi } = this;
      let { i, j, out } = this;
      const stop = Math.min(hi, out + budget);
      while (out < stop) {
        if (j >= hi || (i < mid && (compareKeys(keys[src[i]!], keys[src[j]!]) || src[i]! - src[j]!) <= 0)) dst[out++] = src[i++]!;
        else dst[out++] = src[j++]!;
      }
      budget -= out - this.out;
      this.i = i;
      this.j = j;
      this.out = out;
      if (out === hi) {
        this.merging = false;
        this.at = hi;
      }
    }
    return budget;
  }
}

/** Missing keys after present ones; strings by UTF-16 code units, as `<` compares them. */
export function compareKeys(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  return a < b ? -1 : 1;
}

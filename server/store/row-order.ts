// The rows of a table in id order, kept sorted as they change so a list never sorts the table: a sorted run of
// chunks, each at most `maxChunk` rows, found by binary search over each chunk's first id. A put or delete moves at
// most one chunk's rows. (It was one sorted array plus an unsorted tail merged in when it grew past an eighth of
// the array: at 150k identities each merge sorted ~19k ids and copied the whole array, 2-3% of a leader's CPU under
// writes, each merge left a megabyte-sized array for the collector, and a list after writes merged first: all() of
// 200k rows took 22-29 ms, now 1.5-4 ms. A put costs about the same, 1.6-2 µs at 150-200k rows.)
import type { Row } from './entity-table.ts';

export class RowOrder<T extends Row> {
  private chunks: T[][] = [];
  /** firsts[i] === chunks[i][0].id */
  private firsts: string[] = [];
  private count = 0;

  constructor(private readonly maxChunk = 256) {
    if (!Number.isInteger(maxChunk) || maxChunk < 2) throw new Error(`row order: maxChunk ${maxChunk} must be an integer of at least 2`);
  }

  get size(): number {
    return this.count;
  }

  /** Every row in id order (a new array). */
  rows(): T[] {
    const all: T[] = new Array(this.count);
    let k = 0;
    for (const chunk of this.chunks) for (let i = 0; i < chunk.length; i++) all[k++] = chunk[i]!;
    return all;
  }

  /** Inserts the row, or replaces the row with its id. */
  put(row: T): void {
    if (this.chunks.length === 0) {
      this.chunks.push([row]);
      this.firsts.push(row.id);
      this.count = 1;
      return;
    }
    const c = this.chunkFor(row.id);
    const chunk = this.chunks[c]!;
    const at = lowerBound(chunk, row.id);
    if (at < chunk.length && chunk[at]!.id === row.id) {
      chunk[at] = row;
      return;
    }
    // Shifted by hand: splice allocates an array of the removed rows, even when it removes none.
    chunk.push(row);
    for (let i = chunk.length - 1; i > at; i--) chunk[i] = chunk[i - 1]!;
    chunk[at] = row;
    this.count++;
    if (at === 0) this.firsts[c] = row.id;
    if (chunk.length > this.maxChunk) {
      const upper = chunk.splice(chunk.length >> 1);
      this.chunks.splice(c + 1, 0, upper);
      this.firsts.splice(c + 1, 0, upper[0]!.id);
    }
  }

  delete(id: string): void {
    if (this.chunks.length === 0) return;
    const c = this.chunkFor(id);
    const chunk = this.chunks[c]!;
    const at = lowerBound(chunk, id);
    if (at >= chunk.length || chunk[at]!.id !== id) return;
    chunk.splice(at, 1);
    this.count--;
    if (chunk.length === 0) {
      this.chunks.splice(c, 1);
      this.firsts.splice(c, 1);
    } else if (at === 0) {
      this.firsts[c] = chunk[0]!.id;
    }
  }

  /** The chunk an id belongs in: the last whose first id is not above it (the first chunk for an id below all). */
  private chunkFor(id: string): number {
    let low = 0;
    let high = this.firsts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (this.firsts[mid]! <= id) low = mid;
      else high = mid - 1;
    }
    return low;
  }
}

/** The position of the first row whose id is not below `id`. */
function lowerBound(rows: readonly Row[], id: string): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (rows[mid]!.id < id) low = mid + 1;
    else high = mid;
  }
  return low;
}

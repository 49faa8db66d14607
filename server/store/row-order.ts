// The rows of a table in id order, so a list never sorts the table: a sorted run of chunks, each at most `maxChunk`
// rows, found by binary search over each chunk's first id. Changes wait in a map keyed by id and reach the chunks
// when the order is next read or 1024 of them wait, placed in id order, one after another through neighbouring
// chunks. (Placed as they came, at 250k identities, puts were 5.6% of a leader's samples under writes, ~8 µs each
// against ~3 µs in a loop: cache misses over ~30 dependent loads; placed in batches in id order, 3.4%.)
// Each chunk keeps, beside its rows, a number per row that orders like the id (sortKey), in a Float64Array: a
// search compares numbers in one contiguous array instead of loading a row and then its id string from wherever the
// heap put them. Ids only go to a string comparison when their numbers tie. (In a loop at 250k rows, with garbage
// made between puts as a server makes it: 3.1 µs per put with string comparisons, 1.9 µs with the numbers.)
// (Before the chunks it was one sorted array plus an unsorted tail merged in when it grew past an eighth of the
// array: each merge sorted and copied the whole array on the write path, and all() of 200k rows after writes took
// 22-29 ms; now 1.5-4 ms, plus the backlog.)
import type { Row } from './entity-table.ts';

export class RowOrder<T extends Row> {
  private chunks: Chunk<T>[] = [];
  /** firstKeys[i] === chunks[i].keys[0]; firsts[i] === chunks[i].rows[0].id */
  private firstKeys: number[] = [];
  private firsts: string[] = [];
  private count = 0;
  /** Changes not yet in the chunks: the row put last, or null for a delete. */
  private readonly pending = new Map<string, T | null>();

  constructor(private readonly maxChunk = 256) {
    if (!Number.isInteger(maxChunk) || maxChunk < 2) throw new Error(`row order: maxChunk ${maxChunk} must be an integer of at least 2`);
  }

  get size(): number {
    this.settle();
    return this.count;
  }

  /** Changes waiting to be placed (fewer than 1024). */
  get backlog(): number {
    return this.pending.size;
  }

  /** Every row in id order (a new array). */
  rows(): T[] {
    this.settle();
    const all: T[] = new Array(this.count);
    let k = 0;
    for (const { rows } of this.chunks) for (let i = 0; i < rows.length; i++) all[k++] = rows[i]!;
    return all;
  }

  /** Visits every row in id order without copying them out; `visit` returns false to stop. The rows must not change
   * during the visit (a list reads them in one synchronous step). */
  each(visit: (row: T) => boolean | void): void {
    this.settle();
    for (const { rows } of this.chunks) {
      for (let i = 0; i < rows.length; i++) if (visit(rows[i]!) === false) return;
    }
  }

  /** Inserts the row, or replaces the row with its id. */
  put(row: T): void {
    this.wait(row.id, row);
  }

  delete(id: string): void {
    this.wait(id, null);
  }

  private wait(id: string, row: T | null): void {
    this.pending.set(id, row);
    if (this.pending.size >= maxPending) this.settle();
  }

  /** Brings the waiting changes into the chunks, in id order: each finds its chunk where the last one left the
   * cache warm. */
  private settle(): void {
    if (this.pending.size === 0) return;
    // The default sort orders strings by UTF-16 code units, as `<` compares them.
    const ids = [...this.pending.keys()].sort();
    for (const id of ids) {
      const row = this.pending.get(id)!;
      if (row === null) this.remove(id);
      else this.place(row);
    }
    this.pending.clear();
  }

  private place(row: T): void {
    const id = row.id;
    const key = sortKey(id);
    if (this.chunks.length === 0) {
      const chunk = newChunk(this.maxChunk, [row]);
      chunk.keys[0] = key;
      this.chunks.push(chunk);
      this.firstKeys.push(key);
      this.firsts.push(id);
      this.count = 1;
      return;
    }
    const c = this.chunkFor(id, key);
    const chunk = this.chunks[c]!;
    const { rows, keys } = chunk;
    const at = lowerBound(chunk, id, key);
    if (at < rows.length && keys[at] === key && rows[at]!.id === id) {
      rows[at] = row;
      return;
    }
    // Shifted by hand: splice allocates an array of the removed rows, even when it removes none.
    rows.push(row);
    for (let i = rows.length - 1; i > at; i--) rows[i] = rows[i - 1]!;
    rows[at] = row;
    keys.copyWithin(at + 1, at, rows.length - 1);
    keys[at] = key;
    this.count++;
    if (at === 0) {
      this.firstKeys[c] = key;
      this.firsts[c] = id;
    }
    if (rows.length > this.maxChunk) {
      const half = rows.length >> 1;
      const upper = newChunk(this.maxChunk, rows.splice(half));
      upper.keys.set(keys.subarray(half, half + upper.rows.length));
      this.chunks.splice(c + 1, 0, upper);
      this.firstKeys.splice(c + 1, 0, upper.keys[0]!);
      this.firsts.splice(c + 1, 0, upper.rows[0]!.id);
    }
  }

  private remove(id: string): void {
    if (this.chunks.length === 0) return;
    const key = sortKey(id);
    const c = this.chunkFor(id, key);
    const chunk = this.chunks[c]!;
    const { rows, keys } = chunk;
    const at = lowerBound(chunk, id, key);
    if (at >= rows.length || keys[at] !== key || rows[at]!.id !== id) return;
    rows.splice(at, 1);
    keys.copyWithin(at, at + 1, rows.length + 1);
    this.count--;
    if (rows.length === 0) {
      this.chunks.splice(c, 1);
      this.firstKeys.splice(c, 1);
      this.firsts.splice(c, 1);
    } else if (at === 0) {
      this.firstKeys[c] = keys[0]!;
      this.firsts[c] = rows[0]!.id;
    }
  }

  /** The chunk an id belongs in: the last whose first id is not above it (the first chunk for an id below all). */
  private chunkFor(id: string, key: number): number {
    const { firstKeys, firsts } = this;
    let low = 0;
    let high = firstKeys.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      const midKey = firstKeys[mid]!;
      if (midKey < key || (midKey === key && firsts[mid]! <= id)) low = mid;
      else high = mid - 1;
    }
    return low;
  }
}

interface Chunk<T> {
  rows: T[];
  /** keys[i] === sortKey(rows[i].id); room for one more row than a chunk holds, for the moment before a split. */
  keys: Float64Array;
}

function newChunk<T>(maxChunk: number, rows: T[] = []): Chunk<T> {
  return { rows, keys: new Float64Array(maxChunk + 1) };
}

/** Changes settle once this many wait, even if nothing reads: ~2.5 ms of placing at 250k rows. */
const maxPending = 1024;

const keyChars = 7;

/**
 * A number that orders as the id does, or ties: sortKey(a) <= sortKey(b) whenever a <= b (by UTF-16 code units).
 * The first 7 code units, 7 bits each (49 bits, exact in a double); a unit of 127 or more counts as 127 and ends
 * the key, since what follows it no longer decides the order of two ids that both saturate there.
 */
export function sortKey(id: string): number {
  let key = 0;
  let i = 0;
  for (; i < keyChars && i < id.length; i++) {
    const unit = id.charCodeAt(i);
    key = key * 128 + (unit < 127 ? unit : 127);
    if (unit >= 127) {
      i++;
      break;
    }
  }
  for (; i < keyChars; i++) key *= 128;
  return key;
}

/** The position of the first row whose id is not below `id`. */
function lowerBound<T extends Row>({ rows, keys }: Chunk<T>, id: string, key: number): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const midKey = keys[mid]!;
    if (midKey < key || (midKey === key && rows[mid]!.id < id)) low = mid + 1;
    else high = mid;
  }
  return low;
}

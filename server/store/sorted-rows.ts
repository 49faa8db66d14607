// A table's rows ordered by one string field, then by id, with the rows missing the field after all others (also by
// id): the order a list sorted by that field gives (server/web/query/sort.ts), so a page of `sort=name` over the whole
// table is read from a position instead of ranking every row (at 1M identities, 1.4 s of CPU per request).
// Built from the rows the first time it is read. Changes wait, one per id (the row it held when last placed, and the
// row it holds now), and are placed at the next read: each removal and insertion found by binary search, then one
// pass copying the array. When more changes wait than an eighth of the rows, the next read sorts afresh instead.
import type { Row, TableObserver } from './entity-table.ts';

export interface SortedRowsOptions<T> {
  /** The value rows are ordered by, or undefined when the row has none. */
  readonly key: (row: T) => string | undefined;
  /** Visits every current row (to build from). */
  readonly eachRow: (visit: (row: T) => void) => void;
}

interface Waiting<T> {
  /** The version of the row in the sorted array, if any. */
  readonly placed: T | undefined;
  /** The version the table holds now, if any. */
  now: T | undefined;
}

export class SortedRows<T extends Row> implements TableObserver<T> {
  private sorted: T[] | undefined;
  /** How many leading rows of `sorted` have a key: the rest are missing it. */
  private keyed = 0;
  private readonly waiting = new Map<string, Waiting<T>>();

  constructor(private readonly options: SortedRowsOptions<T>) {}

  changed(row: T | undefined, previous: T | undefined): void {
    if (!this.sorted) return;
    const id = (row ?? previous)!.id;
    const waiting = this.waiting.get(id);
    if (waiting) waiting.now = row;
    else this.waiting.set(id, { placed: previous, now: row });
    if (this.waiting.size > 1024 && this.waiting.size > this.sorted.length / 8) this.drop();
  }

  reset(): void {
    this.drop();
  }

  /** Every row in the order: `descending` reverses the keys, while equal keys (and missing ones, still last) keep id
   * order. `visit` returns false to stop. The rows must not change during the visit. */
  each(descending: boolean, visit: (row: T) => boolean | void): void {
    const rows = this.current();
    const keyed = this.keyed;
    if (!descending) {
      for (let i = 0; i < rows.length; i++) if (visit(rows[i]!) === false) return;
      return;
    }
    const { key } = this.options;
    let end = keyed;
    while (end > 0) {
      // The run of rows sharing the key that ends at `end`, visited in id order.
      const value = key(rows[end - 1]!);
      let start = end - 1;
      while (start > 0 && key(rows[start - 1]!) === value) start--;
      for (let i = start; i < end; i++) if (visit(rows[i]!) === false) return;
      end = start;
    }
    for (let i = keyed; i < rows.length; i++) if (visit(rows[i]!) === false) return;
  }

  private current(): T[] {
    if (!this.sorted) this.build();
    else if (this.waiting.size > 0) this.place();
    return this.sorted!;
  }

  private build(): void {
    const rows: T[] = [];
    this.options.eachRow((row) => rows.push(row));
    // eachRow gives id order and sort() is stable: equal keys stay in id order.
    const { key } = this.options;
    rows.sort((a, b) => compareKeys(key(a), key(b)));
    this.sorted = rows;
    this.keyed = countKeyed(rows, this.options.key);
  }

  /** Places the waiting changes: removes each placed version, inserts each current one, in one copy. Each is found
   * by binary search, so the copy is the only pass over every row. */
  private place(): void {
    const sorted = this.sorted!;
    const removed = new Set<number>();
    const inserted: T[] = [];
    for (const waiting of this.waiting.values()) {
      if (waiting.placed) {
        const at = this.lowerBound(sorted, waiting.placed);
        // Never expected (every change since the build waited here): sort afresh rather than serve a wrong order.
        if (sorted[at] !== waiting.placed) return this.rebuild();
        removed.add(at);
      }
      if (waiting.now) inserted.push(waiting.now);
    }
    this.waiting.clear();
    inserted.sort((a, b) => this.compare(a, b));
    const gaps = [...removed].sort((a, b) => a - b);
    let gap = 0;
    const next: T[] = new Array(sorted.length - removed.size + inserted.length);
    let k = 0;
    let from = 0;
    for (const row of inserted) {
      // Before the first placed row that does not sort before it (a former version of the row itself is removed).
      const at = this.lowerBound(sorted, row);
      for (; from < at; from++) {
        if (gaps[gap] === from) gap++;
        else next[k++] = sorted[from]!;
      }
      next[k++] = row;
    }
    for (; from < sorted.length; from++) {
      if (gaps[gap] === from) gap++;
      else next[k++] = sorted[from]!;
    }
    this.sorted = next;
    this.keyed = countKeyed(next, this.options.key);
  }

  /** The first position whose row does not sort before `row`. */
  private lowerBound(sorted: readonly T[], row: T): number {
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.compare(sorted[mid]!, row) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private rebuild(): void {
    this.waiting.clear();
    this.build();
  }

  private compare(a: T, b: T): number {
    const order = compareKeys(this.options.key(a), this.options.key(b));
    if (order !== 0) return order;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  }

  private drop(): void {
    this.sorted = undefined;
    this.keyed = 0;
    this.waiting.clear();
  }
}

// Missing keys after present ones; strings by UTF-16 code units, as `<` compares them.
function compareKeys(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  return a < b ? -1 : 1;
}

function countKeyed<T>(rows: readonly T[], key: (row: T) => string | undefined): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (key(rows[mid]!) === undefined) high = mid;
    else low = mid + 1;
  }
  return low;
}

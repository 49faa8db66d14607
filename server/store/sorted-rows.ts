// A table's rows ordered by one string field, then by id, with the rows missing the field after all others (also by
// id): the order a list sorted by that field gives (server/web/query/sort.ts), so a page of `sort=name` over the whole
// table is read from a position instead of ranking every row (at 1M identities, 1.4 s of CPU per request).
// Built from the rows the first time it is read. Changes wait, one per id (the row it held when last placed, and the
// row it holds now), and are placed at the next read: each removal and insertion found by binary search, then one
// pass copying the array. When more changes wait than an eighth of the rows, the next read sorts afresh instead.
// Each row's key is kept beside it (8 bytes a row), so searches and the descending walk compare strings without
// reading rows.
// Given a scheduler (slice-scheduler.ts), the build never runs inside a read: ready() starts it in the background, a
// bounded slice at a time (sliced-sort.ts, over a copy of the rows taken when it starts), and answers false until it
// is done, so the caller serves that request another way (list-query.ts: the bounded heap). Changes made meanwhile
// wait as changes after a build do (against the copy's version of each row) and are placed at the next read. At 1M
// names the build was one 4-5 s sort: a raft leader sent no heartbeats meanwhile.
import type { Row, TableObserver } from './entity-table.ts';
import type { SliceScheduler } from './slice-scheduler.ts';
import { defaultSliceRows } from './slice-scheduler.ts';
import { SlicedSort, compareKeys } from './sliced-sort.ts';

export interface SortedRowsOptions<T> {
  /** The value rows are ordered by, or undefined when the row has none. */
  readonly key: (row: T) => string | undefined;
  /** Visits every current row (to build from). */
  readonly eachRow: (visit: (row: T) => void) => void;
  /** Builds in the background, a slice at a time, when given; else the first read builds in one piece. */
  readonly schedule?: SliceScheduler;
  /** Rows a slice handles at most (default defaultSliceRows). */
  readonly sliceRows?: number;
}

interface Waiting<T> {
  /** The version of the row in the sorted array, if any. */
  readonly placed: T | undefined;
  /** The version the table holds now, if any. */
  now: T | undefined;
}

export class SortedRows<T extends Row> implements TableObserver<T> {
  private sorted: T[] | undefined;
  /** keys[i] is the key of sorted[i]. */
  private keys: (string | undefined)[] = [];
  /** How many leading rows of `sorted` have a key: the rest are missing it. */
  private keyed = 0;
  private readonly waiting = new Map<string, Waiting<T>>();
  /** The background build under way, with the number of rows it sorts. */
  private building: { readonly sort: SlicedSort<T>; readonly size: number } | undefined;
  /** Background builds finished (a test tells a kept order from a rebuilt one). */
  builds = 0;
  private lastSliceRows = 0;

  constructor(private readonly options: SortedRowsOptions<T>) {}

  changed(row: T | undefined, previous: T | undefined): void {
    const size = this.sorted?.length ?? this.building?.size;
    if (size === undefined) return;
    const id = (row ?? previous)!.id;
    const waiting = this.waiting.get(id);
    if (waiting) waiting.now = row;
    else this.waiting.set(id, { placed: previous, now: row });
    if (this.waiting.size > 1024 && this.waiting.size > size / 8) this.drop();
  }

  /** Whether each() answers now without building. Without a scheduler, always (each() builds in one piece); with one,
   * a missing order starts its background build and this answers false until it is done. */
  ready(): boolean {
    if (!this.options.schedule) return true;
    if (this.sorted && this.waiting.size > 0) this.place();
    if (this.sorted) return true;
    if (!this.building) this.startBuild();
    return false;
  }

  /** The longest slice, in rows, of the build under way or the last one (0 before any). */
  get rowsInLongestSlice(): number {
    return this.lastSliceRows;
  }

  reset(): void {
    this.drop();
  }

  /** Every row in the order: `descending` reverses the keys, while equal keys (and missing ones, still last) keep id
   * order. `visit` returns false to stop. The rows must not change during the visit. */
  each(descending: boolean, visit: (row: T) => boolean | void): void {
    const rows = this.current();
    const { keys, keyed } = this;
    if (!descending) {
      for (let i = 0; i < rows.length; i++) if (visit(rows[i]!) === false) return;
      return;
    }
    let end = keyed;
    while (end > 0) {
      // The run of rows sharing the key that ends at `end`, visited in id order.
      const value = keys[end - 1];
      let start = end - 1;
      while (start > 0 && keys[start - 1] === value) start--;
      for (let i = start; i < end; i++) if (visit(rows[i]!) === false) return;
      end = start;
    }
    for (let i = keyed; i < rows.length; i++) if (visit(rows[i]!) === false) return;
  }

  private current(): T[] {
    if (this.sorted && this.waiting.size > 0) this.place();
    if (!this.sorted) this.build();
    return this.sorted!;
  }

  private startBuild(): void {
    const rows: T[] = [];
    // Pointers only, in id order: the key reads and comparisons are the sort's, a slice at a time.
    this.options.eachRow((row) => void rows.push(row));
    const sort = new SlicedSort(rows, this.options.key, this.options.sliceRows ?? defaultSliceRows);
    const build = { sort, size: rows.length };
    this.building = build;
    const slice = () => {
      // Dropped (a reset, too many changes) or replaced meanwhile: this build's result would be stale.
      if (this.building !== build) return;
      let done: boolean;
      try {
        done = sort.step();
      } catch {
        // A key that throws would throw in the list path too; here, in a scheduled step, it would end the process.
        this.building = undefined;
        this.waiting.clear();
        return;
      } finally {
        this.lastSliceRows = sort.rowsInLongestSlice;
      }
      if (!done) return this.options.schedule!(slice);
      this.building = undefined;
      this.builds++;
      const { rows: ordered, keys } = sort.result();
      this.set(ordered, keys);
    };
    this.options.schedule!(slice);
  }

  /** The order in one piece, from the rows as they are now (a background build under way is dropped). */
  private build(): void {
    this.building = undefined;
    this.waiting.clear();
    const { key } = this.options;
    const entries: { readonly key: string | undefined; readonly row: T }[] = [];
    this.options.eachRow((row) => entries.push({ key: key(row), row }));
    // eachRow gives id order and sort() is stable: equal keys stay in id order.
    entries.sort((a, b) => compareKeys(a.key, b.key));
    this.set(
      entries.map((entry) => entry.row),
      entries.map((entry) => entry.key),
    );
  }

  /** Places the waiting changes: removes each placed version, inserts each current one, in one copy. Each is found
   * by binary search, so the copy is the only pass over every row. */
  private place(): void {
    const sorted = this.sorted!;
    const keys = this.keys;
    const { key } = this.options;
    const gaps: number[] = [];
    const inserted: { readonly key: string | undefined; readonly row: T }[] = [];
    for (const waiting of this.waiting.values()) {
      if (waiting.placed) {
        const at = lowerBound(sorted, keys, key(waiting.placed), waiting.placed.id);
        // Never expected (every change since the build waited here): sort afresh rather than serve a wrong order.
        if (sorted[at] !== waiting.placed) return this.rebuild();
        gaps.push(at);
      }
      if (waiting.now) inserted.push({ key: key(waiting.now), row: waiting.now });
    }
    this.waiting.clear();
    gaps.sort((a, b) => a - b);
    inserted.sort((a, b) => compareKeys(a.key, b.key) || (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0));
    const size = sorted.length - gaps.length + inserted.length;
    const nextRows: T[] = new Array(size);
    const nextKeys: (string | undefined)[] = new Array(size);
    let k = 0;
    let from = 0;
    let gap = 0;
    const copyTo = (end: number) => {
      for (; from < end; from++) {
        if (gaps[gap] === from) gap++;
        else {
          nextRows[k] = sorted[from]!;
          nextKeys[k++] = keys[from];
        }
      }
    };
    for (const entry of inserted) {
      // Before the first placed row that does not sort before it (a former version of the row itself is a gap).
      copyTo(lowerBound(sorted, keys, entry.key, entry.row.id));
      nextRows[k] = entry.row;
      nextKeys[k++] = entry.key;
    }
    copyTo(sorted.length);
    this.set(nextRows, nextKeys);
  }

  private set(rows: T[], keys: (string | undefined)[]): void {
    this.sorted = rows;
    this.keys = keys;
    // Missing keys sort last: the keyed rows are the ones before the first missing key.
    let low = 0;
    let high = keys.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (keys[mid] === undefined) high = mid;
      else low = mid + 1;
    }
    this.keyed = low;
  }

  private rebuild(): void {
    this.drop();
    // With a scheduler the next ready() starts a background build; this read is answered from the rows as they are.
    if (!this.options.schedule) this.build();
  }

  private drop(): void {
    this.building = undefined;
    this.sorted = undefined;
    this.keys = [];
    this.keyed = 0;
    this.waiting.clear();
  }
}

/** The first position whose row does not sort before (key, id). */
function lowerBound<T extends Row>(sorted: readonly T[], keys: readonly (string | undefined)[], key: string | undefined, id: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    const order = compareKeys(keys[mid], key);
    const before = order < 0 || (order === 0 && sorted[mid]!.id < id);
    if (before) low = mid + 1;
    else high = mid;
  }
  return low;
}

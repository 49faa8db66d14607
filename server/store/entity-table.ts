// An in-memory table of entities with unique and multi-value indexes. The model store keeps one per entity type
// and makes it durable; reads are served from here so the hot path never touches disk.
import { RowCompactor } from './row-compaction.ts';
import { RowOrder } from './row-order.ts';

export interface Row {
  readonly id: string;
}

export type IndexKey<T> = (row: T) => string | undefined | null;
/** The values a row is found by in a multi-value index (its role attributes): each string member, once. */
export type IndexKeys<T> = (row: T) => readonly unknown[] | undefined | null;

/** An index kept outside the table (server/store/substring-search.ts, sorted-rows.ts), told of every change after
 * the table's own indexes took it: a put gives the new row and the one it replaced, a delete no row and the removed
 * one; reset() after rebuildIndexes(). */
export interface TableObserver<T> {
  changed(row: T | undefined, previous: T | undefined): void;
  reset(): void;
}

export class UniqueIndexViolation extends Error {
  constructor(
    readonly table: string,
    readonly index: string,
    readonly value: string,
  ) {
    super(`duplicate value '${value}' in unique index on ${table} store`);
  }
}

export class EntityTable<T extends Row> {
  private readonly rows = new Map<string, T>();
  private readonly unique = new Map<string, { key: IndexKey<T>; map: Map<string, string> }>();
  private readonly multi = new Map<string, { key: IndexKey<T>; map: Map<string, Set<string>> }>();
  private readonly multiValue = new Map<string, { keys: IndexKeys<T>; map: Map<string, Set<string>> }>();
  /** Every row in id order: lists come in id order, and a whole-table sort per list stalls the controller (tens of
   * milliseconds at 100k rows, as does looking every id up again). See RowOrder. */
  private order = new RowOrder<T>();
  /** Equal values shared between rows (see RowCompactor): rows are most of the model's memory. */
  private readonly compactor = new RowCompactor();
  /** Rises with every put and delete: what a cache derived from the rows compares (server/edge/cache-keys.ts). */
  private changeCount = 0;
  private readonly observers: TableObserver<T>[] = [];

  constructor(readonly name: string) {}

  /** How many puts and deletes the table has had: equal numbers, the same rows. */
  get changes(): number {
    return this.changeCount;
  }

  uniqueIndex(index: string, key: IndexKey<T>): this {
    this.unique.set(index, { key, map: new Map() });
    return this;
  }

  multiIndex(index: string, key: IndexKey<T>): this {
    this.multi.set(index, { key, map: new Map() });
    return this;
  }

  /** An index where a row is found by each string of a list it holds (non-strings are skipped), for list filters
   * such as `anyOf(roleAttributes) = "x"`. */
  multiValueIndex(index: string, keys: IndexKeys<T>): this {
    this.multiValue.set(index, { keys, map: new Map() });
    return this;
  }

  observe(observer: TableObserver<T>): void {
    this.observers.push(observer);
  }

  get size(): number {
    return this.rows.size;
  }

  get(id: string): T | undefined {
    return this.rows.get(id);
  }

  /** Every row, in id order (the order lists use when no sort is asked for). */
  all(): T[] {
    return this.order.rows();
  }

  /** Visits every row in id order without copying the list (see RowOrder.each); `visit` returns false to stop. */
  eachRow(visit: (row: T) => boolean | void): void {
    this.order.each(visit);
  }

  /** How many rows findMany would give, without listing them. */
  countMany(index: string, value: string): number {
    const entry = this.multi.get(index);
    if (!entry) throw new Error(`no multi index ${index} on ${this.name}`);
    return entry.map.get(value)?.size ?? 0;
  }

  /** The rows holding `value` in a multi-value index, in no particular order. */
  findHolding(index: string, value: string): T[] {
    const entry = this.multiValue.get(index);
    if (!entry) throw new Error(`no multi-value index ${index} on ${this.name}`);
    const ids = entry.map.get(value);
    return ids ? [...ids].map((id) => this.rows.get(id)!) : [];
  }

  /** How many rows hold `value` in a multi-value index (0 when none), without listing them. */
  countHolding(index: string, value: string): number {
    const entry = this.multiValue.get(index);
    if (!entry) throw new Error(`no multi-value index ${index} on ${this.name}`);
    return entry.map.get(value)?.size ?? 0;
  }

  findUnique(index: string, value: string): T | undefined {
    const id = this.requireUnique(index).map.get(value);
    return id === undefined ? undefined : this.rows.get(id);
  }

  findMany(index: string, value: string): T[] {
    const entry = this.multi.get(index);
    if (!entry) throw new Error(`no multi index ${index} on ${this.name}`);
    const ids = entry.map.get(value);
    return ids ? [...ids].map((id) => this.rows.get(id)!) : [];
  }

  /** The unique-index clash `row` would cause, if any, without changing anything. */
  violationFor(row: T): UniqueIndexViolation | undefined {
    for (const [index, entry] of this.unique) {
      const value = entry.key(row);
      if (value === undefined || value === null) continue;
      const holder = entry.map.get(value);
      if (holder !== undefined && holder !== row.id) return new UniqueIndexViolation(this.name, index, value);
    }
    return undefined;
  }

  /** Inserts or replaces a row; throws UniqueIndexViolation and changes nothing on a clash. */
  put(row: T): T | undefined {
    const violation = this.violationFor(row);
    if (violation) throw violation;
    this.compactor.compact(row);
    const previous = this.rows.get(row.id);
    this.changeCount++;
    if (previous) this.unindex(previous);
    this.order.put(row);
    this.rows.set(row.id, row);
    this.index(row);
    for (const observer of this.observers) observer.changed(row, previous);
    return previous;
  }

  delete(id: string): T | undefined {
    const previous = this.rows.get(id);
    if (!previous) return undefined;
    this.changeCount++;
    this.unindex(previous);
    this.rows.delete(id);
    this.order.delete(id);
    for (const observer of this.observers) observer.changed(undefined, previous);
    return previous;
  }

  /** Where the indexes disagree with the rows, one sentence each ([] when they agree): a row its index key does not
   * reach, an entry naming a missing row or a row whose key is now different, two rows holding one unique value, the
   * id order missing or holding a row. Linear in the rows. The indexes live only in memory (the store keeps rows), so a
   * disagreement is a bug in this process, not in the replicated data. */
  indexDisagreements(): string[] {
    const found: string[] = [];
    for (const step of this.indexCheckSteps(found)) void step;
    return found;
  }

  /** A multi-row index's side of the check: every row a value points at exists and holds that value (`wrong` says how
   * a row does not). Pauses as indexCheckSteps does, reading the entry again after each pause. */
  private *pointerCheckSteps(label: string, map: Map<string, Set<string>>, pause: () => boolean, found: string[], wrong: (row: T, value: string) => string | undefined): Generator<void, void, void> {
    for (const [value, ids] of firstOf(map, map.size)) {
      for (const id of firstOf(ids, ids.size)) {
        if (pause()) {
          yield;
          if (!map.get(value)?.has(id)) continue;
        }
        const row = this.rows.get(id);
        const problem = row ? wrong(row, value) : 'which does not exist';
        if (problem !== undefined) found.push(`${label}: the value '${value}' points at row ${id}, ${problem}`);
      }
    }
  }

  /** The same check a slice at a time: it pauses (yields) after every `sliceRows` rows or entries it visits, so a
   * caller can let other work in between (at 100k rows a table takes 0.1-2 s). After a pause the row or entry at hand
   * is read again, so each comparison reads the table at one instant: puts and deletes change rows and indexes
   * together, and a change made during a pause is not mistaken for a disagreement. Each pass visits as many entries as
   * there were when it began, so writes during the pauses cannot keep it going (what they add was indexed by the put). */
  *indexCheckSteps(found: string[], sliceRows = 10_000): Generator<void, void, void> {
    let visited = 0;
    const pause = () => ++visited % sliceRows === 0;
    const at = (index: string) => `${this.name} index ${index}`;
    for (const [index, entry] of this.unique) {
      for (const visited of firstOf(this.rows.values(), this.rows.size)) {
        const row = pause() ? (yield, this.rows.get(visited.id)) : visited;
        if (!row) continue;
        const value = entry.key(row);
        if (value === undefined || value === null) continue;
        const holder = entry.map.get(value);
        if (holder === row.id) continue;
        // Another row holding the value too is a clash no index can hold; else this row is simply unreachable.
        const other = holder === undefined ? undefined : this.rows.get(holder);
        if (other && entry.key(other) === value) found.push(`${at(index)}: rows ${[holder, row.id].sort().join(' and ')} both hold the unique value '${value}'`);
        else found.push(`${at(index)}: row ${row.id} is not reachable by its value '${value}'`);
      }
      for (const [value, visited] of firstOf(entry.map, entry.map.size)) {
        const id = pause() ? (yield, entry.map.get(value)) : visited;
        if (id === undefined) continue;
        const row = this.rows.get(id);
        if (!row) found.push(`${at(index)}: the value '${value}' points at row ${id}, which does not exist`);
        else if (entry.key(row) !== value) found.push(`${at(index)}: the value '${value}' points at row ${id}, whose value is '${String(entry.key(row))}'`);
      }
    }
    for (const [index, entry] of this.multi) {
      for (const visited of firstOf(this.rows.values(), this.rows.size)) {
        const row = pause() ? (yield, this.rows.get(visited.id)) : visited;
        if (!row) continue;
        const value = entry.key(row);
        if (value !== undefined && value !== null && !entry.map.get(value)?.has(row.id)) found.push(`${at(index)}: row ${row.id} is not reachable by its value '${value}'`);
      }
      yield* this.pointerCheckSteps(at(index), entry.map, pause, found, (row, value) => (entry.key(row) === value ? undefined : `whose value is '${String(entry.key(row))}'`));
    }
    const holds = (values: readonly unknown[] | undefined | null, value: string) => Array.isArray(values) && values.includes(value);
    for (const [index, entry] of this.multiValue) {
      for (const visited of firstOf(this.rows.values(), this.rows.size)) {
        const row = pause() ? (yield, this.rows.get(visited.id)) : visited;
        if (!row) continue;
        const values = entry.keys(row);
        if (!Array.isArray(values)) continue;
        for (const value of values) {
          if (typeof value === 'string' && !entry.map.get(value)?.has(row.id)) found.push(`${at(index)}: row ${row.id} is not reachable by its value '${value}'`);
        }
      }
      yield* this.pointerCheckSteps(at(index), entry.map, pause, found, (row, value) => (holds(entry.keys(row), value) ? undefined : 'which does not hold it'));
    }
    // The id order is checked in one step: it is compared as a whole.
    const ordered = this.order.rows();
    for (const row of ordered) {
      if (this.rows.get(row.id) !== row) found.push(`${this.name} id order: lists ${this.rows.has(row.id) ? `a former version of row ${row.id}` : `row ${row.id}, which does not exist`}`);
    }
    // The order holds each id once, so as many rows as the table, all of them its rows, means none is missing.
    if (ordered.length !== this.rows.size || found.some((line) => line.startsWith(`${this.name} id order`))) {
      const listed = new Set(ordered.map((row) => row.id));
      for (const id of this.rows.keys()) if (!listed.has(id)) found.push(`${this.name} id order: row ${id} is missing from lists`);
    }
  }

  /** Builds every index and the id order again from the rows. Refused (UniqueIndexViolation, nothing changed) when
   * two rows hold one unique value: no index can hold both, and which row keeps it is not this table's call. */
  rebuildIndexes(): void {
    const unique = new Map<string, Map<string, string>>();
    for (const [index, entry] of this.unique) {
      const map = new Map<string, string>();
      for (const row of this.rows.values()) {
        const value = entry.key(row);
        if (value === undefined || value === null) continue;
        if (map.has(value)) throw new UniqueIndexViolation(this.name, index, value);
        map.set(value, row.id);
      }
      unique.set(index, map);
    }
    for (const [index, map] of unique) this.unique.get(index)!.map = map;
    for (const entry of this.multi.values()) entry.map = new Map();
    for (const entry of this.multiValue.values()) entry.map = new Map();
    const rows = [...this.rows.values()];
    for (const row of rows) this.indexMulti(row);
    this.order = new RowOrder<T>();
    for (const row of rows) this.order.put(row);
    for (const observer of this.observers) observer.reset();
  }

  private requireUnique(index: string) {
    const entry = this.unique.get(index);
    if (!entry) throw new Error(`no unique index ${index} on ${this.name}`);
    return entry;
  }

  private index(row: T): void {
    for (const entry of this.unique.values()) {
      const value = entry.key(row);
      if (value !== undefined && value !== null) entry.map.set(value, row.id);
    }
    this.indexMulti(row);
  }

  private indexMulti(row: T): void {
    for (const entry of this.multiValue.values()) {
      const values = entry.keys(row);
      if (!Array.isArray(values)) continue;
      for (const value of values) {
        if (typeof value !== 'string') continue;
        let ids = entry.map.get(value);
        if (!ids) entry.map.set(value, (ids = new Set()));
        ids.add(row.id);
      }
    }
    for (const entry of this.multi.values()) {
      const value = entry.key(row);
      if (value === undefined || value === null) continue;
      let ids = entry.map.get(value);
      if (!ids) entry.map.set(value, (ids = new Set()));
      ids.add(row.id);
    }
  }

  private unindex(row: T): void {
    for (const entry of this.multiValue.values()) {
      const values = entry.keys(row);
      if (!Array.isArray(values)) continue;
      for (const value of values) {
        if (typeof value !== 'string') continue;
        const ids = entry.map.get(value);
        ids?.delete(row.id);
        if (ids && ids.size === 0) entry.map.delete(value);
      }
    }
    for (const entry of this.unique.values()) {
      const value = entry.key(row);
      if (value !== undefined && value !== null && entry.map.get(value) === row.id) entry.map.delete(value);
    }
    for (const entry of this.multi.values()) {
      const value = entry.key(row);
      if (value === undefined || value === null) continue;
      const ids = entry.map.get(value);
      ids?.delete(row.id);
      if (ids && ids.size === 0) entry.map.delete(value);
    }
  }
}

/** The first `count` items of a live collection: rows put while a check pauses come at the end, and are not waited for. */
function* firstOf<T>(items: Iterable<T>, count: number): Generator<T, void, void> {
  if (count <= 0) return;
  let taken = 0;
  for (const item of items) {
    yield item;
    if (++taken >= count) return;
  }
}

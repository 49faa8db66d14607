// The durable model: in-memory entity tables backed by LevelDB. Every change arrives through apply, in memory at
// once; the rows touched since the last write and the applied raft index are written together in one atomic batch,
// so a crash never splits them. Writes trail the applies by a few milliseconds and never hold up the raft loop: one
// write covers every apply in that time (50 ms; a write per raft round cost each controller as much as the round's
// fsync), and a crash loses nothing, because the raft log is the durable record: at start, raft applies again every
// committed entry after the stored applied index (or restores a newer snapshot). Not synced, as before.
// A snapshot's rows are installed a slice at a time under a new key generation (`e<g>!table!id`) beside the current
// one, and one small synced write switches the generation: a crash part-way leaves the old rows and applied index,
// and no write holds the whole model
// (one LevelDB batch of 400k rows raised RSS by 562 MiB, slices of 2,000 by 178 MiB).
import { Level } from 'level';
import { EntityTable, type Row } from './entity-table.ts';
import { writeBatch } from './level-batch.ts';

const appliedIndexKey = 'meta!appliedIndex';
/** The raft term of the entry at the applied index (a backup names both). */
const appliedTermKey = 'meta!appliedTerm';
/** Which generation of row keys holds the rows (absent: 0, the `e!` keys of stores from before generations). */
const generationKey = 'meta!rowGeneration';
const rowPrefix = (generation: number) => (generation === 0 ? 'e!' : `e${generation}!`);
const rowKey = (generation: number, table: string, id: string) => `${rowPrefix(generation)}${table}!${id}`;
/** Every row key of every generation lies in ['e', 'f'). */
const rowKeysFrom = 'e';
const rowKeysBefore = 'f';
/** Rows per LevelDB write when a snapshot is installed: bounded native memory per write. */
export const installRowsPerWrite = 2_000;

export interface EntityChange {
  readonly eventType: 'created' | 'updated' | 'deleted';
  readonly entityType: string;
  readonly id: string;
  readonly initialState?: Row;
  readonly finalState?: Row;
}

type Undo = { table: EntityTable<Row>; id: string; previous: Row | undefined };

/** One entry's changes: applied to memory as they go and undone in reverse on failure. */
export class ApplyTransaction {
  private readonly undo: Undo[] = [];
  readonly changes: EntityChange[] = [];

  constructor(
    private readonly store: ModelStore,
    private readonly dirty: Map<string, { table: string; id: string }>,
  ) {}

  table<T extends Row>(name: string): EntityTable<T> {
    return this.store.table<T>(name);
  }

  put<T extends Row>(tableName: string, row: T, options: { silent?: boolean } = {}): void {
    const table = this.store.table<T>(tableName);
    const previous = table.put(row);
    this.undo.push({ table: table as unknown as EntityTable<Row>, id: row.id, previous });
    this.dirty.set(`${tableName}!${row.id}`, { table: tableName, id: row.id });
    if (!options.silent) {
      this.changes.push(
        previous
          ? { eventType: 'updated', entityType: tableName, id: row.id, initialState: previous, finalState: row }
          : { eventType: 'created', entityType: tableName, id: row.id, finalState: row },
      );
    }
  }

  delete(tableName: string, id: string): Row | undefined {
    const table = this.store.table<Row>(tableName);
    const previous = table.delete(id);
    if (!previous) return undefined;
    this.undo.push({ table, id, previous });
    this.dirty.set(`${tableName}!${id}`, { table: tableName, id });
    this.changes.push({ eventType: 'deleted', entityType: tableName, id, initialState: previous });
    return previous;
  }

  rollback(): void {
    for (const step of this.undo.reverse()) {
      step.table.delete(step.id);
      if (step.previous) step.table.put(step.previous);
    }
    this.undo.length = 0;
    this.changes.length = 0;
  }
}

export class ModelStore {
  private readonly tables = new Map<string, EntityTable<Row>>();
  private applied = 0;
  private appliedTermValue = 0;
  /** The key generation the rows are stored under (see rowPrefix). */
  private generation = 0;
  /** Rows changed in memory since the last write began. */
  private readonly dirty = new Map<string, { table: string; id: string }>();
  private writing: Promise<void> = Promise.resolve();
  private writeInFlight = false;
  private writeTimer: NodeJS.Timeout | undefined;
  private writtenIndex = 0;
  private writeFailure: Error | undefined;
  private closing = false;
  private replacing = false;
  /** How long changes gather before a write: one batch per 50 ms under load instead of one per raft round (each
   * LevelDB write costs a thread-pool hand-off however few rows it holds); a crash replays at most this much. */
  private readonly writeDelayMs = 50;

  private constructor(
    private readonly db: Level<string, unknown>,
    tables: readonly EntityTable<Row>[],
  ) {
    for (const table of tables) this.tables.set(table.name, table);
  }

  /** Opens (creating if needed) the store at `path` and loads every row into memory. Rows of any other generation
   * (an install a crash cut short, or old rows an install had not yet deleted) are deleted. */
  static async open(path: string, tables: readonly EntityTable<Row>[]): Promise<ModelStore> {
    const db = new Level<string, unknown>(path, { valueEncoding: 'json' });
    await db.open();
    const store = new ModelStore(db, tables);
    for await (const [key, value] of db.iterator({ gte: 'meta!', lt: 'meta!~' })) {
      if (key === appliedIndexKey) {
        store.applied = value as number;
        store.writtenIndex = store.applied;
      } else if (key === appliedTermKey) store.appliedTermValue = value as number;
      else if (key === generationKey) store.generation = value as number;
    }
    const prefix = rowPrefix(store.generation);
    for await (const [key, value] of db.iterator({ gte: prefix, lt: `${prefix}~` })) {
      const [, tableName, id] = key.split('!');
      const table = tableName === undefined ? undefined : store.tables.get(tableName);
      if (!table || id === undefined) continue;
      table.put(value as Row);
    }
    await store.clearOtherGenerations();
    return store;
  }

  /** Deletes every row key outside the current generation. */
  private async clearOtherGenerations(): Promise<void> {
    const prefix = rowPrefix(this.generation);
    await this.db.clear({ gte: rowKeysFrom, lt: prefix });
    await this.db.clear({ gte: `${prefix}~`, lt: rowKeysBefore });
  }

  table<T extends Row>(name: string): EntityTable<T> {
    const table = this.tables.get(name);
    if (!table) throw new Error(`unknown table ${name}`);
    return table as unknown as EntityTable<T>;
  }

  /** Every table (the data-integrity check reads their indexes). */
  entityTables(): EntityTable<Row>[] {
    return [...this.tables.values()];
  }

  appliedIndex(): number {
    return this.applied;
  }

  /** The term of the entry at the applied index (0 when unknown: a store from before terms were kept). */
  appliedTerm(): number {
    return this.appliedTermValue;
  }

  /** Runs `work` for each entry, then persists every touched row with the last index in one batch. */
  async applyBatch<E extends { readonly index: number; readonly term?: number }, R>(items: readonly E[], work: (item: E, tx: ApplyTransaction) => R): Promise<R[]> {
    // A failed write stops the store (as it stopped the raft loop when writes were awaited): nothing more applies.
    if (this.writeFailure) throw this.writeFailure;
    const results = items.map((item) => work(item, new ApplyTransaction(this, this.dirty)));
    const lastItem = items[items.length - 1];
    if (lastItem === undefined) return results;
    this.applied = lastItem.index;
    if (lastItem.term !== undefined) this.appliedTermValue = lastItem.term;
    this.scheduleWrite();
    return results;
  }

  /** Waits until everything applied so far is written (tests and shutdown). */
  async flush(): Promise<void> {
    if (this.writeTimer !== undefined) {
      clearTimeout(this.writeTimer);
      this.writeTimer = undefined;
    }
    await this.writing;
    if (this.writeTimer !== undefined) clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
    if (this.writeFailure) throw this.writeFailure;
    if (this.dirty.size > 0 || this.writtenIndex !== this.applied) await this.writeDirty();
    if (this.writeFailure) throw this.writeFailure;
  }

  private scheduleWrite(): void {
    if (this.writeTimer !== undefined || this.writeInFlight || this.replacing) return;
    this.writeTimer = setTimeout(() => {
      this.writeTimer = undefined;
      void this.writeDirty();
    }, this.writeDelayMs);
  }

  private writeDirty(): Promise<void> {
    const dirty = [...this.dirty];
    this.dirty.clear();
    const applied = this.applied;
    const operations: Array<{ type: 'put'; key: string; value: unknown } | { type: 'del'; key: string }> = [];
    for (const [, { table, id }] of dirty) {
      const key = rowKey(this.generation, table, id);
      const row = this.table(table).get(id);
      operations.push(row ? { type: 'put', key, value: row } : { type: 'del', key });
    }
    operations.push({ type: 'put', key: appliedIndexKey, value: applied });
    operations.push({ type: 'put', key: appliedTermKey, value: this.appliedTermValue });
    this.writeInFlight = true;
    this.writing = writeBatch(this.db, operations).then(
      () => {
        this.writtenIndex = applied;
        this.writeInFlight = false;
        if ((this.dirty.size > 0 || this.writtenIndex !== this.applied) && !this.closing) this.scheduleWrite();
      },
      (error: Error) => {
        this.writeInFlight = false;
        this.writeFailure = new Error(`model store write failed: ${error.message}`, { cause: error });
      },
    );
    return this.writing;
  }

  /** Every row of every table, as of the applied index: a raft snapshot's data. */
  exportRows(): { appliedIndex: number; appliedTerm: number; tables: Record<string, Row[]> } {
    const tables: Record<string, Row[]> = {};
    for (const [name, table] of this.tables) tables[name] = table.all();
    return { appliedIndex: this.applied, appliedTerm: this.appliedTermValue, tables };
  }

  /** Replaces everything with a snapshot's rows, durably, with `index` as the applied index (see beginInstall). */
  async replaceAll(data: { tables: Record<string, Row[]>; appliedTerm?: number }, index: number): Promise<void> {
    const install = await this.beginInstall();
    try {
      for (const [name, rows] of Object.entries(data.tables)) {
        for (let from = 0; from < rows.length; from += installRowsPerWrite) await install.add(name, rows.slice(from, from + installRowsPerWrite));
      }
      await install.commit(index, typeof data.appliedTerm === 'number' ? data.appliedTerm : 0);
    } catch (error) {
      await install.abandon();
      throw error;
    }
  }

  /**
   * Starts replacing every row with a snapshot's, given a slice at a time (SnapshotInstall.add). Reads keep seeing
   * the current rows until commit. No pending write starts meanwhile (it would write the old applied index after
   * the snapshot's), and one in flight lands first.
   */
  async beginInstall(): Promise<SnapshotInstall> {
    if (this.replacing) throw new Error('a snapshot install is already under way');
    this.replacing = true;
    if (this.writeTimer !== undefined) clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
    try {
      await this.writing;
      if (this.writeTimer !== undefined) clearTimeout(this.writeTimer);
      this.writeTimer = undefined;
      const generation = this.generation + 1;
      // Leftovers of an install abandoned without a restart.
      const prefix = rowPrefix(generation);
      await this.db.clear({ gte: prefix, lt: `${prefix}~` });
      return new SnapshotInstall(this.db, generation, this.tables, (install) => this.switchTo(install), () => this.installEnded());
    } catch (error) {
      this.installEnded();
      throw error;
    }
  }

  private installEnded(): void {
    this.replacing = false;
    if (this.dirty.size > 0 || this.writtenIndex !== this.applied) this.scheduleWrite();
  }

  /** Makes an install's generation the current one: one synced write, then the tables in memory, then the old rows go. */
  private async switchTo(install: InstalledRows): Promise<void> {
    const previous = this.generation;
    await writeBatch(
      this.db,
      [
        { type: 'put', key: generationKey, value: install.generation },
        { type: 'put', key: appliedIndexKey, value: install.index },
        { type: 'put', key: appliedTermKey, value: install.term },
      ],
      { sync: true },
    );
    this.generation = install.generation;
    // Pending row writes are superseded by the snapshot's rows.
    this.dirty.clear();
    this.writtenIndex = install.index;
    for (const [name, table] of this.tables) {
      for (const row of table.all()) table.delete(row.id);
      for (const slice of install.rows.get(name) ?? []) for (const row of slice) table.put(row);
    }
    this.applied = install.index;
    this.appliedTermValue = install.term;
    const old = rowPrefix(previous);
    await this.db.clear({ gte: old, lt: `${old}~` });
  }

  /** A consistent check that the store answers reads (the `bolt.read` health check). */
  async ping(): Promise<void> {
    await this.db.get(appliedIndexKey);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.flush().catch(() => undefined);
    await this.db.close();
  }
}

interface InstalledRows {
  readonly generation: number;
  readonly index: number;
  readonly term: number;
  readonly rows: ReadonlyMap<string, readonly (readonly Row[])[]>;
}

/** A snapshot's rows on their way in (ModelStore.beginInstall): each slice is written at once under the install's own
 * key generation, and nothing changes for readers until commit. Abandoned, or cut short by a crash, it leaves the
 * store's rows and applied index as they were. */
export class SnapshotInstall {
  private readonly rows = new Map<string, (readonly Row[])[]>();
  private done = false;

  constructor(
    private readonly db: Level<string, unknown>,
    private readonly generation: number,
    private readonly tables: ReadonlyMap<string, EntityTable<Row>>,
    private readonly switchTo: (install: InstalledRows) => Promise<void>,
    private readonly release: () => void,
  ) {}

  /** Writes a slice of one table's rows (a table this model does not have is skipped, as before). */
  async add(table: string, rows: readonly Row[]): Promise<void> {
    if (this.done) throw new Error('the snapshot install is over');
    if (!this.tables.has(table) || rows.length === 0) return;
    const batch = this.db.batch();
    for (const row of rows) batch.put(rowKey(this.generation, table, row.id), row);
    await batch.write();
    let slices = this.rows.get(table);
    if (!slices) this.rows.set(table, (slices = []));
    slices.push(rows);
  }

  /** Switches the store to the installed rows, as of raft `index` and `term`. */
  async commit(index: number, term: number): Promise<void> {
    if (this.done) throw new Error('the snapshot install is over');
    this.done = true;
    try {
      await this.switchTo({ generation: this.generation, index, term, rows: this.rows });
    } finally {
      this.rows.clear();
      this.release();
    }
  }

  /** Drops what was written; the store keeps its rows. */
  async abandon(): Promise<void> {
    if (this.done) return;
    this.done = true;
    this.rows.clear();
    const prefix = rowPrefix(this.generation);
    try {
      await this.db.clear({ gte: prefix, lt: `${prefix}~` });
    } finally {
      this.release();
    }
  }
}

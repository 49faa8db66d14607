// The durable model: in-memory entity tables backed by LevelDB. Every change arrives through apply, in memory at
// once; the rows touched since the last write and the applied raft index are written together in one atomic batch,
// so a crash never splits them. Writes trail the applies by a few milliseconds and never hold up the raft loop: one
// write covers every apply in that time (50 ms; a write per raft round cost each controller as much as the round's
// fsync), and a crash loses nothing, because the raft log is the durable record: at start, raft applies again every
// committed entry after the stored applied index (or restores a newer snapshot). Not synced, as before.
import { Level } from 'level';
import { EntityTable, type Row } from './entity-table.ts';
import { writeBatch } from './level-batch.ts';

const appliedIndexKey = 'meta!appliedIndex';
/** The raft term of the entry at the applied index (a backup names both). */
const appliedTermKey = 'meta!appliedTerm';
const rowKey = (table: string, id: string) => `e!${table}!${id}`;

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
    this.dirty.set(rowKey(tableName, row.id), { table: tableName, id: row.id });
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
    this.dirty.set(rowKey(tableName, id), { table: tableName, id });
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

  /** Opens (creating if needed) the store at `path` and loads every row into memory. */
  static async open(path: string, tables: readonly EntityTable<Row>[]): Promise<ModelStore> {
    const db = new Level<string, unknown>(path, { valueEncoding: 'json' });
    await db.open();
    const store = new ModelStore(db, tables);
    for await (const [key, value] of db.iterator()) {
      if (key === appliedIndexKey) {
        store.applied = value as number;
        store.writtenIndex = store.applied;
        continue;
      }
      if (key === appliedTermKey) {
        store.appliedTermValue = value as number;
        continue;
      }
      const [, tableName, id] = key.split('!');
      const table = tableName === undefined ? undefined : store.tables.get(tableName);
      if (!table || id === undefined) continue;
      table.put(value as Row);
    }
    return store;
  }

  table<T extends Row>(name: string): EntityTable<T> {
    const table = this.tables.get(name);
    if (!table) throw new Error(`unknown table ${name}`);
    return table as unknown as EntityTable<T>;
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
    for (const [key, { table, id }] of dirty) {
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

  /** Replaces everything with a snapshot's rows, durably, with `index` as the applied index. */
  async replaceAll(data: { tables: Record<string, Row[]>; appliedTerm?: number }, index: number): Promise<void> {
    // Pending row writes are superseded by the snapshot's rows; one in flight must land first, and none may start
    // until the snapshot is written (it would write the old applied index over the snapshot's).
    this.replacing = true;
    try {
      await this.replaceRows(data, index);
    } finally {
      this.replacing = false;
    }
  }

  private async replaceRows(data: { tables: Record<string, Row[]>; appliedTerm?: number }, index: number): Promise<void> {
    if (this.writeTimer !== undefined) clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
    await this.writing;
    if (this.writeTimer !== undefined) clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
    this.dirty.clear();
    const operations: Array<{ type: 'put'; key: string; value: unknown } | { type: 'del'; key: string }> = [];
    for await (const key of this.db.keys({ gte: 'e!', lt: 'e!~' })) operations.push({ type: 'del', key });
    for (const [name, rows] of Object.entries(data.tables)) {
      if (!this.tables.has(name)) continue;
      for (const row of rows) operations.push({ type: 'put', key: rowKey(name, row.id), value: row });
    }
    const term = typeof data.appliedTerm === 'number' ? data.appliedTerm : 0;
    operations.push({ type: 'put', key: appliedIndexKey, value: index });
    operations.push({ type: 'put', key: appliedTermKey, value: term });
    await writeBatch(this.db, operations, { sync: true });
    this.writtenIndex = index;
    for (const [name, table] of this.tables) {
      for (const row of table.all()) table.delete(row.id);
      for (const row of data.tables[name] ?? []) table.put(row);
    }
    this.applied = index;
    this.appliedTermValue = term;
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

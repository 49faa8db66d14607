// The durable model: in-memory entity tables backed by LevelDB. Every change arrives through apply; the rows an
// entry touched and the applied raft index are written in one atomic batch, so a crash never splits them.
import { Level } from 'level';
import { EntityTable, type Row } from './entity-table.ts';

const appliedIndexKey = 'meta!appliedIndex';
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

  /** Runs `work` for each entry, then persists every touched row with the last index in one batch. */
  async applyBatch<E extends { readonly index: number }, R>(items: readonly E[], work: (item: E, tx: ApplyTransaction) => R): Promise<R[]> {
    const dirty = new Map<string, { table: string; id: string }>();
    const results = items.map((item) => work(item, new ApplyTransaction(this, dirty)));
    const last = items[items.length - 1]?.index;
    if (last === undefined) return results;
    const operations: Array<{ type: 'put'; key: string; value: unknown } | { type: 'del'; key: string }> = [];
    for (const [key, { table, id }] of dirty) {
      const row = this.table(table).get(id);
      operations.push(row ? { type: 'put', key, value: row } : { type: 'del', key });
    }
    operations.push({ type: 'put', key: appliedIndexKey, value: last });
    await this.db.batch(operations);
    this.applied = last;
    return results;
  }

  /** Every row of every table, as of the applied index: a raft snapshot's data. */
  exportRows(): { appliedIndex: number; tables: Record<string, Row[]> } {
    const tables: Record<string, Row[]> = {};
    for (const [name, table] of this.tables) tables[name] = table.all();
    return { appliedIndex: this.applied, tables };
  }

  /** Replaces everything with a snapshot's rows, durably, with `index` as the applied index. */
  async replaceAll(data: { tables: Record<string, Row[]> }, index: number): Promise<void> {
    const operations: Array<{ type: 'put'; key: string; value: unknown } | { type: 'del'; key: string }> = [];
    for await (const key of this.db.keys({ gte: 'e!', lt: 'e!~' })) operations.push({ type: 'del', key });
    for (const [name, rows] of Object.entries(data.tables)) {
      if (!this.tables.has(name)) continue;
      for (const row of rows) operations.push({ type: 'put', key: rowKey(name, row.id), value: row });
    }
    operations.push({ type: 'put', key: appliedIndexKey, value: index });
    await this.db.batch(operations, { sync: true });
    for (const [name, table] of this.tables) {
      for (const row of table.all()) table.delete(row.id);
      for (const row of data.tables[name] ?? []) table.put(row);
    }
    this.applied = index;
  }

  /** A consistent check that the store answers reads (the `bolt.read` health check). */
  async ping(): Promise<void> {
    await this.db.get(appliedIndexKey);
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}

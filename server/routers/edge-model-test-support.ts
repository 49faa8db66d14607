// For tests: the model's rows in maps a test changes, read as the store is (by table, all or by id, at an applied
// index), and the entity changes each edit makes, as the state machine would report them.
import type { EntityChange } from '../store/model-store.ts';
import type { RowReader } from './edge-model-delta.ts';

type Row = { id: string } & Record<string, unknown>;

export class EditableRows implements RowReader {
  private readonly tables = new Map<string, Map<string, Row>>();
  index = 1;

  table<T extends { id: string }>(name: string): { all(): T[]; get(id: string): T | undefined } {
    const rows = this.rowsOf(name);
    return { all: () => [...rows.values()] as unknown as T[], get: (id) => rows.get(id) as unknown as T | undefined };
  }

  appliedIndex(): number {
    return this.index;
  }

  /** Creates or replaces a row: the next index, and its change. */
  put(table: string, row: Row): EntityChange {
    const rows = this.rowsOf(table);
    const eventType = rows.has(row.id) ? 'updated' : 'created';
    rows.set(row.id, row);
    this.index++;
    return { eventType, entityType: table, id: row.id } as EntityChange;
  }

  delete(table: string, id: string): EntityChange {
    this.rowsOf(table).delete(id);
    this.index++;
    return { eventType: 'deleted', entityType: table, id } as EntityChange;
  }

  ids(table: string): string[] {
    return [...this.rowsOf(table).keys()];
  }

  private rowsOf(name: string): Map<string, Row> {
    let rows = this.tables.get(name);
    if (!rows) this.tables.set(name, (rows = new Map()));
    return rows;
  }
}

export const serviceRow = (id: string, roleAttributes: string[], configs: string[] = []): Row => ({ id, name: `service-${id}`, roleAttributes, configs, encryptionRequired: false });
export const policyRow = (id: string, type: 'Dial' | 'Bind', serviceRoles: string[]): Row => ({ id, name: `policy-${id}`, type, semantic: 'AnyOf', identityRoles: ['#all'], serviceRoles, postureCheckRoles: [] });
export const edgeRouterRow = (id: string, roleAttributes: string[], disabled = false): Row => ({ id, name: `router-${id}`, roleAttributes, isTunnelerEnabled: true, disabled });
export const configRow = (id: string, configTypeId: string, port: number): Row => ({ id, name: `config-${id}`, configTypeId, data: { protocol: 'tcp', address: '127.0.0.1', port } });

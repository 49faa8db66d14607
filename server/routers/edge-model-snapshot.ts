// The edge data model a router is sent: services and identities with their names and role attributes, read from the
// local store at its applied raft index (a router keeps the highest index it has seen).
import type { EdgeModel } from '../../common/control-channel/control-messages.ts';
import type { Identity } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import type { Service } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';

export interface ModelReader {
  table<T extends { id: string }>(name: string): { all(): T[] };
  appliedIndex(): number;
}

/** The tables whose changes make a new edge model. */
export const edgeModelTables: ReadonlySet<string> = new Set([serviceTables.services, tables.identities]);

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function edgeModelOf(store: ModelReader): { index: number; model: EdgeModel } {
  const entry = (row: { id: string; name: string; roleAttributes: readonly string[] }) => ({ id: row.id, name: row.name, roleAttributes: [...row.roleAttributes] });
  return {
    index: store.appliedIndex(),
    model: {
      services: store.table<Service>(serviceTables.services).all().sort(byId).map(entry),
      identities: store.table<Identity>(tables.identities).all().sort(byId).map(entry),
    },
  };
}

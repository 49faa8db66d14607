// The cluster's terminators as the API and the circuit planner see them: those the routers registered (presence:
// terminator-registry.ts), with the cost, precedence and tags an admin set on them, plus those an admin made
// (POST /terminators), from the model. One list for both, so a circuit goes where the API says it will.
import type { Row } from '../store/entity-table.ts';
import type { ModelStore } from '../store/model-store.ts';
import { terminatorTables, type AdminTerminator, type TerminatorSettings } from '../model/terminator-entities.ts';
import type { TerminatorDirectory, TerminatorRecord } from './terminator-directory.ts';

/** The model's terminator rows, read from a store (the live one, or a snapshot's). */
export interface TerminatorRows {
  table<T extends Row>(name: string): { all(): T[]; get(id: string): T | undefined };
}

/** An admin-made terminator as a directory record (it belongs to no controller's channel: controllerId ''). */
export function adminTerminatorRecord(row: AdminTerminator): TerminatorRecord {
  return {
    id: row.id,
    serviceId: row.serviceId,
    routerId: row.routerId,
    binding: row.binding,
    address: row.address,
    identity: row.identity,
    cost: row.cost,
    precedence: row.precedence,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    controllerId: '',
    tags: row.tags,
    origin: 'admin',
  };
}

/** Router-registered terminators with their admin settings applied, and the admin-made ones, in id order. */
export function mergeTerminators(registered: readonly TerminatorRecord[], rows: TerminatorRows): TerminatorRecord[] {
  const settings = rows.table<TerminatorSettings>(terminatorTables.terminatorSettings);
  const merged = registered.map((terminator) => withSettings(terminator, settings.get(terminator.id)));
  const ids = new Set(merged.map((terminator) => terminator.id));
  for (const row of rows.table<AdminTerminator>(terminatorTables.terminators).all()) if (!ids.has(row.id)) merged.push(adminTerminatorRecord(row));
  return merged.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A directory listing `registered`'s terminators merged with the model's. */
export function withModelTerminators(registered: TerminatorDirectory, store: ModelStore): TerminatorDirectory {
  return { list: async () => mergeTerminators(await registered.list(), store) };
}

/** One service's terminators, as mergeTerminators lists them (settings applied, the admin-made ones added), in id
 * order: what a circuit reads, by the service's index rather than a pass over every terminator. */
export function mergeServiceTerminators(registered: readonly TerminatorRecord[], serviceId: string, store: ModelStore): TerminatorRecord[] {
  const settings = store.table<TerminatorSettings>(terminatorTables.terminatorSettings);
  const merged = registered.map((terminator) => withSettings(terminator, settings.get(terminator.id)));
  const ids = new Set(merged.map((terminator) => terminator.id));
  for (const row of store.table<AdminTerminator>(terminatorTables.terminators).findMany('serviceId', serviceId)) if (!ids.has(row.id)) merged.push(adminTerminatorRecord(row));
  return merged.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A registered terminator with the cost, precedence and tags an admin set on it. */
function withSettings(terminator: TerminatorRecord, set: TerminatorSettings | undefined): TerminatorRecord {
  return set ? { ...terminator, cost: set.cost, precedence: set.precedence, tags: set.tags, updatedAt: set.updatedAt > terminator.updatedAt ? set.updatedAt : terminator.updatedAt } : terminator;
}

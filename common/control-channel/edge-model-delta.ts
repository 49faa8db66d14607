// A `ctrl.edgeModelDelta` applied to the edge model a router holds (control-messages.ts says when it applies). With
// thousands of routers, the whole model (every service, service policy and router: megabytes) sent to every router
// on every change was most of what a change cost; a delta carries only the rows that changed. Pure: model in, model
// out. The frame comes from a controller the router verified, but a malformed one is refused here, never half-applied.
import type { CtrlEdgeModelDelta, EdgeModel, EdgeModelRowsChange } from './control-messages.ts';

export type EdgeModelDeltaOutcome =
  | { readonly kind: 'applied'; readonly model: EdgeModel }
  /** The router already holds `index` or newer. */
  | { readonly kind: 'stale' }
  /** The router holds a model older than `fromIndex`: it needs the whole model. */
  | { readonly kind: 'gap' }
  | { readonly kind: 'malformed'; readonly reason: string };

/** At most this many rows changed or deleted per part of one delta (the controller sends the whole model past it). */
export const maxDeltaRowsPerPart = 100_000;

type Part = 'services' | 'servicePolicies' | 'edgeRouters';
const parts: readonly Part[] = ['services', 'servicePolicies', 'edgeRouters'];

/** The model at the delta's index, from the model held at `heldIndex`. */
export function applyEdgeModelDelta(heldIndex: number, held: EdgeModel, delta: CtrlEdgeModelDelta): EdgeModelDeltaOutcome {
  const problem = malformation(delta);
  if (problem) return { kind: 'malformed', reason: problem };
  if (heldIndex >= delta.index) return { kind: 'stale' };
  if (heldIndex < delta.fromIndex) return { kind: 'gap' };
  let model: EdgeModel = held;
  for (const part of parts) {
    const change = delta[part];
    if (change === undefined || (change.upserted.length === 0 && change.deleted.length === 0)) continue;
    model = { ...model, [part]: mergeRows((held[part] ?? []) as ReadonlyArray<{ readonly id: string }>, change) };
  }
  return { kind: 'applied', model };
}

/** The rows with the change made, ordered by id as the controller orders the whole model. */
function mergeRows<T extends { readonly id: string }>(rows: readonly T[], change: EdgeModelRowsChange<T>): T[] {
  const byId = new Map<string, T>();
  for (const row of rows) byId.set(row.id, row);
  for (const id of change.deleted) byId.delete(id);
  for (const row of change.upserted) byId.set(row.id, row);
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function malformation(delta: CtrlEdgeModelDelta): string | undefined {
  const value = delta as unknown as Record<string, unknown>;
  if (!isIndex(value.fromIndex) || !isIndex(value.index)) return 'fromIndex and index must be non-negative integers';
  if ((value.fromIndex as number) >= (value.index as number)) return 'fromIndex must be below index';
  for (const part of parts) {
    const change = value[part];
    if (change === undefined) continue;
    const reason = rowsChangeMalformation(change, part);
    if (reason) return reason;
  }
  return undefined;
}

function rowsChangeMalformation(change: unknown, part: Part): string | undefined {
  if (typeof change !== 'object' || change === null) return `${part} must be an object`;
  const { upserted, deleted } = change as { upserted?: unknown; deleted?: unknown };
  if (!Array.isArray(upserted) || !Array.isArray(deleted)) return `${part} must have upserted and deleted lists`;
  if (upserted.length > maxDeltaRowsPerPart || deleted.length > maxDeltaRowsPerPart) return `${part} has more than ${maxDeltaRowsPerPart} rows`;
  if (!deleted.every((id) => typeof id === 'string')) return `${part}.deleted must hold ids`;
  for (const row of upserted) {
    const reason = rowMalformation(row, part);
    if (reason) return `${part}.upserted: ${reason}`;
  }
  return undefined;
}

/** What every reader of the model relies on (ids, names, role lists): a row missing them would throw later. */
function rowMalformation(row: unknown, part: Part): string | undefined {
  if (typeof row !== 'object' || row === null) return 'a row must be an object';
  const fields = row as Record<string, unknown>;
  if (typeof fields.id !== 'string') return 'a row must have an id';
  if (part === 'servicePolicies') {
    if (!isStringList(fields.identityRoles) || !isStringList(fields.serviceRoles)) return 'a policy must have identityRoles and serviceRoles';
    if (fields.type !== 'Dial' && fields.type !== 'Bind') return 'a policy type must be Dial or Bind';
    if (fields.semantic !== 'AllOf' && fields.semantic !== 'AnyOf') return 'a policy semantic must be AllOf or AnyOf';
    return undefined;
  }
  if (typeof fields.name !== 'string' || !isStringList(fields.roleAttributes)) return 'a row must have a name and roleAttributes';
  if (part === 'services' && fields.configs !== undefined && (typeof fields.configs !== 'object' || fields.configs === null)) return 'configs must be an object';
  if (part === 'edgeRouters' && typeof fields.isTunnelerEnabled !== 'boolean') return 'a router must have isTunnelerEnabled';
  return undefined;
}

function isIndex(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isStringList(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

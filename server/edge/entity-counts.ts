// What `/summary` counts: one row per entity kind, named as the real controller names its stores, each with where
// its count comes from. A new kind of entity is one more row here.
import { configTables } from '../model/config-entities.ts';
import { tables } from '../model/entities.ts';
import { edgeRouterPolicyTables } from '../model/edge-router-policy-entities.ts';
import { routerTables, type EdgeRouter } from '../model/router-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { systemEdgeRouterPolicies } from './edge-router-access.ts';
import type { TerminatorDirectory } from './terminator-directory.ts';

export interface EntityCountSource {
  /** The key in `/summary`'s answer: the real controller's store name. */
  readonly kind: string;
  readonly count: () => number | Promise<number>;
}

/** The kinds of entity this controller has, each counted from its table (terminators: from the routers that hold them). */
export function entityCountSources(store: ModelStore, terminators: TerminatorDirectory): EntityCountSource[] {
  const rows = (table: string) => () => store.table(table).size;
  return [
    { kind: 'apiSessions', count: rows(tables.apiSessions) },
    { kind: 'authPolicies', count: rows(tables.authPolicies) },
    { kind: 'authenticators', count: rows(tables.authenticators) },
    { kind: 'cas', count: rows(tables.cas) },
    { kind: 'configTypes', count: rows(configTables.configTypes) },
    { kind: 'configs', count: rows(configTables.configs) },
    // One table holds edge and transit routers: the fabric's routers are all of them, the edge routers the others.
    { kind: 'edgeRouters', count: () => store.table<EdgeRouter>(routerTables.edgeRouters).all().filter((router) => !router.isTransitRouter).length },
    { kind: 'routers', count: rows(routerTables.edgeRouters) },
    { kind: 'enrollments', count: rows(tables.enrollments) },
    { kind: 'externalJwtSigners', count: rows(tables.externalJwtSigners) },
    { kind: 'identities', count: rows(tables.identities) },
    { kind: 'mfas', count: rows(tables.mfas) },
    { kind: 'postureChecks', count: rows(serviceTables.postureChecks) },
    { kind: 'servicePolicies', count: rows(serviceTables.servicePolicies) },
    { kind: 'services', count: rows(serviceTables.services) },
    { kind: 'sessions', count: rows(serviceTables.serviceSessions) },
    { kind: 'terminators', count: async () => (await terminators.list()).length },
    // The stored policies and the system one of each tunneler-enabled router, as the list shows them.
    { kind: 'edgeRouterPolicies', count: () => store.table(edgeRouterPolicyTables.edgeRouterPolicies).size + systemEdgeRouterPolicies(store.table<EdgeRouter>(routerTables.edgeRouters).all()).length },
    { kind: 'serviceEdgeRouterPolicies', count: rows(edgeRouterPolicyTables.serviceEdgeRouterPolicies) },
  ];
}

/** Every source's count, keyed by kind. */
export async function countEntities(sources: readonly EntityCountSource[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const source of sources) counts[source.kind] = await source.count();
  return counts;
}

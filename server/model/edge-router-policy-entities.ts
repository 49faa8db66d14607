// Which routers may be used: edge router policies (which identities may connect through which edge routers) and
// service edge router policies (which edge routers may carry which services), by roles as service policies are.
// The system policy a tunneler-enabled router's own identity needs is not stored: it is derived from the router row
// (edge-router-access.ts), so routers enrolled before these policies existed have it too.
import { EntityTable, type Row } from '../store/entity-table.ts';
import type { BaseEntity } from './base-entity.ts';
import type { RoleSemantic } from './service-entities.ts';

export interface EdgeRouterPolicy extends BaseEntity {
  readonly name: string;
  readonly semantic: RoleSemantic;
  readonly identityRoles: readonly string[];
  readonly edgeRouterRoles: readonly string[];
}

export interface ServiceEdgeRouterPolicy extends BaseEntity {
  readonly name: string;
  readonly semantic: RoleSemantic;
  readonly serviceRoles: readonly string[];
  readonly edgeRouterRoles: readonly string[];
}

export const edgeRouterPolicyTables = {
  edgeRouterPolicies: 'edgeRouterPolicies',
  serviceEdgeRouterPolicies: 'serviceEdgeRouterPolicies',
} as const;

export function createEdgeRouterPolicyTables(): EntityTable<Row>[] {
  return [
    new EntityTable<EdgeRouterPolicy>(edgeRouterPolicyTables.edgeRouterPolicies).uniqueIndex('name', (row) => row.name),
    new EntityTable<ServiceEdgeRouterPolicy>(edgeRouterPolicyTables.serviceEdgeRouterPolicies).uniqueIndex('name', (row) => row.name),
  ] as unknown as EntityTable<Row>[];
}

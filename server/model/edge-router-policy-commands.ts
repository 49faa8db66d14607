// Commands on edge router policies and service edge router policies, and how they apply. That every `@id` a policy
// adds names an existing entity is checked here, in log order, as service-commands.ts does for service policies.
import type { ApplyTransaction } from '../store/model-store.ts';
import type { EntityBody } from './commands.ts';
import type { EdgeRouterPolicy, ServiceEdgeRouterPolicy } from './edge-router-policy-entities.ts';
import { edgeRouterPolicyTables } from './edge-router-policy-entities.ts';
import { tables } from './entities.ts';
import { referencedIds } from './policy-roles.ts';
import { refuse, requireRow } from './require-row.ts';
import { routerTables } from './router-entities.ts';
import { serviceTables } from './service-entities.ts';

export type EdgeRouterPolicyCommand =
  | { type: 'edgeRouterPolicy.create'; policy: EdgeRouterPolicy }
  | { type: 'edgeRouterPolicy.update'; id: string; at: string; policy: EntityBody<EdgeRouterPolicy> }
  | { type: 'edgeRouterPolicy.delete'; id: string }
  | { type: 'serviceEdgeRouterPolicy.create'; policy: ServiceEdgeRouterPolicy }
  | { type: 'serviceEdgeRouterPolicy.update'; id: string; at: string; policy: EntityBody<ServiceEdgeRouterPolicy> }
  | { type: 'serviceEdgeRouterPolicy.delete'; id: string };

const commandTypes = new Set<string>([
  'edgeRouterPolicy.create',
  'edgeRouterPolicy.update',
  'edgeRouterPolicy.delete',
  'serviceEdgeRouterPolicy.create',
  'serviceEdgeRouterPolicy.update',
  'serviceEdgeRouterPolicy.delete',
]);

export function isEdgeRouterPolicyCommand(command: { type: string }): command is EdgeRouterPolicyCommand {
  return commandTypes.has(command.type);
}

const erpTable = edgeRouterPolicyTables.edgeRouterPolicies;
const serpTable = edgeRouterPolicyTables.serviceEdgeRouterPolicies;

/** Applies one command; refusals throw CommandRefused (see model-state-machine.ts). */
export function applyEdgeRouterPolicyCommand(command: EdgeRouterPolicyCommand, tx: ApplyTransaction): unknown {
  switch (command.type) {
    case 'edgeRouterPolicy.create':
      requireNamed(tx, erpLists(command.policy, undefined));
      tx.put<EdgeRouterPolicy>(erpTable, command.policy);
      return { id: command.policy.id };
    case 'edgeRouterPolicy.update': {
      const current = requireRow<EdgeRouterPolicy>(tx, erpTable, command.id, 'edge router policy');
      requireNamed(tx, erpLists(command.policy, current));
      tx.put<EdgeRouterPolicy>(erpTable, { ...command.policy, id: command.id, createdAt: current.createdAt, updatedAt: command.at });
      return undefined;
    }
    case 'edgeRouterPolicy.delete':
      requireRow<EdgeRouterPolicy>(tx, erpTable, command.id, 'edge router policy');
      tx.delete(erpTable, command.id);
      return undefined;
    case 'serviceEdgeRouterPolicy.create':
      requireNamed(tx, serpLists(command.policy, undefined));
      tx.put<ServiceEdgeRouterPolicy>(serpTable, command.policy);
      return { id: command.policy.id };
    case 'serviceEdgeRouterPolicy.update': {
      const current = requireRow<ServiceEdgeRouterPolicy>(tx, serpTable, command.id, 'service edge router policy');
      requireNamed(tx, serpLists(command.policy, current));
      tx.put<ServiceEdgeRouterPolicy>(serpTable, { ...command.policy, id: command.id, createdAt: current.createdAt, updatedAt: command.at });
      return undefined;
    }
    case 'serviceEdgeRouterPolicy.delete':
      requireRow<ServiceEdgeRouterPolicy>(tx, serpTable, command.id, 'service edge router policy');
      tx.delete(serpTable, command.id);
      return undefined;
  }
}

interface RoleList {
  readonly field: string;
  readonly entities: string;
  readonly roles: readonly string[];
  readonly held: readonly string[] | undefined;
  readonly exists: (id: string) => boolean;
}

function erpLists(policy: EntityBody<EdgeRouterPolicy>, current: EdgeRouterPolicy | undefined): (tx: ApplyTransaction) => RoleList[] {
  return (tx) => [
    // A tunneler-enabled router's identity has the router's id (as service policies read `@<router id>`).
    { field: 'identityRoles', entities: 'identities', roles: policy.identityRoles, held: current?.identityRoles, exists: (id) => tx.table(tables.identities).get(id) !== undefined || tx.table(routerTables.edgeRouters).get(id) !== undefined },
    { field: 'edgeRouterRoles', entities: 'edge routers', roles: policy.edgeRouterRoles, held: current?.edgeRouterRoles, exists: (id) => tx.table(routerTables.edgeRouters).get(id) !== undefined },
  ];
}

function serpLists(policy: EntityBody<ServiceEdgeRouterPolicy>, current: ServiceEdgeRouterPolicy | undefined): (tx: ApplyTransaction) => RoleList[] {
  return (tx) => [
    { field: 'serviceRoles', entities: 'services', roles: policy.serviceRoles, held: current?.serviceRoles, exists: (id) => tx.table(serviceTables.services).get(id) !== undefined },
    { field: 'edgeRouterRoles', entities: 'edge routers', roles: policy.edgeRouterRoles, held: current?.edgeRouterRoles, exists: (id) => tx.table(routerTables.edgeRouters).get(id) !== undefined },
  ];
}

/** Every `@id` a policy adds must name an existing entity of the right kind; ids it already held are kept as they are. */
function requireNamed(tx: ApplyTransaction, lists: (tx: ApplyTransaction) => RoleList[]): void {
  for (const { field, entities, roles, held, exists } of lists(tx)) {
    const missing = referencedIds(roles).filter((id) => !held?.includes(`@${id}`) && !exists(id));
    if (missing.length > 0) refuse('COULD_NOT_VALIDATE', field, `no ${entities} found with the given ids`, missing);
  }
}

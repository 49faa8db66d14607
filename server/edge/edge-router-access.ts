// Which edge routers an identity may connect through and a service may be carried by. An identity may use a router
// when an edge router policy selects both (its identity roles the identity, its edge router roles the router); a
// service may use a router when a service edge router policy selects both. A tunneler-enabled router's own identity
// (the router's id) is granted that router by a system policy, derived here from the router row as the real
// controller keeps one per such router. A transit router (/transit-routers) is no edge router: no policy selects it,
// and circuits pass through it whatever their service (routersCarryingService). Pure: rows in, grants out.
import type { EdgeRouterPolicy, ServiceEdgeRouterPolicy } from '../model/edge-router-policy-entities.ts';
import { rolesMatch, type RoleHolder } from '../model/policy-roles.ts';
import type { EdgeRouter } from '../model/router-entities.ts';

/** An edge router policy as the API shows it: stored ones, and the system ones derived from routers. */
export interface ShownEdgeRouterPolicy extends EdgeRouterPolicy {
  readonly isSystem: boolean;
}

export interface EdgeRouterPolicyRows {
  readonly routers: readonly EdgeRouter[];
  readonly policies: readonly EdgeRouterPolicy[];
}

/** The system policy's name (and id) for a router: the real controller's name for it. */
export function systemPolicyName(routerId: string): string {
  return `edge-router-${routerId}-system`;
}

/** Whether `id` is a system policy's: the same form as its name. */
export function isSystemPolicyId(id: string): boolean {
  return id.startsWith('edge-router-') && id.endsWith('-system');
}

/** The system policies, one per tunneler-enabled router: its own identity may use it. */
export function systemEdgeRouterPolicies(routers: readonly EdgeRouter[]): ShownEdgeRouterPolicy[] {
  return routers
    .filter((router) => router.isTunnelerEnabled)
    .map((router) => ({
      id: systemPolicyName(router.id),
      name: systemPolicyName(router.id),
      createdAt: router.createdAt,
      updatedAt: router.createdAt,
      tags: {},
      semantic: 'AnyOf',
      identityRoles: [`@${router.id}`],
      edgeRouterRoles: [`@${router.id}`],
      isSystem: true,
    }));
}

/** Stored policies then system ones. */
export function allEdgeRouterPolicies(rows: EdgeRouterPolicyRows): ShownEdgeRouterPolicy[] {
  return [...rows.policies.map((policy) => ({ ...policy, isSystem: false })), ...systemEdgeRouterPolicies(rows.routers)];
}

type RouterPolicy = Pick<EdgeRouterPolicy, 'semantic' | 'edgeRouterRoles'>;

/** The routers a policy's edge router roles select. */
export function routersOf(policy: RouterPolicy, routers: readonly EdgeRouter[]): EdgeRouter[] {
  return routers.filter((router) => !router.isTransitRouter && rolesMatch(policy.edgeRouterRoles, policy.semantic, router));
}

/** The edge router policies whose identity roles select the identity. */
export function edgeRouterPoliciesOf(identity: RoleHolder, policies: readonly ShownEdgeRouterPolicy[]): ShownEdgeRouterPolicy[] {
  return policies.filter((policy) => rolesMatch(policy.identityRoles, policy.semantic, identity));
}

/** The service edge router policies whose service roles select the service. */
export function serviceEdgeRouterPoliciesOf(service: RoleHolder, policies: readonly ServiceEdgeRouterPolicy[]): ServiceEdgeRouterPolicy[] {
  return policies.filter((policy) => rolesMatch(policy.serviceRoles, policy.semantic, service));
}

/** The edge router policies selecting the router (by their edge router roles). */
export function policiesSelectingRouter<P extends RouterPolicy>(router: RoleHolder, policies: readonly P[]): P[] {
  return policies.filter((policy) => rolesMatch(policy.edgeRouterRoles, policy.semantic, router));
}

/** The ids of the routers the identity may connect through. */
export function routersForIdentity(identity: RoleHolder, rows: EdgeRouterPolicyRows): Set<string> {
  return routerIdsOf(edgeRouterPoliciesOf(identity, allEdgeRouterPolicies(rows)), rows.routers);
}

/** The ids of the routers that may carry the service. */
export function routersForService(service: RoleHolder, policies: readonly ServiceEdgeRouterPolicy[], routers: readonly EdgeRouter[]): Set<string> {
  return routerIdsOf(serviceEdgeRouterPoliciesOf(service, policies), routers);
}

/**
 * The routers a circuit of the service may pass through: the edge routers its service edge router policies grant, and
 * every transit router (not an edge router: no policy selects it, and it carries any service between routers).
 */
export function routersCarryingService(service: RoleHolder, policies: readonly ServiceEdgeRouterPolicy[], routers: readonly EdgeRouter[]): Set<string> {
  const ids = routersForService(service, policies, routers);
  for (const router of routers) if (router.isTransitRouter) ids.add(router.id);
  return ids;
}

function routerIdsOf(policies: readonly RouterPolicy[], routers: readonly EdgeRouter[]): Set<string> {
  const ids = new Set<string>();
  for (const policy of policies) for (const router of routersOf(policy, routers)) ids.add(router.id);
  return ids;
}

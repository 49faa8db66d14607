// The edge router policy and service edge router policy rows indexed once, for many questions of whether an identity
// may use a router and whether a service may be carried by one. A circuit asks about a few routers (the ingress, the
// routers of the link graph, those hosting terminators), so the answer is worked out per router asked, never as the
// set of every router (at 5,000 routers and 2,500 policies that set took a second a circuit): the policies selecting
// the identity (or the service) are looked up by role (selecting-policies.ts), then matched against that router.
// Same answers as edge-router-access.ts's routersForIdentity and routersCarryingService: a tunneler-enabled router's
// own identity may use it (its system policy); a transit router is granted to no identity and carries every service.
// Answers are remembered per identity or service and router, bounded. Pure: rows in, answers out.
import { rolesMatch, type RoleHolder } from '../model/policy-roles.ts';
import type { EdgeRouterPolicy, ServiceEdgeRouterPolicy } from '../model/edge-router-policy-entities.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { holderKey } from '../edge/cache-keys.ts';
import { SelectingPolicies } from './selecting-policies.ts';

/** Whether a router is granted: what the circuit planner asks (a ReadonlySet answers it too). */
export interface RouterGrant {
  has(routerId: string): boolean;
}

export interface RouterGrantRows {
  readonly router: (id: string) => EdgeRouter | undefined;
  readonly edgeRouterPolicies: readonly EdgeRouterPolicy[];
  readonly serviceEdgeRouterPolicies: readonly ServiceEdgeRouterPolicy[];
}

/** Identities and services whose router answers are remembered at most (past it the oldest is forgotten). */
export const routerGrantHolderLimit = 50_000;
/** Routers remembered per identity or service. */
const routersPerHolder = 1_000;

export class RouterGrantIndex {
  private readonly identityPolicies: SelectingPolicies<EdgeRouterPolicy>;
  private readonly servicePolicies: SelectingPolicies<ServiceEdgeRouterPolicy>;
  private readonly identityGrants = new Map<string, RouterGrant>();
  private readonly serviceGrants = new Map<string, RouterGrant>();

  constructor(private readonly rows: RouterGrantRows) {
    this.identityPolicies = new SelectingPolicies(rows.edgeRouterPolicies, (policy) => policy.identityRoles);
    this.servicePolicies = new SelectingPolicies(rows.serviceEdgeRouterPolicies, (policy) => policy.serviceRoles);
  }

  /** The routers the identity's edge router policies grant it (its system policy included). */
  identityRouters(identity: RoleHolder): RouterGrant {
    return remembered(this.identityGrants, holderKey(identity), () => {
      const policies = this.identityPolicies.of(identity);
      return (router) => {
        if (router.isTransitRouter) return false;
        if (router.isTunnelerEnabled && router.id === identity.id) return true;
        return policies.some((policy) => rolesMatch(policy.edgeRouterRoles, policy.semantic, router));
      };
    }, this.rows.router);
  }

  /** The routers a circuit of the service may pass through: its service edge router policies' and every transit router. */
  serviceRouters(service: RoleHolder): RouterGrant {
    return remembered(this.serviceGrants, holderKey(service), () => {
      const policies = this.servicePolicies.of(service);
      return (router) => router.isTransitRouter === true || policies.some((policy) => rolesMatch(policy.edgeRouterRoles, policy.semantic, router));
    }, this.rows.router);
  }
}

function remembered(grants: Map<string, RouterGrant>, key: string, decide: () => (router: EdgeRouter) => boolean, router: (id: string) => EdgeRouter | undefined): RouterGrant {
  const known = grants.get(key);
  if (known) return known;
  const granted = decide();
  const answers = new Map<string, boolean>();
  const grant: RouterGrant = {
    has(routerId) {
      const answer = answers.get(routerId);
      if (answer !== undefined) return answer;
      const row = router(routerId);
      const decided = row !== undefined && granted(row);
      if (answers.size >= routersPerHolder) answers.clear();
      answers.set(routerId, decided);
      return decided;
    },
  };
  if (grants.size >= routerGrantHolderLimit) grants.delete(grants.keys().next().value!);
  grants.set(key, grant);
  return grant;
}

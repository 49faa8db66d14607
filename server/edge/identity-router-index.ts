// The routers an identity may connect through (edge-router-access.ts's routersForIdentity), from the edge router
// policy and router rows indexed once, for as long as those tables stay the same. routersForIdentity walked every
// policy (copying each) and, for each policy selecting the identity, every router: at 5,000 routers and 2,500
// policies 45-90 ms of CPU per `GET /current-identity/edge-routers`, p99 1.5 s in the 1M scale bench. Here the policies
// selecting an identity are found by its id and attributes (server/circuits/selecting-policies.ts), and each policy's
// routers are worked out once, from the routers filed by id and attribute (an AnyOf policy) or by matching each
// router (AllOf), then kept. Same answer: a tunneler-enabled router's own identity may use it (its system policy); a
// transit router is granted to no identity. Pure: rows in, answers out.
import type { EdgeRouterPolicy } from '../model/edge-router-policy-entities.ts';
import { allRole, rolesMatch, type RoleHolder } from '../model/policy-roles.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { SelectingPolicies } from '../circuits/selecting-policies.ts';

export interface IdentityRouterRows {
  readonly routers: readonly EdgeRouter[];
  readonly policies: readonly EdgeRouterPolicy[];
}

export class IdentityRouterIndex {
  private readonly selecting: SelectingPolicies<EdgeRouterPolicy>;
  /** Edge routers (transit routers left out) by id, and by each attribute they hold. */
  private readonly byId = new Map<string, EdgeRouter>();
  private readonly byAttribute = new Map<string, EdgeRouter[]>();
  private readonly edgeRouters: EdgeRouter[] = [];
  /** Each policy's router ids, once asked. */
  private readonly routersOfPolicy = new Map<string, readonly string[]>();

  constructor(rows: IdentityRouterRows) {
    this.selecting = new SelectingPolicies(rows.policies, (policy) => policy.identityRoles);
    for (const router of rows.routers) {
      if (router.isTransitRouter) continue;
      this.edgeRouters.push(router);
      this.byId.set(router.id, router);
      for (const attribute of new Set(router.roleAttributes)) {
        let list = this.byAttribute.get(attribute);
        if (!list) this.byAttribute.set(attribute, (list = []));
        list.push(router);
      }
    }
  }

  /** The ids of the routers the identity may connect through (a new set). */
  routerIdsFor(identity: RoleHolder): Set<string> {
    const ids = new Set<string>();
    for (const policy of this.selecting.of(identity)) for (const id of this.routersOf(policy)) ids.add(id);
    const own = this.byId.get(identity.id);
    if (own?.isTunnelerEnabled) ids.add(own.id);
    return ids;
  }

  private routersOf(policy: EdgeRouterPolicy): readonly string[] {
    const known = this.routersOfPolicy.get(policy.id);
    if (known) return known;
    const roles = policy.edgeRouterRoles;
    let found: EdgeRouter[];
    if (roles.length === 0) found = [];
    else if (roles.includes(allRole)) found = this.edgeRouters;
    else if (policy.semantic === 'AnyOf') {
      // As rolesMatch reads a role: `@<id>` names a router, anything else is an attribute after its first character.
      const selected = new Set<EdgeRouter>();
      for (const role of roles) {
        if (role.startsWith('@')) {
          const router = this.byId.get(role.slice(1));
          if (router) selected.add(router);
        } else for (const router of this.byAttribute.get(role.slice(1)) ?? []) selected.add(router);
      }
      found = [...selected];
    } else found = this.edgeRouters.filter((router) => rolesMatch(roles, policy.semantic, router));
    const ids = found.map((router) => router.id);
    this.routersOfPolicy.set(policy.id, ids);
    return ids;
  }
}

// Which policies select one entity by one of their role lists (a service policy's identity roles, a service edge
// router policy's service roles), without matching every policy against it: policies that select everyone (`#all`),
// AnyOf policies filed under each `@id` and attribute they name, and AllOf policies (matched one by one). The answer
// for an entity (its id and attributes) is remembered, up to `holderLimit` entities (past it the oldest is forgotten).
// Same answer as filtering every policy with rolesMatch, in policy id order. Pure: rows in, answers out.
import { allRole, rolesMatch, type RoleHolder } from '../model/policy-roles.ts';
import type { RoleSemantic } from '../model/service-entities.ts';
import { holderKey } from '../edge/cache-keys.ts';

export interface RolePolicy {
  readonly id: string;
  readonly semantic: RoleSemantic;
}

/** Entities whose selecting policies are remembered at most (per index). */
export const selectingPoliciesHolderLimit = 50_000;

export class SelectingPolicies<P extends RolePolicy> {
  private readonly everyone: P[] = [];
  private readonly byId = new Map<string, P[]>();
  private readonly byAttribute = new Map<string, P[]>();
  private readonly allOf: P[] = [];
  private readonly remembered = new Map<string, readonly P[]>();

  constructor(
    policies: readonly P[],
    private readonly rolesOf: (policy: P) => readonly string[],
    private readonly holderLimit = selectingPoliciesHolderLimit,
  ) {
    for (const policy of [...policies].sort(byId)) {
      const roles = rolesOf(policy);
      if (roles.length === 0) continue;
      if (roles.includes(allRole)) this.everyone.push(policy);
      else if (policy.semantic === 'AllOf') this.allOf.push(policy);
      // As rolesMatch reads a role: `@<id>` names an entity, anything else is an attribute after its first character.
      else for (const role of new Set(roles)) listIn(role.startsWith('@') ? this.byId : this.byAttribute, role.slice(1)).push(policy);
    }
  }

  /** The policies selecting `holder`, in policy id order. */
  of(holder: RoleHolder): readonly P[] {
    const key = holderKey(holder);
    const known = this.remembered.get(key);
    if (known) return known;
    const selecting = new Set<P>([...this.everyone, ...(this.byId.get(holder.id) ?? [])]);
    for (const attribute of holder.roleAttributes) for (const policy of this.byAttribute.get(attribute) ?? []) selecting.add(policy);
    for (const policy of this.allOf) if (rolesMatch(this.rolesOf(policy), policy.semantic, holder)) selecting.add(policy);
    const found = [...selecting].sort(byId);
    if (this.remembered.size >= this.holderLimit) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(key, found);
    return found;
  }
}

function byId(a: RolePolicy, b: RolePolicy): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function listIn<T>(map: Map<string, T[]>, key: string): T[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

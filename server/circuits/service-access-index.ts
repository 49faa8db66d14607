// The service-policy rows indexed once for a re-check pass over many live circuits: which services and posture
// checks each policy selects is worked out once, which policies select an identity once per identity (AnyOf
// policies looked up by the identity's id and attributes, not matched one by one), and then what one identity may do
// with one service is a lookup. Gives the same grants as service-access.ts's serviceAccessFor
// (policies in id order, each with the posture checks it requires), which works everything out again per identity:
// at 2,000 identities, 200 services and 200 policies that took 2 s a pass. Pure: rows in, answers out.
import { allRole, rolesMatch, type RoleHolder } from '../model/policy-roles.ts';
import type { PolicyGrant, AccessRows, ServiceAccess } from '../edge/service-access.ts';
import type { PostureCheck, Service, ServicePolicy, ServicePolicyType } from '../model/service-entities.ts';

export class ServiceAccessIndex {
  private readonly policies: readonly ServicePolicy[];
  private readonly services: ReadonlyMap<string, Service>;
  private readonly servicesOf = new Map<string, ReadonlySet<string>>();
  private readonly checksOf = new Map<string, readonly PostureCheck[]>();
  private readonly policiesOf = new Map<string, readonly ServicePolicy[]>();
  /** Policies selecting every identity (`#all`); AnyOf policies by the `@id` or attribute that selects; AllOf ones. */
  private readonly everyone: ServicePolicy[] = [];
  private readonly byId = new Map<string, ServicePolicy[]>();
  private readonly byAttribute = new Map<string, ServicePolicy[]>();
  private readonly allOf: ServicePolicy[] = [];

  constructor(private readonly rows: AccessRows) {
    this.policies = [...rows.policies].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.services = new Map(rows.services.map((service) => [service.id, service]));
    for (const policy of this.policies) {
      if (policy.identityRoles.length === 0) continue;
      if (policy.identityRoles.includes(allRole)) this.everyone.push(policy);
      else if (policy.semantic === 'AllOf') this.allOf.push(policy);
      // As rolesMatch reads a role: `@<id>` names an identity, anything else is an attribute after its first character.
      else for (const role of new Set(policy.identityRoles)) listIn(role.startsWith('@') ? this.byId : this.byAttribute, role.slice(1)).push(policy);
    }
  }

  /** What `holder` may do with the service (undefined: nothing), as serviceAccessFor(holder).get(serviceId). */
  accessFor(holder: RoleHolder, serviceId: string): ServiceAccess | undefined {
    const service = this.services.get(serviceId);
    if (!service) return undefined;
    const grants: PolicyGrant[] = [];
    for (const policy of this.policiesSelecting(holder)) {
      if (this.servicesSelectedBy(policy).has(serviceId)) grants.push({ policy, checks: this.checksRequiredBy(policy) });
    }
    if (grants.length === 0) return undefined;
    const permissions = (['Bind', 'Dial'] as const).filter((type: ServicePolicyType) => grants.some((grant) => grant.policy.type === type));
    return { service, permissions, grants };
  }

  private policiesSelecting(holder: RoleHolder): readonly ServicePolicy[] {
    let found = this.policiesOf.get(holder.id);
    if (found) return found;
    const selecting = new Set<ServicePolicy>([...this.everyone, ...(this.byId.get(holder.id) ?? [])]);
    for (const attribute of holder.roleAttributes) for (const policy of this.byAttribute.get(attribute) ?? []) selecting.add(policy);
    for (const policy of this.allOf) if (rolesMatch(policy.identityRoles, policy.semantic, holder)) selecting.add(policy);
    found = [...selecting].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.policiesOf.set(holder.id, found);
    return found;
  }

  private servicesSelectedBy(policy: ServicePolicy): ReadonlySet<string> {
    let found = this.servicesOf.get(policy.id);
    if (!found) this.servicesOf.set(policy.id, (found = new Set(this.rows.services.filter((service) => rolesMatch(policy.serviceRoles, policy.semantic, service)).map((service) => service.id))));
    return found;
  }

  private checksRequiredBy(policy: ServicePolicy): readonly PostureCheck[] {
    let found = this.checksOf.get(policy.id);
    if (!found) this.checksOf.set(policy.id, (found = this.rows.postureChecks.filter((check) => rolesMatch(policy.postureCheckRoles, policy.semantic, check))));
    return found;
  }
}

function listIn<T>(map: Map<string, T[]>, key: string): T[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

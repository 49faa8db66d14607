// The service-policy rows indexed once, for many questions of what one identity may do with one service (a re-check
// pass over live circuits; every `circuit.create` while the rows stay the same: dial-grants.ts). Which policies select
// an identity is looked up by its id and attributes (selecting-policies.ts), remembered per identity; whether such a
// policy selects the service is one match; the posture checks each policy requires are worked out once. Gives the same
// grants as service-access.ts's serviceAccessFor (policies in id order, each with the posture checks it requires),
// which works everything out again per identity: at 2,000 identities, 200 services and 200 policies that took 2 s a
// pass, and at 2,000 services and 2,500 policies 0.1 s a circuit. Pure: rows in, answers out.
import { rolesMatch, type RoleHolder } from '../model/policy-roles.ts';
import type { PolicyGrant, AccessRows, ServiceAccess } from '../edge/service-access.ts';
import type { PostureCheck, Service, ServicePolicy, ServicePolicyType } from '../model/service-entities.ts';
import { holderKey } from '../edge/cache-keys.ts';
import { SelectingPolicies } from './selecting-policies.ts';

/** Identity and service pairs whose answer is remembered at most (past it the oldest is forgotten). */
export const serviceAccessAnswerLimit = 100_000;

export class ServiceAccessIndex {
  private readonly services: ReadonlyMap<string, Service>;
  private readonly checksOf = new Map<string, readonly PostureCheck[]>();
  private readonly selecting: SelectingPolicies<ServicePolicy>;
  /** Answers by identity (id and attributes) and service, bounded: a busy dialer asks the same question per circuit. */
  private readonly answers = new Map<string, ServiceAccess | undefined>();

  constructor(private readonly rows: AccessRows) {
    this.services = new Map(rows.services.map((service) => [service.id, service]));
    this.selecting = new SelectingPolicies(rows.policies, (policy) => policy.identityRoles);
  }

  /** What `holder` may do with the service (undefined: nothing), as serviceAccessFor(holder).get(serviceId). */
  accessFor(holder: RoleHolder, serviceId: string): ServiceAccess | undefined {
    const key = `${holderKey(holder)}\u0001${serviceId}`;
    if (this.answers.has(key)) return this.answers.get(key);
    const answer = this.decide(holder, serviceId);
    if (this.answers.size >= serviceAccessAnswerLimit) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(key, answer);
    return answer;
  }

  private decide(holder: RoleHolder, serviceId: string): ServiceAccess | undefined {
    const service = this.services.get(serviceId);
    if (!service) return undefined;
    const grants: PolicyGrant[] = [];
    for (const policy of this.selecting.of(holder)) {
      if (rolesMatch(policy.serviceRoles, policy.semantic, service)) grants.push({ policy, checks: this.checksRequiredBy(policy) });
    }
    if (grants.length === 0) return undefined;
    const permissions = (['Bind', 'Dial'] as const).filter((type: ServicePolicyType) => grants.some((grant) => grant.policy.type === type));
    return { service, permissions, grants };
  }

  private checksRequiredBy(policy: ServicePolicy): readonly PostureCheck[] {
    let found = this.checksOf.get(policy.id);
    if (!found) this.checksOf.set(policy.id, (found = this.rows.postureChecks.filter((check) => rolesMatch(policy.postureCheckRoles, policy.semantic, check))));
    return found;
  }
}

// Who may use which service: the service policies whose identity roles select an identity grant it Dial or Bind on
// the services their service roles select, guarded by the posture checks their posture-check roles select. Pure:
// rows in, grants out; whether the checks pass is posture-evaluation.ts's job.
import { rolesMatch, type RoleHolder } from '../model/policy-roles.ts';
import type { PostureCheck, Service, ServicePolicy, ServicePolicyType } from '../model/service-entities.ts';

export interface AccessRows {
  readonly services: readonly Service[];
  readonly policies: readonly ServicePolicy[];
  readonly postureChecks: readonly PostureCheck[];
}

/** One policy granting one service, with the posture checks it requires (all must pass). */
export interface PolicyGrant {
  readonly policy: ServicePolicy;
  readonly checks: readonly PostureCheck[];
}

export interface ServiceAccess {
  readonly service: Service;
  /** Bind before Dial, as the real controller lists them; never empty. */
  readonly permissions: readonly ServicePolicyType[];
  /** Every policy granting this service to the identity, in policy id order. */
  readonly grants: readonly PolicyGrant[];
}

/** The services an identity may Dial or Bind, keyed by service id. */
export function serviceAccessFor(identity: RoleHolder, rows: AccessRows): Map<string, ServiceAccess> {
  const grantsByService = new Map<string, PolicyGrant[]>();
  const policies = [...rows.policies].sort((a, b) => compare(a.id, b.id));
  for (const policy of policies) {
    if (!rolesMatch(policy.identityRoles, policy.semantic, identity)) continue;
    const checks = rows.postureChecks.filter((check) => rolesMatch(policy.postureCheckRoles, policy.semantic, check));
    for (const service of rows.services) {
      if (!rolesMatch(policy.serviceRoles, policy.semantic, service)) continue;
      let grants = grantsByService.get(service.id);
      if (!grants) grantsByService.set(service.id, (grants = []));
      grants.push({ policy, checks });
    }
  }
  const access = new Map<string, ServiceAccess>();
  for (const service of rows.services) {
    const grants = grantsByService.get(service.id);
    if (!grants) continue;
    const permissions = (['Bind', 'Dial'] as const).filter((type) => grants.some((grant) => grant.policy.type === type));
    access.set(service.id, { service, permissions, grants });
  }
  return access;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

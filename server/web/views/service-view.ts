// The service representation of both APIs: the service itself plus, for the identity asking, its permissions and
// the posture queries guarding them (which policies grant it, and whether their checks pass for this session).
import type { Service } from '../../model/service-entities.ts';
import { evaluateGrant, type CheckResult, type PostureState } from '../../edge/posture-evaluation.ts';
import type { ServiceAccess } from '../../edge/service-access.ts';
import { link } from './links.ts';

export interface ServiceViewContext {
  /** The asking identity's access; undefined when no policy grants it the service (management only). */
  readonly access: ServiceAccess | undefined;
  readonly posture: PostureState;
  readonly now: number;
  /** With no posture check anywhere, the real controller lists one placeholder query set per permission. */
  readonly anyPostureChecks: boolean;
  /** Management API: the asking identity is an admin, shown both permissions on every service whatever its policies. */
  readonly isAdmin?: boolean;
  /** The service's `config`: its configs' data by type name, for the config types the client asked for. */
  readonly config?: (service: Service) => Record<string, unknown>;
}

/** What an admin is shown on every service, in the real controller's order. */
const adminPermissions = ['Bind', 'Dial'] as const;

export function serviceView(service: Service, context: ServiceViewContext) {
  // An admin is shown Bind and Dial: generated clients whose dialBind enum has only those two refuse `Invalid`.
  // Otherwise the list is never empty (some SDKs expect one): `Invalid` stands for none.
  const permissions: string[] = context.isAdmin ? [...adminPermissions] : context.access?.permissions.length ? [...context.access.permissions] : ['Invalid'];
  return {
    id: service.id,
    createdAt: service.createdAt,
    updatedAt: service.updatedAt,
    tags: service.tags,
    _links: { self: link(`./services/${service.id}`) },
    name: service.name,
    terminatorStrategy: service.terminatorStrategy,
    roleAttributes: service.roleAttributes,
    configs: service.configs,
    config: context.config ? context.config(service) : {},
    encryptionRequired: service.encryptionRequired,
    maxIdleTimeMillis: service.maxIdleTimeMillis,
    permissions,
    postureQueries: postureQueries(permissions, context),
  };
}

function postureQueries(permissions: readonly string[], { access, posture, now, anyPostureChecks }: ServiceViewContext) {
  // With no posture check anywhere, or no policy of the caller's granting the service (an admin's view), the real
  // controller lists one placeholder query set per permission shown.
  if (!anyPostureChecks || !access || access.grants.length === 0) {
    return permissions
      .filter((type) => type !== 'Invalid')
      .map((type) => ({ policyId: `dummy ${type.toLowerCase()} policy: no posture checks defined`, policyType: type, isPassing: true, postureQueries: [] }));
  }
  return access.grants.map((grant) => {
    const result = evaluateGrant(grant, posture, now);
    return { policyId: grant.policy.id, policyType: grant.policy.type, isPassing: result.isPassing, postureQueries: result.checks.map(postureQuery) };
  });
}

function postureQuery({ check, isPassing, timeout, timeoutRemaining }: CheckResult) {
  return {
    id: check.id,
    createdAt: check.createdAt,
    updatedAt: check.updatedAt,
    tags: check.tags,
    _links: { self: link(`./posture-checks/${check.id}`) },
    queryType: check.typeId,
    isPassing,
    timeout,
    timeoutRemaining,
    promptOnWake: check.promptOnWake,
    promptOnUnlock: check.promptOnUnlock,
    // What a client must report for a process check: the paths to look at, per OS.
    ...(check.typeId === 'PROCESS' && check.process ? { process: { osType: check.process.osType, path: check.process.path } } : {}),
    ...(check.typeId === 'PROCESS_MULTI' ? { processes: (check.processes ?? []).map((process) => ({ osType: process.osType, path: process.path })) } : {}),
  };
}

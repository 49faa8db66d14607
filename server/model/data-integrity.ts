// The model's data-integrity check (`POST /database/check-data-integrity`, and the disaster-recovery tooling that
// reads a snapshot): rows that point at rows that are gone. The applies keep these from arising (deletes cascade),
// so a finding means a bug, a hand-edited store or a restore from a damaged copy. Found:
// - a service policy whose identity, service or posture check roles name an `@id` no row has (fixable: the role is
//   dropped, as OpenZiti's fix drops a dangling reference);
// - an authenticator whose identity is gone (fixable: deleted);
// - an API session or a service session of an identity that is gone (fixable: deleted), and a service session of a
//   service or API session that is gone (fixable: deleted);
// - an identity-specific service config whose identity, service or config is gone (fixable: deleted).
// Pure: rows in, findings out, each with the command that fixes it.
import type { Row } from '../store/entity-table.ts';
import type { ModelCommand } from './commands.ts';
import type { ApiSession, Authenticator } from './entities.ts';
import { tables } from './entities.ts';
import { identityServiceConfigTables, type IdentityServiceConfig } from './identity-service-config-entities.ts';
import { referencedIds } from './policy-roles.ts';
import { configTables } from './config-entities.ts';
import { routerTables } from './router-entities.ts';
import type { ServicePolicy, ServiceSession } from './service-entities.ts';
import { serviceTables } from './service-entities.ts';

export interface IntegrityRows {
  table<T extends Row>(name: string): { all(): T[]; get(id: string): T | undefined };
}

export interface IntegrityFinding {
  readonly description: string;
  /** What fixes it (undefined: nothing can). */
  readonly fix?: ModelCommand;
}

export function checkDataIntegrity(rows: IntegrityRows, at: string): IntegrityFinding[] {
  const findings: IntegrityFinding[] = [];
  const exists = (table: string) => (id: string) => rows.table<Row>(table).get(id) !== undefined;
  // A tunneler-enabled edge router's identity is the router itself: `@<router id>` names an identity too.
  const identity = (id: string) => exists(tables.identities)(id) || exists(routerTables.edgeRouters)(id);
  const service = exists(serviceTables.services);
  const postureCheck = exists(serviceTables.postureChecks);

  for (const policy of rows.table<ServicePolicy>(serviceTables.servicePolicies).all()) {
    const dangling = (roles: readonly string[], present: (id: string) => boolean) => referencedIds(roles).filter((id) => !present(id));
    const gone = { identityRoles: dangling(policy.identityRoles, identity), serviceRoles: dangling(policy.serviceRoles, service), postureCheckRoles: dangling(policy.postureCheckRoles, postureCheck) };
    if (gone.identityRoles.length + gone.serviceRoles.length + gone.postureCheckRoles.length === 0) continue;
    const keep = (roles: readonly string[], missing: readonly string[]) => roles.filter((role) => !(role.startsWith('@') && missing.includes(role.slice(1))));
    const { id, createdAt, updatedAt, ...body } = policy;
    void createdAt;
    void updatedAt;
    const named = Object.entries(gone).flatMap(([field, ids]) => ids.map((missing) => `${field} @${missing}`));
    findings.push({
      description: `service policy ${policy.name} (${id}) names rows that do not exist: ${named.join(', ')}`,
      fix: {
        type: 'servicePolicy.update',
        id,
        at,
        policy: { ...body, identityRoles: keep(policy.identityRoles, gone.identityRoles), serviceRoles: keep(policy.serviceRoles, gone.serviceRoles), postureCheckRoles: keep(policy.postureCheckRoles, gone.postureCheckRoles) },
      },
    });
  }
  for (const authenticator of rows.table<Authenticator>(tables.authenticators).all()) {
    if (identity(authenticator.identityId)) continue;
    findings.push({ description: `authenticator ${authenticator.id} (${authenticator.method}) belongs to identity ${authenticator.identityId}, which does not exist`, fix: { type: 'authenticator.delete', id: authenticator.id } });
  }
  const orphanedApiSessions = rows.table<ApiSession>(tables.apiSessions).all().filter((session) => !identity(session.identityId));
  for (const session of orphanedApiSessions) {
    findings.push({ description: `API session ${session.id} belongs to identity ${session.identityId}, which does not exist`, fix: { type: 'apiSession.delete', ids: [session.id], reason: 'administrative' } });
  }
  const apiSession = exists(tables.apiSessions);
  for (const session of rows.table<ServiceSession>(serviceTables.serviceSessions).all()) {
    const missing = !identity(session.identityId) ? `identity ${session.identityId}` : !service(session.serviceId) ? `service ${session.serviceId}` : !apiSession(session.apiSessionId) ? `API session ${session.apiSessionId}` : undefined;
    if (missing) findings.push({ description: `service session ${session.id} belongs to ${missing}, which does not exist`, fix: { type: 'serviceSession.delete', ids: [session.id] } });
  }
  const config = exists(configTables.configs);
  for (const row of rows.table<IdentityServiceConfig>(identityServiceConfigTables.identityServiceConfigs).all()) {
    const missing = !exists(tables.identities)(row.identityId) ? `identity ${row.identityId}` : !service(row.serviceId) ? `service ${row.serviceId}` : !config(row.configId) ? `config ${row.configId}` : undefined;
    if (missing) findings.push({ description: `identity service config ${row.id} (config ${row.configId} for identity ${row.identityId} and service ${row.serviceId}) names ${missing}, which does not exist`, fix: { type: 'identityServiceConfig.delete', ids: [row.id] } });
  }
  return findings;
}

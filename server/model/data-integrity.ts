// The model's data-integrity check (`POST /database/check-data-integrity`, `agent controller check-integrity`): rows
// that point at rows that are gone, and tables whose in-memory indexes disagree with their rows. The applies keep
// these from arising (deletes cascade), so a finding means a bug, a hand-edited store or a restore from a damaged
// copy. Found (docs/operator-guide.md lists them):
// - a service policy, edge router policy or service edge router policy whose roles name an `@id` no row has
//   (policy-role-integrity.ts: the role is dropped where that cannot change what the policy selects);
// - an authenticator, enrollment or MFA enrollment whose identity is gone (fixable: deleted);
// - an API session or a service session of an identity that is gone (fixable: deleted), and a service session of a
//   service or API session that is gone (fixable: deleted); posture responses and session certificates live inside
//   their API session's row, so they cannot outlive it;
// - an identity-specific service config whose identity, service or config is gone (fixable: deleted);
// - an admin-made terminator, or a terminator's settings, whose service or router is gone (fixable: deleted);
// - a service naming a config that is gone (fixable: the config is taken off the service, as deleting one does);
// - an auth policy allowing an external JWT signer that is gone (fixable: taken off the list, where it allowed
//   nothing);
// - a config whose config type is gone, an identity whose auth policy is gone, an auth policy requiring a signer that
//   is gone (reported only: which data to drop, or which policy applies, is the operator's call);
// - index disagreements (checkIndexes: fixable by rebuilding that table's indexes from its rows, a repair of this
//   controller's memory alone, not a raft write).
// Not references: revocations (they outlive what they revoke by design), OIDC keys and controller settings (they
// name controllers, which are raft members, not rows), a certificate authenticator's CA (a CA may be deleted).
// Pure: rows in, findings out, each with what fixes it. Linear in the rows (lookups by id).
import type { Row } from '../store/entity-table.ts';
import { defaultAuthPolicyId } from './auth-policy-commands.ts';
import type { ModelCommand } from './commands.ts';
import { configTables, type Config } from './config-entities.ts';
import { isBuiltinConfigType } from './builtin-config-types.ts';
import { edgeRouterPolicyTables, type EdgeRouterPolicy, type ServiceEdgeRouterPolicy } from './edge-router-policy-entities.ts';
import type { ApiSession, AuthPolicy, Authenticator, Enrollment, Identity, Mfa } from './entities.ts';
import { tables } from './entities.ts';
import { identityServiceConfigTables, type IdentityServiceConfig } from './identity-service-config-entities.ts';
import { policyRoleFindings } from './policy-role-integrity.ts';
import { routerTables } from './router-entities.ts';
import type { Service, ServicePolicy, ServiceSession } from './service-entities.ts';
import { serviceTables } from './service-entities.ts';
import { terminatorTables, type AdminTerminator, type TerminatorSettings } from './terminator-entities.ts';

export interface IntegrityRows {
  table<T extends Row>(name: string): { all(): T[]; get(id: string): T | undefined };
}

export interface IntegrityFinding {
  readonly description: string;
  /** What fixes it through raft (undefined: no command can). */
  readonly fix?: ModelCommand;
  /** A repair of this controller's memory alone, no raft write: the table whose indexes are rebuilt from its rows. */
  readonly rebuildIndexesOf?: string;
}

/** A table as the index check sees it (EntityTable). */
export interface IndexedTable {
  readonly name: string;
  indexDisagreements(): string[];
}

/** Each disagreement between a table's indexes and its rows; fixed by rebuilding that table's indexes. */
export function checkIndexes(tablesToCheck: Iterable<IndexedTable>): IntegrityFinding[] {
  return [...tablesToCheck].flatMap((table) => indexFindings(table.name, table.indexDisagreements()));
}

/** A table's index disagreements as findings. */
export function indexFindings(table: string, disagreements: readonly string[]): IntegrityFinding[] {
  return disagreements.map((description) => ({ description, rebuildIndexesOf: table }));
}

/** A row without its id and timestamps: what an update command carries. */
function bodyOf<T extends { id: string; createdAt: string; updatedAt: string }>(row: T): Omit<T, 'id' | 'createdAt' | 'updatedAt'> {
  const { id, createdAt, updatedAt, ...body } = row;
  void id;
  void createdAt;
  void updatedAt;
  return body;
}

export function checkDataIntegrity(rows: IntegrityRows, at: string): IntegrityFinding[] {
  const findings: IntegrityFinding[] = [];
  const exists = (table: string) => (id: string) => rows.table<Row>(table).get(id) !== undefined;
  // A tunneler-enabled edge router's identity is the router itself: `@<router id>` names an identity too.
  const identity = (id: string) => exists(tables.identities)(id) || exists(routerTables.edgeRouters)(id);
  const service = exists(serviceTables.services);
  const postureCheck = exists(serviceTables.postureChecks);
  const edgeRouter = exists(routerTables.edgeRouters);
  const config = exists(configTables.configs);

  findings.push(
    ...policyRoleFindings(rows.table<ServicePolicy>(serviceTables.servicePolicies).all(), {
      label: 'service policy',
      lists: [{ field: 'identityRoles', exists: identity }, { field: 'serviceRoles', exists: service }, { field: 'postureCheckRoles', exists: postureCheck }],
      update: (id, policy) => ({ type: 'servicePolicy.update', id, at, policy }),
    }),
  );
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
  for (const row of rows.table<IdentityServiceConfig>(identityServiceConfigTables.identityServiceConfigs).all()) {
    const missing = !exists(tables.identities)(row.identityId) ? `identity ${row.identityId}` : !service(row.serviceId) ? `service ${row.serviceId}` : !config(row.configId) ? `config ${row.configId}` : undefined;
    if (missing) findings.push({ description: `identity service config ${row.id} (config ${row.configId} for identity ${row.identityId} and service ${row.serviceId}) names ${missing}, which does not exist`, fix: { type: 'identityServiceConfig.delete', ids: [row.id] } });
  }

  findings.push(
    ...policyRoleFindings(rows.table<EdgeRouterPolicy>(edgeRouterPolicyTables.edgeRouterPolicies).all(), {
      label: 'edge router policy',
      lists: [{ field: 'identityRoles', exists: identity }, { field: 'edgeRouterRoles', exists: edgeRouter }],
      update: (id, policy) => ({ type: 'edgeRouterPolicy.update', id, at, policy }),
    }),
    ...policyRoleFindings(rows.table<ServiceEdgeRouterPolicy>(edgeRouterPolicyTables.serviceEdgeRouterPolicies).all(), {
      label: 'service edge router policy',
      lists: [{ field: 'serviceRoles', exists: service }, { field: 'edgeRouterRoles', exists: edgeRouter }],
      update: (id, policy) => ({ type: 'serviceEdgeRouterPolicy.update', id, at, policy }),
    }),
  );
  for (const enrollment of rows.table<Enrollment>(tables.enrollments).all()) {
    if (exists(tables.identities)(enrollment.identityId)) continue;
    findings.push({ description: `enrollment ${enrollment.id} (${enrollment.method}) belongs to identity ${enrollment.identityId}, which does not exist`, fix: { type: 'enrollment.delete', id: enrollment.id } });
  }
  for (const mfa of rows.table<Mfa>(tables.mfas).all()) {
    if (exists(tables.identities)(mfa.identityId)) continue;
    findings.push({ description: `MFA enrollment ${mfa.id} belongs to identity ${mfa.identityId}, which does not exist`, fix: { type: 'mfa.delete', identityId: mfa.identityId } });
  }
  const goneEnd = (row: { serviceId: string; routerId: string }) => (!service(row.serviceId) ? `service ${row.serviceId}` : !edgeRouter(row.routerId) ? `router ${row.routerId}` : undefined);
  for (const terminator of rows.table<AdminTerminator>(terminatorTables.terminators).all()) {
    const missing = goneEnd(terminator);
    if (missing) findings.push({ description: `terminator ${terminator.id} (${terminator.address}) names ${missing}, which does not exist`, fix: { type: 'terminator.delete', id: terminator.id } });
  }
  for (const settings of rows.table<TerminatorSettings>(terminatorTables.terminatorSettings).all()) {
    const missing = goneEnd(settings);
    if (missing) findings.push({ description: `terminator settings ${settings.id} name ${missing}, which does not exist`, fix: { type: 'terminator.deleteSettings', id: settings.id } });
  }
  // The built-in types (host.v1, intercept.v1) are not stored until an admin tags them.
  const configType = (id: string) => isBuiltinConfigType(id) || exists(configTables.configTypes)(id);
  for (const row of rows.table<Config>(configTables.configs).all()) {
    if (configType(row.configTypeId)) continue;
    findings.push({ description: `config ${row.name} (${row.id}) is of config type ${row.configTypeId}, which does not exist; not fixed: delete the config, or create it again under a type that exists` });
  }
  for (const row of rows.table<Service>(serviceTables.services).all()) {
    const missing = row.configs.filter((id) => !config(id));
    if (missing.length === 0) continue;
    findings.push({
      description: `service ${row.name} (${row.id}) names configs that do not exist: ${missing.join(', ')}`,
      fix: { type: 'service.update', id: row.id, at, service: { ...bodyOf(row), configs: row.configs.filter((id) => config(id)) } },
    });
  }
  findings.push(...authPolicyFindings(rows, at, exists));
  return findings;
}

/** Identities naming an auth policy that is gone (the default policy needs no row), auth policies naming signers
 * that are gone. */
function authPolicyFindings(rows: IntegrityRows, at: string, exists: (table: string) => (id: string) => boolean): IntegrityFinding[] {
  const findings: IntegrityFinding[] = [];
  const authPolicy = (id: string) => id === defaultAuthPolicyId || exists(tables.authPolicies)(id);
  for (const row of rows.table<Identity>(tables.identities).all()) {
    if (authPolicy(row.authPolicyId)) continue;
    findings.push({ description: `identity ${row.name} (${row.id}) uses auth policy ${row.authPolicyId}, which does not exist; not fixed: set the identity's auth policy` });
  }
  const signer = exists(tables.externalJwtSigners);
  for (const row of rows.table<AuthPolicy>(tables.authPolicies).all()) {
    const required = row.secondary.requireExtJwtSigner;
    if (required !== null && !signer(required)) {
      findings.push({ description: `auth policy ${row.name} (${row.id}) requires external JWT signer ${required}, which does not exist; not fixed: dropping the requirement would weaken the policy (edit it)` });
      continue;
    }
    const allowedGone = row.primary.extJwt.allowedSigners.filter((id) => !signer(id));
    if (allowedGone.length === 0) continue;
    const body = bodyOf(row);
    const extJwt = { ...body.primary.extJwt, allowedSigners: body.primary.extJwt.allowedSigners.filter((id) => signer(id)) };
    findings.push({
      description: `auth policy ${row.name} (${row.id}) allows external JWT signers that do not exist: ${allowedGone.join(', ')}`,
      fix: { type: 'authPolicy.update', id: row.id, at, policy: { ...body, primary: { ...body.primary, extJwt } } },
    });
  }
  return findings;
}

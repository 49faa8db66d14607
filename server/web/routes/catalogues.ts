// The fields each list endpoint can filter and sort on.
import type { FieldCatalogue } from '../query/list-query.ts';
import type { FieldIndexes } from './table-list-source.ts';
import type { ApiSession, AuthPolicy, Authenticator, Ca, Enrollment, ExternalJwtSigner, Identity } from '../../model/entities.ts';
import { roleAttributeIndex } from '../../store/role-selection.ts';

const base = <T extends { id: string; createdAt: string; updatedAt: string }>() => ({
  id: { type: 'string' as const, get: (row: T) => row.id },
  createdAt: { type: 'datetime' as const, get: (row: T) => row.createdAt },
  updatedAt: { type: 'datetime' as const, get: (row: T) => row.updatedAt },
});

export const identityCatalogue: FieldCatalogue<Identity> = {
  ...base<Identity>(),
  name: { type: 'string', get: (row) => row.name },
  isAdmin: { type: 'boolean', get: (row) => row.isAdmin },
  isDefaultAdmin: { type: 'boolean', get: (row) => row.isDefaultAdmin },
  type: { type: 'string', get: (row) => row.typeId },
  authPolicyId: { type: 'string', get: (row) => row.authPolicyId },
  externalId: { type: 'string', get: (row) => row.externalId },
  roleAttributes: { type: 'string[]', get: (row) => row.roleAttributes },
  disabled: { type: 'boolean', get: (row) => row.disabledAt !== null },
};

/** The identity fields the identities table's indexes answer (each index keyed by exactly what the field reads). */
export const identityIndexes: FieldIndexes = {
  id: { kind: 'id' },
  name: { kind: 'unique', index: 'name', text: true },
  externalId: { kind: 'unique', index: 'externalId' },
  authPolicyId: { kind: 'multi', index: 'authPolicyId' },
  roleAttributes: { kind: 'multiValue', index: roleAttributeIndex },
};

export const authenticatorCatalogue: FieldCatalogue<Authenticator> = {
  ...base<Authenticator>(),
  method: { type: 'string', get: (row) => row.method },
  identityId: { type: 'string', get: (row) => row.identityId },
  username: { type: 'string', get: (row) => (row.method === 'updb' ? row.username : null) },
  fingerprint: { type: 'string', get: (row) => (row.method === 'cert' ? row.fingerprint : null) },
};

export const apiSessionCatalogue: FieldCatalogue<ApiSession> = {
  ...base<ApiSession>(),
  identityId: { type: 'string', get: (row) => row.identityId },
  ipAddress: { type: 'string', get: (row) => row.ipAddress },
  authenticatorId: { type: 'string', get: (row) => row.authenticatorId },
  lastActivityAt: { type: 'datetime', get: (row) => row.lastActivityAt },
};

export const authPolicyCatalogue: FieldCatalogue<AuthPolicy> = {
  ...base<AuthPolicy>(),
  name: { type: 'string', get: (row) => row.name },
};

export const externalJwtSignerCatalogue: FieldCatalogue<ExternalJwtSigner> = {
  ...base<ExternalJwtSigner>(),
  name: { type: 'string', get: (row) => row.name },
  issuer: { type: 'string', get: (row) => row.issuer },
  enabled: { type: 'boolean', get: (row) => row.enabled },
};

export const caCatalogue: FieldCatalogue<Ca> = {
  ...base<Ca>(),
  name: { type: 'string', get: (row) => row.name },
  isVerified: { type: 'boolean', get: (row) => row.isVerified },
  isAuthEnabled: { type: 'boolean', get: (row) => row.isAuthEnabled },
  isAutoCaEnrollmentEnabled: { type: 'boolean', get: (row) => row.isAutoCaEnrollmentEnabled },
  fingerprint: { type: 'string', get: (row) => row.fingerprint },
};

export const enrollmentCatalogue: FieldCatalogue<Enrollment> = {
  ...base<Enrollment>(),
  method: { type: 'string', get: (row) => row.method },
  identityId: { type: 'string', get: (row) => row.identityId },
  expiresAt: { type: 'datetime', get: (row) => row.expiresAt },
};

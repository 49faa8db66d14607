// The replicated model's rows. They are stored as JSON; derived and secret-free views are built by the API layer.
import type { PostureData } from './posture-data.ts';
import { EntityTable, type Row } from '../store/entity-table.ts';
import { roleAttributeIndex } from '../store/role-selection.ts';
import type { BaseEntity } from './base-entity.ts';
import { createConfigTables } from './config-entities.ts';
import { createEdgeRouterPolicyTables } from './edge-router-policy-entities.ts';
import { createIdentityServiceConfigTables } from './identity-service-config-entities.ts';
import { createRouterTables } from './router-entities.ts';
import { createServiceTables } from './service-entities.ts';
import { createTerminatorTables } from './terminator-entities.ts';
import { createRevocationTables } from './revocation-entities.ts';
import { createOidcKeyTables } from './oidc-key-entities.ts';
import { createClusterIdentityTables } from './cluster-identity.ts';
import { createControllerSettingTables } from './controller-setting-entities.ts';

export type { BaseEntity } from './base-entity.ts';

export interface Identity extends BaseEntity {
  readonly name: string;
  readonly typeId: string;
  readonly isAdmin: boolean;
  readonly isDefaultAdmin: boolean;
  readonly authPolicyId: string;
  readonly externalId: string | null;
  readonly roleAttributes: readonly string[];
  readonly disabledAt: string | null;
  readonly disabledUntil: string | null;
}

/** scrypt parameters are stored with each hash so they can be raised later without breaking old passwords. */
export interface PasswordHash {
  readonly algorithm: 'scrypt';
  readonly hash: string; // base64
  readonly salt: string; // base64
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

export interface UpdbAuthenticator extends BaseEntity {
  readonly method: 'updb';
  readonly identityId: string;
  readonly username: string;
  readonly password: PasswordHash;
  /** Failed password attempts since the last success or lockout; replicated so a lockout holds on every controller. */
  readonly failedAttempts?: number;
}

/** A client certificate an identity authenticates with, found by the SHA-1 fingerprint of its DER. */
export interface CertAuthenticator extends BaseEntity {
  readonly method: 'cert';
  readonly identityId: string;
  readonly fingerprint: string;
  readonly certPem: string;
  /** Signed by this controller's enrollment CA (true) or registered from a third-party CA (false). */
  readonly isIssuedByNetwork: boolean;
  /** The third-party CA that auto-enrolled the identity, when one did. */
  readonly caId: string | null;
}

export type Authenticator = UpdbAuthenticator | CertAuthenticator;

export interface AuthPolicyPrimary {
  readonly cert: { readonly allowed: boolean; readonly allowExpiredCerts: boolean };
  readonly updb: {
    readonly allowed: boolean;
    readonly minPasswordLength: number;
    readonly requireSpecialChar: boolean;
    readonly requireNumberChar: boolean;
    readonly requireMixedCase: boolean;
    readonly maxAttempts: number;
    readonly lockoutDurationMinutes: number;
  };
  readonly extJwt: { readonly allowed: boolean; readonly allowedSigners: readonly string[] };
}

export interface AuthPolicySecondary {
  readonly requireTotp: boolean;
  readonly requireExtJwtSigner: string | null;
}

export interface AuthPolicy extends BaseEntity {
  readonly name: string;
  readonly primary: AuthPolicyPrimary;
  readonly secondary: AuthPolicySecondary;
}

export interface ExternalJwtSigner extends BaseEntity {
  readonly name: string;
  readonly issuer: string;
  readonly audience: string | null;
  readonly enabled: boolean;
  readonly certPem: string | null;
  readonly jwksEndpoint: string | null;
  readonly kid: string | null;
  readonly claimsProperty: string;
  readonly useExternalId: boolean;
  readonly externalAuthUrl: string | null;
  readonly clientId: string | null;
  readonly scopes: readonly string[];
  readonly targetToken: 'ACCESS' | 'ID' | null;
  /** From certPem, when one is set. */
  readonly commonName: string | null;
  readonly fingerprint: string | null;
  readonly notBefore: string | null;
  readonly notAfter: string | null;
}

/** A third-party CA whose certificates may authenticate once it is verified by proof of possession. */
export interface Ca extends BaseEntity {
  readonly name: string;
  readonly certPem: string;
  readonly fingerprint: string;
  readonly isVerified: boolean;
  readonly verificationToken: string;
  readonly isAutoCaEnrollmentEnabled: boolean;
  readonly isOttCaEnrollmentEnabled: boolean;
  readonly isAuthEnabled: boolean;
  readonly identityRoles: readonly string[];
  readonly identityNameFormat: string;
  readonly externalIdClaim: Readonly<Record<string, unknown>> | null;
}

export type EnrollmentMethod = 'ott' | 'updb';

/** A one-time enrollment: its token is single-use and expires. The JWT carries the token to the client. */
export interface Enrollment extends BaseEntity {
  readonly method: EnrollmentMethod;
  readonly identityId: string;
  readonly token: string;
  readonly jwt: string;
  readonly expiresAt: string;
  /** updb: the username the password authenticator will get. */
  readonly username: string | null;
}

export interface AuthQuery {
  readonly typeId: string;
  readonly provider: string;
  readonly [key: string]: unknown;
}

export interface ApiSession extends BaseEntity {
  /** SHA-256 of the zt-session token: the token itself is never stored or replicated. */
  readonly tokenHash: string;
  readonly identityId: string;
  readonly authenticatorId: string;
  readonly authMethod: string;
  readonly ipAddress: string;
  readonly configTypes: readonly string[];
  readonly authQueries: readonly AuthQuery[];
  readonly isMfaRequired: boolean;
  readonly isMfaComplete: boolean;
  /** When this session last answered a TOTP (or recovery) code: MFA posture checks time out from here. */
  readonly mfaCompletedAt?: string | null;
  readonly lastActivityAt: string;
  /** What the client reported of its device (posture responses); absent until its first response. */
  readonly postureData?: PostureData;
  /** Short-lived client certificates issued to this session (api-session-certificates.ts); absent until the first.
   * Kept on the session so they are replicated with it and end with it. */
  readonly certificates?: readonly ApiSessionCertificate[];
}

/** A client certificate an API session asked for with a CSR: valid for its identity only while the session lives. */
export interface ApiSessionCertificate {
  readonly id: string;
  readonly createdAt: string;
  /** The certificate's subject, RFC 4514 (`CN=<identity id>`). */
  readonly subject: string;
  /** SHA-1 of the DER, lowercase hex without colons, as authenticators' fingerprints. */
  readonly fingerprint: string;
  readonly validFrom: string;
  readonly validTo: string;
  /** The certificate chain, PEM (leaf first). */
  readonly certificate: string;
}

/** An encrypted value: AES-256-GCM, base64 parts. */
export interface SealedValue {
  readonly iv: string;
  readonly tag: string;
  readonly data: string;
  /** Which key sealed it (a hash of the key, not the key). */
  readonly keyId?: string;
}

/** An identity's TOTP enrollment. Its secret and recovery codes are sealed; the codes are also kept as keyed hashes. */
export interface Mfa extends BaseEntity {
  readonly identityId: string;
  readonly isVerified: boolean;
  readonly secret: SealedValue;
  /** The current recovery codes, sealed, for the identity to read back. */
  readonly recoveryCodes: SealedValue;
  /** HMAC-SHA256 of each unused recovery code, hex; a used code leaves the list. */
  readonly recoveryCodeHashes: readonly string[];
  /** The newest TOTP time step accepted: a code of that step or older is refused (no replay). */
  readonly lastAcceptedStep: number;
  readonly failedAttempts: number;
}

export const tables = {
  identities: 'identities',
  authenticators: 'authenticators',
  apiSessions: 'apiSessions',
  authPolicies: 'authPolicies',
  externalJwtSigners: 'externalJwtSigners',
  cas: 'cas',
  enrollments: 'enrollments',
  mfas: 'mfas',
} as const;

export function createModelTables(): EntityTable<Row>[] {
  return [
    new EntityTable<Identity>(tables.identities)
      .uniqueIndex('name', (row) => row.name)
      .uniqueIndex('externalId', (row) => row.externalId)
      .multiIndex('authPolicyId', (row) => row.authPolicyId)
      // For list filters on role attributes (anyOf(roleAttributes) = "x"), not for policies.
      .multiValueIndex(roleAttributeIndex, (row) => row.roleAttributes),
    new EntityTable<Authenticator>(tables.authenticators)
      .uniqueIndex('username', (row) => (row.method === 'updb' ? row.username : undefined))
      .uniqueIndex('fingerprint', (row) => (row.method === 'cert' ? row.fingerprint : undefined))
      .multiIndex('identityId', (row) => row.identityId),
    new EntityTable<ApiSession>(tables.apiSessions)
      .uniqueIndex('tokenHash', (row) => row.tokenHash)
      .multiIndex('identityId', (row) => row.identityId),
    new EntityTable<AuthPolicy>(tables.authPolicies).uniqueIndex('name', (row) => row.name),
    new EntityTable<ExternalJwtSigner>(tables.externalJwtSigners).uniqueIndex('name', (row) => row.name),
    new EntityTable<Ca>(tables.cas)
      .uniqueIndex('name', (row) => row.name)
      .uniqueIndex('fingerprint', (row) => row.fingerprint),
    new EntityTable<Enrollment>(tables.enrollments)
      .uniqueIndex('token', (row) => row.token)
      .multiIndex('identityId', (row) => row.identityId),
    new EntityTable<Mfa>(tables.mfas).uniqueIndex('identityId', (row) => row.identityId),
    ...createServiceTables(),
    ...createConfigTables(),
    ...createRouterTables(),
    ...createEdgeRouterPolicyTables(),
    ...createTerminatorTables(),
    ...createRevocationTables(),
    ...createOidcKeyTables(),
    ...createControllerSettingTables(),
    ...createIdentityServiceConfigTables(),
    ...createClusterIdentityTables(),
  ] as unknown as EntityTable<Row>[];
}

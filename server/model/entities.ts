// The replicated model's rows. They are stored as JSON; derived and secret-free views are built by the API layer.
import { EntityTable, type Row } from '../store/entity-table.ts';

export interface BaseEntity extends Row {
  readonly id: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly tags: Readonly<Record<string, unknown>>;
}

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
}

export type Authenticator = UpdbAuthenticator;

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
  readonly lastActivityAt: string;
}

export const tables = {
  identities: 'identities',
  authenticators: 'authenticators',
  apiSessions: 'apiSessions',
} as const;

export function createModelTables(): EntityTable<Row>[] {
  return [
    new EntityTable<Identity>(tables.identities)
      .uniqueIndex('name', (row) => row.name)
      .uniqueIndex('externalId', (row) => row.externalId),
    new EntityTable<Authenticator>(tables.authenticators)
      .uniqueIndex('username', (row) => (row.method === 'updb' ? row.username : undefined))
      .multiIndex('identityId', (row) => row.identityId),
    new EntityTable<ApiSession>(tables.apiSessions)
      .uniqueIndex('tokenHash', (row) => row.tokenHash)
      .multiIndex('identityId', (row) => row.identityId),
  ] as unknown as EntityTable<Row>[];
}

// The entities `edgeward edge` works on: the words that name each (singular, plural, the aliases `ziti edge`
// uses), its Management API collection, the field a name is looked up by, and the columns of its table. Pure data.

export interface Column {
  readonly title: string;
  readonly value: (row: Record<string, unknown>) => unknown;
}

export interface EntityKind {
  /** The singular word, as `create <kind>` takes it: `identity`, `service-policy`. */
  readonly name: string;
  readonly plural: string;
  readonly aliases: readonly string[];
  /** The words of messages: `New service policy x created`. */
  readonly title: string;
  /** The collection under the Management API: `/identities`. */
  readonly path: string;
  /** The unique field besides `id` that names an entity on the command line; ids only when unset. */
  readonly lookupField?: string;
  readonly columns: readonly Column[];
}

const field = (name: string) => (row: Record<string, unknown>) => row[name];
const refName = (name: string) => (row: Record<string, unknown>) => (row[name] as { name?: unknown } | undefined)?.name;
const roleNames = (name: string) => (row: Record<string, unknown>) =>
  Array.isArray(row[name]) ? (row[name] as Array<{ name?: unknown }>).map((role) => String(role.name)) : undefined;
const path = (...keys: string[]) => (row: Record<string, unknown>) =>
  keys.reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), row);

const id: Column = { title: 'ID', value: field('id') };
const name: Column = { title: 'NAME', value: field('name') };
const attributes: Column = { title: 'ATTRIBUTES', value: field('roleAttributes') };

export const entityKinds: readonly EntityKind[] = [
  {
    name: 'identity',
    plural: 'identities',
    aliases: [],
    title: 'identity',
    path: '/identities',
    lookupField: 'name',
    columns: [
      id,
      name,
      { title: 'TYPE', value: field('typeId') },
      { title: 'ADMIN', value: field('isAdmin') },
      attributes,
      { title: 'AUTH-POLICY', value: refName('authPolicy') },
      { title: 'MFA', value: field('isMfaEnabled') },
      { title: 'DISABLED', value: field('disabled') },
    ],
  },
  {
    name: 'authenticator',
    plural: 'authenticators',
    aliases: [],
    title: 'authenticator',
    path: '/authenticators',
    lookupField: 'username',
    columns: [
      id,
      { title: 'METHOD', value: field('method') },
      { title: 'IDENTITY ID', value: field('identityId') },
      { title: 'IDENTITY', value: refName('identity') },
      { title: 'USERNAME', value: field('username') },
      { title: 'FINGERPRINT', value: field('fingerprint') },
    ],
  },
  {
    name: 'service',
    plural: 'services',
    aliases: [],
    title: 'service',
    path: '/services',
    lookupField: 'name',
    columns: [id, name, { title: 'ENCRYPTION REQUIRED', value: field('encryptionRequired') }, { title: 'TERMINATOR STRATEGY', value: field('terminatorStrategy') }, attributes],
  },
  {
    name: 'config',
    plural: 'configs',
    aliases: [],
    title: 'config',
    path: '/configs',
    lookupField: 'name',
    columns: [id, name, { title: 'CONFIG TYPE', value: refName('configType') }],
  },
  {
    name: 'config-type',
    plural: 'config-types',
    aliases: [],
    title: 'config type',
    path: '/config-types',
    lookupField: 'name',
    columns: [id, name, { title: 'TARGET', value: field('target') }],
  },
  {
    name: 'service-policy',
    plural: 'service-policies',
    aliases: [],
    title: 'service policy',
    path: '/service-policies',
    lookupField: 'name',
    columns: [
      id,
      name,
      { title: 'TYPE', value: field('type') },
      { title: 'SEMANTIC', value: field('semantic') },
      { title: 'IDENTITY ROLES', value: roleNames('identityRolesDisplay') },
      { title: 'SERVICE ROLES', value: roleNames('serviceRolesDisplay') },
      { title: 'POSTURE CHECK ROLES', value: roleNames('postureCheckRolesDisplay') },
    ],
  },
  {
    name: 'edge-router-policy',
    plural: 'edge-router-policies',
    aliases: ['erp', 'erps'],
    title: 'edge router policy',
    path: '/edge-router-policies',
    lookupField: 'name',
    columns: [
      id,
      name,
      { title: 'SEMANTIC', value: field('semantic') },
      { title: 'IDENTITY ROLES', value: roleNames('identityRolesDisplay') },
      { title: 'EDGE ROUTER ROLES', value: roleNames('edgeRouterRolesDisplay') },
      { title: 'SYSTEM', value: field('isSystem') },
    ],
  },
  {
    name: 'service-edge-router-policy',
    plural: 'service-edge-router-policies',
    aliases: ['serp', 'serps'],
    title: 'service edge router policy',
    path: '/service-edge-router-policies',
    lookupField: 'name',
    columns: [
      id,
      name,
      { title: 'SEMANTIC', value: field('semantic') },
      { title: 'SERVICE ROLES', value: roleNames('serviceRolesDisplay') },
      { title: 'EDGE ROUTER ROLES', value: roleNames('edgeRouterRolesDisplay') },
    ],
  },
  {
    name: 'auth-policy',
    plural: 'auth-policies',
    aliases: [],
    title: 'auth policy',
    path: '/auth-policies',
    lookupField: 'name',
    columns: [
      id,
      name,
      { title: 'CERT', value: path('primary', 'cert', 'allowed') },
      { title: 'UPDB', value: path('primary', 'updb', 'allowed') },
      { title: 'EXT-JWT', value: path('primary', 'extJwt', 'allowed') },
      { title: 'MAX ATTEMPTS', value: path('primary', 'updb', 'maxAttempts') },
      { title: 'TOTP', value: path('secondary', 'requireTotp') },
      { title: 'SECONDARY EXT-JWT', value: path('secondary', 'requireExtJwtSigner') },
    ],
  },
  {
    name: 'ext-jwt-signer',
    plural: 'ext-jwt-signers',
    aliases: ['external-jwt-signer', 'external-jwt-signers'],
    title: 'external JWT signer',
    path: '/external-jwt-signers',
    lookupField: 'name',
    columns: [
      id,
      name,
      { title: 'ENABLED', value: field('enabled') },
      { title: 'ISSUER', value: field('issuer') },
      { title: 'AUDIENCE', value: field('audience') },
      { title: 'CLAIMS PROPERTY', value: field('claimsProperty') },
      { title: 'USE EXTERNAL ID', value: field('useExternalId') },
      { title: 'KEYS', value: (row) => (row.jwksEndpoint ? row.jwksEndpoint : row.certPem ? `certificate ${String(row.fingerprint)}` : '') },
    ],
  },
  {
    name: 'ca',
    plural: 'cas',
    aliases: [],
    title: 'CA',
    path: '/cas',
    lookupField: 'name',
    columns: [
      id,
      name,
      { title: 'VERIFIED', value: field('isVerified') },
      { title: 'AUTH', value: field('isAuthEnabled') },
      { title: 'AUTO-ENROLL', value: field('isAutoCaEnrollmentEnabled') },
      { title: 'IDENTITY ROLES', value: field('identityRoles') },
      { title: 'VERIFICATION TOKEN', value: (row) => (row.isVerified ? '' : row.verificationToken) },
      { title: 'FINGERPRINT', value: field('fingerprint') },
    ],
  },
  {
    name: 'posture-check',
    plural: 'posture-checks',
    aliases: [],
    title: 'posture check',
    path: '/posture-checks',
    lookupField: 'name',
    columns: [
      id,
      name,
      { title: 'TYPE', value: field('typeId') },
      attributes,
      { title: 'TIMEOUT', value: (row) => (typeof row.timeoutSeconds === 'number' && row.timeoutSeconds > 0 ? `${row.timeoutSeconds}s` : 'none') },
      { title: 'WAKE', value: field('promptOnWake') },
      { title: 'UNLOCK', value: field('promptOnUnlock') },
    ],
  },
  {
    name: 'edge-router',
    plural: 'edge-routers',
    aliases: ['er', 'ers'],
    title: 'edge router',
    path: '/edge-routers',
    lookupField: 'name',
    columns: [
      id,
      name,
      { title: 'ONLINE', value: field('isOnline') },
      { title: 'VERIFIED', value: field('isVerified') },
      { title: 'ALLOW TRANSIT', value: (row) => (typeof row.noTraversal === 'boolean' ? !row.noTraversal : undefined) },
      { title: 'COST', value: field('cost') },
      { title: 'DISABLED', value: field('disabled') },
      attributes,
    ],
  },
  {
    name: 'api-session',
    plural: 'api-sessions',
    aliases: [],
    title: 'API session',
    path: '/api-sessions',
    columns: [
      id,
      { title: 'IDENTITY', value: refName('identity') },
      { title: 'IP ADDRESS', value: field('ipAddress') },
      { title: 'MFA', value: field('isMfaComplete') },
      { title: 'LAST ACTIVITY', value: field('lastActivityAt') },
      { title: 'EXPIRES', value: field('expiresAt') },
    ],
  },
  {
    name: 'enrollment',
    plural: 'enrollments',
    aliases: [],
    title: 'enrollment',
    path: '/enrollments',
    columns: [id, { title: 'METHOD', value: field('method') }, { title: 'IDENTITY', value: refName('identity') }, { title: 'USERNAME', value: field('username') }, { title: 'EXPIRES', value: field('expiresAt') }],
  },
];

/** The kind a word names (singular, plural or alias, any case), or undefined. */
export function entityKind(word: string): EntityKind | undefined {
  const lower = word.toLowerCase();
  return entityKinds.find((kind) => kind.name === lower || kind.plural === lower || kind.aliases.includes(lower));
}

export function kindNamed(name: string): EntityKind {
  const kind = entityKinds.find((candidate) => candidate.name === name);
  if (!kind) throw new Error(`no entity kind named ${name}`);
  return kind;
}

/** Every word that names a kind, for "did you mean" hints. */
export function entityWords(): string[] {
  return entityKinds.flatMap((kind) => [kind.name, kind.plural, ...kind.aliases]);
}


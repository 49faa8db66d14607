// The `create` and `update` forms of each entity, after `ziti edge create|update <entity>`: the positional
// arguments, the flags (only for fields the Management API has), and the request body they make. Names on the
// command line (an auth policy, a signer, `@name` roles) become ids through the injected context, so the forms are
// tested without a controller.
import { parseGoDuration } from '../../../common/config/go-duration.ts';
import { EdgeUsageError, type FlagDef, type ParsedFlags } from './edge-args.ts';
import { kindNamed, type EntityKind } from './edge-entities.ts';

export interface FormContext {
  /** The id of the entity of `kind` that a name (or id) on the command line names. */
  resolveId(kind: EntityKind, nameOrId: string): Promise<string>;
  /** A file's text; a file that cannot be read is a usage error naming `what`. */
  readText(file: string, what: string): string;
  /** A password: the value given, else the file (`-`: standard input), else a prompt on a terminal. */
  readSecret(source: { value?: string; file?: string; prompt: string; flag: string }): Promise<string>;
}

export interface CreatePlan {
  readonly kind: EntityKind;
  readonly body: Record<string, unknown>;
  /** How the new entity is named in the message. */
  readonly label: string;
  /** Where to write the new entity's enrollment JWT, and how to find it in the entity's detail. */
  readonly jwt?: { readonly file: string; readonly of: (detail: Record<string, unknown>) => unknown };
}

export interface Form<P> {
  readonly kind: EntityKind;
  /** The arguments after `create` or `update`: `identity <name> [flags]`. */
  readonly synopsis: string;
  readonly summary: string;
  readonly flags: readonly FlagDef[];
  /** How many positional arguments it takes, at least and at most: the command line's first check. */
  readonly arity: readonly [min: number, max: number];
  plan(parsed: ParsedFlags, context: FormContext): Promise<P>;
}

export interface UpdatePlan {
  /** The entity's name or id, as written. */
  readonly target: string;
  readonly body: Record<string, unknown>;
}

// Flags shared by several forms.
const tagsFlag: FlagDef = { name: 'tags-json', kind: 'string', value: '<json>', help: 'the tags, a JSON object such as {"team":"net"} (replaces them all)' };
const roleAttributesFlag: FlagDef = { name: 'role-attributes', short: 'a', kind: 'list', value: '<a,b,...>', help: "role attributes, what '#attribute' roles select (comma-separated or repeated; '' for none)" };
const newNameFlag: FlagDef = { name: 'name', short: 'n', kind: 'string', value: '<name>', help: 'a new name' };
const jwtFileFlag: FlagDef = { name: 'jwt-output-file', short: 'o', kind: 'string', value: '<file>', help: 'write the enrollment JWT to this file' };

function positionals(given: readonly string[], form: string, names: readonly string[], optional: readonly string[] = []): string[] {
  if (given.length < names.length || given.length > names.length + optional.length) {
    const wanted = [...names.map((name) => `<${name}>`), ...optional.map((name) => `[<${name}>]`)].join(' ');
    throw new EdgeUsageError(`${form} takes ${wanted}${given.length > 0 ? `, not: ${given.join(' ')}` : ''}`);
  }
  return [...given];
}

function tagsOf(parsed: ParsedFlags): Record<string, unknown> | undefined {
  const text = parsed.text('tags-json');
  if (text === undefined) return undefined;
  let tags: unknown;
  try {
    tags = JSON.parse(text);
  } catch {
    throw new EdgeUsageError(`--tags-json is not JSON: ${text}`);
  }
  if (tags === null || typeof tags !== 'object' || Array.isArray(tags)) throw new EdgeUsageError('--tags-json must be a JSON object, such as {"team":"net"}');
  return tags as Record<string, unknown>;
}

/** The members whose value is not undefined. */
function defined(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

/** `@name` roles become `@id` (the API takes ids); `#attribute` roles are kept. */
async function rolesOf(parsed: ParsedFlags, flag: string, kind: EntityKind, context: FormContext): Promise<string[] | undefined> {
  const roles = parsed.list(flag);
  if (roles === undefined) return undefined;
  return Promise.all(roles.map(async (role) => (role.startsWith('@') && role.length > 1 ? `@${await context.resolveId(kind, role.slice(1))}` : role)));
}

function oneOf<T extends string>(text: string | undefined, values: readonly T[], flag: string): T | undefined {
  if (text === undefined) return undefined;
  const match = values.find((value) => value.toLowerCase() === text.toLowerCase());
  if (!match) throw new EdgeUsageError(`${flag} takes ${values.join(' or ')}, not '${text}'`);
  return match;
}

/** An empty value clears a nullable text field. */
const clearable = (text: string | undefined) => (text === undefined ? undefined : text === '' ? null : text);

// ---------------------------------------------------------------------------------------------------------------
// identities

const identity = kindNamed('identity');
const identityFlags: FlagDef[] = [
  roleAttributesFlag,
  { name: 'auth-policy', short: 'P', kind: 'string', value: '<name or id>', help: "the identity's auth policy (default: default)" },
  { name: 'external-id', kind: 'string', value: '<id>', help: "the identity's external id, for external JWT signers with useExternalId ('' clears it)" },
  tagsFlag,
];

async function identityFields(parsed: ParsedFlags, context: FormContext): Promise<Record<string, unknown>> {
  const policy = parsed.text('auth-policy');
  return {
    roleAttributes: parsed.list('role-attributes'),
    authPolicyId: policy === undefined ? undefined : await context.resolveId(kindNamed('auth-policy'), policy),
    externalId: clearable(parsed.text('external-id')),
    tags: tagsOf(parsed),
  };
}

const createIdentity: Form<CreatePlan> = {
  kind: identity,
  arity: [1, 1],
  synopsis: 'identity <name> [--admin] [--role-attributes a,b] [--auth-policy <policy>] [--updb <username>] [-o <jwt file>]',
  summary: 'an identity; --updb or -o also creates its one-time enrollment (updb, else ott) and -o writes its JWT',
  flags: [
    { name: 'admin', short: 'A', kind: 'boolean', help: 'the identity is an administrator (may use the Management API)' },
    ...identityFlags,
    { name: 'updb', kind: 'string', value: '<username>', help: 'create a one-time password (updb) enrollment for this username' },
    jwtFileFlag,
  ],
  async plan(parsed, context) {
    const [name] = positionals(parsed.positional, 'create identity', ['name']);
    const updb = parsed.text('updb');
    const jwtFile = parsed.text('jwt-output-file');
    const enrollment = updb !== undefined ? { updb } : jwtFile !== undefined ? { ott: true } : undefined;
    const method = updb !== undefined ? 'updb' : 'ott';
    return {
      kind: identity,
      label: name!,
      body: defined({ name, type: 'Default', isAdmin: parsed.bool('admin') ?? false, ...(await identityFields(parsed, context)), enrollment }),
      ...(jwtFile !== undefined ? { jwt: { file: jwtFile, of: (detail: Record<string, unknown>) => (detail.enrollment as Record<string, { jwt?: unknown }> | undefined)?.[method]?.jwt } } : {}),
    };
  },
};

const updateIdentity: Form<UpdatePlan> = {
  kind: identity,
  arity: [1, 1],
  synopsis: 'identity <name or id> [--name <new name>] [--admin=true|false] [--role-attributes a,b] [--auth-policy <policy>] ...',
  summary: 'change an identity (only the fields given)',
  flags: [newNameFlag, { name: 'admin', short: 'A', kind: 'boolean', help: 'make the identity an administrator (--admin=false: no longer)' }, ...identityFlags],
  async plan(parsed, context) {
    const [target] = positionals(parsed.positional, 'update identity', ['name or id']);
    return { target: target!, body: defined({ name: parsed.text('name'), isAdmin: parsed.bool('admin'), ...(await identityFields(parsed, context)) }) };
  },
};

// ---------------------------------------------------------------------------------------------------------------
// authenticators

const authenticator = kindNamed('authenticator');
const passwordFileFlag: FlagDef = { name: 'password-file', kind: 'string', value: '<file>', help: "read the password from this file ('-': standard input)" };

const createAuthenticator: Form<CreatePlan> = {
  kind: authenticator,
  arity: [3, 4],
  synopsis: 'authenticator updb <identity> <username> [<password>] [--password-file <file>]  |  authenticator cert <identity> <cert pem file>',
  summary: "a password (updb) or certificate (cert) authenticator for an identity; without a password it is read from --password-file or asked for",
  flags: [passwordFileFlag, tagsFlag],
  async plan(parsed, context) {
    const method = parsed.positional[0]?.toLowerCase();
    if (method === 'updb') {
      const [identityRef, username, password] = positionals(parsed.positional.slice(1), 'create authenticator updb', ['identity', 'username'], ['password']);
      const file = parsed.text('password-file');
      if (password !== undefined && file !== undefined) throw new EdgeUsageError('give the password either as an argument or with --password-file, not both');
      const identityId = await context.resolveId(identity, identityRef!);
      const secret = await context.readSecret({ ...(password !== undefined ? { value: password } : {}), ...(file !== undefined ? { file } : {}), prompt: `Password for ${username}: `, flag: '--password-file' });
      return { kind: authenticator, label: username!, body: defined({ method: 'updb', identityId, username, password: secret, tags: tagsOf(parsed) }) };
    }
    if (method === 'cert') {
      const [identityRef, certFile] = positionals(parsed.positional.slice(1), 'create authenticator cert', ['identity', 'cert pem file']);
      if (parsed.has('password-file')) throw new EdgeUsageError('--password-file is for updb authenticators');
      const certPem = context.readText(certFile!, 'the certificate file');
      const identityId = await context.resolveId(identity, identityRef!);
      return { kind: authenticator, label: `cert of ${identityRef!}`, body: defined({ method: 'cert', identityId, certPem, tags: tagsOf(parsed) }) };
    }
    throw new EdgeUsageError(`create authenticator takes the method first: updb or cert${method ? `, not '${method}'` : ''}`);
  },
};

const updateAuthenticator: Form<UpdatePlan> = {
  kind: authenticator,
  arity: [1, 1],
  synopsis: 'authenticator <id or username> [--username <new username>] [--password <password> | --password-file <file>]',
  summary: "set a updb authenticator's username or password (no current password needed)",
  flags: [{ name: 'username', short: 'u', kind: 'string', value: '<username>', help: 'a new username' }, { name: 'password', short: 'p', kind: 'string', value: '<password>', help: 'a new password' }, passwordFileFlag, tagsFlag],
  async plan(parsed, context) {
    const [target] = positionals(parsed.positional, 'update authenticator', ['id or username']);
    const value = parsed.text('password');
    const file = parsed.text('password-file');
    if (value !== undefined && file !== undefined) throw new EdgeUsageError('give either --password or --password-file, not both');
    const password = value !== undefined || file !== undefined ? await context.readSecret({ ...(value !== undefined ? { value } : {}), ...(file !== undefined ? { file } : {}), prompt: 'New password: ', flag: '--password-file' }) : undefined;
    return { target: target!, body: defined({ username: parsed.text('username'), password, tags: tagsOf(parsed) }) };
  },
};

// ---------------------------------------------------------------------------------------------------------------
// services

const service = kindNamed('service');
const terminatorStrategies = ['smartrouting', 'weighted', 'random', 'ha'] as const;
const serviceFlags: FlagDef[] = [
  roleAttributesFlag,
  { name: 'terminator-strategy', kind: 'string', value: '<strategy>', help: 'smartrouting (the default), weighted, random or ha' },
  { name: 'max-idle-time', kind: 'string', value: '<duration>', help: 'idle time before a circuit is closed, such as 30s or 5m (0: none)' },
  { name: 'configs', short: 'c', kind: 'list', value: '<configs>', help: "the service's configs, by name or id, one of each config type (replaces them all; '' for none)" },
  tagsFlag,
];

async function serviceFields(parsed: ParsedFlags, context: FormContext): Promise<Record<string, unknown>> {
  const configs = parsed.list('configs');
  const idle = parsed.text('max-idle-time');
  let maxIdleTimeMillis: number | undefined;
  if (idle !== undefined) {
    const ms = /^\d+$/.test(idle) ? Number(idle) : parseGoDuration(idle);
    if (ms === undefined || ms < 0) throw new EdgeUsageError(`--max-idle-time takes a duration such as 30s or 5m, not '${idle}'`);
    maxIdleTimeMillis = Math.round(ms);
  }
  return {
    roleAttributes: parsed.list('role-attributes'),
    terminatorStrategy: oneOf(parsed.text('terminator-strategy'), terminatorStrategies, '--terminator-strategy'),
    maxIdleTimeMillis,
    configs: configs === undefined ? undefined : await Promise.all(configs.map((ref) => context.resolveId(kindNamed('config'), ref))),
    tags: tagsOf(parsed),
  };
}

const createService: Form<CreatePlan> = {
  kind: service,
  arity: [1, 1],
  synopsis: 'service <name> [--role-attributes a,b] [--configs <configs>] [--encryption ON|OFF] [--terminator-strategy <s>] [--max-idle-time <duration>]',
  summary: 'a service (end-to-end encryption required unless --encryption OFF)',
  flags: [
    { name: 'encryption', short: 'e', kind: 'string', value: 'ON|OFF', help: 'whether end-to-end encryption is required (default ON); fixed once created' },
    { name: 'encryption-required', kind: 'boolean', help: 'the same as --encryption ON (--encryption-required=false: OFF)' },
    ...serviceFlags,
  ],
  async plan(parsed, context) {
    const [name] = positionals(parsed.positional, 'create service', ['name']);
    const onOff = oneOf(parsed.text('encryption'), ['ON', 'OFF'] as const, '--encryption');
    const required = parsed.bool('encryption-required');
    if (onOff !== undefined && required !== undefined && (onOff === 'ON') !== required) throw new EdgeUsageError('--encryption and --encryption-required disagree');
    const encryptionRequired = required ?? (onOff === undefined ? true : onOff === 'ON');
    return { kind: service, label: name!, body: defined({ name, encryptionRequired, ...(await serviceFields(parsed, context)) }) };
  },
};

const updateService: Form<UpdatePlan> = {
  kind: service,
  arity: [1, 1],
  synopsis: 'service <name or id> [--name <new name>] [--role-attributes a,b] [--configs <configs>] [--terminator-strategy <s>] [--max-idle-time <duration>]',
  summary: 'change a service (encryption is fixed at creation)',
  flags: [newNameFlag, ...serviceFlags],
  async plan(parsed, context) {
    const [target] = positionals(parsed.positional, 'update service', ['name or id']);
    return { target: target!, body: defined({ name: parsed.text('name'), ...(await serviceFields(parsed, context)) }) };
  },
};

// ---------------------------------------------------------------------------------------------------------------
// configs and config types

const config = kindNamed('config');
const configType = kindNamed('config-type');
const jsonFileFlag: FlagDef = { name: 'json-file', short: 'f', kind: 'string', value: '<file>', help: "read the config's data (a JSON object) from this file" };

/** A JSON object given on the command line or in a file (never both). */
function jsonObjectOf(text: string | undefined, file: string | undefined, what: string, context: FormContext): Record<string, unknown> | undefined {
  if (text !== undefined && file !== undefined) throw new EdgeUsageError(`give ${what} either inline or from a file, not both`);
  const source = file !== undefined ? context.readText(file, `the ${what} file`) : text;
  if (source === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch {
    throw new EdgeUsageError(`${what} is not JSON: ${source.length > 200 ? `${source.slice(0, 200)}…` : source}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new EdgeUsageError(`${what} must be a JSON object, such as {"port":8080}`);
  return value as Record<string, unknown>;
}

const createConfig: Form<CreatePlan> = {
  kind: config,
  arity: [2, 3],
  synopsis: "config <name> <type> [<json data>] [-f <json file>]",
  summary: "a config of a config type (host.v1, intercept.v1, or a type's name or id), its data checked against the type's schema",
  flags: [jsonFileFlag, tagsFlag],
  async plan(parsed, context) {
    const [name, type, json] = positionals(parsed.positional, 'create config', ['name', 'type'], ['json data']);
    const data = jsonObjectOf(json, parsed.text('json-file'), 'the config data', context);
    if (data === undefined) throw new EdgeUsageError('create config needs its data: <json data> or --json-file <file>');
    const configTypeId = await context.resolveId(configType, type!);
    return { kind: config, label: name!, body: defined({ name, configTypeId, data, tags: tagsOf(parsed) }) };
  },
};

const updateConfig: Form<UpdatePlan> = {
  kind: config,
  arity: [1, 1],
  synopsis: 'config <name or id> [--name <new name>] [--data <json> | -f <json file>]',
  summary: "change a config (its type is fixed at creation; new data replaces the old and is checked against the type's schema)",
  flags: [newNameFlag, { name: 'data', short: 'd', kind: 'string', value: '<json>', help: "the config's new data, a JSON object" }, jsonFileFlag, tagsFlag],
  async plan(parsed, context) {
    const [target] = positionals(parsed.positional, 'update config', ['name or id']);
    return { target: target!, body: defined({ name: parsed.text('name'), data: jsonObjectOf(parsed.text('data'), parsed.text('json-file'), 'the config data', context), tags: tagsOf(parsed) }) };
  },
};

const schemaFileFlag: FlagDef = { name: 'schema-file', short: 's', kind: 'string', value: '<file>', help: "the type's JSON schema, from this file (default: {}, any data)" };

const createConfigType: Form<CreatePlan> = {
  kind: configType,
  arity: [1, 1],
  synopsis: 'config-type <name> [-s <schema file>] [--target service|router]',
  summary: 'a config type: a name and the JSON schema its configs must satisfy',
  flags: [schemaFileFlag, { name: 'target', kind: 'string', value: 'service|router', help: 'what the type configures (default service)' }, tagsFlag],
  async plan(parsed, context) {
    const [name] = positionals(parsed.positional, 'create config-type', ['name']);
    const schema = jsonObjectOf(undefined, parsed.text('schema-file'), 'the schema', context);
    return { kind: configType, label: name!, body: defined({ name, schema, target: oneOf(parsed.text('target'), ['service', 'router'] as const, '--target'), tags: tagsOf(parsed) }) };
  },
};

const updateConfigType: Form<UpdatePlan> = {
  kind: configType,
  arity: [1, 1],
  synopsis: 'config-type <name or id> [--name <new name>] [-s <schema file>]',
  summary: "change a config type (host.v1 and intercept.v1: only their tags)",
  flags: [newNameFlag, schemaFileFlag, tagsFlag],
  async plan(parsed, context) {
    const [target] = positionals(parsed.positional, 'update config-type', ['name or id']);
    return { target: target!, body: defined({ name: parsed.text('name'), schema: jsonObjectOf(undefined, parsed.text('schema-file'), 'the schema', context), tags: tagsOf(parsed) }) };
  },
};

// ---------------------------------------------------------------------------------------------------------------
// service policies

const servicePolicy = kindNamed('service-policy');
const policyTypes = ['Dial', 'Bind'] as const;
const semantics = ['AllOf', 'AnyOf'] as const;
const servicePolicyFlags: FlagDef[] = [
  { name: 'identity-roles', short: 'i', kind: 'list', value: '<roles>', help: "identities it applies to: '#attribute', '@name' or '@id', '#all'" },
  { name: 'service-roles', short: 's', kind: 'list', value: '<roles>', help: "services it grants: '#attribute', '@name' or '@id', '#all'" },
  { name: 'posture-check-roles', short: 'p', kind: 'list', value: '<roles>', help: "posture checks a session must pass: '#attribute', '@name' or '@id', '#all'" },
  { name: 'semantic', kind: 'string', value: 'AllOf|AnyOf', help: 'how the roles of each list combine (default AllOf)' },
  tagsFlag,
];

async function servicePolicyFields(parsed: ParsedFlags, context: FormContext): Promise<Record<string, unknown>> {
  return {
    semantic: oneOf(parsed.text('semantic'), semantics, '--semantic'),
    identityRoles: await rolesOf(parsed, 'identity-roles', identity, context),
    serviceRoles: await rolesOf(parsed, 'service-roles', service, context),
    postureCheckRoles: await rolesOf(parsed, 'posture-check-roles', kindNamed('posture-check'), context),
    tags: tagsOf(parsed),
  };
}

const createServicePolicy: Form<CreatePlan> = {
  kind: servicePolicy,
  arity: [2, 2],
  synopsis: "service-policy <name> Dial|Bind [--identity-roles '@alice,#ops'] [--service-roles '@web'] [--posture-check-roles ...] [--semantic AllOf|AnyOf]",
  summary: 'a service policy: the identities it selects may dial (or bind) the services it selects',
  flags: servicePolicyFlags,
  async plan(parsed, context) {
    const [name, type] = positionals(parsed.positional, 'create service-policy', ['name', 'Dial|Bind']);
    const fields = await servicePolicyFields(parsed, context);
    return {
      kind: servicePolicy,
      label: name!,
      body: defined({ name, type: oneOf(type, policyTypes, 'the policy type'), ...fields, semantic: fields.semantic ?? 'AllOf', identityRoles: fields.identityRoles ?? [], serviceRoles: fields.serviceRoles ?? [], postureCheckRoles: fields.postureCheckRoles ?? [] }),
    };
  },
};

const updateServicePolicy: Form<UpdatePlan> = {
  kind: servicePolicy,
  arity: [1, 1],
  synopsis: 'service-policy <name or id> [--name <new name>] [--type Dial|Bind] [--identity-roles ...] [--service-roles ...] [--posture-check-roles ...] [--semantic ...]',
  summary: 'change a service policy (a role list given replaces the old one)',
  flags: [newNameFlag, { name: 'type', kind: 'string', value: 'Dial|Bind', help: 'what the policy grants' }, ...servicePolicyFlags],
  async plan(parsed, context) {
    const [target] = positionals(parsed.positional, 'update service-policy', ['name or id']);
    return { target: target!, body: defined({ name: parsed.text('name'), type: oneOf(parsed.text('type'), policyTypes, '--type'), ...(await servicePolicyFields(parsed, context)) }) };
  },
};

// ---------------------------------------------------------------------------------------------------------------
// edge router policies and service edge router policies

const edgeRouterPolicy = kindNamed('edge-router-policy');
const serviceEdgeRouterPolicy = kindNamed('service-edge-router-policy');
const edgeRouterRolesFlag: FlagDef = { name: 'edge-router-roles', short: 'e', kind: 'list', value: '<roles>', help: "edge routers it selects: '#attribute', '@name' or '@id', '#all'" };
const routerPolicySemanticFlag: FlagDef = { name: 'semantic', kind: 'string', value: 'AllOf|AnyOf', help: 'how the roles of each list combine (default AllOf)' };
const edgeRouterPolicyFlags: FlagDef[] = [
  edgeRouterRolesFlag,
  { name: 'identity-roles', short: 'i', kind: 'list', value: '<roles>', help: "identities that may use those routers: '#attribute', '@name' or '@id', '#all'" },
  routerPolicySemanticFlag,
  tagsFlag,
];
const serviceEdgeRouterPolicyFlags: FlagDef[] = [
  edgeRouterRolesFlag,
  { name: 'service-roles', short: 's', kind: 'list', value: '<roles>', help: "services those routers may carry: '#attribute', '@name' or '@id', '#all'" },
  routerPolicySemanticFlag,
  tagsFlag,
];

async function edgeRouterPolicyFields(parsed: ParsedFlags, context: FormContext): Promise<Record<string, unknown>> {
  return {
    semantic: oneOf(parsed.text('semantic'), semantics, '--semantic'),
    identityRoles: await rolesOf(parsed, 'identity-roles', identity, context),
    edgeRouterRoles: await rolesOf(parsed, 'edge-router-roles', edgeRouter, context),
    tags: tagsOf(parsed),
  };
}

async function serviceEdgeRouterPolicyFields(parsed: ParsedFlags, context: FormContext): Promise<Record<string, unknown>> {
  return {
    semantic: oneOf(parsed.text('semantic'), semantics, '--semantic'),
    serviceRoles: await rolesOf(parsed, 'service-roles', service, context),
    edgeRouterRoles: await rolesOf(parsed, 'edge-router-roles', edgeRouter, context),
    tags: tagsOf(parsed),
  };
}

const createEdgeRouterPolicy: Form<CreatePlan> = {
  kind: edgeRouterPolicy,
  arity: [1, 1],
  synopsis: "edge-router-policy <name> [--edge-router-roles '#all'] [--identity-roles '#all'] [--semantic AllOf|AnyOf]",
  summary: 'an edge router policy: the identities it selects may connect through the edge routers it selects',
  flags: edgeRouterPolicyFlags,
  async plan(parsed, context) {
    const [name] = positionals(parsed.positional, 'create edge-router-policy', ['name']);
    const fields = await edgeRouterPolicyFields(parsed, context);
    return { kind: edgeRouterPolicy, label: name!, body: defined({ name, ...fields, semantic: fields.semantic ?? 'AllOf', identityRoles: fields.identityRoles ?? [], edgeRouterRoles: fields.edgeRouterRoles ?? [] }) };
  },
};

const updateEdgeRouterPolicy: Form<UpdatePlan> = {
  kind: edgeRouterPolicy,
  arity: [1, 1],
  synopsis: 'edge-router-policy <name or id> [--name <new name>] [--edge-router-roles ...] [--identity-roles ...] [--semantic ...]',
  summary: 'change an edge router policy (a role list given replaces the old one; system policies can not be changed)',
  flags: [newNameFlag, ...edgeRouterPolicyFlags],
  async plan(parsed, context) {
    const [target] = positionals(parsed.positional, 'update edge-router-policy', ['name or id']);
    return { target: target!, body: defined({ name: parsed.text('name'), ...(await edgeRouterPolicyFields(parsed, context)) }) };
  },
};

const createServiceEdgeRouterPolicy: Form<CreatePlan> = {
  kind: serviceEdgeRouterPolicy,
  arity: [1, 1],
  synopsis: "service-edge-router-policy <name> [--edge-router-roles '#all'] [--service-roles '#all'] [--semantic AllOf|AnyOf]",
  summary: 'a service edge router policy: the services it selects may be carried by the edge routers it selects',
  flags: serviceEdgeRouterPolicyFlags,
  async plan(parsed, context) {
    const [name] = positionals(parsed.positional, 'create service-edge-router-policy', ['name']);
    const fields = await serviceEdgeRouterPolicyFields(parsed, context);
    return {
      kind: serviceEdgeRouterPolicy,
      label: name!,
      body: defined({ name, ...fields, semantic: fields.semantic ?? 'AllOf', serviceRoles: fields.serviceRoles ?? [], edgeRouterRoles: fields.edgeRouterRoles ?? [] }),
    };
  },
};

const updateServiceEdgeRouterPolicy: Form<UpdatePlan> = {
  kind: serviceEdgeRouterPolicy,
  arity: [1, 1],
  synopsis: 'service-edge-router-policy <name or id> [--name <new name>] [--edge-router-roles ...] [--service-roles ...] [--semantic ...]',
  summary: 'change a service edge router policy (a role list given replaces the old one)',
  flags: [newNameFlag, ...serviceEdgeRouterPolicyFlags],
  async plan(parsed, context) {
    const [target] = positionals(parsed.positional, 'update service-edge-router-policy', ['name or id']);
    return { target: target!, body: defined({ name: parsed.text('name'), ...(await serviceEdgeRouterPolicyFields(parsed, context)) }) };
  },
};

// ---------------------------------------------------------------------------------------------------------------
// auth policies

const authPolicy = kindNamed('auth-policy');
const signer = kindNamed('ext-jwt-signer');
const authPolicyFlags: FlagDef[] = [
  { name: 'primary-cert-allowed', kind: 'boolean', help: 'identities may log in with a certificate' },
  { name: 'primary-cert-expired-allowed', kind: 'boolean', help: 'an expired certificate may still log in' },
  { name: 'primary-updb-allowed', kind: 'boolean', help: 'identities may log in with a password' },
  { name: 'primary-updb-min-password-length', kind: 'integer', help: 'the shortest password allowed (5 to 100; default 5)' },
  { name: 'primary-updb-req-special', kind: 'boolean', help: 'a password needs a character other than A-Z, a-z, 0-9' },
  { name: 'primary-updb-req-numbers', kind: 'boolean', help: 'a password needs a digit' },
  { name: 'primary-updb-req-mixed-case', kind: 'boolean', help: 'a password needs upper and lower case letters' },
  { name: 'primary-updb-max-attempts', kind: 'integer', help: 'wrong passwords in a row that lock the identity out (0: no lockout)' },
  { name: 'primary-updb-lockout-min', kind: 'integer', help: 'minutes a lockout lasts (0: until an administrator enables the identity)' },
  { name: 'primary-ext-jwt-allowed', kind: 'boolean', help: 'identities may log in with an external JWT' },
  { name: 'primary-ext-jwt-allowed-signers', kind: 'list', value: '<signers>', help: 'the signers (names or ids) whose JWTs may log in; none: any enabled signer' },
  { name: 'secondary-req-totp', kind: 'boolean', help: 'every session owes a TOTP code' },
  { name: 'secondary-req-ext-jwt-signer', kind: 'string', value: '<signer>', help: "every session must carry a JWT of this signer (name or id; '' for none)" },
  tagsFlag,
];

/** The policy fields the flags give, nested as the API has them; absent flags are left out. */
async function authPolicyFields(parsed: ParsedFlags, context: FormContext, defaults: boolean): Promise<Record<string, unknown>> {
  const bool = (flag: string) => parsed.bool(flag) ?? (defaults ? false : undefined);
  const signers = parsed.list('primary-ext-jwt-allowed-signers');
  const required = parsed.text('secondary-req-ext-jwt-signer');
  const primary = {
    cert: defined({ allowed: bool('primary-cert-allowed'), allowExpiredCerts: bool('primary-cert-expired-allowed') }),
    updb: defined({
      allowed: bool('primary-updb-allowed'),
      minPasswordLength: parsed.integer('primary-updb-min-password-length') ?? (defaults ? 5 : undefined),
      requireSpecialChar: bool('primary-updb-req-special'),
      requireNumberChar: bool('primary-updb-req-numbers'),
      requireMixedCase: bool('primary-updb-req-mixed-case'),
      maxAttempts: parsed.integer('primary-updb-max-attempts') ?? (defaults ? 0 : undefined),
      lockoutDurationMinutes: parsed.integer('primary-updb-lockout-min') ?? (defaults ? 0 : undefined),
    }),
    extJwt: defined({
      allowed: bool('primary-ext-jwt-allowed'),
      allowedSigners: signers === undefined ? (defaults ? [] : undefined) : await Promise.all(signers.map((ref) => context.resolveId(signer, ref))),
    }),
  };
  const secondary = defined({
    requireTotp: bool('secondary-req-totp'),
    requireExtJwtSigner: required === undefined ? (defaults ? null : undefined) : required === '' ? null : await context.resolveId(signer, required),
  });
  const nonEmpty = (object: Record<string, unknown>) => (Object.keys(object).length > 0 ? object : undefined);
  return defined({
    primary: nonEmpty(defined({ cert: nonEmpty(primary.cert), updb: nonEmpty(primary.updb), extJwt: nonEmpty(primary.extJwt) })),
    secondary: nonEmpty(secondary),
    tags: tagsOf(parsed),
  });
}

const createAuthPolicy: Form<CreatePlan> = {
  kind: authPolicy,
  arity: [1, 1],
  synopsis: 'auth-policy <name> [--primary-updb-allowed] [--primary-cert-allowed] [--secondary-req-totp] ...',
  summary: 'an authentication policy; as with ziti, a method is allowed only when its flag is given',
  flags: authPolicyFlags,
  async plan(parsed, context) {
    const [name] = positionals(parsed.positional, 'create auth-policy', ['name']);
    return { kind: authPolicy, label: name!, body: { name, ...(await authPolicyFields(parsed, context, true)) } };
  },
};

const updateAuthPolicy: Form<UpdatePlan> = {
  kind: authPolicy,
  arity: [1, 1],
  synopsis: 'auth-policy <name or id> [--name <new name>] [--primary-updb-allowed=true|false] [--secondary-req-totp=true|false] ...',
  summary: 'change an authentication policy (only the settings given)',
  flags: [newNameFlag, ...authPolicyFlags],
  async plan(parsed, context) {
    const [target] = positionals(parsed.positional, 'update auth-policy', ['name or id']);
    return { target: target!, body: defined({ name: parsed.text('name'), ...(await authPolicyFields(parsed, context, false)) }) };
  },
};

// ---------------------------------------------------------------------------------------------------------------
// external JWT signers

const signerFlags: FlagDef[] = [
  { name: 'audience', kind: 'string', value: '<audience>', help: "the audience the tokens' aud must contain ('' for none)" },
  { name: 'cert-file', kind: 'string', value: '<pem file>', help: 'verify tokens with the public key of this certificate' },
  { name: 'jwks-endpoint', kind: 'string', value: '<https url>', help: 'verify tokens with the keys of this JWKS document' },
  { name: 'kid', kind: 'string', value: '<kid>', help: "the key id tokens name ('' for none)" },
  { name: 'claims-property', kind: 'string', value: '<claim>', help: 'the claim that names the identity (default sub)' },
  { name: 'use-external-id', kind: 'boolean', help: "the claim is the identity's externalId, not its id" },
  { name: 'external-auth-url', kind: 'string', value: '<url>', help: "where a client gets a token ('' for none)" },
  { name: 'client-id', kind: 'string', value: '<id>', help: "the identity provider's client id ('' for none)" },
  { name: 'scopes', kind: 'list', value: '<a,b,...>', help: 'the scopes a client asks for' },
  { name: 'target-token', kind: 'string', value: 'ACCESS|ID', help: 'which token a client sends' },
  { name: 'enabled', kind: 'boolean', help: 'the signer is used (default true; --enabled=false disables it)' },
  tagsFlag,
];

function signerFields(parsed: ParsedFlags, context: FormContext): Record<string, unknown> {
  const certFile = parsed.text('cert-file');
  return {
    audience: clearable(parsed.text('audience')),
    certPem: certFile === undefined ? undefined : context.readText(certFile, 'the certificate file'),
    jwksEndpoint: parsed.text('jwks-endpoint'),
    kid: clearable(parsed.text('kid')),
    claimsProperty: parsed.text('claims-property'),
    useExternalId: parsed.bool('use-external-id'),
    externalAuthUrl: clearable(parsed.text('external-auth-url')),
    clientId: clearable(parsed.text('client-id')),
    scopes: parsed.list('scopes'),
    targetToken: oneOf(parsed.text('target-token'), ['ACCESS', 'ID'] as const, '--target-token'),
    enabled: parsed.bool('enabled'),
    tags: tagsOf(parsed),
  };
}

const createSigner: Form<CreatePlan> = {
  kind: signer,
  arity: [2, 2],
  synopsis: 'ext-jwt-signer <name> <issuer> (--cert-file <pem> | --jwks-endpoint <url>) [--audience <aud>] [--claims-property <claim>] ...',
  summary: 'an external JWT signer: an identity provider whose JWTs identify identities',
  flags: signerFlags,
  async plan(parsed, context) {
    const [name, issuer] = positionals(parsed.positional, 'create ext-jwt-signer', ['name', 'issuer']);
    if (parsed.has('cert-file') === parsed.has('jwks-endpoint')) throw new EdgeUsageError('give exactly one of --cert-file and --jwks-endpoint');
    const fields = signerFields(parsed, context);
    return { kind: signer, label: name!, body: defined({ name, issuer, ...fields, audience: fields.audience ?? null, enabled: fields.enabled ?? true }) };
  },
};

const updateSigner: Form<UpdatePlan> = {
  kind: signer,
  arity: [1, 1],
  synopsis: 'ext-jwt-signer <name or id> [--name <new name>] [--issuer <issuer>] [--cert-file <pem> | --jwks-endpoint <url>] ...',
  summary: 'change an external JWT signer (a new key source replaces the old one)',
  flags: [newNameFlag, { name: 'issuer', kind: 'string', value: '<issuer>', help: "the tokens' iss" }, ...signerFlags],
  async plan(parsed, context) {
    const [target] = positionals(parsed.positional, 'update ext-jwt-signer', ['name or id']);
    if (parsed.has('cert-file') && parsed.has('jwks-endpoint')) throw new EdgeUsageError('give at most one of --cert-file and --jwks-endpoint');
    return { target: target!, body: defined({ name: parsed.text('name'), issuer: parsed.text('issuer'), ...signerFields(parsed, context) }) };
  },
};

// ---------------------------------------------------------------------------------------------------------------
// third-party CAs

const ca = kindNamed('ca');
const caFlags: FlagDef[] = [
  { name: 'auth', short: 'u', kind: 'boolean', help: "once verified, the CA's certificates may log in" },
  { name: 'autoca', short: 'e', kind: 'boolean', help: 'the first login with an unknown certificate from the CA creates its identity' },
  { name: 'ottca', short: 'o', kind: 'boolean', help: 'stored only: ottca enrollment is not supported' },
  { name: 'identity-attributes', short: 'a', kind: 'list', value: '<a,b,...>', help: 'role attributes of the identities it auto-enrolls' },
  { name: 'identity-name-format', short: 'f', kind: 'string', value: '<format>', help: "names of the identities it auto-enrolls (default [caName]-[commonName]; '' for the default)" },
  tagsFlag,
];

function caFields(parsed: ParsedFlags, defaults: boolean): Record<string, unknown> {
  const bool = (flag: string) => parsed.bool(flag) ?? (defaults ? false : undefined);
  return {
    isAuthEnabled: bool('auth'),
    isAutoCaEnrollmentEnabled: bool('autoca'),
    isOttCaEnrollmentEnabled: bool('ottca'),
    identityRoles: parsed.list('identity-attributes') ?? (defaults ? [] : undefined),
    identityNameFormat: clearable(parsed.text('identity-name-format')),
    tags: tagsOf(parsed),
  };
}

const createCa: Form<CreatePlan> = {
  kind: ca,
  arity: [2, 2],
  synopsis: 'ca <name> <ca cert pem file> [--auth] [--autoca] [--identity-attributes a,b] [--identity-name-format <format>]',
  summary: 'a third-party CA (unverified until proven; its certificates log in once verified and --auth)',
  flags: caFlags,
  async plan(parsed, context) {
    const [name, file] = positionals(parsed.positional, 'create ca', ['name', 'ca cert pem file']);
    return { kind: ca, label: name!, body: defined({ name, certPem: context.readText(file!, 'the CA certificate file'), ...caFields(parsed, true) }) };
  },
};

const updateCa: Form<UpdatePlan> = {
  kind: ca,
  arity: [1, 1],
  synopsis: 'ca <name or id> [--name <new name>] [--auth=true|false] [--autoca=true|false] [--identity-attributes a,b] ...',
  summary: "change a CA's settings (its certificate cannot change)",
  flags: [newNameFlag, ...caFlags],
  async plan(parsed) {
    const [target] = positionals(parsed.positional, 'update ca', ['name or id']);
    return { target: target!, body: defined({ name: parsed.text('name'), ...caFields(parsed, false) }) };
  },
};

// ---------------------------------------------------------------------------------------------------------------
// posture checks

const postureCheck = kindNamed('posture-check');
const postureTypes = { mfa: 'MFA', os: 'OS', mac: 'MAC', domain: 'DOMAIN', process: 'PROCESS', 'process-multi': 'PROCESS_MULTI' } as const;
type PostureWord = keyof typeof postureTypes;
const osNames = ['Windows', 'WindowsServer', 'Android', 'iOS', 'Linux', 'macOS'] as const;
const postureFlags: FlagDef[] = [
  roleAttributesFlag,
  { name: 'seconds', short: 's', kind: 'integer', help: 'mfa: the check passes for this long after the last MFA answer (0 or less: no timeout)' },
  { name: 'wake', short: 'w', kind: 'boolean', help: 'mfa: after a wake, 5 minutes to answer MFA again' },
  { name: 'unlock', short: 'u', kind: 'boolean', help: 'mfa: after an unlock, 5 minutes to answer MFA again' },
  { name: 'ignore-legacy', kind: 'boolean', help: 'mfa: ignore legacy endpoints (stored and shown)' },
  { name: 'os', short: 'o', kind: 'list', value: '<OS[:range[:range...]]>', help: "os: an allowed OS and its version ranges, e.g. 'Windows:>=10.0.19041' (repeated for each OS; no range: any version)" },
  { name: 'mac-addresses', short: 'm', kind: 'list', value: '<mac,...>', help: 'mac: the allowed MAC addresses' },
  { name: 'domains', short: 'd', kind: 'list', value: '<domain,...>', help: 'domain: the allowed Windows domains' },
  { name: 'hashes', kind: 'list', value: '<sha,...>', help: 'process: the allowed binary hashes (hex)' },
  { name: 'signer-fingerprint', short: 'f', kind: 'string', value: '<hex>', help: "process: the signing certificate's fingerprint (hex)" },
  tagsFlag,
];

function postureWord(word: string | undefined): PostureWord {
  const match = (Object.keys(postureTypes) as PostureWord[]).find((known) => known === word?.toLowerCase());
  if (!match) throw new EdgeUsageError(`a posture check is of type ${Object.keys(postureTypes).join(', ')}${word ? ` (not '${word}')` : ''}`);
  return match;
}

function postureFields(parsed: ParsedFlags, type: PostureWord): Record<string, unknown> {
  // A flag of another type would be silently dropped by the API: refuse it here instead.
  const owners: Record<string, PostureWord[]> = { seconds: ['mfa'], wake: ['mfa'], unlock: ['mfa'], 'ignore-legacy': ['mfa'], os: ['os'], 'mac-addresses': ['mac'], domains: ['domain'], hashes: ['process'], 'signer-fingerprint': ['process'] };
  for (const [flag, types] of Object.entries(owners)) {
    if (parsed.has(flag) && !types.includes(type)) throw new EdgeUsageError(`--${flag} is for posture checks of type ${types.join(', ')}, not ${type}`);
  }
  return {
    roleAttributes: parsed.list('role-attributes'),
    tags: tagsOf(parsed),
    ...(type === 'mfa' ? { timeoutSeconds: parsed.integer('seconds'), promptOnWake: parsed.bool('wake'), promptOnUnlock: parsed.bool('unlock'), ignoreLegacyEndpoints: parsed.bool('ignore-legacy') } : {}),
    ...(type === 'os' ? { operatingSystems: parsed.list('os')?.map(osEntry) } : {}),
    ...(type === 'mac' ? { macAddresses: parsed.list('mac-addresses') } : {}),
    ...(type === 'domain' ? { domains: parsed.list('domains') } : {}),
  };
}

/** `Windows:>=10.0.19041:<11.0.0` → `{type: 'Windows', versions: ['>=10.0.19041', '<11.0.0']}`. */
function osEntry(text: string): { type: string; versions: string[] } {
  const [type, ...versions] = text.split(':');
  return { type: oneOf(type, osNames, '--os')!, versions: versions.filter((version) => version !== '') };
}

const createPostureCheck: Form<CreatePlan> = {
  kind: postureCheck,
  arity: [2, 5],
  synopsis: 'posture-check mfa|os|mac|domain <name> [flags] | process <name> <os> <path> [--hashes ...] [-f <hex>] | process-multi <name> AllOf|AnyOf <os,...> <path,...>',
  summary: 'a posture check: MFA answered (within --seconds), an OS and version, a MAC address, a Windows domain, or running processes',
  flags: postureFlags,
  async plan(parsed) {
    const type = postureWord(parsed.positional[0]);
    const body = (fields: Record<string, unknown>) => defined({ typeId: postureTypes[type], name: parsed.positional[1], ...postureFields(parsed, type), ...fields });
    if (type === 'process') {
      const [, name, os, path] = positionals(parsed.positional, 'create posture-check process', ['type', 'name', 'os', 'path']);
      return { kind: postureCheck, label: name!, body: body({ process: defined({ osType: oneOf(os, osNames, 'the OS'), path, hashes: parsed.list('hashes') ?? [], signerFingerprint: parsed.text('signer-fingerprint') }) }) };
    }
    if (type === 'process-multi') {
      const [, name, semantic, oses, paths] = positionals(parsed.positional, 'create posture-check process-multi', ['type', 'name', 'semantic', 'os list', 'path list']);
      const osList = oses!.split(',');
      const pathList = paths!.split(',');
      if (osList.length !== pathList.length) throw new EdgeUsageError(`process-multi pairs each OS with a path: ${osList.length} OS and ${pathList.length} paths given`);
      const processes = osList.map((os, i) => ({ osType: oneOf(os, osNames, 'the OS'), path: pathList[i] }));
      return { kind: postureCheck, label: name!, body: body({ semantic: oneOf(semantic, ['AllOf', 'AnyOf'] as const, 'the semantic'), processes }) };
    }
    const [, name] = positionals(parsed.positional, `create posture-check ${type}`, ['type', 'name']);
    return { kind: postureCheck, label: name!, body: body({}) };
  },
};

const updatePostureCheck: Form<UpdatePlan> = {
  kind: postureCheck,
  arity: [1, 2],
  synopsis: 'posture-check [mfa|os|mac|domain|process|process-multi] <name or id> [--name <new name>] [--role-attributes a,b] [--seconds <n>] [--os ...] ...',
  summary: 'change a posture check (its type word, mfa when left out, must be the check\'s type)',
  flags: [newNameFlag, ...postureFlags.filter((flag) => flag.name !== 'hashes' && flag.name !== 'signer-fingerprint')],
  async plan(parsed) {
    // `update posture-check mfa <name>` (the ziti form) or `update posture-check <name>` (an MFA check).
    const type = parsed.positional.length === 2 ? postureWord(parsed.positional[0]) : 'mfa';
    const given = parsed.positional.length === 2 ? parsed.positional.slice(1) : parsed.positional;
    const [target] = positionals(given, 'update posture-check [type]', ['name or id']);
    return { target: target!, body: defined({ typeId: postureTypes[type], name: parsed.text('name'), ...postureFields(parsed, type) }) };
  },
};

// ---------------------------------------------------------------------------------------------------------------
// edge routers

const edgeRouter = kindNamed('edge-router');
const routerFlags: FlagDef[] = [
  roleAttributesFlag,
  { name: 'tunneler-enabled', short: 't', kind: 'boolean', help: 'the router is a tunneler (stored and shown)' },
  { name: 'cost', kind: 'integer', help: 'the routing cost (0 to 65535)' },
  { name: 'no-traversal', kind: 'boolean', help: 'the router carries no transit traffic' },
  { name: 'disabled', kind: 'boolean', help: 'the router is refused until enabled (--disabled=false enables it)' },
  tagsFlag,
];

function routerFields(parsed: ParsedFlags): Record<string, unknown> {
  return {
    roleAttributes: parsed.list('role-attributes'),
    isTunnelerEnabled: parsed.bool('tunneler-enabled'),
    cost: parsed.integer('cost'),
    noTraversal: parsed.bool('no-traversal'),
    disabled: parsed.bool('disabled'),
    tags: tagsOf(parsed),
  };
}

const createEdgeRouter: Form<CreatePlan> = {
  kind: edgeRouter,
  arity: [1, 1],
  synopsis: 'edge-router <name> [--role-attributes a,b] [-o <jwt file>] [--tunneler-enabled] [--cost <n>] [--no-traversal] [--disabled]',
  summary: "an edge router, with its one-time enrollment; -o writes the JWT for 'edgeward router enroll'",
  flags: [...routerFlags, jwtFileFlag],
  async plan(parsed) {
    const [name] = positionals(parsed.positional, 'create edge-router', ['name']);
    const jwtFile = parsed.text('jwt-output-file');
    return {
      kind: edgeRouter,
      label: name!,
      body: defined({ name, ...routerFields(parsed) }),
      ...(jwtFile !== undefined ? { jwt: { file: jwtFile, of: (detail: Record<string, unknown>) => detail.enrollmentJwt } } : {}),
    };
  },
};

const updateEdgeRouter: Form<UpdatePlan> = {
  kind: edgeRouter,
  arity: [1, 1],
  synopsis: 'edge-router <name or id> [--name <new name>] [--role-attributes a,b] [--cost <n>] [--no-traversal=true|false] [--disabled=true|false]',
  summary: 'change an edge router',
  flags: [newNameFlag, ...routerFlags],
  async plan(parsed) {
    const [target] = positionals(parsed.positional, 'update edge-router', ['name or id']);
    return { target: target!, body: defined({ name: parsed.text('name'), ...routerFields(parsed) }) };
  },
};

export const createForms: readonly Form<CreatePlan>[] = [
  createIdentity,
  createAuthenticator,
  createService,
  createConfig,
  createConfigType,
  createServicePolicy,
  createEdgeRouterPolicy,
  createServiceEdgeRouterPolicy,
  createAuthPolicy,
  createSigner,
  createCa,
  createPostureCheck,
  createEdgeRouter,
];

export const updateForms: readonly Form<UpdatePlan>[] = [
  updateIdentity,
  updateAuthenticator,
  updateService,
  updateConfig,
  updateConfigType,
  updateServicePolicy,
  updateEdgeRouterPolicy,
  updateServiceEdgeRouterPolicy,
  updateAuthPolicy,
  updateSigner,
  updateCa,
  updatePostureCheck,
  updateEdgeRouter,
];

// `edgeward edge ...`: the Edge Management API from a shell, in the manner of `ziti edge`: login and logout, list,
// create, update and delete of every entity the API serves, and an identity's MFA reset. A pure client of the API
// over HTTPS: it shares no code with the controller beyond common/.
// Exit codes: 0 done; 1 the API refused (its error envelope is printed), the controller could not be reached, or
// there is no valid session; 2 the command line is wrong (what is wrong, and which --help to read, on stderr).
import { readFileSync, writeFileSync } from 'node:fs';
import { suggestKey } from '../../../common/config/suggest-key.ts';
import { managementBaseUrl } from './controller-url.ts';
import { EdgeUsageError, flagHelp, parseFlags, type FlagDef, type ParsedFlags } from './edge-args.ts';
import { entityKind, entityKinds, entityWords, kindNamed, type EntityKind } from './edge-entities.ts';
import { reportOutcome, type CommandLine, type ParseOutcome, type SubcommandInfo } from '../../../common/cli/command-line.ts';
import { ApiFailure, EdgeFailure } from './edge-errors.ts';
import { renderApiFailure, renderData, renderFailure, renderList, type OutputFormat } from './edge-output.ts';
import { readSession, removeSession, sessionFilePath, sessionFileVariable, sessionNamePattern, writeSession, type StoredSession } from './edge-session-store.ts';
import { runUse, useArgumentProblem, useUsage } from './use-command.ts';
import { enrollArgumentProblem, enrollFlags, enrollUsage, runEnroll } from './enroll-command.ts';
import { createForms, updateForms, type FormContext } from './entity-forms.ts';
import { resolveEntityId } from './entity-lookup.ts';
import { httpsTransport, ManagementClient, type Transport } from './management-client.ts';
import { readSecret } from './secret-input.ts';
import { controllerOffersOidc, loginThroughOidc, revokeOidcSession } from './oidc-login.ts';
import { oidcSessionTransport } from './oidc-session-transport.ts';
import {
  identityConfigsArgumentProblem,
  identityConfigsOwnFlags,
  identityConfigsUsage,
  identityConfigsWord,
  identityServiceConfigListProblem,
  identityServiceConfigListUsage,
  identityServiceConfigListWords,
  runIdentityConfigs,
  runIdentityServiceConfigList,
} from './identity-configs-command.ts';
import { listExtraUsage, parseListExtra, parsePolicyAdvisor, policyAdvisorUsage, runListExtra, runPolicyAdvisor, listExtraSubcommands, type ListExtra } from './list-extras.ts';

export interface EdgeIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const configFlag: FlagDef = { name: 'cli-config', kind: 'string', value: '<file>', help: `the session file (default $${sessionFileVariable}, else $XDG_CONFIG_HOME/edgeward/edge-cli.json)` };
const helpFlag: FlagDef = { name: 'help', short: 'h', kind: 'boolean', help: 'print this help' };
const outputFlags: FlagDef[] = [
  { name: 'json', short: 'j', kind: 'boolean', help: "print the API's data as JSON" },
  { name: 'yaml', kind: 'boolean', help: "print the API's data as YAML" },
];
const commonFlags = [configFlag, helpFlag];

const loginFlags: FlagDef[] = [
  { name: 'username', short: 'u', kind: 'string', value: '<username>', help: "the username of an administrator's password (updb) authenticator" },
  { name: 'password', short: 'p', kind: 'string', value: '<password>', help: 'the password (better: --password-file, or type it at the prompt)' },
  { name: 'password-file', kind: 'string', value: '<file>', help: "read the password from this file ('-': standard input)" },
  { name: 'ca', kind: 'string', value: '<pem file>', help: "the CA bundle that signed the controller's certificate (kept with the session)" },
  { name: 'mfa-code', kind: 'string', value: '<code>', help: 'a TOTP or recovery code, when the identity owes one (asked for on a terminal otherwise)' },
  { name: 'legacy', kind: 'boolean', help: "log in with a legacy zt-session even where the controller offers OIDC" },
  { name: 'cli-identity', short: 'i', kind: 'string', value: '<name>', help: "keep the session under this name (default: the session in use, else 'default'); it becomes the one in use (edgeward edge use)" },
  ...commonFlags,
];
const useFlags: FlagDef[] = [{ name: 'json', short: 'j', kind: 'boolean', help: 'list the sessions as JSON' }, ...commonFlags];
const listFlags: FlagDef[] = [...outputFlags, { name: 'limit', kind: 'integer', help: 'print at most this many (default: every match, page after page)' }, ...commonFlags];

const entityList = 'identities, authenticators, services, configs, config-types, service-policies, auth-policies,\n  ext-jwt-signers, cas, posture-checks, edge-routers, api-sessions, enrollments';

const usage = `Usage: edgeward edge <command> [arguments] [flags]

The Edge Management API from a shell, in the manner of 'ziti edge'.

Commands:
  login [<controller url>] -u <username> [-p <password> | --password-file <file>] [--ca <pem file>]
                                        log in as an administrator and keep the session
  logout                                end the session in use and forget it
  use [<name>]                          switch to the session stored as <name> (login -i <name>), or list them
  enroll <jwt file> [--out <file>]      enroll an identity with its JWT and write OpenZiti's identity file
  list <entities> ['<filter>'] [--json | --yaml] [--limit <n>]
                                        list entities, filtered with the API's ZitiQL filter
  list <entity> <related> <name or id> ['<filter>']
                                        list what the policies relate to one entity (list identity services alice)
  list identity service-configs <identity>
                                        the configs an identity uses in place of services' own
  list summary                          count the entities of each kind
  policy-advisor identities|services [<name or id>] [<name or id>] [-q]
                                        may each identity use each service, and through which routers
  create <entity> <arguments> [flags]   create an entity (edgeward edge create --help)
  update <entity> <name or id> [flags]  change an entity (edgeward edge update --help)
  update identity-configs <identity> <service> <config> [-r|--remove]
                                        use a config for one identity and service in place of the service's own
  delete <entity> <name or id>...       delete entities by name or id
  mfa reset <identity>                  remove an identity's MFA (TOTP) enrollment

Entities:
  ${entityList}.
Names are looked up by name (authenticators by username); write id:<id> to give an id that is also someone's name.

Every command takes --help, and --cli-config <file>: the session file (default $${sessionFileVariable}, else
$XDG_CONFIG_HOME/edgeward/edge-cli.json, else ~/.config/edgeward/edge-cli.json).
Exit codes: 0 done; 1 the API refused, the controller could not be reached, or there is no valid session; 2 the
command line is wrong.
`;

function loginUsage(): string {
  return `Usage: edgeward edge login [<controller url>] -u <username> [-p <password> | --password-file <file>] [--ca <pem file>]

Logs in to the Management API with a password and keeps the session (its tokens, the controller's URL and the CA)
in the session file, mode 0600. Where the controller's /version offers OIDC, the login goes through its OIDC provider:
later commands refresh the token before it expires and, when the controller does not answer, go on through another
controller of the cluster (--legacy keeps a zt-session login instead). The URL is the controller's address
(https://127.0.0.1:1280) or its /edge/management/v1 URL; without it, the URL (and CA) of the stored session are used.

Flags:
${flagHelp(loginFlags)}`;
}

function logoutUsage(): string {
  return `Usage: edgeward edge logout

Ends the stored session on the controller and removes the session file.

Flags:
${flagHelp(commonFlags)}`;
}

function listUsage(kind?: EntityKind): string {
  const fields = kind ? `\nColumns: ${kind.columns.map((column) => column.title).join(', ')}; --json and --yaml print every field.\n` : '';
  return `Usage: edgeward edge list ${kind ? kind.plural : '<entities>'} ['<filter>'] [--json | --yaml] [--limit <n>]
${kind ? '' : `\nEntities:\n  ${entityList}.\n`}${fields}
The filter is passed to the API as written (ZitiQL: name = "alice", anyOf(roleAttributes) = "ops",
name contains "web" and isAdmin = false sort by name). Every match is fetched, page after page, unless the
filter has its own skip or limit clause or --limit is given.

Flags:
${flagHelp(listFlags)}`;
}

function formsUsage(verb: 'create' | 'update'): string {
  const forms = verb === 'create' ? createForms : updateForms;
  return `Usage: edgeward edge ${verb} <entity> ...

${forms.map((form) => `  ${verb} ${form.synopsis}\n      ${form.summary}\n`).join('')}${verb === 'update' ? `  update ${identityConfigsWord} <identity> <service> <config> [-r|--remove]\n      use a config for one identity and service in place of the service's own\n` : ''}
'edgeward edge ${verb} <entity> --help' lists the flags of one.
`;
}

function formUsage(verb: 'create' | 'update', kind: EntityKind): string {
  const form = (verb === 'create' ? createForms : updateForms).find((candidate) => candidate.kind === kind)!;
  return `Usage: edgeward edge ${verb} ${form.synopsis}

${form.summary[0]!.toUpperCase()}${form.summary.slice(1)}.

Flags:
${flagHelp([...form.flags, ...outputFlags, ...commonFlags])}`;
}

function deleteUsage(): string {
  return `Usage: edgeward edge delete <entity> <name or id>...

Entities:
  ${entityList}.
Names are looked up by name (authenticators by username); id:<id> names one by id.

Flags:
${flagHelp([...outputFlags, ...commonFlags])}`;
}

function mfaUsage(): string {
  return `Usage: edgeward edge mfa reset <identity name or id>

Removes the identity's MFA (TOTP) enrollment, verified or in progress, without a code: for an identity that lost
its authenticator app and its recovery codes. Its sessions are not ended; its next login owes no MFA code unless
its auth policy requires TOTP.

Flags:
${flagHelp([...outputFlags, ...commonFlags])}`;
}

/** Where the command stands, for the messages of its failures. */
interface CommandState {
  sessionFile?: string;
  session?: StoredSession;
  transport?: Transport;
  /** Where notices go (a failover to another controller). */
  notice?: (line: string) => void;
}

/** A command line the parse accepted: what to run, and the command path its later usage errors name. */
interface EdgeInvocation {
  readonly verb: 'login' | 'logout' | 'use' | 'enroll' | 'list' | 'create' | 'update' | 'delete' | 'mfa' | 'list-extra' | 'policy-advisor' | 'identity-configs' | 'identity-configs-list';
  readonly kind?: EntityKind;
  /** `list summary` and the relationship lists. */
  readonly extra?: ListExtra;
  readonly parsed: ParsedFlags;
  /** `edge create identity`: the command whose --help a usage error suggests. */
  readonly command: string;
}

const verbs = ['login', 'logout', 'use', 'enroll', 'list', 'create', 'update', 'delete', 'mfa', 'policy-advisor'] as const;

/**
 * The pure first step of every `edge` command: the help it asks for, or what is wrong with its words (the verb, the
 * entity, the flags, how many arguments), or what to run. It reads no file and opens no session; what needs them
 * (a stored session's URL, a CA file, a name that must exist) is checked when the command runs.
 */
export function parseEdgeCommand(args: readonly string[]): ParseOutcome<EdgeInvocation> {
  const [verb, ...rest] = args;
  const usageError = (command: string, reason: string): ParseOutcome<EdgeInvocation> => ({ kind: 'usage-error', command, reason });
  if (verb === undefined) return usageError('edge', `missing a command (${verbs.join(', ')})`);
  if (verb === 'help' || verb === '--help' || verb === '-h') return { kind: 'help', text: usage };
  const help = wantsHelp(rest);
  const flags = (command: string, words: readonly string[], defs: readonly FlagDef[], run: (parsed: ParsedFlags) => string | undefined, invocation: Omit<EdgeInvocation, 'parsed' | 'command'>): ParseOutcome<EdgeInvocation> => {
    let parsed: ParsedFlags;
    try {
      parsed = parseFlags(words, defs);
    } catch (error) {
      if (error instanceof EdgeUsageError) return usageError(command, error.message);
      throw error;
    }
    const wrong = run(parsed);
    return wrong === undefined ? { kind: 'run', value: { ...invocation, parsed, command } } : usageError(command, wrong);
  };
  switch (verb) {
    case 'login':
      if (help) return { kind: 'help', text: loginUsage() };
      return flags('edge login', rest, loginFlags, (parsed) => {
        if (parsed.positional.length > 1) return `login takes one controller URL, not: ${parsed.positional.join(' ')}`;
        if (parsed.has('password') && parsed.has('password-file')) return 'give either -p/--password or --password-file, not both';
        const name = parsed.text('cli-identity');
        if (name !== undefined && !sessionNamePattern.test(name)) return `'${name}' is not a session name (letters, digits, '.', '_', '-'; at most 64)`;
        return undefined;
      }, { verb });
    case 'use':
      if (help) return { kind: 'help', text: useUsage(flagHelp(useFlags)) };
      return flags('edge use', rest, useFlags, (parsed) => useArgumentProblem(parsed.positional), { verb });
    case 'enroll':
      if (help) return { kind: 'help', text: enrollUsage(flagHelp(enrollFlags)) };
      return flags('edge enroll', rest, enrollFlags, enrollArgumentProblem, { verb });
    case 'logout':
      if (help) return { kind: 'help', text: logoutUsage() };
      return flags('edge logout', rest, commonFlags, (parsed) => (parsed.positional.length > 0 ? `logout takes no arguments, not: ${parsed.positional.join(' ')}` : undefined), { verb });
    case 'policy-advisor': {
      if (help) return { kind: 'help', text: policyAdvisorUsage(commonFlags) };
      const advisor = parsePolicyAdvisor(rest, commonFlags);
      if (typeof advisor === 'string') return usageError('edge policy-advisor', advisor);
      return flags(advisor.command, advisor.words, advisor.flags, (parsed) => advisor.check(parsed), { verb });
    }
    case 'list':
    case 'delete': {
      const pairWords = verb === 'list' ? identityServiceConfigListWords(rest) : undefined;
      if (pairWords) {
        const defs = [...outputFlags, ...commonFlags];
        if (help) return { kind: 'help', text: identityServiceConfigListUsage(defs) };
        return flags('edge list identity service-configs', pairWords, defs, (parsed) => outputConflict(parsed) ?? identityServiceConfigListProblem(parsed), { verb: 'identity-configs-list' });
      }
      const extra = verb === 'list' ? parseListExtra(rest, { list: listFlags, single: [...outputFlags, ...commonFlags] }) : undefined;
      if (extra) {
        if (help) return { kind: 'help', text: listExtraUsage(extra.extra, extra.flags) };
        return flags(extra.command, extra.words, extra.flags, (parsed) => outputConflict(parsed) ?? extra.check(parsed), { verb: 'list-extra', extra: extra.extra });
      }
      const verbUsage = verb === 'list' ? listUsage() : deleteUsage();
      const kind = kindWord(rest[0], help);
      if (typeof kind === 'string') return usageError(`edge ${verb}`, kind);
      if (help || !kind) return { kind: 'help', text: verb === 'list' ? listUsage(kind) : verbUsage };
      const command = `edge ${verb} ${kind.plural}`;
      if (verb === 'list') {
        return flags(command, rest.slice(1), listFlags, (parsed) => {
          const limit = parsed.integer('limit');
          return outputConflict(parsed) ?? (limit !== undefined && limit < 1 ? '--limit takes a number of at least 1' : undefined);
        }, { verb, kind });
      }
      return flags(command, rest.slice(1), [...outputFlags, ...commonFlags], (parsed) => outputConflict(parsed) ?? (parsed.positional.length === 0 ? `delete ${kind.name} takes the name or id of at least one ${kind.title}` : undefined), { verb, kind });
    }
    case 'create':
    case 'update': {
      if (verb === 'update' && rest[0] === identityConfigsWord) {
        const defs = [...identityConfigsOwnFlags, ...outputFlags, ...commonFlags];
        if (help) return { kind: 'help', text: identityConfigsUsage([...outputFlags, ...commonFlags]) };
        return flags(`edge update ${identityConfigsWord}`, rest.slice(1), defs, (parsed) => outputConflict(parsed) ?? identityConfigsArgumentProblem(parsed), { verb: 'identity-configs' });
      }
      const kind = kindWord(rest[0], help);
      if (typeof kind === 'string') return usageError(`edge ${verb}`, kind);
      if (help || !kind) return { kind: 'help', text: kind && hasForm(verb, kind) ? formUsage(verb, kind) : formsUsage(verb) };
      if (!hasForm(verb, kind)) return usageError(`edge ${verb}`, `${kind.plural} cannot be ${verb}d with this command`);
      const form = (verb === 'create' ? createForms : updateForms).find((candidate) => candidate.kind === kind)!;
      return flags(`edge ${verb} ${kind.name}`, rest.slice(1), [...form.flags, ...outputFlags, ...commonFlags], (parsed) => {
        const [min, max] = form.arity;
        const count = parsed.positional.length;
        if (count < min || count > max) return `${verb} ${kind.name} takes ${formArguments(form.synopsis)}${count > 0 ? `, not: ${parsed.positional.join(' ')}` : ''}`;
        return outputConflict(parsed);
      }, { verb, kind });
    }
    case 'mfa': {
      if (help) return { kind: 'help', text: mfaUsage() };
      if (rest[0] !== 'reset') return usageError('edge mfa', rest[0] === undefined ? 'mfa takes a command: reset' : `unknown mfa command '${rest[0]}': the command is reset`);
      return flags('edge mfa reset', rest.slice(1), [...outputFlags, ...commonFlags], (parsed) => outputConflict(parsed) ?? (parsed.positional.length !== 1 ? 'mfa reset takes the name or id of one identity' : undefined), { verb });
    }
    default: {
      const hint = suggestKey(verb, verbs);
      return usageError('edge', `unknown edge command '${verb}'${hint ? ` (did you mean ${hint}?)` : ''}`);
    }
  }
}

/** The positional arguments a form's synopsis shows: `<name> Dial|Bind` of `service-policy <name> Dial|Bind [...]`. */
function formArguments(synopsis: string): string {
  let text = synopsis.split('  |')[0]!;
  for (let before = ''; before !== text; ) {
    before = text;
    text = text.replace(/\[[^[\]]*\]|\([^()]*\)/g, '');
  }
  return text
    .split(/\s+/)
    .slice(1)
    .filter((word) => word !== '' && !word.startsWith('-') && word !== '...')
    .join(' ');
}

/** Every subcommand of `edge`, for the tests that walk the command tree: each verb, and each verb with each entity. */
function edgeSubcommands(): SubcommandInfo[] {
  const out: SubcommandInfo[] = [{ path: [], example: [], needsArguments: true }];
  out.push({ path: ['login'], example: ['https://127.0.0.1:1280', '-u', 'admin', '--password-file', 'admin-password', '--ca', 'ca-bundle.pem'], needsArguments: false });
  out.push({ path: ['logout'], example: [], needsArguments: false });
  out.push({ path: ['use'], example: ['staging'], needsArguments: false });
  out.push({ path: ['enroll'], example: ['alice.jwt', '--out', 'alice.json'], needsArguments: true });
  out.push({ path: ['mfa'], example: [], needsArguments: true }, { path: ['mfa', 'reset'], example: ['alice'], needsArguments: true });
  out.push(...listExtraSubcommands());
  out.push({ path: ['update', identityConfigsWord], example: ['alice', 'web', 'alice-host'], needsArguments: true });
  out.push({ path: ['list', 'identity', 'service-configs'], example: ['alice'], needsArguments: true });
  for (const verb of ['list', 'create', 'update', 'delete'] as const) {
    out.push({ path: [verb], example: [], needsArguments: true });
    for (const kind of entityKinds) {
      if (verb === 'list') out.push({ path: [verb, kind.plural], example: ['name contains "a"', '--json'], needsArguments: false });
      if (verb === 'delete') out.push({ path: [verb, kind.plural], example: ['alice'], needsArguments: true });
      if (verb === 'create' || verb === 'update') {
        const form = (verb === 'create' ? createForms : updateForms).find((candidate) => candidate.kind === kind);
        if (form) out.push({ path: [verb, kind.name], example: formExample(verb, kind), needsArguments: form.arity[0] > 0 });
      }
    }
  }
  return out;
}

/** Arguments that parse for each form: the values of its required positional arguments. */
function formExample(verb: 'create' | 'update', kind: EntityKind): string[] {
  if (verb === 'update') return kind.name === 'authenticator' ? ['alice', '--username', 'alice2'] : ['x', '--tags-json', '{}'];
  switch (kind.name) {
    case 'authenticator':
      return ['updb', 'alice', 'alice', '--password-file', 'password'];
    case 'service-policy':
      return ['dial-web', 'Dial', '--identity-roles', '#ops', '--service-roles', '@web'];
    case 'ext-jwt-signer':
      return ['signer', 'https://issuer.example', '--jwks-endpoint', 'https://issuer.example/jwks'];
    case 'ca':
      return ['ca', 'ca.pem'];
    case 'posture-check':
      return ['mfa', 'mfa-check'];
    case 'config':
      return ['web.host', 'host.v1', '{"protocol":"tcp","address":"localhost","port":8080}'];
    default:
      return ['x'];
  }
}

/** `./edgeward edge ...`: its commands, and the parse every command runs first. */
export const edgeCommandLine: CommandLine = { name: 'edge', subcommands: edgeSubcommands(), parse: parseEdgeCommand };

export async function runEdgeCommand(args: readonly string[], io: EdgeIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const outcome = parseEdgeCommand(args);
  if (outcome.kind !== 'run') return reportOutcome(outcome, io);
  const invocation = outcome.value;
  const state: CommandState = { notice: io.stderr };
  try {
    return await execute(invocation, io, env, state);
  } catch (error) {
    if (error instanceof EdgeUsageError) return reportOutcome({ kind: 'usage-error', command: invocation.command, reason: error.message }, io);
    if (error instanceof ApiFailure) {
      io.stderr(renderApiFailure(error) + sessionAdvice(error, state));
      return 1;
    }
    if (error instanceof EdgeFailure) {
      io.stderr(renderFailure(error));
      return 1;
    }
    throw error;
  } finally {
    state.transport?.close();
  }
}

/** What to do about a 401 on a stored session. */
function sessionAdvice(error: ApiFailure, state: CommandState): string {
  if (error.status !== 401 || !state.session) return '';
  const again = `log in again: edgeward edge login ${new URL(state.session.controllerUrl).origin} -u ${state.session.username}`;
  const problem = error.sessionProblem;
  if (problem === 'expired') return `  the session in ${state.sessionFile} has expired: ${again}\n`;
  if (problem) return `  the session in ${state.sessionFile} is no longer valid (it ended, expired or was removed): ${again}\n`;
  return `  the identity of the session (${state.session.identityName}) may not do this: the Management API needs an administrator\n`;
}

function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h' || arg === '--help=true');
}

async function execute(invocation: EdgeInvocation, io: EdgeIo, env: NodeJS.ProcessEnv, state: CommandState): Promise<number> {
  const { verb, kind, parsed } = invocation;
  switch (verb) {
    case 'login':
      return login(parsed, io, env, state);
    case 'logout':
      return logout(parsed, io, env, state);
    case 'use':
      return runUse(parsed, io, env);
    case 'enroll':
      return runEnroll(parsed, io);
    case 'list':
      return list(kind!, parsed, io, env, state);
    case 'create':
      return create(kind!, parsed, io, env, state);
    case 'update':
      return update(kind!, parsed, io, env, state);
    case 'delete':
      return remove(kind!, parsed, io, env, state);
    case 'list-extra':
      return runListExtra(invocation.extra!, parsed, outputFormat(parsed), io, connect(parsed, env, state));
    case 'policy-advisor':
      return runPolicyAdvisor(parsed, io, connect(parsed, env, state));
    case 'identity-configs':
      return runIdentityConfigs(parsed, outputFormat(parsed), io, connect(parsed, env, state));
    case 'identity-configs-list':
      return runIdentityServiceConfigList(parsed, outputFormat(parsed), io, connect(parsed, env, state));
    default:
      return mfaReset(parsed, io, env, state);
  }
}

function hasForm(verb: 'create' | 'update', kind: EntityKind): boolean {
  return (verb === 'create' ? createForms : updateForms).some((form) => form.kind === kind);
}

/** The entity a word names; undefined only when help was asked for without one; a string says what is wrong. */
function kindWord(word: string | undefined, help: boolean): EntityKind | string | undefined {
  if (word === undefined || word.startsWith('-')) {
    if (help) return undefined;
    return 'name the entity first';
  }
  const kind = entityKind(word);
  if (kind) return kind;
  if (help) return undefined;
  const hint = suggestKey(word, entityWords());
  return `unknown entity '${word}'${hint ? ` (did you mean ${hint}?)` : ''}`;
}

function outputConflict(parsed: ParsedFlags): string | undefined {
  return parsed.bool('json') && parsed.bool('yaml') ? 'give --json or --yaml, not both' : undefined;
}

function outputFormat(parsed: ParsedFlags): OutputFormat {
  if (parsed.bool('json') && parsed.bool('yaml')) throw new EdgeUsageError('give --json or --yaml, not both');
  return parsed.bool('json') ? 'json' : parsed.bool('yaml') ? 'yaml' : 'table';
}

/** A client on the stored session; no session is a failure that says how to log in. */
function connect(parsed: ParsedFlags, env: NodeJS.ProcessEnv, state: CommandState): ManagementClient {
  const file = sessionFilePath(parsed.text('cli-config'), env);
  state.sessionFile = file;
  const session = readSession(file);
  if (!session) {
    throw new EdgeFailure('not logged in: there is no session in ' + file, ['log in first: edgeward edge login <controller url> -u <username> --ca <ca bundle pem>']);
  }
  state.session = session;
  state.transport = httpsTransport(session.caPem);
  if (!session.oidc) return new ManagementClient(session.controllerUrl, state.transport, session.token);
  const oidc = session.oidc;
  state.transport = oidcSessionTransport(
    state.transport,
    { controllerUrl: session.controllerUrl, tokens: { accessToken: session.token, refreshToken: oidc.refreshToken, expiresAtMs: Date.parse(oidc.expiresAt) }, controllers: oidc.controllers },
    {
      now: () => Date.now(),
      notice: (line) => state.notice?.(`${line}\n`),
      // The refreshed tokens (and the controller that answered) replace the stored ones: the old refresh token is spent.
      saved: (next) => writeSession(file, { ...session, controllerUrl: next.controllerUrl, token: next.tokens.accessToken, oidc: { ...oidc, refreshToken: next.tokens.refreshToken, expiresAt: new Date(next.tokens.expiresAtMs).toISOString() } }),
      loginAgain: `log in again: edgeward edge login ${new URL(session.controllerUrl).origin} -u ${session.username}`,
    },
  );
  return new ManagementClient(session.controllerUrl, state.transport);
}

/** The forms' context; the session is opened when a name is first looked up, after the command line is checked. */
function formContext(client: () => ManagementClient): FormContext {
  return {
    resolveId: (kind, reference) => resolveEntityId(client(), kind, reference),
    readText: (file, what) => readTextFile(file, what),
    readSecret: (source) => readSecret(source),
  };
}

function readTextFile(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new EdgeUsageError(`cannot read ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function noPositionals(parsed: ParsedFlags, command: string): void {
  if (parsed.positional.length > 0) throw new EdgeUsageError(`${command} takes no arguments, not: ${parsed.positional.join(' ')}`);
}

// ---------------------------------------------------------------------------------------------------------------

async function login(parsed: ParsedFlags, io: EdgeIo, env: NodeJS.ProcessEnv, state: CommandState): Promise<number> {
  if (parsed.positional.length > 1) throw new EdgeUsageError(`login takes one controller URL, not: ${parsed.positional.join(' ')}`);
  const file = sessionFilePath(parsed.text('cli-config'), env);
  state.sessionFile = file;
  const sessionName = parsed.text('cli-identity');
  const stored = readSessionQuietly(file, sessionName);
  const given = parsed.positional[0];
  if (given === undefined && !stored) throw new EdgeUsageError("give the controller's URL, such as https://127.0.0.1:1280");
  const controllerUrl = given !== undefined ? managementBaseUrl(given) : stored!.controllerUrl;
  const username = parsed.text('username') ?? (given === undefined ? stored?.username : undefined);
  if (!username) throw new EdgeUsageError('-u/--username is required');
  if (parsed.has('password') && parsed.has('password-file')) throw new EdgeUsageError('give either -p/--password or --password-file, not both');
  const caFile = parsed.text('ca');
  let caPem: string | undefined;
  if (caFile !== undefined) {
    caPem = readTextFile(caFile, 'the CA file');
    if (!caPem.includes('-----BEGIN CERTIFICATE-----')) throw new EdgeUsageError(`the CA file ${caFile} holds no PEM certificate`);
  } else if (stored && stored.controllerUrl === controllerUrl) {
    caPem = stored.caPem;
  }
  const password = await readSecret({
    ...(parsed.text('password') !== undefined ? { value: parsed.text('password')! } : {}),
    ...(parsed.text('password-file') !== undefined ? { file: parsed.text('password-file')! } : {}),
    prompt: `Password for ${username}: `,
    flag: '--password-file',
  });

  state.transport = httpsTransport(caPem);
  const save = (token: string, identity: Record<string, unknown>, oidc?: StoredSession['oidc']): number => {
    writeSession(file, {
      controllerUrl,
      username,
      token,
      ...(caPem !== undefined ? { caPem } : {}),
      ...(caFile !== undefined ? { caFile } : stored?.caFile !== undefined && caPem === stored.caPem ? { caFile: stored.caFile } : {}),
      identityId: String(identity.id),
      identityName: String(identity.name),
      loggedInAt: new Date().toISOString(),
      ...(oidc ? { oidc } : {}),
    }, sessionName);
    io.stdout(`Logged in to ${controllerUrl} as ${String(identity.name)} (username ${username})\nSession saved in ${file}${sessionName !== undefined ? ` as ${sessionName}` : ''}\n`);
    if (oidc) io.stdout(`Logged in through OIDC: the token is refreshed as it expires; ${oidc.controllers.length} controller(s) known for failover\n`);
    if (identity.isAdmin !== true) io.stderr(`warning: ${String(identity.name)} is not an administrator: the Management API will refuse its requests\n`);
    return 0;
  };
  const askMfaCode = () =>
    readSecret({ ...(parsed.text('mfa-code') !== undefined ? { value: parsed.text('mfa-code')! } : {}), prompt: 'MFA code: ', flag: '--mfa-code' }).catch((error: unknown) => {
      throw error instanceof EdgeUsageError ? new EdgeUsageError(`${username} owes an MFA code: give it with --mfa-code <code>`) : error;
    });
  // A controller that offers OIDC gets an OIDC login (tokens every controller of the cluster honours), unless --legacy.
  if (!parsed.bool('legacy') && (await controllerOffersOidc(state.transport, new URL(controllerUrl).origin))) {
    const { state: oidc, identity } = await loginThroughOidc(state.transport, controllerUrl, username, password, askMfaCode);
    return save(oidc.tokens.accessToken, identity, { refreshToken: oidc.tokens.refreshToken, expiresAt: new Date(oidc.tokens.expiresAtMs).toISOString(), controllers: oidc.controllers });
  }
  const anonymous = new ManagementClient(controllerUrl, state.transport);
  const answer = await anonymous.call('POST', '/authenticate', { query: { method: 'password' }, body: { username, password } });
  const apiSession = answer.data as { token?: unknown; authQueries?: Array<{ typeId?: string }> };
  if (typeof apiSession.token !== 'string') throw new EdgeFailure(`the controller at ${controllerUrl} answered the login without a session token`);
  const client = new ManagementClient(controllerUrl, state.transport, apiSession.token);
  const queries = (apiSession.authQueries ?? []).map((query) => query.typeId);
  if (queries.includes('EXT-JWT')) {
    await client.call('DELETE', '/current-api-session').catch(() => undefined);
    throw new EdgeFailure(`${username}'s auth policy requires an external JWT as a second factor, which this command cannot supply`);
  }
  if (queries.includes('MFA')) {
    const code = await askMfaCode().catch(async (error: unknown) => {
      await client.call('DELETE', '/current-api-session').catch(() => undefined);
      throw error;
    });
    await client.call('POST', '/authenticate/mfa', { body: { code } });
  }
  return save(apiSession.token, await client.get('/current-identity'));
}

/** The stored session (the one named, else the one in use), or undefined when there is none or it cannot be read (login replaces it anyway). */
function readSessionQuietly(file: string, name?: string): StoredSession | undefined {
  try {
    return readSession(file, name);
  } catch {
    return undefined;
  }
}

async function logout(parsed: ParsedFlags, io: EdgeIo, env: NodeJS.ProcessEnv, state: CommandState): Promise<number> {
  noPositionals(parsed, 'logout');
  const file = sessionFilePath(parsed.text('cli-config'), env);
  const session = readSessionQuietly(file);
  if (session) {
    state.transport = httpsTransport(session.caPem);
    const client = new ManagementClient(session.controllerUrl, state.transport, session.token);
    try {
      // An OIDC session ends by revoking its refresh token (every controller then refuses its tokens).
      if (session.oidc) await revokeOidcSession(state.transport, [session.controllerUrl, ...session.oidc.controllers.filter((url) => url !== session.controllerUrl)], session.oidc.refreshToken);
      else await client.call('DELETE', '/current-api-session');
    } catch (error) {
      // A session that already ended is what logout wants; anything else is worth a word, but the file still goes.
      if (!(error instanceof ApiFailure && error.status === 401)) io.stderr(`warning: the session could not be ended on the controller: ${(error as Error).message}\n`);
    }
  }
  const removed = removeSession(file);
  const what = removed === 'file' ? `removed ${file}` : `forgot its session in ${file} (edgeward edge use <name> picks another)`;
  io.stdout(removed ? `Logged out${session ? ` of ${session.controllerUrl}` : ''}; ${what}\n` : `Not logged in (no session in ${file})\n`);
  return 0;
}

async function list(kind: EntityKind, parsed: ParsedFlags, io: EdgeIo, env: NodeJS.ProcessEnv, state: CommandState): Promise<number> {
  const format = outputFormat(parsed);
  const limit = parsed.integer('limit');
  if (limit !== undefined && limit < 1) throw new EdgeUsageError('--limit takes a number of at least 1');
  const filter = parsed.positional.length > 0 ? parsed.positional.join(' ') : undefined;
  const client = connect(parsed, env, state);
  const result = await client.list(kind.path, filter, limit);
  io.stdout(format === 'table' ? renderList(kind.columns, result.items, result.totalCount, result.offset) : renderData(result.items, format));
  return 0;
}

async function create(kind: EntityKind, parsed: ParsedFlags, io: EdgeIo, env: NodeJS.ProcessEnv, state: CommandState): Promise<number> {
  const format = outputFormat(parsed);
  const form = createForms.find((candidate) => candidate.kind === kind)!;
  let session: ManagementClient | undefined;
  const client = () => (session ??= connect(parsed, env, state));
  const plan = await form.plan(parsed, formContext(client));
  const created = await client().create(kind.path, plan.body);
  const id = String(created.id);
  const note = format === 'table' ? io.stdout : io.stderr;
  if (format === 'table') io.stdout(`New ${kind.title} ${plan.label} created with id: ${id}\n`);
  else io.stdout(renderData(created, format));
  if (plan.jwt) {
    const jwt = plan.jwt.of(await client().get(`${kind.path}/${encodeURIComponent(id)}`));
    if (typeof jwt !== 'string' || jwt === '') throw new EdgeFailure(`the new ${kind.title} ${id} has no enrollment JWT to write`);
    try {
      writeFileSync(plan.jwt.file, `${jwt}\n`, { mode: 0o600 });
    } catch (error) {
      throw new EdgeFailure(`the ${kind.title} was created (id ${id}), but its enrollment JWT could not be written to ${plan.jwt.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    note(`Enrollment JWT written to ${plan.jwt.file}\n`);
  }
  return 0;
}

async function update(kind: EntityKind, parsed: ParsedFlags, io: EdgeIo, env: NodeJS.ProcessEnv, state: CommandState): Promise<number> {
  const format = outputFormat(parsed);
  const form = updateForms.find((candidate) => candidate.kind === kind)!;
  let session: ManagementClient | undefined;
  const client = () => (session ??= connect(parsed, env, state));
  const context = formContext(client);
  const plan = await form.plan(parsed, context);
  if (Object.keys(plan.body).filter((key) => key !== 'typeId').length === 0) throw new EdgeUsageError(`nothing to change: give at least one flag`);
  const id = await context.resolveId(kind, plan.target);
  const data = await client().patch(`${kind.path}/${encodeURIComponent(id)}`, plan.body);
  io.stdout(format === 'table' ? `Updated ${kind.title} ${plan.target} (id: ${id})\n` : renderData(data, format));
  return 0;
}

async function remove(kind: EntityKind, parsed: ParsedFlags, io: EdgeIo, env: NodeJS.ProcessEnv, state: CommandState): Promise<number> {
  const format = outputFormat(parsed);
  if (parsed.positional.length === 0) throw new EdgeUsageError(`delete ${kind.name} takes the name or id of at least one ${kind.title}`);
  const client = connect(parsed, env, state);
  const answers: Record<string, unknown>[] = [];
  for (const reference of parsed.positional) {
    const id = await resolveEntityId(client, kind, reference);
    answers.push(await client.delete(`${kind.path}/${encodeURIComponent(id)}`));
    if (format === 'table') io.stdout(`Deleted ${kind.title} ${reference}${reference === id ? '' : ` (id: ${id})`}\n`);
  }
  if (format !== 'table') io.stdout(renderData(answers.length === 1 ? answers[0] : answers, format));
  return 0;
}

async function mfaReset(parsed: ParsedFlags, io: EdgeIo, env: NodeJS.ProcessEnv, state: CommandState): Promise<number> {
  const format = outputFormat(parsed);
  if (parsed.positional.length !== 1) throw new EdgeUsageError('mfa reset takes the name or id of one identity');
  const identity = kindNamed('identity');
  const client = connect(parsed, env, state);
  const reference = parsed.positional[0]!;
  const id = await resolveEntityId(client, identity, reference);
  const data = await client.delete(`/identities/${encodeURIComponent(id)}/mfa`);
  io.stdout(format === 'table' ? `Removed the MFA enrollment of identity ${reference}${reference === id ? '' : ` (id: ${id})`}\n` : renderData(data, format));
  return 0;
}


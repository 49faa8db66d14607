// `edgeward edge ...`: the Edge Management API from a shell, in the manner of `ziti edge`: login and logout, list,
// create, update and delete of every entity the API serves, and an identity's MFA reset. A pure client of the API
// over HTTPS: it shares no code with the controller beyond common/.
// Exit codes: 0 done; 1 the API refused (its error envelope is printed), the controller could not be reached, or
// there is no valid session; 2 the command line is wrong (the usage is printed on stderr).
import { readFileSync, writeFileSync } from 'node:fs';
import { suggestKey } from '../../../common/config/suggest-key.ts';
import { managementBaseUrl } from './controller-url.ts';
import { EdgeUsageError, flagHelp, parseFlags, type FlagDef, type ParsedFlags } from './edge-args.ts';
import { entityKind, entityWords, kindNamed, type EntityKind } from './edge-entities.ts';
import { ApiFailure, EdgeFailure } from './edge-errors.ts';
import { renderApiFailure, renderData, renderFailure, renderList, type OutputFormat } from './edge-output.ts';
import { readSession, removeSession, sessionFilePath, sessionFileVariable, writeSession, type StoredSession } from './edge-session-store.ts';
import { createForms, updateForms, type FormContext } from './entity-forms.ts';
import { resolveEntityId } from './entity-lookup.ts';
import { httpsTransport, ManagementClient, type Transport } from './management-client.ts';
import { readSecret } from './secret-input.ts';

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
  ...commonFlags,
];
const listFlags: FlagDef[] = [...outputFlags, { name: 'limit', kind: 'integer', help: 'print at most this many (default: every match, page after page)' }, ...commonFlags];

const entityList = 'identities, authenticators, services, service-policies, auth-policies, ext-jwt-signers, cas,\n  posture-checks, edge-routers, api-sessions, enrollments';

const usage = `Usage: edgeward edge <command> [arguments] [flags]

The Edge Management API from a shell, in the manner of 'ziti edge'.

Commands:
  login [<controller url>] -u <username> [-p <password> | --password-file <file>] [--ca <pem file>]
                                        log in as an administrator and keep the session
  logout                                end the session and forget it
  list <entities> ['<filter>'] [--json | --yaml] [--limit <n>]
                                        list entities, filtered with the API's ZitiQL filter
  create <entity> <arguments> [flags]   create an entity (edgeward edge create --help)
  update <entity> <name or id> [flags]  change an entity (edgeward edge update --help)
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

Logs in to the Management API with a password and keeps the session (its token, the controller's URL and the CA)
in the session file, mode 0600. The URL is the controller's address (https://127.0.0.1:1280) or its
/edge/management/v1 URL; without it, the URL (and CA) of the stored session are used.

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

${forms.map((form) => `  ${verb} ${form.synopsis}\n      ${form.summary}\n`).join('')}
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
}

export async function runEdgeCommand(args: readonly string[], io: EdgeIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const state: CommandState = {};
  try {
    return await dispatch(args, io, env, state);
  } catch (error) {
    if (error instanceof EdgeUsageError) {
      io.stderr(`error: ${error.message}\n\n${error.usage ?? usage}`);
      return 2;
    }
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

async function dispatch(args: readonly string[], io: EdgeIo, env: NodeJS.ProcessEnv, state: CommandState): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === undefined) {
    io.stderr(usage);
    return 2;
  }
  if (verb === 'help' || verb === '--help' || verb === '-h') {
    io.stdout(usage);
    return 0;
  }
  const help = wantsHelp(rest);
  switch (verb) {
    case 'login':
      if (help) return printHelp(io, loginUsage());
      return withUsage(loginUsage(), () => login(parseFlags(rest, loginFlags), io, env, state));
    case 'logout':
      if (help) return printHelp(io, logoutUsage());
      return withUsage(logoutUsage(), () => logout(parseFlags(rest, commonFlags), io, env, state));
    case 'list': {
      const kind = kindWord(rest[0], help, listUsage());
      if (help || !kind) return printHelp(io, listUsage(kind));
      return withUsage(listUsage(kind), () => list(kind, parseFlags(rest.slice(1), listFlags), io, env, state));
    }
    case 'create':
    case 'update': {
      const kind = kindWord(rest[0], help, formsUsage(verb));
      if (help || !kind) return printHelp(io, kind && hasForm(verb, kind) ? formUsage(verb, kind) : formsUsage(verb));
      if (!hasForm(verb, kind)) throw new EdgeUsageError(`${kind.plural} cannot be ${verb}d with this command`, formsUsage(verb));
      const form = (verb === 'create' ? createForms : updateForms).find((candidate) => candidate.kind === kind)!;
      return withUsage(formUsage(verb, kind), () => {
        const parsed = parseFlags(rest.slice(1), [...form.flags, ...outputFlags, ...commonFlags]);
        return verb === 'create' ? create(kind, parsed, io, env, state) : update(kind, parsed, io, env, state);
      });
    }
    case 'delete': {
      const kind = kindWord(rest[0], help, deleteUsage());
      if (help || !kind) return printHelp(io, deleteUsage());
      return withUsage(deleteUsage(), () => remove(kind, parseFlags(rest.slice(1), [...outputFlags, ...commonFlags]), io, env, state));
    }
    case 'mfa': {
      if (help) return printHelp(io, mfaUsage());
      if (rest[0] !== 'reset') throw new EdgeUsageError(rest[0] === undefined ? 'mfa takes a command: reset' : `unknown mfa command '${rest[0]}': the command is reset`, mfaUsage());
      return withUsage(mfaUsage(), () => mfaReset(parseFlags(rest.slice(1), [...outputFlags, ...commonFlags]), io, env, state));
    }
    default: {
      const hint = suggestKey(verb, ['login', 'logout', 'list', 'create', 'update', 'delete', 'mfa']);
      throw new EdgeUsageError(`unknown edge command '${verb}'${hint ? ` (did you mean ${hint}?)` : ''}`);
    }
  }
}

/** Runs a command; its usage errors carry the command's own usage text unless they name another. */
async function withUsage(usageText: string, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof EdgeUsageError && error.usage === undefined) throw new EdgeUsageError(error.message, usageText);
    throw error;
  }
}

function printHelp(io: EdgeIo, text: string): number {
  io.stdout(text);
  return 0;
}

function hasForm(verb: 'create' | 'update', kind: EntityKind): boolean {
  return (verb === 'create' ? createForms : updateForms).some((form) => form.kind === kind);
}

/** The entity a word names; undefined only when help was asked for without one. */
function kindWord(word: string | undefined, help: boolean, verbUsage: string): EntityKind | undefined {
  if (word === undefined || word.startsWith('-')) {
    if (help) return undefined;
    throw new EdgeUsageError('name the entity first', verbUsage);
  }
  const kind = entityKind(word);
  if (kind) return kind;
  if (help) return undefined;
  const hint = suggestKey(word, entityWords());
  throw new EdgeUsageError(`unknown entity '${word}'${hint ? ` (did you mean ${hint}?)` : ''}`, verbUsage);
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
  return new ManagementClient(session.controllerUrl, state.transport, session.token);
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
  const stored = readSessionQuietly(file);
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
    const code = await readSecret({ ...(parsed.text('mfa-code') !== undefined ? { value: parsed.text('mfa-code')! } : {}), prompt: 'MFA code: ', flag: '--mfa-code' }).catch(async (error: unknown) => {
      await client.call('DELETE', '/current-api-session').catch(() => undefined);
      throw error instanceof EdgeUsageError ? new EdgeUsageError(`${username} owes an MFA code: give it with --mfa-code <code>`) : error;
    });
    await client.call('POST', '/authenticate/mfa', { body: { code } });
  }
  const identity = await client.get('/current-identity');
  writeSession(file, {
    controllerUrl,
    username,
    token: apiSession.token,
    ...(caPem !== undefined ? { caPem } : {}),
    ...(caFile !== undefined ? { caFile } : stored?.caFile !== undefined && caPem === stored.caPem ? { caFile: stored.caFile } : {}),
    identityId: String(identity.id),
    identityName: String(identity.name),
    loggedInAt: new Date().toISOString(),
  });
  io.stdout(`Logged in to ${controllerUrl} as ${String(identity.name)} (username ${username})\nSession saved in ${file}\n`);
  if (identity.isAdmin !== true) io.stderr(`warning: ${String(identity.name)} is not an administrator: the Management API will refuse its requests\n`);
  return 0;
}

/** The stored session, or undefined when there is none or it cannot be read (login replaces it anyway). */
function readSessionQuietly(file: string): StoredSession | undefined {
  try {
    return readSession(file);
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
      await client.call('DELETE', '/current-api-session');
    } catch (error) {
      // A session that already ended is what logout wants; anything else is worth a word, but the file still goes.
      if (!(error instanceof ApiFailure && error.status === 401)) io.stderr(`warning: the session could not be ended on the controller: ${(error as Error).message}\n`);
    }
  }
  const removed = removeSession(file);
  io.stdout(removed ? `Logged out${session ? ` of ${session.controllerUrl}` : ''}; removed ${file}\n` : `Not logged in (no session in ${file})\n`);
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
  if (Object.keys(plan.body).filter((key) => key !== 'typeId').length === 0) throw new EdgeUsageError(`nothing to change: give at least one flag`, formUsage('update', kind));
  const id = await context.resolveId(kind, plan.target);
  const data = await client().patch(`${kind.path}/${encodeURIComponent(id)}`, plan.body);
  io.stdout(format === 'table' ? `Updated ${kind.title} ${plan.target} (id: ${id})\n` : renderData(data, format));
  return 0;
}

async function remove(kind: EntityKind, parsed: ParsedFlags, io: EdgeIo, env: NodeJS.ProcessEnv, state: CommandState): Promise<number> {
  const format = outputFormat(parsed);
  if (parsed.positional.length === 0) throw new EdgeUsageError(`delete ${kind.name} takes the name or id of at least one ${kind.title}`, deleteUsage());
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
  if (parsed.positional.length !== 1) throw new EdgeUsageError('mfa reset takes the name or id of one identity', mfaUsage());
  const identity = kindNamed('identity');
  const client = connect(parsed, env, state);
  const reference = parsed.positional[0]!;
  const id = await resolveEntityId(client, identity, reference);
  const data = await client.delete(`/identities/${encodeURIComponent(id)}/mfa`);
  io.stdout(format === 'table' ? `Removed the MFA enrollment of identity ${reference}${reference === id ? '' : ` (id: ${id})`}\n` : renderData(data, format));
  return 0;
}


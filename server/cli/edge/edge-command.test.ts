import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runEdgeCommand } from './edge-command.ts';
import { entityKinds } from './edge-entities.ts';

const root = mkdtempSync(join(tmpdir(), 'edge-command-'));
after(() => rmSync(root, { recursive: true, force: true }));
const env = { EDGEWARD_EDGE_CLI_CONFIG: join(root, 'no-session.json') };

async function run(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runEdgeCommand(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) }, env);
  return { code, stdout, stderr };
}

test('every command and every entity form answers --help on stdout with exit 0', async () => {
  const commands = [['--help'], ['help'], ['login', '--help'], ['logout', '-h'], ['list', '--help'], ['create', '--help'], ['update', '--help'], ['delete', '--help'], ['mfa', '--help'], ['mfa', 'reset', '--help']];
  for (const kind of entityKinds) {
    for (const verb of ['list', 'create', 'update', 'delete']) commands.push([verb, kind.plural, '--help'], [verb, kind.name, '-h']);
  }
  commands.push(['create', 'identity', 'alice', '--frob', '--help'], ['list', 'widgets', '--help']);
  for (const args of commands) {
    const result = await run(...args);
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stdout, /^Usage: edgeward edge/, args.join(' '));
    assert.equal(result.stderr, '', args.join(' '));
  }
  assert.match((await run('create', 'service-policy', '--help')).stdout, /-i, --identity-roles <roles>/);
  assert.match((await run('list', 'identities', '--help')).stdout, /Columns: ID, NAME, TYPE, ADMIN/);
  assert.match((await run('update', 'api-sessions', '--help')).stdout, /^Usage: edgeward edge update <entity>/, 'an entity without an update form lists the forms');
});

test('a wrong command line is a usage error on stderr with exit 2, before any session is needed', async () => {
  const cases: Array<[string[], RegExp]> = [
    [[], /^edgeward edge: missing a command \(login, logout, use, enroll, list, create, update, delete, mfa, policy-advisor\)\nRun '\.\/edgeward edge --help' for usage\.\n$/],
    [['frobnicate'], /^edgeward edge: unknown edge command 'frobnicate'\nRun '\.\/edgeward edge --help' for usage\.\n$/],
    [['lst', 'identities'], /unknown edge command 'lst' \(did you mean list\?\)/],
    [['list'], /^edgeward edge list: name the entity first\n/],
    [['list', 'identitys'], /^edgeward edge list: unknown entity 'identitys' \(did you mean identity\?\)/],
    [['list', 'identities', '--json', '--yaml'], /give --json or --yaml, not both/],
    [['list', 'identities', '--limit', '0'], /--limit takes a number of at least 1/],
    [['create', 'identity'], /^edgeward edge create identity: create identity takes <name>\nRun '\.\/edgeward edge create identity --help' for usage\.\n$/],
    [['create', 'api-session', 'x'], /api-sessions cannot be created with this command/],
    [['create', 'service', 'web', '--encryption', 'maybe'], /--encryption takes ON or OFF/],
    [['update', 'identity', 'alice'], /^edgeward edge update identity: nothing to change: give at least one flag/],
    [['delete', 'identity'], /delete identity takes the name or id of at least one identity/],
    [['mfa'], /mfa takes a command: reset/],
    [['mfa', 'enable', 'x'], /unknown mfa command 'enable'/],
    [['mfa', 'reset'], /mfa reset takes the name or id of one identity/],
    [['login'], /give the controller's URL/],
    [['login', 'https://127.0.0.1:1280'], /-u\/--username is required/],
    [['login', 'http://127.0.0.1:1280', '-u', 'admin'], /not an https URL/],
    [['login', 'https://127.0.0.1:1280', '-u', 'admin', '-p', 'x', '--password-file', 'f'], /either -p\/--password or --password-file/],
    [['login', 'https://127.0.0.1:1280', '-u', 'admin', '-p', 'x', '--ca', join(root, 'missing.pem')], /cannot read the CA file .*missing\.pem: ENOENT/],
    [['logout', 'now'], /logout takes no arguments/],
  ];
  for (const [args, message] of cases) {
    const result = await run(...args);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message, args.join(' '));
    assert.equal(result.stdout, '', args.join(' '));
    assert.match(result.stderr, /^edgeward edge[^:]*: .+\nRun '\.\/edgeward edge[^']* --help' for usage\.\n$/, args.join(' '));
  }
});

test('without a session, a command fails with exit 1 and says to log in', async () => {
  for (const args of [['list', 'identities'], ['create', 'service', 'web'], ['delete', 'identity', 'alice'], ['mfa', 'reset', 'alice'], ['update', 'service', 'web', '-a', 'x']]) {
    const result = await run(...args);
    assert.equal(result.code, 1, args.join(' '));
    assert.equal(result.stderr, `error: not logged in: there is no session in ${env.EDGEWARD_EDGE_CLI_CONFIG}\n  log in first: edgeward edge login <controller url> -u <username> --ca <ca bundle pem>\n`);
  }
  const logout = await run('logout');
  assert.equal(logout.code, 0);
  assert.match(logout.stdout, /^Not logged in/);
});

test("the parse and each form agree: the form's example arguments, which the parse accepts, make a plan", async () => {
  const { edgeCommandLine, parseEdgeCommand } = await import('./edge-command.ts');
  const { createForms, updateForms } = await import('./entity-forms.ts');
  const { parseFlags } = await import('./edge-args.ts');
  const context = { resolveId: async () => 'some-id', readText: () => '-----BEGIN CERTIFICATE-----\n', readSecret: async () => 'secret' };
  let forms = 0;
  for (const sub of edgeCommandLine.subcommands) {
    const [verb, entity] = sub.path;
    // `update identity-configs` is a command of its own, not an entity's form (its parse is tested below).
    if ((verb !== 'create' && verb !== 'update') || entity === undefined || entity === 'identity-configs') continue;
    const outcome = parseEdgeCommand([...sub.path, ...sub.example]);
    assert.equal(outcome.kind, 'run', sub.path.join(' '));
    const form = (verb === 'create' ? createForms : updateForms).find((candidate) => candidate.kind.name === entity)!;
    await form.plan(parseFlags(sub.example, form.flags), context);
    const [min, max] = form.arity;
    if (min > 0) assert.equal(parseEdgeCommand(sub.path).kind, 'usage-error', `${sub.path.join(' ')} without arguments`);
    assert.equal(parseEdgeCommand([...sub.path, ...Array.from({ length: max + 1 }, () => 'x')]).kind, 'usage-error', `${sub.path.join(' ')} with ${max + 1} arguments`);
    forms++;
  }
  assert.equal(forms, createForms.length + updateForms.length);
});

test('update identity-configs takes an identity, a service and a config, and --remove, in ziti edge\'s grammar', async () => {
  const { parseEdgeCommand } = await import('./edge-command.ts');
  const run = parseEdgeCommand(['update', 'identity-configs', 'alice', 'web', 'alice-host', '--remove']);
  assert.equal(run.kind, 'run');
  assert.deepEqual(run.kind === 'run' && [run.value.verb, run.value.parsed.positional, run.value.parsed.bool('remove')], ['identity-configs', ['alice', 'web', 'alice-host'], true]);
  const short = parseEdgeCommand(['update', 'identity-configs', '-r', 'alice', 'web', 'alice-host']);
  assert.equal(short.kind === 'run' && short.value.parsed.bool('remove'), true, '-r is --remove, and flags may come first');
  const missing = parseEdgeCommand(['update', 'identity-configs', 'alice', 'web']);
  assert.deepEqual(missing, { kind: 'usage-error', command: 'edge update identity-configs', reason: 'update identity-configs takes <identity> <service> <config>, not: alice web' });
  const help = parseEdgeCommand(['update', 'identity-configs', '--help']);
  assert.equal(help.kind, 'help');
  assert.match(help.kind === 'help' ? help.text : '', /^Usage: edgeward edge update identity-configs <identity> <service> <config> \[-r\|--remove\]/);
});

test('list identity service-configs takes one identity, in either order; a plain list of identities is not it', async () => {
  const { parseEdgeCommand } = await import('./edge-command.ts');
  for (const words of [['list', 'identity', 'service-configs', 'alice', '--json'], ['list', 'identity', 'alice', 'service-configs', '--json']]) {
    const outcome = parseEdgeCommand(words);
    assert.deepEqual(outcome.kind === 'run' && [outcome.value.verb, outcome.value.parsed.positional, outcome.value.parsed.bool('json')], ['identity-configs-list', ['alice'], true], words.join(' '));
  }
  assert.deepEqual(parseEdgeCommand(['list', 'identity', 'service-configs']), { kind: 'usage-error', command: 'edge list identity service-configs', reason: 'list identity service-configs takes the name or id of one identity' });
  const plain = parseEdgeCommand(['list', 'identities', 'name = "alice"']);
  assert.equal(plain.kind === 'run' && plain.value.verb, 'list');
});


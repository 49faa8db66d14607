import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EdgeFailure } from './edge-errors.ts';
import { readSession, readSessionBook, removeSession, sessionFilePath, useSession, writeSession, type StoredSession } from './edge-session-store.ts';

const root = mkdtempSync(join(tmpdir(), 'edge-session-store-'));
after(() => rmSync(root, { recursive: true, force: true }));

const session: StoredSession = {
  controllerUrl: 'https://127.0.0.1:1280/edge/management/v1',
  username: 'admin',
  token: '0acdbae3-08ca-4201-aa24-4e345bcfd1ba',
  caPem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
  caFile: '/srv/pki/ca-bundle.pem',
  identityId: 'dd1gDsmtOg',
  identityName: 'Default Admin',
  loggedInAt: '2026-11-21T23:49:43.102Z',
};

test('the session file: --cli-config, else the variable, else $XDG_CONFIG_HOME, else ~/.config', () => {
  assert.equal(sessionFilePath('/x/flag.json', { EDGEWARD_EDGE_CLI_CONFIG: '/x/env.json', XDG_CONFIG_HOME: '/x/xdg' }), '/x/flag.json');
  assert.equal(sessionFilePath(undefined, { EDGEWARD_EDGE_CLI_CONFIG: '/x/env.json', XDG_CONFIG_HOME: '/x/xdg' }), '/x/env.json');
  assert.equal(sessionFilePath(undefined, { XDG_CONFIG_HOME: '/x/xdg' }), '/x/xdg/edgeward/edge-cli.json');
  assert.equal(sessionFilePath(undefined, {}), join(homedir(), '.config', 'edgeward', 'edge-cli.json'));
  assert.equal(sessionFilePath(undefined, { XDG_CONFIG_HOME: 'relative' }), join(homedir(), '.config', 'edgeward', 'edge-cli.json'), 'a relative XDG_CONFIG_HOME is ignored, as the spec says');
});

test('a session is written readable by its owner only, in a folder of its own, and read back as written', () => {
  const file = join(root, 'config', 'edgeward', 'edge-cli.json');
  writeSession(file, session);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(join(root, 'config', 'edgeward')).mode & 0o777, 0o700);
  assert.deepEqual(readSession(file), session);
  writeSession(file, { ...session, token: 'second' });
  assert.equal(readSession(file)!.token, 'second', 'a new login replaces the session');
  assert.deepEqual(readdirSync(join(root, 'config', 'edgeward')), ['edge-cli.json'], 'no temporary file is left');
  assert.equal(removeSession(file), 'file');
  assert.equal(readSession(file), undefined);
  assert.equal(removeSession(file), false);
});

test('a file that is not a session is a failure that says what to do', () => {
  const file = join(root, 'broken.json');
  for (const text of ['not json', '{"token": 1}', '[]', 'null']) {
    writeFileSync(file, text);
    assert.throws(() => readSession(file), (error: unknown) => error instanceof EdgeFailure && /is not an edgeward edge session: log in again/.test(error.message), text);
  }
});

test('named sessions: a login under a name becomes the one in use; use switches; logout forgets only the one in use', () => {
  const file = join(root, 'named', 'edge-cli.json');
  writeSession(file, session);
  writeSession(file, { ...session, token: 'for-b', controllerUrl: 'https://b:1280/edge/management/v1' }, 'b');
  assert.equal(readSession(file)!.token, 'for-b');
  assert.equal(readSession(file, 'default')!.token, session.token);
  assert.equal(useSession(file, 'default').token, session.token);
  assert.equal(readSession(file)!.token, session.token);
  assert.throws(() => useSession(file, 'nope'), (error: unknown) => error instanceof EdgeFailure && /no session named nope/.test(error.message));
  assert.equal(readSessionBook(file).current, 'default', 'a refused use changes nothing');
  assert.equal(removeSession(file), 'session');
  assert.deepEqual(readSessionBook(file), { current: undefined, sessions: { b: { ...session, token: 'for-b', controllerUrl: 'https://b:1280/edge/management/v1' } } });
  assert.equal(readSession(file), undefined, 'none in use after logout');
  assert.equal(removeSession(file), false);
  useSession(file, 'b');
  assert.equal(removeSession(file), 'file');
  assert.equal(statSync(join(root, 'named')).isDirectory(), true);
  assert.deepEqual(readdirSync(join(root, 'named')), []);
});

test('a file that is not a session file is removed by logout, as before named sessions', () => {
  const file = join(root, 'junk.json');
  writeFileSync(file, 'not json');
  assert.equal(removeSession(file), 'file');
  assert.deepEqual(readdirSync(root).includes('junk.json'), false);
});

test('an OIDC session keeps its refresh token, expiry and failover controllers; a malformed one is not a session file', () => {
  const file = join(root, 'oidc', 'edge-cli.json');
  const oidcSession: StoredSession = { ...session, token: 'eyJ.access.jwt', oidc: { refreshToken: 'eyJ.refresh.jwt', expiresAt: '2026-11-21T23:59:43.102Z', controllers: [session.controllerUrl, 'https://127.0.0.1:1281/edge/management/v1'] } };
  writeSession(file, oidcSession);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(readSession(file), oidcSession);
  writeFileSync(file, JSON.stringify({ current: 'default', sessions: { default: { ...session, oidc: { refreshToken: 'x', expiresAt: 'y', controllers: [7] } } } }));
  assert.throws(() => readSessionBook(file), (error: unknown) => error instanceof EdgeFailure && /is not an edgeward edge session/.test(error.message));
});

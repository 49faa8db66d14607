import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EdgeFailure } from './edge-errors.ts';
import { readSession, removeSession, sessionFilePath, writeSession, type StoredSession } from './edge-session-store.ts';

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
  assert.equal(removeSession(file), true);
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

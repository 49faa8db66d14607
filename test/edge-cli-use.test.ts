// `edgeward edge use` against two real controllers over TLS, as `ziti edge use` is used: an operator logs in to
// controller A (the default session) and to controller B under a name (`login -i b`), and commands go to whichever
// session is in use; `use <name>` switches, `use` lists the sessions with the one in use marked; an unknown name
// is refused and changes nothing; logout forgets only the session in use. A session file of the older
// single-session form still works.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { adminCredentials, ControllerFixture } from './support/controller-fixture.ts';
import { runEdgeCli } from './support/edge-cli-scenario.ts';

let a: ControllerFixture;
let b: ControllerFixture;
let sessionFile: string;

const cli = (...args: string[]) => runEdgeCli([...args, '--cli-config', sessionFile]);

/** The identity names the session in use lists. */
async function identityNames(): Promise<string[]> {
  const listed = await cli('list', 'identities', '--json');
  assert.equal(listed.code, 0, listed.stderr);
  return (JSON.parse(listed.stdout) as Array<{ name: string }>).map((row) => row.name);
}

before(async () => {
  [a, b] = await Promise.all([ControllerFixture.create(), ControllerFixture.create()]);
  sessionFile = join(a.root, 'edge-cli.json');
  for (const [node, name] of [[a, 'only-on-a'], [b, 'only-on-b']] as const) {
    writeFileSync(join(node.root, 'ca.pem'), node.caPem);
    const created = await node.http.post(`${node.managementApi}/identities`, { headers: { 'zt-session': await node.adminToken() }, body: { name, type: 'User', isAdmin: false } });
    assert.equal(created.status, 201, created.text);
  }
});

after(async () => {
  await Promise.all([a?.dispose(), b?.dispose()]);
});

test('two controllers logged in at once; use switches which one commands go to', async () => {
  const password = ['-u', adminCredentials.username, '-p', adminCredentials.password];
  const loginA = await cli('login', a.origin, ...password, '--ca', join(a.root, 'ca.pem'));
  assert.equal(loginA.code, 0, loginA.stderr);
  const loginB = await cli('login', b.origin, ...password, '--ca', join(b.root, 'ca.pem'), '-i', 'b');
  assert.equal(loginB.code, 0, loginB.stderr);
  assert.match(loginB.stdout, /Session saved in .* as b/);
  assert.ok((await identityNames()).includes('only-on-b'), 'the last login is the session in use');

  const listed = await cli('use');
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /│ \* +│ b +│ https:\/\/127\.0\.0\.1:\d+\/edge\/management\/v1/);
  assert.match(listed.stdout, /│ +│ default +│/);
  const json = JSON.parse((await cli('use', '--json')).stdout) as Array<{ name: string; inUse: boolean; controller: string }>;
  assert.deepEqual(json.map((row) => [row.name, row.inUse, row.controller]), [['b', true, b.managementApi], ['default', false, a.managementApi]]);

  const switched = await cli('use', 'default');
  assert.equal(switched.code, 0, switched.stderr);
  assert.match(switched.stdout, new RegExp(`Using session default: ${a.managementApi.replace(/[.]/g, '\\.')}`));
  const onA = await identityNames();
  assert.ok(onA.includes('only-on-a') && !onA.includes('only-on-b'), JSON.stringify(onA));

  const unknown = await cli('use', 'staging');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no session named staging/);
  assert.match(unknown.stderr, /the sessions are: b, default/);
  assert.ok((await identityNames()).includes('only-on-a'), 'a refused use changes nothing');
  assert.equal((await cli('use', 'no/such')).code, 2, 'a name that is not a session name is a usage error');

  const logout = await cli('logout');
  assert.equal(logout.code, 0, logout.stderr);
  const afterLogout = await cli('list', 'identities');
  assert.equal(afterLogout.code, 1, 'no session is in use after logout');
  assert.equal((await cli('use', 'b')).code, 0, 'the other session is still there');
  assert.ok((await identityNames()).includes('only-on-b'));
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(sessionFile, 'utf8')).sessions), ['b']);
});

test('a session file of the older single-session form is the session named default', async () => {
  const token = await a.adminToken();
  const legacy = { controllerUrl: a.managementApi, username: 'admin', token, caPem: a.caPem, identityId: 'x', identityName: 'Default Admin', loggedInAt: new Date().toISOString() };
  writeFileSync(sessionFile, JSON.stringify(legacy), { mode: 0o600 });
  assert.ok((await identityNames()).includes('only-on-a'));
  const json = JSON.parse((await cli('use', '--json')).stdout) as Array<{ name: string; inUse: boolean }>;
  assert.deepEqual(json.map((row) => [row.name, row.inUse]), [['default', true]]);
});

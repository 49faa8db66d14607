// Password login, API sessions and the admin gate, against a real controller process over HTTPS.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { adminCredentials, ControllerFixture } from './support/controller-fixture.ts';

let controller: ControllerFixture;
before(async () => {
  controller = await ControllerFixture.create();
});
after(async () => controller?.dispose());

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function createUser(name: string, password: string, isAdmin = false): Promise<string> {
  const token = await controller.adminToken();
  const headers = { 'zt-session': token };
  const created = await controller.http.post(`${controller.managementApi}/identities`, { headers, body: { name, type: 'User', isAdmin } });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  const auth = await controller.http.post(`${controller.managementApi}/authenticators`, { headers, body: { method: 'updb', identityId: id, username: name, password } });
  assert.equal(auth.status, 201, auth.text);
  return id;
}

test('password login returns the full API session envelope and the zt-session header, on both APIs', async () => {
  for (const base of [controller.clientApi, controller.managementApi]) {
    const response = await controller.http.post(`${base}/authenticate?method=password`, { body: adminCredentials });
    assert.equal(response.status, 200, response.text);
    const session = response.json.data;
    assert.deepEqual(response.json.meta, {});
    assert.match(session.token, uuidV4);
    assert.equal(response.headers['zt-session'], session.token);
    for (const field of ['id', 'token', 'expiresAt', 'expirationSeconds', 'authQueries', 'identity', 'identityId', 'isMfaRequired', 'isMfaComplete', 'authenticatorId', 'configTypes', 'ipAddress', 'lastActivityAt', 'createdAt', 'updatedAt', 'tags', '_links']) {
      assert.ok(field in session, `session has ${field}`);
    }
    assert.equal(session.expirationSeconds, 1800);
    assert.ok(Number.isInteger(session.expirationSeconds));
    assert.deepEqual(session.authQueries, []);
    assert.equal(session.identity.entity, 'identities');
    assert.equal(session.identity.name, 'Default Admin');
    assert.equal(session.identity.id, session.identityId);
    assert.ok(session.identity._links.self.href.endsWith(session.identityId));
    assert.equal(session.ipAddress, '127.0.0.1');
    assert.equal(Date.parse(session.expiresAt) - Date.parse(session.lastActivityAt), 1800_000);
  }
});

test('a wrong username and a wrong password get the same 401 INVALID_AUTH in about the same time', async () => {
  const attempt = async (username: string, password: string) => {
    const started = performance.now();
    const response = await controller.http.post(`${controller.clientApi}/authenticate?method=password`, { body: { username, password } });
    return { response, ms: performance.now() - started };
  };
  const wrongUser = [];
  const wrongPassword = [];
  for (let i = 0; i < 6; i++) {
    wrongUser.push(await attempt('nobody-here', 'whatever-password'));
    wrongPassword.push(await attempt(adminCredentials.username, 'not-the-password'));
  }
  for (const { response } of [...wrongUser, ...wrongPassword]) {
    assert.equal(response.status, 401);
    assert.equal(response.json.error.code, 'INVALID_AUTH');
    assert.equal(response.headers['zt-session'], undefined);
  }
  const strip = (body: any) => ({ ...body, error: { ...body.error, requestId: undefined } });
  assert.deepEqual(strip(wrongUser[0]!.response.json), strip(wrongPassword[0]!.response.json));
  const median = (runs: { ms: number }[]) => runs.map((run) => run.ms).sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
  const ratio = median(wrongUser) / median(wrongPassword);
  assert.ok(ratio > 0.5 && ratio < 2, `unknown user ${median(wrongUser).toFixed(1)} ms vs wrong password ${median(wrongPassword).toFixed(1)} ms`);
});

test('authenticate rejects bad methods and bodies with specific errors', async () => {
  const url = `${controller.clientApi}/authenticate`;
  const cases: Array<[string, Parameters<typeof controller.http.post>[1], number, string]> = [
    ['?method=magic', { body: adminCredentials }, 400, 'INVALID_AUTH_METHOD'],
    ['', { body: adminCredentials }, 400, 'INVALID_AUTH_METHOD'],
    ['?method=password', { body: { username: 'admin' } }, 400, 'COULD_NOT_VALIDATE'],
    ['?method=password', { body: { username: 42, password: 'x-password' } }, 400, 'COULD_NOT_VALIDATE'],
    ['?method=password', { rawBody: '{"username": "admin", ', headers: { 'content-type': 'application/json' } }, 400, 'COULD_NOT_PARSE_BODY'],
    ['?method=password', { rawBody: '', headers: { 'content-type': 'application/json' } }, 400, 'COULD_NOT_VALIDATE'],
    ['?method=password', { rawBody: 'username=admin', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['?method=password', { rawBody: JSON.stringify({ username: 'admin', password: 'x'.repeat(2 * 1024 * 1024) }), headers: { 'content-type': 'application/json' } }, 413, 'PAYLOAD_TOO_LARGE'],
  ];
  for (const [query, options, status, code] of cases) {
    const response = await controller.http.post(`${url}${query}`, options);
    assert.equal(response.status, status, `${query} ${response.text.slice(0, 200)}`);
    assert.equal(response.json.error.code, code);
    assert.ok(response.json.error.requestId);
    assert.deepEqual(response.json.meta, { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' });
  }
  const missing = await controller.http.post(`${url}?method=password`, { body: { username: 'admin' } });
  assert.equal(missing.json.error.cause.field, 'password');
});

test('extra fields in a login body are ignored', async () => {
  const response = await controller.http.post(`${controller.clientApi}/authenticate?method=password`, {
    body: { ...adminCredentials, sdkInfo: { type: 'test' }, favouriteColour: 'green' },
  });
  assert.equal(response.status, 200);
});

test('current-api-session: read with the token, logout ends it, then 401 everywhere', async () => {
  const token = await controller.login(adminCredentials.username, adminCredentials.password, 'client');
  const headers = { 'zt-session': token };
  const current = await controller.http.get(`${controller.clientApi}/current-api-session`, { headers });
  assert.equal(current.status, 200);
  assert.equal(current.json.data.token, token);
  assert.ok(current.headers['expires-at']);

  const logout = await controller.http.delete(`${controller.clientApi}/current-api-session`, { headers });
  assert.equal(logout.status, 200);
  assert.deepEqual(logout.json, { data: {}, meta: {} });

  for (const url of [`${controller.clientApi}/current-api-session`, `${controller.clientApi}/current-identity`, `${controller.managementApi}/identities`]) {
    const after = await controller.http.get(url, { headers });
    assert.equal(after.status, 401, url);
    assert.equal(after.json.error.code, 'UNAUTHORIZED');
    assert.match(String(after.headers['www-authenticate']), /zt-session realm="zt-session" error="invalid"/);
  }
});

test('missing and malformed tokens get 401 with a challenge, never a 500', async () => {
  const missing = await controller.http.get(`${controller.clientApi}/current-api-session`);
  assert.equal(missing.status, 401);
  assert.match(String(missing.headers['www-authenticate']), /error="missing"/);
  for (const token of ['not-a-token', '00000000-0000-4000-8000-000000000000', 'x'.repeat(4000)]) {
    const response = await controller.http.get(`${controller.managementApi}/identities`, { headers: { 'zt-session': token } });
    assert.equal(response.status, 401);
    assert.equal(response.json.error.code, 'UNAUTHORIZED');
  }
});

test('the management API is for admins only: others get 401 UNAUTHORIZED; the client API serves them', async () => {
  await createUser('plain-user', 'plain-password');
  const token = await controller.login('plain-user', 'plain-password', 'management');
  const headers = { 'zt-session': token };
  for (const path of ['/identities', '/authenticators', '/api-sessions']) {
    const response = await controller.http.get(`${controller.managementApi}${path}`, { headers });
    assert.equal(response.status, 401, path);
    assert.equal(response.json.error.code, 'UNAUTHORIZED');
  }
  const self = await controller.http.get(`${controller.clientApi}/current-identity`, { headers });
  assert.equal(self.status, 200);
  assert.equal(self.json.data.name, 'plain-user');
  assert.equal(self.json.data.isAdmin, false);
});

test('an administrative delete ends a session at once', async () => {
  await createUser('session-victim', 'victim-password');
  const victimToken = await controller.login('session-victim', 'victim-password');
  const victim = await controller.http.get(`${controller.clientApi}/current-api-session`, { headers: { 'zt-session': victimToken } });
  const sessionId = victim.json.data.id as string;

  const admin = { 'zt-session': await controller.adminToken() };
  const listed = await controller.http.get(`${controller.managementApi}/api-sessions?filter=${encodeURIComponent(`id = "${sessionId}"`)}`, { headers: admin });
  assert.equal(listed.status, 200);
  assert.equal(listed.json.meta.pagination.totalCount, 1);
  assert.equal(listed.json.data[0].token, '', 'other sessions never show their token');

  const removed = await controller.http.delete(`${controller.managementApi}/api-sessions/${sessionId}`, { headers: admin });
  assert.equal(removed.status, 200);
  const after = await controller.http.get(`${controller.clientApi}/current-api-session`, { headers: { 'zt-session': victimToken } });
  assert.equal(after.status, 401);
  const again = await controller.http.delete(`${controller.managementApi}/api-sessions/${sessionId}`, { headers: admin });
  assert.equal(again.status, 404);
  assert.equal(again.json.error.code, 'NOT_FOUND');
});

test('a user changes their own password with the current one; the old one stops working', async () => {
  await createUser('changer', 'first-password');
  const headers = { 'zt-session': await controller.login('changer', 'first-password') };
  const mine = await controller.http.get(`${controller.clientApi}/current-identity/authenticators`, { headers });
  assert.equal(mine.status, 200);
  const authenticatorId = mine.json.data[0].id as string;
  assert.equal(mine.json.data[0].password, undefined);

  const wrong = await controller.http.put(`${controller.clientApi}/current-identity/authenticators/${authenticatorId}`, { headers, body: { username: 'changer', password: 'second-password', currentPassword: 'nope-nope' } });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.json.error.cause.field, 'currentPassword');

  const changed = await controller.http.put(`${controller.clientApi}/current-identity/authenticators/${authenticatorId}`, { headers, body: { username: 'changer', password: 'second-password', currentPassword: 'first-password' } });
  assert.equal(changed.status, 200, changed.text);
  const old = await controller.http.post(`${controller.clientApi}/authenticate?method=password`, { body: { username: 'changer', password: 'first-password' } });
  assert.equal(old.status, 401);
  assert.ok(await controller.login('changer', 'second-password'));
});

test('version is served at the root and under each API without authentication', async () => {
  for (const path of ['/version', '/', '/edge/client/v1/version', '/edge/management/v1/version', '/edge/v1/version']) {
    const response = await controller.http.get(`${controller.origin}${path}`);
    assert.equal(response.status, 200, path);
    assert.match(response.json.data.version, /^v\d+\.\d+\.\d+/);
    assert.equal(response.json.data.apiVersions['edge-management'].v1.path, '/edge/management/v1');
    assert.deepEqual(response.json.data.apiVersions['edge-client'].v1.apiBaseUrls, [`${controller.clientApi}`]);
  }
});

test('unknown routes are 404 NOT_FOUND and unsupported verbs 405, in the error envelope', async () => {
  const unknown = await controller.http.get(`${controller.clientApi}/no-such-thing`);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.error.code, 'NOT_FOUND');
  const verb = await controller.http.request('PUT', `${controller.clientApi}/version`);
  assert.equal(verb.status, 405);
  assert.equal(verb.json.error.code, 'METHOD_NOT_ALLOWED');
});

test('health checks report bolt.read and raft leadership', async () => {
  const health = await controller.http.get(`${controller.origin}/health-checks`);
  assert.equal(health.status, 200);
  assert.equal(health.json.data.healthy, true);
  assert.deepEqual(health.json.data.checks.map((check: { id: string }) => check.id), ['bolt.read', 'raft.node']);
  const raft = await controller.http.get(`${controller.origin}/health-checks/controller/raft`);
  assert.equal(raft.status, 200);
  assert.deepEqual(raft.json.raft, { isRaftEnabled: true, isLeader: true });
  const short = await controller.http.get(`${controller.origin}/health-checks?type=short`);
  assert.deepEqual(short.json.data.checks, [{ id: 'bolt.read', healthy: true }, { id: 'raft.node', healthy: true }]);
});

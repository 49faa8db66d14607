// /revocations, /controller-settings, /cas/{id}/jwt and /specs over HTTPS against a three-controller cluster, as an
// administrator and a client see them: a revocation made on the leader ends the API session (or every API session
// of the identity) on a follower within seconds, a revoked enrollment JWT no longer enrolls; controller settings
// written through one controller are effective on every controller (global merged with the controller's own);
// a CA's JWT is signed by the controller's TLS key with the real controller's claims; each API lists and answers
// its own description, whose paths are the routes it serves.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { after, before, test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { decodeProtectedHeader, importSPKI, jwtVerify } from 'jose';
import { memberList, threeControllerCluster, until } from './support/cluster-helpers.ts';
import type { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas } from './support/edge-api-schemas.ts';
import { edgeApiRoutes } from './support/route-inventory.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-revocations-'));
let nodes: ControllerFixture[] = [];
let leader: ControllerFixture;
let follower: ControllerFixture;
let adminOf: Map<ControllerFixture, Record<string, string>>;
const schemas = { management: EdgeApiSchemas.load('management'), client: EdgeApiSchemas.load('client') };

before(async () => {
  nodes = await threeControllerCluster(join(root, 'pki'));
  const leaderId = await until('a leader', async () => (await memberList(nodes[0]!)).find((row) => row.leader)?.id);
  leader = nodes.find((node) => node.id === leaderId)!;
  follower = nodes.find((node) => node.id !== leaderId)!;
  adminOf = new Map();
  for (const node of nodes) adminOf.set(node, { 'zt-session': await until(`an admin session on ${node.id}`, () => node.adminToken()) });
});

after(async () => {
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(root, { recursive: true, force: true });
});

const admin = (node: ControllerFixture) => adminOf.get(node)!;

async function user(name: string): Promise<string> {
  const identity = await leader.http.post(`${leader.managementApi}/identities`, { headers: admin(leader), body: { name, type: 'User', isAdmin: false } });
  assert.equal(identity.status, 201, identity.text);
  const authenticator = await leader.http.post(`${leader.managementApi}/authenticators`, { headers: admin(leader), body: { method: 'updb', identityId: identity.json.data.id, username: name, password: `${name}-password` } });
  assert.equal(authenticator.status, 201, authenticator.text);
  return identity.json.data.id as string;
}

/** A session made on the leader, once the follower knows it. */
async function login(name: string): Promise<{ token: string; id: string }> {
  const response = await leader.http.post(`${leader.clientApi}/authenticate?method=password`, { body: { username: name, password: `${name}-password` } });
  assert.equal(response.status, 200, response.text);
  const token = response.json.data.token as string;
  await until('the session on the follower', async () => (await follower.http.get(`${follower.clientApi}/current-api-session`, { headers: { 'zt-session': token } })).status === 200);
  return { token, id: response.json.data.id as string };
}

const sessionStatus = async (token: string) => (await follower.http.get(`${follower.clientApi}/current-api-session`, { headers: { 'zt-session': token } })).status;

test('an API_SESSION revocation on the leader ends that session on a follower within seconds; the others live', async () => {
  await user('revoke-session');
  const revoked = await login('revoke-session');
  const kept = await login('revoke-session');
  const started = Date.now();
  const created = await leader.http.post(`${leader.managementApi}/revocations`, { headers: admin(leader), body: { id: revoked.id, type: 'API_SESSION', tags: { why: 'test' } } });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(schemas.management.problems('POST', '/revocations', 201, created.json), []);
  await until('the revoked session refused on the follower', async () => (await sessionStatus(revoked.token)) === 401, 5000);
  console.log(`API_SESSION revocation: refused on ${follower.id} ${Date.now() - started} ms after the POST to ${leader.id}`);
  assert.equal(await sessionStatus(kept.token), 200, 'another session of the same identity still works');
  const detail = await follower.http.get(`${follower.managementApi}/revocations/${revoked.id}`, { headers: admin(follower) });
  assert.equal(detail.status, 200, detail.text);
  assert.deepEqual(schemas.management.problems('GET', `/revocations/${revoked.id}`, 200, detail.json), []);
  assert.deepEqual([detail.json.data.type, detail.json.data.tags], ['API_SESSION', { why: 'test' }]);
  const lifetime = Date.parse(detail.json.data.expiresAt) - Date.parse(detail.json.data.createdAt);
  assert.ok(Math.abs(lifetime - 24 * 3_600_000) < 5_000, `kept for 24 h (${lifetime} ms)`);
});

test('an IDENTITY revocation ends every API session of the identity made before it, on every controller; a new login works', async () => {
  const identityId = await user('revoke-identity');
  const sessions = [await login('revoke-identity'), await login('revoke-identity')];
  const created = await leader.http.post(`${leader.managementApi}/revocations`, { headers: admin(leader), body: { id: identityId, type: 'IDENTITY' } });
  assert.equal(created.status, 201, created.text);
  for (const session of sessions) await until('the identity\'s sessions refused on the follower', async () => (await sessionStatus(session.token)) === 401, 5000);
  const fresh = await login('revoke-identity');
  assert.equal(await sessionStatus(fresh.token), 200, 'a login after the revocation is a new session');
});

test('a revoked enrollment JWT (JTI = its jti) no longer enrolls, on any controller; a router\'s neither', async () => {
  const identity = await leader.http.post(`${leader.managementApi}/identities`, { headers: admin(leader), body: { name: 'revoke-jti', type: 'User', isAdmin: false, enrollment: { updb: 'revoke-jti' } } });
  assert.equal(identity.status, 201, identity.text);
  const enrollment = (await leader.http.get(`${leader.managementApi}/identities/${identity.json.data.id}/enrollments`, { headers: admin(leader) })).json.data[0];
  const created = await leader.http.post(`${leader.managementApi}/revocations`, { headers: admin(leader), body: { id: enrollment.token, type: 'JTI' } });
  assert.equal(created.status, 201, created.text);
  const revocation = await until('the revocation on the follower', async () => {
    const response = await follower.http.get(`${follower.managementApi}/revocations/${enrollment.token}`, { headers: admin(follower) });
    return response.status === 200 ? response.json.data : undefined;
  });
  assert.ok(Date.parse(revocation.expiresAt) >= Date.parse(enrollment.expiresAt), 'kept at least as long as the JWT it revokes');
  const refused = await follower.http.post(`${follower.clientApi}/enroll/updb?token=${enrollment.token}`, { body: { password: 'Revoked-Pass-42' } });
  assert.equal(refused.status, 400, refused.text);
  assert.deepEqual([refused.json.error.code, refused.json.error.cause?.reason], ['INVALID_ENROLLMENT_TOKEN', 'the enrollment JWT was revoked']);

  // A router's enrollment JWT too: its jti is the router's enrollment token.
  const router = await leader.http.post(`${leader.managementApi}/edge-routers`, { headers: admin(leader), body: { name: 'revoke-jti-router' } });
  assert.equal(router.status, 201, router.text);
  const routerToken = (await leader.http.get(`${leader.managementApi}/edge-routers/${router.json.data.id}`, { headers: admin(leader) })).json.data.enrollmentToken as string;
  assert.equal((await leader.http.post(`${leader.managementApi}/revocations`, { headers: admin(leader), body: { id: routerToken, type: 'JTI' } })).status, 201);
  const routerRefused = await leader.http.post(`${leader.clientApi}/enroll/erott`, { body: { token: routerToken, certCsr: 'unused', serverCertCsr: 'unused' } });
  assert.equal(routerRefused.status, 400, routerRefused.text);
  assert.deepEqual([routerRefused.json.error.code, routerRefused.json.error.cause?.reason], ['INVALID_ENROLLMENT_TOKEN', 'the enrollment JWT was revoked']);
});

test('bad revocations are refused and store nothing: unknown identity 404, an id that names nothing 400, a bad type 400', async () => {
  const before = (await leader.http.get(`${leader.managementApi}/revocations`, { headers: admin(leader) })).json.meta.pagination.totalCount as number;
  const cases: Array<[body: unknown, status: number]> = [
    [{ id: 'no-such-identity', type: 'IDENTITY' }, 404],
    [{ id: 'not-a-session', type: 'API_SESSION' }, 400],
    [{ id: 'not-a-jti', type: 'JTI' }, 400],
    [{ id: 'x', type: 'EVERYTHING' }, 400],
    [{ type: 'JTI' }, 400],
  ];
  for (const [body, status] of cases) {
    const response = await follower.http.post(`${follower.managementApi}/revocations`, { headers: admin(follower), body });
    assert.equal(response.status, status, `${JSON.stringify(body)}: ${response.text}`);
  }
  const list = await leader.http.get(`${leader.managementApi}/revocations?filter=${encodeURIComponent('type = "API_SESSION"')}&limit=100`, { headers: admin(leader) });
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(schemas.management.problems('GET', '/revocations', 200, list.json), []);
  assert.ok(list.json.data.every((row: { type: string }) => row.type === 'API_SESSION'));
  assert.equal((await leader.http.get(`${leader.managementApi}/revocations`, { headers: admin(leader) })).json.meta.pagination.totalCount, before, 'nothing stored');
  assert.equal((await leader.http.get(`${leader.managementApi}/revocations`)).status, 401, 'administrators only');
});

test('controller settings: global merged with a controller\'s own, written on one controller and effective on all', async () => {
  const mgmt = (node: ControllerFixture, path: string) => `${node.managementApi}${path}`;
  const global = await leader.http.put(mgmt(leader, '/controller-settings/global/effective'), { headers: admin(leader), body: { oidc: { redirectUris: ['openziti://auth/callback', 'http://localhost:*/auth/callback'], postLogoutUris: ['https://app.example/bye'] } } });
  assert.equal(global.status, 200, global.text);
  const own = await follower.http.post(mgmt(follower, '/controller-settings'), { headers: admin(follower), body: { controllerId: follower.id, oidc: { redirectUris: ['https://console.example/cb'] } } });
  assert.equal(own.status, 201, own.text);
  for (const node of nodes) {
    const effective = await until(`the follower's settings on ${node.id}`, async () => {
      const response = await node.http.get(mgmt(node, `/controller-settings/${follower.id}/effective`), { headers: admin(node) });
      return response.status === 200 ? response : undefined;
    });
    assert.deepEqual(schemas.management.problems('GET', `/controller-settings/${follower.id}/effective`, 200, effective.json), []);
    assert.deepEqual(effective.json.data.effective.oidc, { redirectUris: ['https://console.example/cb'], postLogoutUris: ['https://app.example/bye'] }, node.id);
    assert.deepEqual(effective.json.data.instance, { oidc: { redirectUris: ['https://console.example/cb'] } });
  }
  const list = await leader.http.get(mgmt(leader, '/controller-settings'), { headers: admin(leader) });
  assert.deepEqual(list.json.data.map((row: { id: string }) => row.id).sort(), [follower.id, 'global'].sort());
  assert.deepEqual(schemas.management.problems('GET', '/controller-settings', 200, list.json), []);
  // PATCH changes what it names; DELETE makes the controller inherit everything again; global cannot be deleted.
  assert.equal((await leader.http.patch(mgmt(leader, `/controller-settings/${follower.id}/effective`), { headers: admin(leader), body: { oidc: { postLogoutUris: ['https://console.example/bye'] } } })).status, 200);
  const patched = await until('the patch on the follower', async () => {
    const data = (await follower.http.get(mgmt(follower, `/controller-settings/${follower.id}/effective`), { headers: admin(follower) })).json.data;
    return data.effective.oidc.postLogoutUris[0] === 'https://console.example/bye' ? data : undefined;
  });
  assert.deepEqual(patched.effective.oidc.redirectUris, ['https://console.example/cb'], 'the PATCH kept what it did not name');
  assert.equal((await leader.http.delete(mgmt(leader, `/controller-settings/${follower.id}/effective`), { headers: admin(leader) })).status, 200);
  assert.equal((await leader.http.get(mgmt(leader, `/controller-settings/${follower.id}`), { headers: admin(leader) })).status, 404);
  const deletedGlobal = await leader.http.delete(mgmt(leader, '/controller-settings/global/effective'), { headers: admin(leader) });
  assert.equal(deletedGlobal.status, 409, deletedGlobal.text);
  // Validation: not a URI, a fragment, an unknown controller, a second row for one controller.
  for (const [path, method, body] of [
    ['/controller-settings/global/effective', 'put', { oidc: { redirectUris: ['not a uri'] } }],
    ['/controller-settings/global/effective', 'patch', { oidc: { postLogoutUris: ['https://app.example/#frag'] } }],
    ['/controller-settings', 'post', { controllerId: 'ctrl-unknown', oidc: {} }],
    ['/controller-settings', 'post', { controllerId: 'global' }],
  ] as const) {
    const response = await leader.http.request(method.toUpperCase(), mgmt(leader, path), { headers: admin(leader), body });
    assert.equal(response.status, 400, `${method} ${path} ${JSON.stringify(body)}: ${response.text}`);
  }
  const unchanged = (await leader.http.get(mgmt(leader, '/controller-settings/global'), { headers: admin(leader) })).json.data;
  assert.deepEqual(unchanged.oidc.redirectUris, ['openziti://auth/callback', 'http://localhost:*/auth/callback'], 'a refused write changes nothing');
});

test('GET /cas/{id}/jwt: application/jwt with em "ca", sub and jti the CA id, signed by the controller\'s TLS key; 404 for an unknown CA', async () => {
  const dir = mkdtempSync(join(root, 'ca-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '30', '-subj', '/CN=jwt-ca', '-addext', 'basicConstraints=critical,CA:TRUE', '-keyout', join(dir, 'ca.key'), '-out', join(dir, 'ca.pem')], { stdio: 'ignore' });
  const certPem = execFileSync('cat', [join(dir, 'ca.pem')]).toString();
  const ca = await leader.http.post(`${leader.managementApi}/cas`, { headers: admin(leader), body: { name: 'jwt-ca', certPem, isAutoCaEnrollmentEnabled: true, isOttCaEnrollmentEnabled: false, isAuthEnabled: true, identityRoles: [] } });
  assert.equal(ca.status, 201, ca.text);
  const caId = ca.json.data.id as string;
  const response = await until('the CA on the follower', async () => {
    const answer = await follower.http.get(`${follower.managementApi}/cas/${caId}/jwt`, { headers: admin(follower) });
    return answer.status === 200 ? answer : undefined;
  });
  assert.match(String(response.headers['content-type']), /^application\/jwt/);
  const peer = await new Promise<string>((resolve, reject) => {
    const url = new URL(follower.clientApi);
    const socket = connect({ host: url.hostname, port: Number(url.port), ca: follower.caPem, servername: 'localhost', rejectUnauthorized: false }, () => {
      resolve(socket.getPeerX509Certificate()!.publicKey.export({ type: 'spki', format: 'pem' }).toString());
      socket.destroy();
    });
    socket.on('error', reject);
  });
  const token = response.text.trim();
  const { payload } = await jwtVerify(token, await importSPKI(peer, decodeProtectedHeader(token).alg!));
  assert.deepEqual([payload.em, payload.sub, payload.jti, payload.exp], ['ca', caId, caId, undefined]);
  assert.match(String(payload.iss), /^https:\/\/[^/]+:\d+$/);
  assert.ok(Array.isArray(payload.ctrls) && (payload.ctrls as string[]).length >= 1);
  assert.equal((await follower.http.get(`${follower.managementApi}/cas/no-such-ca/jwt`, { headers: admin(follower) })).status, 404);
  assert.equal((await follower.http.get(`${follower.managementApi}/cas/${caId}/jwt`)).status, 401);
});

test('GET /specs on both APIs, without a session: edge-client and edge-management, each a Swagger 2.0 document of exactly the routes served', async () => {
  const served = edgeApiRoutes(leader.caPem);
  for (const api of ['client', 'management'] as const) {
    const base = api === 'client' ? follower.clientApi : follower.managementApi;
    const list = await follower.http.get(`${base}/specs`);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(schemas[api].problems('GET', '/specs', 200, list.json), []);
    assert.deepEqual(list.json.data.map((spec: { id: string }) => spec.id), ['edge-client', 'edge-management']);
    for (const id of ['edge-client', 'edge-management']) {
      const detail = await follower.http.get(`${base}/specs/${id}`);
      assert.deepEqual(schemas[api].problems('GET', `/specs/${id}`, 200, detail.json), []);
      const body = await follower.http.get(`${base}/specs/${id}/spec`);
      assert.equal(body.status, 200, body.text);
      assert.deepEqual(schemas[api].problems('GET', `/specs/${id}/spec`, 200, body.json), []);
      const document = JSON.parse(body.json.data as string) as { swagger: string; basePath: string; paths: Record<string, Record<string, unknown>> };
      assert.equal(document.swagger, '2.0');
      assert.equal(document.basePath, id === 'edge-client' ? '/edge/client/v1' : '/edge/management/v1');
      const documented = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${document.basePath}${path === '/' ? '' : path}`)).sort();
      const routes = [...new Set(served.filter((route) => route.path.startsWith(`${document.basePath}/`) || route.path === document.basePath).map((route) => `${route.method} ${route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/(.)\/$/, '$1')}`))].sort();
      assert.deepEqual(documented, routes, `${id}: every route served, and nothing else`);
      assert.ok(document.paths['/revocations'] ? id === 'edge-management' : id === 'edge-client', 'each API its own routes');
    }
    assert.equal((await follower.http.get(`${base}/specs/openapi-3`)).status, 404);
  }
});

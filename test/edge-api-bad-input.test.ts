// Every write endpoint against the usual kinds of bad input: none may answer 500 or change anything.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { authPolicyBody } from './support/auth-policy-bodies.ts';
import { ControllerFixture } from './support/controller-fixture.ts';

let controller: ControllerFixture;
let admin: Record<string, string>;
let identityId: string;
let authenticatorId: string;
let policyId: string;
let signerId: string;
let caId: string;

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  identityId = (await controller.http.post(`${controller.managementApi}/identities`, { headers: admin, body: { name: 'target', isAdmin: false } })).json.data.id;
  authenticatorId = (await controller.http.post(`${controller.managementApi}/authenticators`, { headers: admin, body: { method: 'updb', identityId, username: 'target', password: 'target-password' } })).json.data.id;
  policyId = (await controller.http.post(`${controller.managementApi}/auth-policies`, { headers: admin, body: authPolicyBody('target-policy') })).json.data.id;
  signerId = (await controller.http.post(`${controller.managementApi}/external-jwt-signers`, { headers: admin, body: { name: 'target-signer', issuer: 'https://idp.example', audience: 'edge', enabled: true, jwksEndpoint: 'https://idp.example/jwks' } })).json.data.id;
  const caDir = controller.root;
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '30', '-subj', '/CN=target CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-keyout', join(caDir, 'target-ca.key'), '-out', join(caDir, 'target-ca.pem')], { stdio: 'ignore' });
  const ca = await controller.http.post(`${controller.managementApi}/cas`, {
    headers: admin,
    body: { name: 'target-ca', certPem: readFileSync(join(caDir, 'target-ca.pem'), 'utf8'), isAutoCaEnrollmentEnabled: false, isOttCaEnrollmentEnabled: false, isAuthEnabled: true, identityRoles: [] },
  });
  assert.equal(ca.status, 201, ca.text);
  caId = ca.json.data.id;
  assert.ok(policyId && signerId);
});
after(async () => controller?.dispose());

interface Endpoint {
  readonly method: string;
  readonly path: () => string;
  readonly auth: 'none' | 'session' | 'admin';
}

const m = (path: string) => () => `${controller.managementApi}${path}`;
const c = (path: string) => () => `${controller.clientApi}${path}`;
const endpoints: Endpoint[] = [
  { method: 'POST', path: c('/authenticate?method=password'), auth: 'none' },
  { method: 'POST', path: m('/authenticate?method=password'), auth: 'none' },
  { method: 'POST', path: m('/identities'), auth: 'admin' },
  { method: 'PUT', path: () => `${controller.managementApi}/identities/${identityId}`, auth: 'admin' },
  { method: 'PATCH', path: () => `${controller.managementApi}/identities/${identityId}`, auth: 'admin' },
  { method: 'POST', path: m('/authenticators'), auth: 'admin' },
  { method: 'PUT', path: () => `${controller.managementApi}/authenticators/${authenticatorId}`, auth: 'admin' },
  { method: 'PATCH', path: () => `${controller.managementApi}/authenticators/${authenticatorId}`, auth: 'admin' },
  { method: 'PUT', path: () => `${controller.clientApi}/current-identity/authenticators/${authenticatorId}`, auth: 'session' },
  { method: 'POST', path: c('/authenticate?method=cert'), auth: 'none' },
  { method: 'POST', path: c('/authenticate?method=ext-jwt'), auth: 'none' },
  { method: 'POST', path: () => `${controller.managementApi}/identities/${identityId}/disable`, auth: 'admin' },
  { method: 'POST', path: m('/auth-policies'), auth: 'admin' },
  { method: 'PUT', path: () => `${controller.managementApi}/auth-policies/${policyId}`, auth: 'admin' },
  { method: 'PATCH', path: () => `${controller.managementApi}/auth-policies/${policyId}`, auth: 'admin' },
  { method: 'POST', path: m('/external-jwt-signers'), auth: 'admin' },
  { method: 'PUT', path: () => `${controller.managementApi}/external-jwt-signers/${signerId}`, auth: 'admin' },
  { method: 'PATCH', path: () => `${controller.managementApi}/external-jwt-signers/${signerId}`, auth: 'admin' },
  { method: 'POST', path: m('/cas'), auth: 'admin' },
  { method: 'PUT', path: () => `${controller.managementApi}/cas/${caId}`, auth: 'admin' },
  { method: 'PATCH', path: () => `${controller.managementApi}/cas/${caId}`, auth: 'admin' },
  { method: 'POST', path: m('/enrollments'), auth: 'admin' },
  { method: 'POST', path: c('/enroll/updb?token=not-a-token'), auth: 'none' },
  { method: 'POST', path: c('/enroll/ott?token=not-a-token'), auth: 'none' },
];

async function snapshot(): Promise<string> {
  const list = (collection: string) => controller.http.get(`${controller.managementApi}/${collection}?limit=500&sort=id`, { headers: admin });
  const [identities, authenticators, policies, signers, cas, enrollments, sessions] = await Promise.all(
    ['identities', 'authenticators', 'auth-policies', 'external-jwt-signers', 'cas', 'enrollments', 'api-sessions'].map(list),
  );
  return JSON.stringify([
    identities!.json.data,
    authenticators!.json.data.map((row: { id: string; username: string; updatedAt: string }) => [row.id, row.username, row.updatedAt]),
    policies!.json.data,
    signers!.json.data,
    cas!.json.data,
    enrollments!.json.data,
    sessions!.json.data.map((row: { id: string }) => row.id),
  ]);
}

test('malformed JSON, wrong shapes and oversize bodies are refused with 400/413 and change nothing', async () => {
  const targetHeaders = { 'zt-session': await controller.login('target', 'target-password') };
  const before = await snapshot();
  const bodies: Array<[string, string, number, string]> = [
    ['malformed JSON', '{"name": ', 400, 'COULD_NOT_PARSE_BODY'],
    ['a JSON array', '["name"]', 400, 'COULD_NOT_VALIDATE'],
    ['a JSON number', '42', 400, 'COULD_NOT_VALIDATE'],
    ['null', 'null', 400, 'COULD_NOT_VALIDATE'],
    ['wrong types', '{"name": 7, "isAdmin": "no", "username": 7, "password": false, "method": 3, "identityId": [], "configTypes": 5}', 400, 'COULD_NOT_VALIDATE'],
    ['an oversize body', JSON.stringify({ name: 'x'.repeat(1_100_000) }), 413, 'PAYLOAD_TOO_LARGE'],
  ];
  for (const endpoint of endpoints) {
    const headers = { 'content-type': 'application/json', ...(endpoint.auth === 'admin' ? admin : endpoint.auth === 'session' ? targetHeaders : {}) };
    for (const [what, rawBody, status, code] of bodies) {
      const response = await controller.http.request(endpoint.method, endpoint.path(), { headers, rawBody });
      assert.equal(response.status, status, `${endpoint.method} ${endpoint.path()} with ${what}: ${response.text.slice(0, 300)}`);
      assert.equal(response.json?.error?.code, code, `${endpoint.method} ${endpoint.path()} with ${what}`);
    }
  }
  assert.equal(await snapshot(), before, 'no refused request changed the model');
});

test('missing and wrong tokens are 401 on every protected endpoint; unknown ids are 404', async () => {
  for (const endpoint of endpoints.filter((candidate) => candidate.auth !== 'none')) {
    for (const headers of [{}, { 'zt-session': 'wrong-token' }] as Record<string, string>[]) {
      const response = await controller.http.request(endpoint.method, endpoint.path(), { headers, body: {} });
      assert.equal(response.status, 401, `${endpoint.method} ${endpoint.path()}`);
      assert.equal(response.json.error.code, 'UNAUTHORIZED');
    }
  }
  const unknown = [
    ['GET', m('/identities/doesNotExist')],
    ['PUT', m('/identities/doesNotExist')],
    ['PATCH', m('/identities/doesNotExist')],
    ['DELETE', m('/identities/doesNotExist')],
    ['GET', m('/authenticators/doesNotExist')],
    ['PATCH', m('/authenticators/doesNotExist')],
    ['DELETE', m('/authenticators/doesNotExist')],
    ['GET', m('/api-sessions/doesNotExist')],
    ['DELETE', m('/api-sessions/doesNotExist')],
    ['GET', m('/identities/doesNotExist/authenticators')],
    ['POST', m('/identities/doesNotExist/disable')],
    ['POST', m('/identities/doesNotExist/enable')],
    ['GET', m('/auth-policies/doesNotExist')],
    ['PUT', m('/auth-policies/doesNotExist')],
    ['PATCH', m('/auth-policies/doesNotExist')],
    ['DELETE', m('/auth-policies/doesNotExist')],
    ['GET', m('/external-jwt-signers/doesNotExist')],
    ['PATCH', m('/external-jwt-signers/doesNotExist')],
    ['DELETE', m('/external-jwt-signers/doesNotExist')],
    ['GET', m('/cas/doesNotExist')],
    ['PATCH', m('/cas/doesNotExist')],
    ['DELETE', m('/cas/doesNotExist')],
    ['POST', m('/cas/doesNotExist/verify')],
    ['GET', m('/enrollments/doesNotExist')],
    ['DELETE', m('/enrollments/doesNotExist')],
  ] as const;
  for (const [method, path] of unknown) {
    const response = await controller.http.request(method, path(), { headers: admin, body: { name: 'n1', isAdmin: false, username: 'user1', password: 'password1' } });
    assert.equal(response.status, 404, `${method} ${path()}: ${response.text}`);
    assert.equal(response.json.error.code, 'NOT_FOUND');
  }
});

test('odd but harmless requests: query strings, repeated headers, unicode names', async () => {
  const unicode = await controller.http.post(`${controller.managementApi}/identities`, { headers: admin, body: { name: 'Zoë 🚀 مرحبا', isAdmin: false } });
  assert.equal(unicode.status, 201);
  const read = await controller.http.get(`${controller.managementApi}/identities/${unicode.json.data.id}`, { headers: admin });
  assert.equal(read.json.data.name, 'Zoë 🚀 مرحبا');
  const weirdQuery = await controller.http.get(`${controller.managementApi}/identities?limit=5&limit=7&offset=&filter=`, { headers: admin });
  assert.equal(weirdQuery.status, 200);
  const deepJson = '['.repeat(5000) + ']'.repeat(5000);
  const deep = await controller.http.post(`${controller.managementApi}/identities`, { headers: { ...admin, 'content-type': 'application/json' }, rawBody: deepJson });
  assert.equal(deep.status, 400);
});

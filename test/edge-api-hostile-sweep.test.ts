// Over ten thousand malformed and hostile requests, generated from a seed across every route of both Edge APIs and
// the enrollment endpoints (listed from the route tables), sent to the leader and the followers of a three-controller
// cluster with no session, a bad one and an admin's: not one answer is a 5xx, every request gets an answer in the
// API's envelopes (none is dropped), and afterwards every controller is healthy, under the same leader, and writes.
// A failing run prints its seed; EDGEWARD_SWEEP_SEED replays it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { authPolicyBody } from './support/auth-policy-bodies.ts';
import { agent, threeControllerCluster, until } from './support/cluster-helpers.ts';
import type { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas } from './support/edge-api-schemas.ts';
import { hostileRequests, secretMarker, type HostileRequest } from './support/hostile-requests.ts';
import type { HttpResponse } from './support/https-client.ts';
import { edgeApiRoutes } from './support/route-inventory.ts';

const seed = Number(process.env.EDGEWARD_SWEEP_SEED ?? 20_260_501);
const requestCount = 11_000;
const inFlight = 12;

const pkiRoot = mkdtempSync(join(tmpdir(), 'edgeward-sweep-pki-'));
let nodes: ControllerFixture[] = [];
let leader: ControllerFixture;
const adminTokens: string[] = [];
const ids: Record<string, string[]> = {};

interface Status {
  readonly term: number;
  readonly leader: string | null;
}
const statusOf = (node: ControllerFixture) => agent(node, 'status') as Promise<Status>;

before(async () => {
  nodes = await threeControllerCluster(pkiRoot);
  const known = await until('every controller to know the same leader', async () => {
    const statuses = await Promise.all(nodes.map(statusOf));
    return statuses.every((status) => status.leader !== null && status.leader === statuses[0]!.leader) ? statuses[0] : undefined;
  });
  leader = nodes.find((node) => node.id === known.leader)!;

  for (let i = 0; i < 2; i++) adminTokens.push(await leader.adminToken());
  const admin = { 'zt-session': adminTokens[0]! };
  const mgmt = (path: string) => `${leader.managementApi}${path}`;
  const create = async (collection: string, body: unknown) => {
    const response = await leader.http.post(mgmt(`/${collection}`), { headers: admin, body });
    assert.equal(response.status, 201, `POST /${collection}: ${response.text}`);
    (ids[collection] ??= []).push(response.json.data.id);
    return response.json.data.id as string;
  };

  // Entities of the sweep's own, so requests with real ids reach real handlers without touching the admin.
  const users: string[] = [];
  for (const name of ['sweep-user-1', 'sweep-user-2']) {
    const id = await create('identities', { name, type: 'User', isAdmin: false, roleAttributes: ['sweep-users'] });
    await create('authenticators', { method: 'updb', identityId: id, username: name, password: `${name}-password` });
    users.push(id);
  }
  const enrollee = await create('identities', { name: 'sweep-enrollee', isAdmin: false, enrollment: { ott: true } });
  const device = await create('identities', { name: 'sweep-device', isAdmin: false });
  await create('enrollments', { method: 'updb', identityId: device, username: 'sweep-device' });
  await create('auth-policies', authPolicyBody('sweep-policy'));
  await create('external-jwt-signers', { name: 'sweep-signer', issuer: 'https://sweep.invalid', audience: 'edge', enabled: true, jwksEndpoint: 'https://sweep.invalid/jwks' });
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '30', '-subj', '/CN=sweep CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-keyout', join(leader.root, 'sweep-ca.key'), '-out', join(leader.root, 'sweep-ca.pem')], { stdio: 'ignore' });
  await create('cas', { name: 'sweep-ca', certPem: readFileSync(join(leader.root, 'sweep-ca.pem'), 'utf8'), isAutoCaEnrollmentEnabled: false, isOttCaEnrollmentEnabled: true, isAuthEnabled: true, identityRoles: [] });
  await create('config-types', { name: 'sweep-type.v1', schema: { type: 'object' } });
  const config = await create('configs', { name: 'sweep-host', configTypeId: 'NH5p4FpGR', data: { protocol: 'tcp', address: 'localhost', port: 8080 } });
  const service = await create('services', { name: 'sweep-svc', encryptionRequired: true, roleAttributes: ['sweep-svc'], configs: [config] });
  await create('posture-checks', { typeId: 'MFA', name: 'sweep-mfa', roleAttributes: ['sweep-mfa'] });
  await create('service-policies', { name: 'sweep-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#sweep-users'], serviceRoles: ['#sweep-svc'], postureCheckRoles: [] });
  await create('edge-routers', { name: 'sweep-router', roleAttributes: ['sweep'] });

  const user = await leader.login('sweep-user-1', 'sweep-user-1-password');
  const userSession = await leader.http.get(`${leader.clientApi}/current-api-session`, { headers: { 'zt-session': user } });
  ids['api-sessions'] = [userSession.json.data.id];
  const opened = await leader.http.post(`${leader.clientApi}/sessions`, { headers: { 'zt-session': user }, body: { serviceId: service } });
  assert.equal(opened.status, 201, opened.text);
  ids.sessions = [opened.json.data.id];
  const enrolleeDetail = await leader.http.get(mgmt(`/identities/${enrollee}`), { headers: admin });
  ids.enrollmentTokens = [enrolleeDetail.json.data.enrollment.ott.token];

  // Every controller has the sweep's entities and accepts the admin's sessions before the sweep starts.
  for (const node of nodes) {
    await until(`${node.id} to have the sweep's entities`, async () => {
      for (const token of adminTokens) {
        const response = await node.http.get(`${node.managementApi}/sessions/${ids.sessions![0]}`, { headers: { 'zt-session': token } });
        if (response.status !== 200) return false;
      }
      return true;
    });
  }
});
after(async () => {
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(pkiRoot, { recursive: true, force: true });
});

/** Why an answer is not one the API may give: a 5xx, a body outside its envelopes, or a secret the request carried
 * sent back. Undefined when it is fine. */
function fault(request: HostileRequest, response: HttpResponse): string | undefined {
  if (response.status >= 500) return `status ${response.status}`;
  if (response.text.includes(secretMarker)) return 'the value of a secret-bearing field sent back';
  if (request.method === 'HEAD') return undefined;
  const contentType = String(response.headers['content-type'] ?? '');
  if (response.status >= 400) {
    const error = response.json?.error;
    return typeof error?.code === 'string' && typeof error?.message === 'string' && response.json?.meta ? undefined : 'an error outside the error envelope';
  }
  if (contentType.includes('application/json')) return response.json && 'data' in response.json && 'meta' in response.json ? undefined : 'a success outside the data envelope';
  // The non-JSON answers the API has: MFA QR codes, the CA bundle, certificates, and enrollment JWTs (`/cas/{id}/jwt`).
  return /^(image\/png|application\/pkcs7-mime|application\/x-pem-file|application\/jwt)/.test(contentType) ? undefined : `a success of type ${contentType || 'none'}`;
}

test('thousands of malformed and hostile requests: no 5xx, none dropped, the cluster keeps its leader and writes', async (t) => {
  const routes = edgeApiRoutes(leader.caPem);
  const schemas = { management: EdgeApiSchemas.load('management'), client: EdgeApiSchemas.load('client') };
  const { requests, fieldsMissed } = hostileRequests({ routes, schemas, ids, adminTokens }, requestCount, seed);
  assert.deepEqual(Object.fromEntries(fieldsMissed), {}, 'every field of every route\'s schema is given a wrong value');
  const before = await Promise.all(nodes.map(statusOf));

  const statuses = new Map<number, number>();
  const failures: string[] = [];
  let next = 0;
  const started = Date.now();
  const worker = async () => {
    for (let i = next++; i < requests.length; i = next++) {
      const request = requests[i]!;
      const node = nodes[i % nodes.length]!;
      const describe = () => `#${i} ${node.id} ${request.method} ${request.path.slice(0, 160)} [${request.kind}, ${request.route}] ${typeof request.body === 'string' ? request.body.slice(0, 120) : ''}`;
      try {
        const response = await node.http.request(request.method, `${node.origin}${request.path}`, { headers: request.headers, ...(request.body === undefined ? {} : { rawBody: request.body }) });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const problem = fault(request, response);
        if (problem) failures.push(`${describe()} → ${problem}: ${response.text.slice(0, 300)}`);
      } catch (error) {
        failures.push(`${describe()} → no answer: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (Date.now() - started) / 1000;
  t.diagnostic(`seed ${seed}: ${requests.length} requests in ${seconds.toFixed(1)} s over ${routes.length} routes; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);
  assert.deepEqual(failures.slice(0, 25), [], `seed ${seed}: ${failures.length} requests failed (first 25 shown)`);

  // Afterwards: every controller healthy, the same leader everywhere, and a write through each of them succeeds.
  const afterwards = await Promise.all(nodes.map(statusOf));
  assert.deepEqual(afterwards.map((status) => status.leader), before.map((status) => status.leader), 'the same leader');
  for (const node of nodes) {
    const health = await node.http.get(`${node.origin}/health-checks`);
    assert.equal(health.status, 200, `${node.id} healthy: ${health.text}`);
    const write = await node.http.post(`${node.managementApi}/identities`, { headers: { 'zt-session': adminTokens[1]! }, body: { name: `after-sweep-${node.id}`, isAdmin: false } });
    assert.equal(write.status, 201, `a write through ${node.id}: ${write.text}`);
  }
});

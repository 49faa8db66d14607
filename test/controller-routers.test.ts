// Edge routers against a real controller process: management (create, list, read, PUT, PATCH, delete, re-enroll,
// bad bodies), enrollment with openssl-made CSRs (`/enroll/erott`), and the router control channel spoken by a small
// scripted router (test/support/scripted-router.ts: TLS with the enrolled certificate, length-prefixed JSON frames): welcome with the
// cluster's members, isOnline, other routers coming and going, heartbeats and requests, metrics on /metrics, the
// edge model after a model change, and every refusal (disabled, wrong certificate, self-signed, re-enrolled).
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { decodeProtectedHeader, importX509, jwtVerify } from 'jose';
import { controllerPaths, pkiPaths } from '../common/pki/pki-directory.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { LogWatch } from './support/log-watch.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import { enrollRouter, keyAndCsr as keyAndCsrWith, ScriptedRouter, type EnrolledRouter, type Frame, type RouterCredentials } from './support/scripted-router.ts';

let controller: ControllerFixture;
let admin: Record<string, string>;
let workbench: OpensslWorkbench;
let log: LogWatch;
const openRouters: ScriptedRouter[] = [];

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  workbench = new OpensslWorkbench(join(controller.root, 'router-certs'));
  log = new LogWatch(controller.logFile);
});
after(async () => {
  for (const router of openRouters) router.close();
  await controller?.dispose();
});

const mgmt = (path: string) => `${controller.managementApi}${path}`;
const client = (path: string) => `${controller.clientApi}${path}`;

// ---- helpers -----------------------------------------------------------------------------------------------------

type Enrolled = EnrolledRouter;

async function createRouter(name: string, body: Record<string, unknown> = {}): Promise<string> {
  const response = await controller.http.post(mgmt('/edge-routers'), { headers: admin, body: { name, ...body } });
  assert.equal(response.status, 201, response.text);
  assert.equal(response.json.data._links.self.href, `./edge-routers/${response.json.data.id}`);
  return response.json.data.id as string;
}

async function detail(id: string): Promise<any> {
  const response = await controller.http.get(mgmt(`/edge-routers/${id}`), { headers: admin });
  assert.equal(response.status, 200, response.text);
  return response.json.data;
}

const keyAndCsr = (commonName: string, sans?: string) => keyAndCsrWith(workbench, commonName, sans);

/** TLS to the controller's control address with these credentials (closed after the tests). */
async function dial(credentials: RouterCredentials): Promise<ScriptedRouter> {
  const router = await ScriptedRouter.connect(controller.ctrlAddress, controller.caPem, credentials);
  openRouters.push(router);
  return router;
}

function erott(token: string | undefined, body: Record<string, unknown>, query = '') {
  return controller.http.post(client(`/enroll/erott${query}`), { body: token === undefined ? body : { token, ...body } });
}

async function enroll(id: string, sans?: string): Promise<Enrolled> {
  const { enrollmentToken } = await detail(id);
  assert.equal(typeof enrollmentToken, 'string');
  return enrollRouter(controller, workbench, id, enrollmentToken, sans);
}

async function connectRouter(enrolled: Pick<Enrolled, 'id' | 'certPem' | 'keyPem'>, hello: Record<string, unknown> = {}): Promise<{ router: ScriptedRouter; welcome: Frame }> {
  const router = await dial(enrolled);
  router.hello(enrolled.id, hello);
  const welcome = await router.next('ctrl.welcome');
  return { router, welcome };
}

async function expectRefused(credentials: { certPem: string; keyPem: string }, routerId: string, reason: RegExp): Promise<void> {
  const mark = log.mark();
  const router = await dial(credentials);
  router.hello(routerId);
  const refused = await router.next('ctrl.refused');
  assert.match(refused.reason, reason);
  await router.waitClosed();
  assert.equal(router.take('ctrl.welcome').length, 0);
  // This refusal's line: an earlier connection's refusal may be logged after the mark.
  await log.waitFor(mark, (record) => String(record.msg).startsWith('router connection refused') && reason.test(String(record.reason)));
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function metricsText(): Promise<string> {
  const response = await controller.http.get(`${controller.origin}/metrics`, { headers: { accept: 'text/plain' } });
  assert.equal(response.status, 200);
  return response.text;
}

function certificateFingerprint(pem: string): string {
  return new X509Certificate(pem).fingerprint.replaceAll(':', '').toLowerCase();
}

function sanOf(pem: string): string {
  return new X509Certificate(pem).subjectAltName ?? '';
}

// ---- tests -------------------------------------------------------------------------------------------------------

test('edge routers: create with defaults, read, list with filters, PATCH keeps, PUT resets, delete', async () => {
  const id = await createRouter('crud-router', { roleAttributes: ['edge', 'eu'], cost: 7, appData: { site: 'a' }, tags: { team: 'x' } });
  const router = await detail(id);
  assert.equal(router.name, 'crud-router');
  assert.deepEqual(router.roleAttributes, ['edge', 'eu']);
  assert.equal(router.cost, 7);
  assert.equal(router.isTunnelerEnabled, false);
  assert.equal(router.noTraversal, false);
  assert.equal(router.disabled, false);
  assert.deepEqual(router.appData, { site: 'a' });
  assert.deepEqual(router.tags, { team: 'x' });
  assert.equal(router.isVerified, false);
  assert.equal(router.isOnline, false);
  assert.equal('fingerprint' in router, false, 'no fingerprint before enrolling');
  assert.equal(router.syncStatus, 'SYNC_NEW');
  assert.equal('versionInfo' in router, false, 'no versionInfo while offline');
  assert.equal(router.hostname, '');
  assert.deepEqual(router.supportedProtocols, {});
  assert.equal(typeof router.enrollmentToken, 'string');
  assert.equal(typeof router.enrollmentJwt, 'string');
  const created = Date.parse(router.enrollmentCreatedAt);
  assert.equal(Date.parse(router.enrollmentExpiresAt) - created, 180 * 60_000, 'edge.enrollment.edgeRouter.duration defaults to 180m');

  assert.equal((await controller.http.patch(mgmt(`/edge-routers/${id}`), { headers: admin, body: { cost: 9, noTraversal: true } })).status, 200);
  const patched = await detail(id);
  assert.equal(patched.cost, 9);
  assert.equal(patched.noTraversal, true);
  assert.deepEqual(patched.roleAttributes, ['edge', 'eu'], 'PATCH keeps what it does not name');

  const list = await controller.http.get(mgmt(`/edge-routers?filter=${encodeURIComponent('name = "crud-router" and cost = 9')}`), { headers: admin });
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.json.data.map((row: any) => row.id), [id]);
  assert.equal(list.json.meta.pagination.totalCount, 1);
  const offline = await controller.http.get(mgmt(`/edge-routers?filter=${encodeURIComponent(`isOnline = false and id = "${id}"`)}`), { headers: admin });
  assert.equal(offline.json.data.length, 1);

  assert.equal((await controller.http.put(mgmt(`/edge-routers/${id}`), { headers: admin, body: { name: 'crud-router-2', isTunnelerEnabled: true } })).status, 200);
  const put = await detail(id);
  assert.equal(put.name, 'crud-router-2');
  assert.equal(put.isTunnelerEnabled, true);
  assert.deepEqual(put.roleAttributes, [], 'PUT resets what it omits');
  assert.equal(put.cost, 0);
  assert.equal(put.enrollmentToken, router.enrollmentToken, 'an update leaves the enrollment alone');

  assert.equal((await controller.http.delete(mgmt(`/edge-routers/${id}`), { headers: admin })).status, 200);
  const gone = await controller.http.get(mgmt(`/edge-routers/${id}`), { headers: admin });
  assert.equal(gone.status, 404);
  assert.equal(gone.json.error.code, 'NOT_FOUND');
  assert.equal((await controller.http.post(mgmt(`/edge-routers/${id}/re-enroll`), { headers: admin })).status, 404);
});

test('edge routers: bad bodies are 400 COULD_NOT_VALIDATE naming the field, and nothing is created', async () => {
  const count = async () => (await controller.http.get(mgmt('/edge-routers?limit=-1'), { headers: admin })).json.meta.pagination.totalCount as number;
  const before = await count();
  await createRouter('taken-name');
  const cases: Array<[unknown, string]> = [
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 5 }, 'name'],
    [{ name: 'r', cost: 65536 }, 'cost'],
    [{ name: 'r', cost: -1 }, 'cost'],
    [{ name: 'r', cost: 1.5 }, 'cost'],
    [{ name: 'r', roleAttributes: 'edge' }, 'roleAttributes'],
    [{ name: 'r', disabled: 'yes' }, 'disabled'],
    [{ name: 'r', isTunnelerEnabled: 1 }, 'isTunnelerEnabled'],
    [{ name: 'r', appData: [1] }, 'appData'],
    [{ name: 'r', tags: 'x' }, 'tags'],
    [{ name: 'taken-name' }, 'name'],
  ];
  for (const [body, field] of cases) {
    const response = await controller.http.post(mgmt('/edge-routers'), { headers: admin, body });
    assert.equal(response.status, 400, `${JSON.stringify(body)}: ${response.text}`);
    assert.equal(response.json.error.code, 'COULD_NOT_VALIDATE');
    assert.equal(response.json.error.cause.field, field, JSON.stringify(body));
  }
  const notJson = await controller.http.post(mgmt('/edge-routers'), { headers: { ...admin, 'content-type': 'application/json' }, rawBody: '{"name":' });
  assert.equal(notJson.status, 400);
  assert.equal(await count(), before + 1, 'only taken-name was created');

  const id = await createRouter('patch-target');
  const badPatch = await controller.http.patch(mgmt(`/edge-routers/${id}`), { headers: admin, body: { cost: 100000 } });
  assert.equal(badPatch.status, 400);
  assert.equal(badPatch.json.error.cause.field, 'cost');
  assert.equal((await detail(id)).cost, 0);
  const noAuth = await controller.http.get(mgmt('/edge-routers'));
  assert.equal(noAuth.status, 401);
});

test('enrollment: the JWT names the router and the cluster, erott signs both CSRs once, SANs come from the CSR', async () => {
  const id = await createRouter('enrolling-router');
  const before = await detail(id);
  assert.equal(decodeProtectedHeader(before.enrollmentJwt).alg, 'ES256');
  const controllerCert = readFileSync(controllerPaths(join(controller.root, 'pki'), controller.id).cert, 'utf8');
  const { payload } = await jwtVerify(before.enrollmentJwt, await importX509(controllerCert, 'ES256'), { issuer: controller.origin });
  assert.equal(payload.sub, id);
  assert.equal(payload.jti, before.enrollmentToken);
  assert.equal(payload.em, 'erott');
  assert.deepEqual(payload.ctrls, [controller.origin]);
  assert.deepEqual(payload.ctrlAddresses, [controller.ctrlAddress]);
  assert.equal(payload.exp! - payload.iat!, 180 * 60);
  assert.equal(payload.exp, Math.floor(Date.parse(before.enrollmentExpiresAt) / 1000));

  const clientCsr = await keyAndCsr('asked-name');
  const serverCsr = await keyAndCsr('asked-server-name', 'DNS:edge.example.test,DNS:localhost,IP:127.0.0.1,IP:::1,email:x@example.test');
  const missing = await erott(before.enrollmentToken, { certCsr: clientCsr.csrPem });
  assert.equal(missing.status, 400);
  assert.equal(missing.json.error.cause.field, 'serverCertCsr');
  const garbage = await erott(before.enrollmentToken, { certCsr: 'not a csr', serverCertCsr: serverCsr.csrPem });
  assert.equal(garbage.status, 400);
  assert.equal(garbage.json.error.code, 'COULD_NOT_PROCESS_CSR');
  assert.equal(garbage.json.error.cause.field, 'certCsr');
  const noToken = await erott(undefined, { certCsr: clientCsr.csrPem, serverCertCsr: serverCsr.csrPem });
  assert.equal(noToken.status, 400);
  assert.equal(noToken.json.error.cause.field, 'token');
  const wrongToken = await erott('not-a-token', { certCsr: clientCsr.csrPem, serverCertCsr: serverCsr.csrPem });
  assert.equal(wrongToken.status, 400);
  assert.equal(wrongToken.json.error.code, 'INVALID_ENROLLMENT_TOKEN');
  assert.equal((await detail(id)).isVerified, false, 'failed attempts leave the enrollment open');

  // The token may also come as ?token=.
  const response = await erott(undefined, { certCsr: clientCsr.csrPem, serverCertCsr: serverCsr.csrPem }, `?token=${encodeURIComponent(before.enrollmentToken)}`);
  assert.equal(response.status, 200, response.text);
  const { cert, serverCert, ca } = response.json.data;
  const clientLeaf = new X509Certificate(cert);
  const serverLeaf = new X509Certificate(serverCert);
  assert.match(clientLeaf.subject, new RegExp(`CN=${id.replace(/[.]/g, '\\.')}`), 'the client certificate names the router id');
  assert.match(serverLeaf.subject, new RegExp(`CN=${id.replace(/[.]/g, '\\.')}`));
  assert.equal(clientLeaf.checkIssued(new X509Certificate(readFileSync(pkiPaths(join(controller.root, 'pki')).intermediateCert))), true, 'signed by the enrollment CA');
  assert.match(sanOf(serverCert), /DNS:edge\.example\.test/);
  assert.match(sanOf(serverCert), /DNS:localhost/);
  assert.match(sanOf(serverCert), /IP Address:127\.0\.0\.1/);
  assert.match(sanOf(serverCert), /IP Address:0:0:0:0:0:0:0:1|IP Address:::1/);
  assert.doesNotMatch(sanOf(serverCert), /email/, 'only DNS and IP names are granted');
  assert.equal(sanOf(cert).includes('DNS:'), false, 'the client certificate carries no server names');
  assert.ok(ca.includes('BEGIN CERTIFICATE'));

  const after = await detail(id);
  assert.equal(after.isVerified, true);
  assert.equal(after.fingerprint, clientLeaf.fingerprint.replaceAll(':', '').toLowerCase());
  for (const key of ['enrollmentToken', 'enrollmentJwt', 'enrollmentCreatedAt', 'enrollmentExpiresAt']) assert.equal(after[key], null, key);
  assert.equal(after.syncStatus, 'SYNC_DISCONNECTED');

  const again = await erott(before.enrollmentToken, { certCsr: clientCsr.csrPem, serverCertCsr: serverCsr.csrPem });
  assert.equal(again.status, 400, 'the token is single-use');
  assert.equal(again.json.error.code, 'INVALID_ENROLLMENT_TOKEN');
});

test('control channel: welcome with members, edge model, isOnline, other routers, heartbeats, requests, metrics', async () => {
  const first = await enroll(await createRouter('channel-router-a'));
  const second = await enroll(await createRouter('channel-router-b'));
  const mark = log.mark();
  const listenerA = { binding: 'transport', advertise: 'tls:127.0.0.1:4001', groups: ['default'] };
  const a = await connectRouter(first, { linkListeners: [listenerA], hostname: 'host-a', supportedProtocols: { tls: 'tls:127.0.0.1:3022' } });
  assert.equal(a.welcome.controllerId, controller.id);
  assert.deepEqual(a.welcome.members, [{ id: controller.id, address: controller.ctrlAddress }]);
  assert.deepEqual(a.welcome.routers, []);
  const model = await a.router.next('ctrl.edgeModel');
  assert.ok(model.index > 0);
  assert.equal(model.model.identities, undefined, 'routers are not sent the identities: they have no use for them');
  assert.ok(Array.isArray(model.model.services));
  const connectedLine = await log.waitFor(mark, (record) => record.msg === 'router connected');
  assert.equal(connectedLine.routerId, first.id);
  // Up on /metrics from the welcome, before the router's first report (a report interval and more away).
  await waitFor('the controller\'s own ctrl_connected', async () => ((await metricsText()).includes(`edgeward_router_ctrl_connected{router_id="${first.id}"} 1`) ? true : undefined));

  const online = await detail(first.id);
  assert.equal(online.isOnline, true);
  assert.equal(online.syncStatus, 'SYNC_DONE');
  assert.equal(online.versionInfo.version, 'v0.1.0-test');
  assert.equal(online.hostname, 'host-a');
  assert.deepEqual(online.supportedProtocols, { tls: 'tls:127.0.0.1:3022' });
  const onlineList = await controller.http.get(mgmt(`/edge-routers?filter=${encodeURIComponent('isOnline = true')}`), { headers: admin });
  assert.deepEqual(onlineList.json.data.map((row: any) => row.id), [first.id]);

  // b applies model deltas (as edgeward routers do); a is sent whole models (as older routers are).
  const b = await connectRouter(second, { edgeModelDeltas: true });
  // Routers learn whom to dial and the fingerprints of the certificates each enrolled with, to check its links.
  const fingerprints = (enrolled: Enrolled) => ({ fingerprint: certificateFingerprint(enrolled.certPem), serverFingerprint: certificateFingerprint(enrolled.serverCertPem) });
  assert.deepEqual(b.welcome.routers, [{ id: first.id, name: 'channel-router-a', linkListeners: [listenerA], ...fingerprints(first) }], 'a new router learns who to dial');
  const announced = await a.router.next('ctrl.routerConnected');
  assert.deepEqual(announced.router, { id: second.id, name: 'channel-router-b', linkListeners: [], ...fingerprints(second) });

  a.router.send({ type: 'req', rid: 7, body: { op: 'ping' } });
  const pong = await a.router.next('res');
  assert.equal(pong.rid, 7);
  assert.equal(pong.ok, true);
  a.router.send({ type: 'req', rid: 8, body: { op: 'edgeModel' } });
  const asked = await a.router.next('res');
  assert.equal(asked.rid, 8);
  assert.ok(asked.value.index >= model.index);
  a.router.send({ type: 'hb', sentAt: 1234.5 });
  assert.equal((await a.router.next('hbAck')).sentAt, 1234.5);

  a.router.send({ type: 'router.metrics', routerId: first.id, timestamp: Date.now(), gauges: { 'link.count': 2, 'ctrl.latency_ms': 12.5, 'link.L1.latency_ms': 3 } });
  b.router.send({ type: 'router.metrics', routerId: second.id, timestamp: Date.now(), gauges: { 'link.count': 0 } });
  const text = await waitFor('router metrics on /metrics', async () => {
    const body = await metricsText();
    return body.includes(`edgeward_router_link_count{router_id="${second.id}"}`) && body.includes(`edgeward_router_link_count{router_id="${first.id}"}`) ? body : undefined;
  });
  assert.match(text, new RegExp(`edgeward_router_link_count\\{router_id="${first.id}"\\} 2`));
  assert.match(text, new RegExp(`edgeward_router_link_count\\{router_id="${second.id}"\\} 0`));
  assert.match(text, new RegExp(`edgeward_router_ctrl_latency_seconds\\{router_id="${first.id}"\\} 0\\.0125`));
  assert.match(text, new RegExp(`edgeward_router_link_latency_seconds\\{(router_id="${first.id}",link_id="L1"|link_id="L1",router_id="${first.id}")\\} 0\\.003`));
  a.router.send({ type: 'router.metrics', routerId: first.id, timestamp: Date.now(), gauges: { 'link.count': 3 } });
  await waitFor('the newer value', async () => ((await metricsText()).includes(`edgeward_router_link_count{router_id="${first.id}"} 3`) ? true : undefined));
  // The controller's own heartbeat, answered: the round trip it measured replaces the router's last figure.
  a.router.take('hb');
  const beat = await a.router.next('hb', 15_000);
  a.router.send({ type: 'hbAck', sentAt: beat.sentAt });
  const measured = await waitFor('the round trip the controller measured', async () => {
    const match = new RegExp(`edgeward_router_ctrl_latency_seconds\\{router_id="${first.id}"\\} (\\S+)`).exec(await metricsText());
    return match && match[1] !== '0.0125' ? Number(match[1]) : undefined;
  });
  assert.ok(measured >= 0 && measured < 5, `${measured} s`);

  // An identity created is no change to the edge model: nothing is pushed (the push is debounced by 1 s).
  a.router.take('ctrl.edgeModel');
  const identity = await controller.http.post(mgmt('/identities'), { headers: admin, body: { name: 'not-in-the-edge-model', type: 'Device', isAdmin: false, roleAttributes: ['web'] } });
  assert.equal(identity.status, 201);
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  assert.deepEqual(a.router.take('ctrl.edgeModel'), [], 'an identity change pushes no edge model');
  // A model change reaches the connected routers as a new edge model, debounced.
  const service = await controller.http.post(mgmt('/services'), { headers: admin, body: { name: 'routed-service', encryptionRequired: true, roleAttributes: ['web'] } });
  assert.equal(service.status, 201);
  const pushed = await a.router.next('ctrl.edgeModel', 5000);
  assert.ok(pushed.index > model.index);
  assert.deepEqual(pushed.model.services.find((entry: any) => entry.name === 'routed-service'), { id: service.json.data.id, name: 'routed-service', roleAttributes: ['web'], configs: {} });
  // Earlier deltas (the routers' own rows, written as they connected) may be queued before this one.
  let delta = await b.router.next('ctrl.edgeModelDelta', 5000);
  while (delta.index < pushed.index) delta = await b.router.next('ctrl.edgeModelDelta', 5000);
  assert.equal(delta.index, pushed.index);
  assert.deepEqual(delta.services, { upserted: [{ id: service.json.data.id, name: 'routed-service', roleAttributes: ['web'], configs: {} }], deleted: [] }, 'only the changed row');
  assert.equal(b.router.take('ctrl.edgeModel').length, 1, 'the whole model only at the welcome');

  const goneMark = log.mark();
  b.router.close();
  assert.equal((await a.router.next('ctrl.routerDisconnected')).routerId, second.id);
  const gone = await log.waitFor(goneMark, (record) => record.msg === 'router disconnected');
  assert.equal(gone.routerId, second.id);
  assert.equal((await detail(second.id)).isOnline, false);
  assert.equal((await detail(first.id)).isOnline, true);
  await waitFor('b down on /metrics', async () => ((await metricsText()).includes(`edgeward_router_ctrl_connected{router_id="${second.id}"} 0`) ? true : undefined));
  a.router.close();
  await waitFor('router a offline', async () => ((await detail(first.id)).isOnline === false ? true : undefined));
});

test('routers saying routersChanged hear of arrivals and departures in batches, of just the routers they may link with; an older router still gets one frame per router', async () => {
  const [older, dialer, listener, loner] = await Promise.all(['batch-older', 'batch-dialer', 'batch-listener', 'batch-loner'].map(async (name) => enroll(await createRouter(name))));
  const listens = (port: number) => [{ binding: 'transport', advertise: `tls:127.0.0.1:${port}`, groups: ['default'] }];
  // Of this test's routers: routers of the tests before may still be leaving, and a departure the controller cannot
  // place goes to every router (harmless: a router ignores the departure of one it never heard of).
  const ours = () => new Set([older!.id, dialer!.id, listener!.id, loner!.id]);
  const named = (frames: Frame[]) =>
    frames
      .flatMap((frame) => [...frame.connected.map((router: { id: string }) => `+${router.id}`), ...frame.disconnected.map((id: string) => `-${id}`)])
      .filter((name) => ours().has(name.slice(1)));
  // An older router listening on default; one dialing default with no listener; one listening with no dialer; one
  // doing neither.
  const o = await connectRouter(older!, { linkListeners: listens(4101) });
  const d = await connectRouter(dialer!, { routersChanged: true, linkDialerGroups: ['default'] });
  assert.deepEqual(d.welcome.routers.map((router: { id: string }) => router.id), [older!.id], 'the dialer is told of the older router it may dial');
  const l = await connectRouter(listener!, { linkListeners: listens(4102), routersChanged: true, linkDialerGroups: [] });
  assert.deepEqual(l.welcome.routers.map((router: { id: string }) => router.id).sort(), [older!.id, dialer!.id].sort(), 'the listener, of the two that may dial it');
  const n = await connectRouter(loner!, { routersChanged: true, linkDialerGroups: [] });
  assert.deepEqual(n.welcome.routers, [], 'the one that neither dials nor listens, of nobody');

  const heard = [await o.router.next('ctrl.routerConnected'), await o.router.next('ctrl.routerConnected'), await o.router.next('ctrl.routerConnected')];
  assert.deepEqual(heard.map((frame) => frame.router.id), [dialer!.id, listener!.id, loner!.id], 'the older router: one ctrl.routerConnected per arrival, of every router');
  const batches = [await d.router.next('ctrl.routersChanged')];
  await new Promise((resolve) => setTimeout(resolve, 1000));
  batches.push(...d.router.take('ctrl.routersChanged'));
  const toDialer = named(batches);
  assert.deepEqual(toDialer.filter((name) => name !== `+${older!.id}`), [`+${listener!.id}`], 'the dialer hears of the listener, not of the loner');
  const told = batches.flatMap((batch) => batch.connected).find((router: { id: string }) => router.id === listener!.id);
  assert.equal(told?.fingerprint, certificateFingerprint(listener!.certPem), 'with the fingerprint from the model');
  assert.deepEqual(named(n.router.take('ctrl.routersChanged')), [], 'the loner hears of nobody');
  for (const router of [d, l, n]) assert.deepEqual(router.router.take('ctrl.routerConnected'), [], 'no single frames to routers saying routersChanged');

  l.router.close();
  let departed: string | undefined;
  while (!ours().has(departed ?? '')) departed = (await o.router.next('ctrl.routerDisconnected')).routerId;
  assert.equal(departed, listener!.id);
  let gone: string[] = [];
  while (gone.length === 0) gone = named([await d.router.next('ctrl.routersChanged')]);
  assert.deepEqual(gone, [`-${listener!.id}`]);
  await new Promise((resolve) => setTimeout(resolve, 600));
  assert.deepEqual(named(n.router.take('ctrl.routersChanged')), [], 'nor of its departure');
  for (const router of [o, d, n]) router.router.close();
});

test('refusals: wrong hello, disabled router, certificate not the enrolled one, self-signed, re-enrolled', async () => {
  const enrolled = await enroll(await createRouter('refusal-router'));
  const other = await enroll(await createRouter('refusal-other'));

  // The hello must come first and name the certificate's router.
  const early = await dial(enrolled);
  early.send({ type: 'hb', sentAt: 1 });
  assert.match((await early.next('ctrl.refused')).reason, /expected router\.hello/);
  await early.waitClosed();
  await expectRefused(enrolled, other.id, /router\.hello names router .* but the client certificate names/);

  // Disabling a connected router closes its channel; it cannot connect again until enabled.
  const { router } = await connectRouter(enrolled);
  assert.equal((await controller.http.patch(mgmt(`/edge-routers/${enrolled.id}`), { headers: admin, body: { disabled: true } })).status, 200);
  assert.match((await router.next('ctrl.refused')).reason, /disabled/);
  await router.waitClosed();
  await expectRefused(enrolled, enrolled.id, /edge router .* is disabled/);
  assert.equal((await controller.http.patch(mgmt(`/edge-routers/${enrolled.id}`), { headers: admin, body: { disabled: false } })).status, 200);
  (await connectRouter(enrolled)).router.close();

  // A certificate from the same CA with the router's id as its name, but not the one it enrolled with.
  const intermediate = pkiPaths(join(controller.root, 'pki'));
  const forged = await workbench.issue('forged', { certFile: intermediate.intermediateCert, keyFile: intermediate.intermediateKey, certPem: '' }, { commonName: enrolled.id });
  await expectRefused({ certPem: forged.certPem, keyPem: readFileSync(forged.keyFile, 'utf8') }, enrolled.id, /not the one edge router .* enrolled with/);

  // An identity's enrolled certificate is not a router's.
  await expectRefused(
    { certPem: (await workbench.issue('stranger', { certFile: intermediate.intermediateCert, keyFile: intermediate.intermediateKey, certPem: '' }, { commonName: 'no-such-router' })).certPem, keyPem: readFileSync(join(workbench.dir, 'stranger.key'), 'utf8') },
    'no-such-router',
    /no edge router has the id no-such-router/,
  );

  // A self-signed certificate does not get past the TLS handshake.
  const selfSigned = await workbench.selfSignedClient('self-signed', enrolled.id);
  const rejected = await dial({ certPem: selfSigned.certPem, keyPem: readFileSync(selfSigned.keyFile, 'utf8') });
  if (!rejected.closed) rejected.hello(enrolled.id);
  await rejected.waitClosed();
  assert.equal(rejected.take('ctrl.welcome').length, 0);

  // Re-enrolling closes the channel of the old certificate, refuses it from then on, and a new enrollment works.
  const connected = await connectRouter(enrolled);
  const reEnroll = await controller.http.post(mgmt(`/edge-routers/${enrolled.id}/re-enroll`), { headers: admin });
  assert.equal(reEnroll.status, 200, reEnroll.text);
  assert.match((await connected.router.next('ctrl.refused')).reason, /not enrolled/);
  await connected.router.waitClosed();
  const reopened = await detail(enrolled.id);
  assert.equal(reopened.isVerified, false);
  assert.equal('fingerprint' in reopened, false);
  assert.equal(typeof reopened.enrollmentJwt, 'string');
  await expectRefused(enrolled, enrolled.id, /not enrolled/);
  const renewed = await enroll(enrolled.id);
  await expectRefused(enrolled, enrolled.id, /not the one edge router .* enrolled with/);
  const back = await connectRouter(renewed);
  assert.equal(back.welcome.controllerId, controller.id);

  // Deleting a connected router closes its channel.
  assert.equal((await controller.http.delete(mgmt(`/edge-routers/${enrolled.id}`), { headers: admin })).status, 200);
  assert.match((await back.router.next('ctrl.refused')).reason, /no edge router has the id/);
  await back.router.waitClosed();
});

// Router control channels across a two-controller cluster of real processes: a router hears of a new member
// (`ctrl.members`), a router enrolled through one controller connects to the other, each controller's routers learn
// of the other's (welcome and `ctrl.routerConnected` / `ctrl.routerDisconnected`), and `isOnline` is true on every
// controller while the router is connected to any of them. Routers hear of each other with the fingerprints of
// their enrolled certificates. A router enrolling through one controller may not obtain a name on the other's
// certificate. A router's terminators, registered with one controller, are listed by both, and go when it leaves.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { initPki } from '../common/pki/pki-directory.ts';
import { agent, until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import { enrollRouter, keyAndCsr, ScriptedRouter } from './support/scripted-router.ts';

const pkiRoot = mkdtempSync(join(tmpdir(), 'edgeward-routers-pki-'));
let first: ControllerFixture;
let second: ControllerFixture;
let workbench: OpensslWorkbench;
const routers: ScriptedRouter[] = [];

before(async () => {
  await initPki(pkiRoot, { trustDomain: 'edgeward.test' });
  first = await ControllerFixture.create({ pkiDir: pkiRoot, id: 'ctrl1' });
  second = await ControllerFixture.create({
    pkiDir: pkiRoot,
    id: 'ctrl2',
    initAdmin: false,
    certificateNames: { dnsNames: ['localhost', 'ctrl2.edgeward.test'], ipAddresses: ['127.0.0.1', '2001:db8::2'] },
  });
  workbench = new OpensslWorkbench(join(first.root, 'router-certs'));
});
after(async () => {
  for (const router of routers) router.close();
  await Promise.all([first?.dispose(), second?.dispose()]);
  rmSync(pkiRoot, { recursive: true, force: true });
});

async function routerDetail(node: ControllerFixture, id: string): Promise<any> {
  const response = await node.http.get(`${node.managementApi}/edge-routers/${id}`, { headers: { 'zt-session': await node.adminToken() } });
  assert.equal(response.status, 200, response.text);
  return response.json.data;
}

async function createRouter(name: string): Promise<{ id: string; token: string; jwt: string }> {
  const headers = { 'zt-session': await first.adminToken() };
  const created = await first.http.post(`${first.managementApi}/edge-routers`, { headers, body: { name } });
  assert.equal(created.status, 201, created.text);
  const detail = await routerDetail(first, created.json.data.id);
  return { id: detail.id, token: detail.enrollmentToken, jwt: detail.enrollmentJwt };
}

async function connect(node: ControllerFixture, enrolled: { id: string; certPem: string; keyPem: string }, linkListeners: unknown[] = []) {
  const router = await ScriptedRouter.connect(node.ctrlAddress, node.caPem, enrolled);
  routers.push(router);
  router.hello(enrolled.id, { linkListeners });
  return { router, welcome: await router.next('ctrl.welcome') };
}

const jwtClaims = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint.replaceAll(':', '').toLowerCase();
const fingerprints = (enrolled: { certPem: string; serverCertPem: string }) => ({ fingerprint: fingerprint(enrolled.certPem), serverFingerprint: fingerprint(enrolled.serverCertPem) });

test('routers on two controllers: membership pushes, cross-controller welcome and events, isOnline everywhere', async () => {
  const a = await createRouter('cluster-router-a');
  assert.deepEqual(jwtClaims(a.jwt).ctrlAddresses, [first.ctrlAddress], 'a one-controller cluster');
  const enrolledA = await enrollRouter(first, workbench, a.id, a.token);
  const listenerA = { binding: 'transport', advertise: 'tls:127.0.0.1:4101', groups: ['default'] };
  const onFirst = await connect(first, enrolledA, [listenerA]);
  assert.deepEqual(onFirst.welcome.members, [{ id: 'ctrl1', address: first.ctrlAddress }]);

  // A new member: the connected router is told, for its endpoints file.
  await agent(first, 'cluster.add', { address: second.ctrlAddress, voter: true });
  const members = await onFirst.router.next('ctrl.members', 20_000);
  assert.deepEqual(
    [...members.members].sort((x: any, y: any) => x.id.localeCompare(y.id)),
    [
      { id: 'ctrl1', address: first.ctrlAddress },
      { id: 'ctrl2', address: second.ctrlAddress },
    ],
  );

  // A router created now is told about both controllers, and enrolls and connects through the second.
  const b = await createRouter('cluster-router-b');
  assert.deepEqual([...jwtClaims(b.jwt).ctrlAddresses].sort(), [first.ctrlAddress, second.ctrlAddress].sort());
  await until('the router on ctrl2', async () => (await routerDetail(second, b.id).catch(() => undefined))?.enrollmentToken === b.token || undefined);
  const enrolledB = await enrollRouter(second, workbench, b.id, b.token);
  const onSecond = await connect(second, enrolledB);
  assert.deepEqual(onSecond.welcome.controllerId, 'ctrl2');
  assert.equal(onSecond.welcome.members.length, 2);
  assert.deepEqual(onSecond.welcome.routers, [{ id: a.id, name: 'cluster-router-a', linkListeners: [listenerA], ...fingerprints(enrolledA) }], 'the welcome names the routers of the other controller');
  const heard = await onFirst.router.next('ctrl.routerConnected');
  assert.deepEqual(heard.router, { id: b.id, name: 'cluster-router-b', linkListeners: [], ...fingerprints(enrolledB) });

  for (const node of [first, second]) {
    assert.equal((await routerDetail(node, a.id)).isOnline, true, `a on ${node.id}`);
    assert.equal((await routerDetail(node, b.id)).isOnline, true, `b on ${node.id}`);
  }

  onSecond.router.close();
  assert.equal((await onFirst.router.next('ctrl.routerDisconnected')).routerId, b.id);
  await until('b offline on ctrl1', async () => ((await routerDetail(first, b.id)).isOnline === false ? true : undefined), 5000);
  assert.equal((await routerDetail(first, a.id)).isOnline, true);
});

test("a router enrolling through one controller may not obtain a name on the other controller's certificate", async () => {
  const router = await createRouter('cluster-router-names');
  // The second controller's names reach the first from the certificate it presents on their peer channel.
  await until('ctrl2 connected to ctrl1', async () => ((await agent(first, 'cluster.list')) as { id: string; connected: boolean }[]).some((row) => row.id === 'ctrl2' && row.connected) || undefined);
  for (const [sans, name] of [
    ['DNS:ctrl2.edgeward.test', 'ctrl2.edgeward.test'],
    ['IP:2001:db8:0::2', '2001:db8::2'],
  ]) {
    const [client, server] = await Promise.all([keyAndCsr(workbench, 'names-client'), keyAndCsr(workbench, 'names-server', sans)]);
    const refused = await first.http.post(`${first.clientApi}/enroll/erott`, { body: { token: router.token, certCsr: client.csrPem, serverCertCsr: server.csrPem } });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.json.error.code, 'COULD_NOT_PROCESS_CSR');
    assert.deepEqual(refused.json.error.cause, { field: 'serverCertCsr', value: name, reason: `"${name}" belongs to a controller (on a controller certificate)` });
  }
  const enrolled = await enrollRouter(first, workbench, router.id, router.token);
  assert.match(new X509Certificate(enrolled.serverCertPem).subjectAltName!, /DNS:router-\d+\.example\.test/);
});

test("a router's terminators, registered with one controller, are listed by every controller and go when it leaves", async () => {
  // Runs after the first test: the cluster has both controllers.
  const headers = { 'zt-session': await first.adminToken() };
  const post = async (path: string, body: unknown) => {
    const response = await first.http.post(`${first.managementApi}${path}`, { headers, body });
    assert.equal(response.status, 201, response.text);
    return response.json.data.id as string;
  };
  const routerId = await post('/edge-routers', { name: 'cluster-hosting-router', isTunnelerEnabled: true, roleAttributes: ['hosting'] });
  const config = await post('/configs', { name: 'cluster-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: 'localhost', port: 9000 } });
  const serviceId = await post('/services', { name: 'cluster-hosted', encryptionRequired: true, roleAttributes: ['hosted'], configs: [config] });
  await post('/service-policies', { name: 'cluster-hosting', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosting'], serviceRoles: ['#hosted'] });
  const token = (await routerDetail(first, routerId)).enrollmentToken as string;
  const enrolled = await enrollRouter(first, workbench, routerId, token);
  // Connected to the second controller, once it has applied the policy.
  await until('the policy on ctrl2', async () => {
    const list = await second.http.get(`${second.managementApi}/service-policies`, { headers: { 'zt-session': await second.adminToken() } });
    return list.json.data.some((policy: { name: string }) => policy.name === 'cluster-hosting') || undefined;
  });
  const { router } = await connect(second, enrolled);
  router.send({ type: 'router.terminator.create', terminators: [{ serviceId, address: 'tcp:localhost:9000' }] });
  const listed = async (node: ControllerFixture) => {
    const response = await node.http.get(`${node.managementApi}/terminators`, { headers: { 'zt-session': await node.adminToken() } });
    assert.equal(response.status, 200, response.text);
    return response.json.data as Array<{ id: string; serviceId: string; routerId: string; address: string }>;
  };
  const onSecond = await until('the terminator on ctrl2', async () => ((await listed(second)).length === 1 ? await listed(second) : undefined));
  const onFirst = await until('the terminator on ctrl1 (asked of ctrl2)', async () => ((await listed(first)).length === 1 ? await listed(first) : undefined));
  assert.deepEqual(onFirst, onSecond, 'every controller lists the same terminator');
  assert.equal(onFirst[0]!.serviceId, serviceId);
  assert.equal(onFirst[0]!.routerId, routerId);
  assert.equal(onFirst[0]!.address, 'tcp:localhost:9000');

  router.close();
  for (const node of [first, second]) await until(`the terminator gone on ${node.id}`, async () => ((await listed(node)).length === 0 ? true : undefined), 15_000);
});

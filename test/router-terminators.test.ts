// Terminators across real processes: a controller and `./edgeward router run` with a tunnel listener in host mode.
// The router's identity (a tunneler-enabled edge router with role attribute `hosting`) may Bind a service that
// carries a host.v1 config: the router registers a terminator for it, which an admin sees on GET /terminators over
// HTTPS in the real controller's shape, with the host.v1 address; a service without a Bind policy gets none; taking
// the policy away removes the terminator, giving it back brings it back; and stopping the router removes it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ControllerFixture } from './support/controller-fixture.ts';
import { freePort } from './support/free-port.ts';
import { RouterRun, runEdgeward } from './support/router-fixture.ts';

let controller: ControllerFixture;
let admin: Record<string, string>;
let dir: string;
let configFile: string;
let router: RouterRun | undefined;
let routerId: string;
let hostedServiceId: string;
let unboundServiceId: string;
let policyId: string;

const mgmt = (path: string) => `${controller.managementApi}${path}`;

async function post(path: string, body: Record<string, unknown>): Promise<string> {
  const response = await controller.http.post(mgmt(path), { headers: admin, body });
  assert.equal(response.status, 201, response.text);
  return response.json.data.id as string;
}

async function terminators(): Promise<any[]> {
  const response = await controller.http.get(mgmt('/terminators'), { headers: admin });
  assert.equal(response.status, 200, response.text);
  return response.json.data as any[];
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  dir = mkdtempSync(join(tmpdir(), 'edgeward-terminators-'));
  configFile = join(dir, 'router.yml');
  const edgePort = await freePort();
  writeFileSync(
    configFile,
    `v: 3
identity:
  cert: pki/router.cert
  server_cert: pki/router.server.cert
  key: pki/router.key
  ca: pki/ca.pem
ctrl:
  endpoint: ${controller.ctrlAddress}
  heartbeats: {sendInterval: 1s, checkInterval: 100ms, closeUnresponsiveTimeout: 5s}
edge:
  csr:
    sans: {dns: [localhost], ip: [127.0.0.1]}
listeners:
  - binding: edge
    address: tls:127.0.0.1:${edgePort}
    options: {advertise: 127.0.0.1:${edgePort}}
  - binding: tunnel
    options: {mode: host}
`,
  );
});

after(async () => {
  await router?.stop();
  await controller?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('terminators of a router hosting services', { timeout: 240_000 }, () => {
  it('a router with a host-mode tunnel listener registers a terminator for the service it may Bind, at the host.v1 address', async () => {
    routerId = await post('/edge-routers', { name: 'hosting-router', isTunnelerEnabled: true, roleAttributes: ['hosting'] });
    const detail = await controller.http.get(mgmt(`/edge-routers/${routerId}`), { headers: admin });
    writeFileSync(join(dir, 'router.jwt'), detail.json.data.enrollmentJwt);
    const enrolled = await runEdgeward(['router', 'enroll', configFile, '--jwt', join(dir, 'router.jwt')]);
    assert.equal(enrolled.code, 0, enrolled.stderr);

    const hostConfig = await post('/configs', { name: 'echo-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: 18080 } });
    const otherConfig = await post('/configs', { name: 'other-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: 18081 } });
    hostedServiceId = await post('/services', { name: 'echo', encryptionRequired: true, roleAttributes: ['web'], configs: [hostConfig] });
    unboundServiceId = await post('/services', { name: 'not-bound', encryptionRequired: true, roleAttributes: ['private'], configs: [otherConfig] });
    policyId = await post('/service-policies', { name: 'hosting-binds-web', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosting'], serviceRoles: ['#web'] });

    assert.deepEqual(await terminators(), [], 'no router, no terminators');
    router = RouterRun.start(configFile);
    await router.waitForLog((line) => line.msg === 'control channel established', 30_000, 'the welcome');
    const [terminator] = await until(async () => {
      const list = await terminators();
      return list.length > 0 ? list : undefined;
    }, 'the terminator');
    const listed = await terminators();
    assert.equal(listed.length, 1, 'only the service the router may Bind');
    assert.equal(terminator.serviceId, hostedServiceId);
    assert.deepEqual(terminator.service, { id: hostedServiceId, name: 'echo', entity: 'services', _links: { self: { href: `./services/${hostedServiceId}` } } });
    assert.equal(terminator.routerId, routerId);
    assert.equal(terminator.router.name, 'hosting-router');
    assert.equal(terminator.binding, 'tunnel');
    assert.equal(terminator.address, 'tcp:127.0.0.1:18080');
    assert.equal(terminator.identity, routerId);
    assert.equal(terminator.cost, 0);
    assert.equal(terminator.dynamicCost, 0);
    assert.equal(terminator.precedence, 'default');
    assert.ok(!Number.isNaN(Date.parse(terminator.createdAt)));
    assert.equal(terminator._links.self.href, `./terminators/${terminator.id}`);

    const one = await controller.http.get(mgmt(`/terminators/${terminator.id}`), { headers: admin });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.json.data, terminator);
    const missing = await controller.http.get(mgmt('/terminators/nope'), { headers: admin });
    assert.equal(missing.status, 404);
    const ofService = await controller.http.get(mgmt(`/services/${hostedServiceId}/terminators`), { headers: admin });
    assert.deepEqual(ofService.json.data.map((item: { id: string }) => item.id), [terminator.id]);
    const ofOther = await controller.http.get(mgmt(`/services/${unboundServiceId}/terminators`), { headers: admin });
    assert.deepEqual(ofOther.json.data, []);
    const filtered = await controller.http.get(mgmt(`/terminators?filter=${encodeURIComponent(`routerId = "${routerId}"`)}`), { headers: admin });
    assert.equal(filtered.json.data.length, 1);
    const anonymous = await controller.http.get(mgmt('/terminators'));
    assert.equal(anonymous.status, 401);
  });

  it('the terminator goes when the policy no longer allows it, and comes back with it', async () => {
    const removed = await controller.http.delete(mgmt(`/service-policies/${policyId}`), { headers: admin });
    assert.equal(removed.status, 200, removed.text);
    await until(async () => ((await terminators()).length === 0 ? true : undefined), 'the terminator to go with the policy');
    policyId = await post('/service-policies', { name: 'hosting-binds-web', type: 'Bind', semantic: 'AnyOf', identityRoles: [`@${routerId}`], serviceRoles: [`@${hostedServiceId}`] });
    const back = await until(async () => {
      const list = await terminators();
      return list.length === 1 ? list[0] : undefined;
    }, 'the terminator to come back (the router named by its id)');
    assert.equal(back.address, 'tcp:127.0.0.1:18080');
  });

  it('the terminator goes when the router stops', async () => {
    assert.equal(await router!.stop(), 0);
    router = undefined;
    await until(async () => ((await terminators()).length === 0 ? true : undefined), 'the terminator to go after the grace', 20_000);
  });
});

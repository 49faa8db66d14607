// `./edgeward router enroll` and `./edgeward router run` against a REAL controller process (test/support/
// controller-fixture.ts): the admin creates an edge router, the router enrolls with its JWT, connects over the
// control channel, shows as online, answers its own controllerPing health check, and its metrics appear on the
// controller's /metrics with a router_id label, and its edge listener shows as the edge router's supportedProtocols
// (a changed config shows only after a restart). Fail-over between real controllers: test/router-cluster.test.ts;
// test/router-process.test.ts covers it with fake controllers.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { ControllerFixture } from './support/controller-fixture.ts';
import { freePort } from './support/free-port.ts';
import { HttpsClient } from './support/https-client.ts';
import { RouterRun, runEdgeward } from './support/router-fixture.ts';

let controller: ControllerFixture;
let admin: Record<string, string>;
let dir: string;
let configFile: string;
let healthUrl: string;
let routerId: string;
let router: RouterRun | undefined;
let http: HttpsClient;
let edgePort: number;

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  dir = mkdtempSync(join(tmpdir(), 'edgeward-router-e2e-'));
  const healthPort = await freePort();
  const linkPort = await freePort();
  edgePort = await freePort();
  healthUrl = `https://127.0.0.1:${healthPort}/health-checks`;
  configFile = join(dir, 'router.yml');
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
link:
  listeners:
    - binding: transport
      bind: tls:127.0.0.1:${linkPort}
      advertise: tls:127.0.0.1:${linkPort}
dialers:
  - binding: transport
metrics:
  reportInterval: 300ms
  intervalAgeThreshold: 200ms
healthChecks:
  ctrlPingCheck: {interval: 300ms, timeout: 2s, initialDelay: 100ms}
web:
  - name: health
    bindPoints: [{interface: 127.0.0.1:${healthPort}, address: 127.0.0.1:${healthPort}}]
    apis: [{binding: health-checks}]
`,
  );
  http = new HttpsClient(controller.caPem);
});

after(async () => {
  await router?.stop();
  http?.close();
  await controller?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

describe('router with a real controller', { timeout: 240_000 }, () => {
  it('enrolls with the JWT of an edge router the admin created', async () => {
    const created = await controller.http.post(`${controller.managementApi}/edge-routers`, { headers: admin, body: { name: 'router-e2e' } });
    assert.equal(created.status, 201, created.text);
    routerId = created.json.data.id;
    const detail = await controller.http.get(`${controller.managementApi}/edge-routers/${routerId}`, { headers: admin });
    const jwtFile = join(dir, 'router.jwt');
    writeFileSync(jwtFile, detail.json.data.enrollmentJwt);
    const result = await runEdgeward(['router', 'enroll', configFile, '--jwt', jwtFile]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`^enrolled router ${routerId}\\n`));
    assert.equal(statSync(join(dir, 'pki', 'router.key')).mode & 0o777, 0o600);
    const endpoints = parse(readFileSync(join(dir, 'endpoints'), 'utf8')) as { endpoints: string[] };
    assert.deepEqual(endpoints.endpoints, [controller.ctrlAddress]);
    const after = await controller.http.get(`${controller.managementApi}/edge-routers/${routerId}`, { headers: admin });
    assert.equal(after.json.data.isVerified, true);
  });

  it('connects, shows online, passes controllerPing and reports metrics to /metrics with its router_id', async () => {
    router = RouterRun.start(configFile);
    await router.waitForLog((line) => line.msg === 'control channel established', 30_000, 'the welcome');
    await until(async () => {
      const detail = await controller.http.get(`${controller.managementApi}/edge-routers/${routerId}`, { headers: admin });
      return detail.json.data.isOnline === true ? true : undefined;
    }, 'isOnline');
    await until(async () => {
      const report = await http.get(healthUrl);
      return report.json?.data?.healthy === true ? report : undefined;
    }, 'the router to be healthy');
    const exposition = await until(async () => {
      const metrics = await http.get(`${controller.origin}/metrics`);
      // The router's own report (the controller sets its control-channel series at the welcome, before any report).
      return new RegExp(`edgeward_router_link_count\\{[^}]*router_id="${routerId}"`).test(metrics.text) ? metrics.text : undefined;
    }, 'router metrics on /metrics');
    assert.match(exposition, new RegExp(`edgeward_router_link_count\\{[^}]*router_id="${routerId}"[^}]*\\} 0`));
    assert.equal(await router.stop(), 0);
    router = undefined;
    await until(async () => {
      const detail = await controller.http.get(`${controller.managementApi}/edge-routers/${routerId}`, { headers: admin });
      return detail.json.data.isOnline === false ? true : undefined;
    }, 'isOnline false after the router stopped');
  });

  it('reports its edge listener as supportedProtocols; a changed advertise shows only once the router restarts', async () => {
    const detail = async () => (await controller.http.get(`${controller.managementApi}/edge-routers/${routerId}`, { headers: admin })).json.data;
    const listed = async () => {
      const list = await controller.http.get(`${controller.managementApi}/edge-routers`, { headers: admin });
      return (list.json.data as { id: string; supportedProtocols: unknown }[]).find((item) => item.id === routerId);
    };
    const before = `tls://127.0.0.1:${edgePort}`;
    const after = `tls://localhost:${edgePort}`;
    assert.deepEqual((await detail()).supportedProtocols, {}, 'offline: an empty object, as OpenZiti shows it');

    router = RouterRun.start(configFile);
    const online = await until(async () => {
      const data = await detail();
      return data.isOnline === true ? data : undefined;
    }, 'isOnline');
    assert.deepEqual(online.supportedProtocols, { tls: before });
    assert.deepEqual((await listed())?.supportedProtocols, { tls: before }, 'the list shows it too');

    // The file changes under the running router: it reads listeners at start only, so nothing changes.
    writeFileSync(configFile, readFileSync(configFile, 'utf8').replace(`advertise: 127.0.0.1:${edgePort}`, `advertise: localhost:${edgePort}`));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.deepEqual((await detail()).supportedProtocols, { tls: before }, 'still the advertise address the router started with');
    assert.equal(router.lines.filter((line) => line.msg === 'listener configured').length, 1);

    assert.equal(await router.stop(), 0);
    await until(async () => ((await detail()).isOnline === false ? true : undefined), 'isOnline false');
    router = RouterRun.start(configFile);
    const restarted = await until(async () => {
      const data = await detail();
      return data.isOnline === true ? data : undefined;
    }, 'isOnline after the restart');
    assert.deepEqual(restarted.supportedProtocols, { tls: after }, 'the restart reads the new advertise address');
    const logged = await router.waitForLog((line) => line.msg === 'listener configured', 5_000, 'the listener log');
    assert.equal(logged.advertise, `localhost:${edgePort}`);
    assert.equal(await router.stop(), 0);
    router = undefined;
  });
});

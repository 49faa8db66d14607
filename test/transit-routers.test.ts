// Transit routers made through the management API, run as real processes (`./edgeward router enroll`, `router run`)
// with a real controller: `POST /transit-routers` makes one with an enrollment; enrolled and run, it joins the fabric
// between r1 (a proxy-mode tunnel, dialing) and r2 (hosting the service), linked to both, and a user's bytes through
// r1 pass through it to the echo server behind r2. It is never an edge router: `/edge-routers` does not show it and
// no `#all` policy grants it. `PATCH`/`PUT` change fabric fields (an edge router keeps its edge fields); `DELETE`
// revokes it: told so on its control channel, gone from `/routers`, and circuits find no path through it any more.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { enrollTestRouter, hostedService, linkListenerYaml, managementPoster, quickLinkDialer, startWelcomedRouters, testRouterYaml } from './support/circuit-routers.ts';
import { until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { startEchoServer, type EchoServer } from './support/echo-server.ts';
import { EdgeApiSchemas } from './support/edge-api-schemas.ts';
import { freePort } from './support/free-port.ts';
import { OverlaySetup } from './support/overlay-setup.ts';
import { runEdgeward, type RouterRun } from './support/router-fixture.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-transit-routers-'));
const schemas = EdgeApiSchemas.load('management');
let controller: ControllerFixture;
let admin: Record<string, string>;
let echo: EchoServer | undefined;
let proxyPort: number;
let serviceId: string;
let transitEdgePort: number;
const routers: Record<'r1' | 'transit' | 'r2', { id: string; config: string; run?: RouterRun }> = {} as never;

/** A management call whose 2xx body must validate against the spec. */
async function call(method: string, path: string, body?: Record<string, unknown>) {
  const response = await controller.http.request(method, `${controller.managementApi}${path}`, { headers: admin, ...(body ? { body } : {}) });
  if (response.status < 300) assert.deepEqual(schemas.problems(method, path.split('?')[0]!, response.status, response.json), [], `${method} ${path}`);
  return response;
}

async function edgeRouter(name: 'r1' | 'r2', roles: string[], tunnel: string): Promise<void> {
  const spec = { endpoint: controller.ctrlAddress, listeners: [`  - binding: tunnel\n    options: ${tunnel}`], tail: quickLinkDialer };
  routers[name] = await enrollTestRouter(controller, admin, join(root, name), name, spec, { isTunnelerEnabled: true, roleAttributes: roles });
}

/** One line through r1's proxy port: the echo, or '' when the connection closed without one. */
async function throughProxy(text: string): Promise<string> {
  const socket = connect({ host: '127.0.0.1', port: proxyPort });
  try {
    return await new Promise((resolve, reject) => {
      let received = '';
      const timer = setTimeout(() => reject(new Error(`no echo and no close within 15 s (got ${JSON.stringify(received)})`)), 15_000);
      socket.on('error', () => undefined);
      socket.on('data', (chunk) => {
        received += chunk.toString();
        if (received.endsWith('\n')) { clearTimeout(timer); resolve(received); }
      });
      socket.on('close', () => { clearTimeout(timer); resolve(received); });
      socket.write(`${text}\n`);
    });
  } finally {
    socket.destroy();
  }
}

/** CONNECT via-transit:80 through the transit router's edge listener: the refusal's status and body. */
function connectThroughTransit(token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port: transitEdgePort, ca: controller.caPem, servername: 'localhost' }, () => {
      socket.write(`CONNECT via-transit:80 HTTP/1.1\r\nHost: via-transit:80\r\nzt-session: ${token}\r\n\r\n`);
    });
    let text = '';
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no CONNECT answer: ${text}`)); }, 20_000);
    socket.on('error', (error) => { clearTimeout(timer); reject(error); });
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (text.length >= end + 4 + length) {
        clearTimeout(timer);
        socket.destroy();
        resolve({ status: Number(text.slice(9, 12)), body: text.slice(end + 4, end + 4 + length) });
      }
    });
  });
}

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  echo = await startEchoServer();
  serviceId = await hostedService(managementPoster(controller, admin), 'transit', 'via-transit', echo.port);
  proxyPort = await freePort();
  await edgeRouter('r1', ['dialer'], `{mode: proxy, services: [via-transit:${proxyPort}]}`);
  await edgeRouter('r2', ['hosting'], '{mode: host}');

  // The transit router: made through the management API, enrolled with the JWT it issued, a link listener only.
  const created = await call('POST', '/transit-routers', { name: 'transit', cost: 3 });
  assert.equal(created.status, 201, created.text);
  const transitId = created.json.data.id as string;
  const detail = (await call('GET', `/transit-routers/${transitId}`)).json.data;
  assert.deepEqual([detail.name, detail.cost, detail.isVerified, detail.isOnline, detail.fingerprint], ['transit', 3, false, false, '']);
  const dir = join(root, 'transit');
  mkdirSync(dir, { recursive: true });
  const linkPort = await freePort();
  const config = join(dir, 'router.yml');
  transitEdgePort = await freePort();
  // An edge listener too (edgeward's enrollment reads edge.csr, which needs one): clients are refused on it.
  writeFileSync(config, testRouterYaml({ endpoint: controller.ctrlAddress, transportDialer: false, tail: linkListenerYaml(linkPort) }, transitEdgePort));
  writeFileSync(join(dir, 'enroll.jwt'), detail.enrollmentJwt);
  const enrolled = await runEdgeward(['router', 'enroll', config, '--jwt', join(dir, 'enroll.jwt')]);
  assert.equal(enrolled.code, 0, enrolled.stderr);
  routers.transit = { id: transitId, config };

  await startWelcomedRouters(routers, ['transit', 'r1', 'r2']);
  for (const name of ['r1', 'r2'] as const) {
    await routers[name].run!.waitForLog((line) => line.msg === 'link established' && line.destRouterId === transitId, 30_000, `${name}'s link to the transit router`);
  }
  await until("r2's terminator", async () => (await call('GET', `/services/${serviceId}/terminators`)).json?.data?.length === 1, 30_000);
});

after(async () => {
  await Promise.all(Object.values(routers).map((router) => router.run?.stop()));
  await echo?.close();
  await controller?.dispose();
  rmSync(root, { recursive: true, force: true });
});

test('a router made through /transit-routers enrolls, links and carries circuits, and is never offered as an edge router', async () => {
  const transitId = routers.transit.id;
  const r1 = routers.r1.run!;
  assert.equal(await throughProxy('through the transit router'), 'through the transit router\n');
  const created = await r1.waitForLog((line) => line.msg === 'circuit created' && line.service === 'via-transit', 10_000, "r1's circuit created line");
  assert.deepEqual(created.path, [routers.r1.id, transitId, routers.r2.id], 'the only path: r1 → transit → r2');

  for (const collection of ['routers', 'transit-routers']) {
    const row = (await call('GET', `/${collection}/${transitId}`)).json.data;
    assert.deepEqual([row.isVerified, row.isOnline, row.enrollmentJwt], [true, true, null], `${collection}: enrolled and online`);
    assert.match(row.fingerprint, /^[0-9a-f]{40}$/);
  }
  const edgeRouters = (await call('GET', '/edge-routers')).json.data as Array<{ id: string }>;
  assert.deepEqual(edgeRouters.map((row) => row.id).sort(), [routers.r1.id, routers.r2.id].sort(), '/edge-routers: the edge routers only');
  assert.equal((await call('GET', `/edge-routers/${transitId}`)).status, 404);
  assert.equal((await call('PATCH', `/edge-routers/${transitId}`, { cost: 1 })).status, 404);
  const granted = (await call('GET', `/services/${serviceId}/edge-routers`)).json.data as Array<{ id: string }>;
  assert.deepEqual(granted.map((row) => row.id).sort(), [routers.r1.id, routers.r2.id].sort(), 'an #all service edge router policy does not grant the transit router');
  const erp = ((await call('GET', '/edge-router-policies')).json.data as Array<{ id: string; name: string }>).find((policy) => policy.name === 'transit-all-routers')!;
  const erpRouters = (await call('GET', `/edge-router-policies/${erp.id}/edge-routers`)).json.data as Array<{ id: string }>;
  assert.equal(erpRouters.some((row) => row.id === transitId), false, 'an #all edge router policy does not select it');

  // A user the #all policies allow everywhere else is refused on the transit router's edge listener.
  const setup = await OverlaySetup.create(controller);
  await setup.createUser('tess', 'tess-password', { roleAttributes: ['dialer'] });
  const token = await controller.login('tess', 'tess-password');
  const refused = await connectThroughTransit(token);
  assert.equal(refused.status, 403, refused.body);
  assert.equal(JSON.parse(refused.body).error.code, 'NO_EDGE_ROUTER_POLICY');
  const refusal = await routers.transit.run!.waitForLog((line) => line.msg === 'circuit refused' && line.code === 'NO_EDGE_ROUTER_POLICY', 10_000, "the transit router's refusal");
  assert.match(String(refusal.reason), /is a transit router: it carries circuits between routers, not connections of identities/);
});

test('PUT and PATCH change fabric fields only; a bad body is refused whole', async () => {
  const transitId = routers.transit.id;
  assert.equal((await call('PATCH', `/transit-routers/${transitId}`, { cost: 9, tags: { tier: 'core' } })).status, 200);
  const patched = (await call('GET', `/routers/${transitId}`)).json.data;
  assert.deepEqual([patched.name, patched.cost, patched.tags, patched.noTraversal], ['transit', 9, { tier: 'core' }, false]);

  // Through /routers on an edge router: the fabric fields are replaced, its role attributes and tunneler kept.
  assert.equal((await call('PUT', `/routers/${routers.r2.id}`, { name: 'r2-renamed', noTraversal: false })).status, 200);
  const r2 = (await call('GET', `/edge-routers/${routers.r2.id}`)).json.data;
  assert.deepEqual([r2.name, r2.cost, r2.roleAttributes, r2.isTunnelerEnabled], ['r2-renamed', 0, ['hosting'], true]);

  for (const [method, path, body, field] of [
    ['POST', '/transit-routers', { cost: 1 }, 'name'],
    ['POST', '/routers', { name: 'with-configs', configs: ['c1'] }, 'configs'],
    ['PATCH', `/transit-routers/${transitId}`, { cost: 70000 }, 'cost'],
    ['PUT', `/routers/${transitId}`, { name: 'x', ctrlChanListeners: { 'tls:0.0.0.0:6262': ['default'] } }, 'ctrlChanListeners'],
  ] as const) {
    const response = await call(method, path, body);
    assert.equal(response.status, 400, `${method} ${path}: ${response.text}`);
    assert.equal(response.json.error.cause.field, field, response.text);
  }
  assert.equal((await call('GET', `/routers/${transitId}`)).json.data.cost, 9, 'a refused change changed nothing');
  assert.equal(((await call('GET', '/routers?filter=' + encodeURIComponent('name = "with-configs"'))).json.data as unknown[]).length, 0);
  assert.equal((await call('PATCH', '/transit-routers/no-such-router', { cost: 1 })).status, 404);
});

test('DELETE revokes the transit router: told on its control channel, gone from the lists, and no circuit passes any more', async () => {
  const transitId = routers.transit.id;
  assert.equal((await call('DELETE', `/transit-routers/${transitId}`)).status, 200);
  await routers.transit.run!.waitForLog((line) => line.msg === 'controller refused the router' && line.revoked === true, 10_000, 'the transit router told it is revoked');
  assert.equal((await call('GET', `/routers/${transitId}`)).status, 404);
  assert.equal((await call('GET', `/transit-routers/${transitId}`)).status, 404);
  await until('no path without the transit router', async () => (await throughProxy('no path')) === '', 15_000);
});

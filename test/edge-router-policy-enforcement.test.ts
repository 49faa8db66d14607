// Edge router policies and service edge router policies enforced across real processes: a controller and three
// routers run as an operator runs them (`./edgeward router enroll`, `./edgeward router run`). Router 1 has an edge
// listener and a proxy-mode tunnel listener; router 2 hosts an echo service (and has an edge listener); router 3
// sits between them. Links: r1 → r3 → r2, and a slow direct r1 → r2 (through a proxy that delays every chunk), so
// paths go through r3 while the policies allow it.
//
// Shown here as a client and an operator see it: an identity whose edge router policy grants only router 2 is
// refused on router 1 (403 NO_EDGE_ROUTER_POLICY) and served on router 2, while router 1's tunnel listener, acting for
// router 1's own identity, is served by its system policy; a service edge router policy that leaves router 3 out
// moves circuits to the direct link; a policy change that no longer allows a live circuit closes it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { enrollTestRouter, managementPoster, startWelcomedRouters } from './support/circuit-routers.ts';
import { until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { startEchoServer, type EchoServer } from './support/echo-server.ts';
import { freePort } from './support/free-port.ts';
import type { LogLine, RouterRun } from './support/router-fixture.ts';
import { OverlaySetup } from './support/overlay-setup.ts';
import { TcpProxy } from './support/tcp-proxy.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-erp-'));
let controller: ControllerFixture;
let admin: Record<string, string>;
let echo: EchoServer | undefined;
let slowProxy: TcpProxy;
let tunnelPort: number;
let serpId: string;
type RouterName = 'r1' | 'r2' | 'r3';
const routers: Record<RouterName, { id: string; config: string; edgePort: number; run?: RouterRun }> = {} as never;

const post = (path: string, body: Record<string, unknown>): Promise<string> => managementPoster(controller, admin)(path, body);
const patch = async (path: string, body: Record<string, unknown>) => {
  const response = await controller.http.patch(`${controller.managementApi}${path}`, { headers: admin, body });
  assert.equal(response.status, 200, response.text);
};

async function writeRouter(name: RouterName, options: { roles: string[]; listeners: string[]; link: string }): Promise<void> {
  const spec = { endpoint: controller.ctrlAddress, quickHeartbeats: true, listeners: options.listeners, tail: options.link };
  routers[name] = await enrollTestRouter(controller, admin, join(root, name), name, spec, { isTunnelerEnabled: true, roleAttributes: options.roles });
}

const dialBackoff = 'healthyDialBackoff: {retryBackoffFactor: 2, minRetryInterval: 200ms, maxRetryInterval: 1s}';

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  echo = await startEchoServer();
  const echoPort = echo.port;

  const [r2Fast, r2Slow, r3Link] = [await freePort(), await freePort(), await freePort()];
  tunnelPort = await freePort();
  slowProxy = new TcpProxy(r2Slow, '127.0.0.1', 25);
  const slowPort = await slowProxy.start();
  const r2Listeners = `    - {binding: transport, bind: "tls:127.0.0.1:${r2Fast}", advertise: "tls:127.0.0.1:${r2Fast}", groups: [fast]}\n    - {binding: transport, bind: "tls:127.0.0.1:${r2Slow}", advertise: "tls:127.0.0.1:${slowPort}", groups: [slow]}`;
  await writeRouter('r1', {
    roles: ['ingress'],
    listeners: [`  - binding: tunnel\n    options: {mode: proxy, services: ["echo:${tunnelPort}"]}`],
    link: `link:\n  dialers:\n    - binding: transport\n      groups: [slow, middle]\n      ${dialBackoff}`,
  });
  await writeRouter('r2', { roles: ['hosts'], listeners: ['  - binding: tunnel\n    options: {mode: host}'], link: `link:\n  listeners:\n${r2Listeners}` });
  await writeRouter('r3', {
    roles: ['middle'],
    listeners: [],
    link: `link:\n  listeners:\n    - {binding: transport, bind: "tls:127.0.0.1:${r3Link}", advertise: "tls:127.0.0.1:${r3Link}", groups: [middle]}\n  dialers:\n    - binding: transport\n      groups: [fast]\n      ${dialBackoff}`,
  });

  const host = await post('/configs', { name: 'echo-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: echoPort } });
  await post('/services', { name: 'echo', encryptionRequired: true, roleAttributes: ['echo'], configs: [host] });
  await post('/service-policies', { name: 'hosts-bind-echo', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosts'], serviceRoles: ['#echo'] });
  await post('/service-policies', { name: 'dial-echo', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#ingress', '#people'], serviceRoles: ['#echo'] });
  serpId = await post('/service-edge-router-policies', { name: 'echo-everywhere', semantic: 'AnyOf', serviceRoles: ['#echo'], edgeRouterRoles: ['#all'] });

  await startWelcomedRouters(routers, ['r1', 'r2', 'r3']);
  await routers.r1.run!.waitForLog((line) => line.msg === 'link established' && line.destRouterId === routers.r3.id, 30_000, "r1's link to r3");
  await routers.r1.run!.waitForLog((line) => line.msg === 'link established' && line.destRouterId === routers.r2.id, 30_000, "r1's link to r2");
  await routers.r3.run!.waitForLog((line) => line.msg === 'link established' && line.destRouterId === routers.r2.id, 30_000, "r3's link to r2");
});

after(async () => {
  await Promise.all(Object.values(routers).map((router) => router.run?.stop()));
  await echo?.close();
  await slowProxy?.stop();
  await controller?.dispose();
  rmSync(root, { recursive: true, force: true });
});

/** CONNECT echo:80 through a router's edge listener: the status and body of a refusal, or the open tunnel. */
function connectThrough(router: RouterName, token: string): Promise<{ status: number; body: string; socket: TLSSocket }> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port: routers[router].edgePort, ca: controller.caPem, servername: 'localhost' }, () => {
      socket.write(`CONNECT echo:80 HTTP/1.1\r\nHost: echo:80\r\nzt-session: ${token}\r\n\r\n`);
    });
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no CONNECT answer: ${text}`)), 20_000);
    socket.on('error', reject);
    socket.on('data', function onData(chunk: Buffer) {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const status = Number(text.slice(9, 12));
      const length = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (status === 200 || text.length >= end + 4 + length) {
        clearTimeout(timer);
        socket.removeListener('data', onData);
        resolve({ status, body: text.slice(end + 4, end + 4 + length), socket });
      }
    });
  });
}

/** One line through a socket, echoed back (10 s). */
function echoes(socket: import('node:net').Socket, line: string): Promise<boolean> {
  return new Promise((resolve) => {
    let text = '';
    const timer = setTimeout(() => resolve(false), 10_000);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes(line)) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    socket.write(line);
  });
}

/** A connection to router 1's tunnel listener, proven open by one echoed line (retried until the terminator is known). */
function openTunnelListener(): Promise<import('node:net').Socket> {
  return until('an open tunnel-listener connection to echo', async () => {
    const socket = connect({ host: '127.0.0.1', port: tunnelPort });
    socket.on('error', () => undefined);
    if (await echoes(socket, 'hello\n')) return socket;
    socket.destroy();
    return undefined;
  }, 30_000);
}

/** Resolves with the time the socket closed, or Infinity after 15 s. */
function closedWithin(socket: import('node:net').Socket, startedAt: number): Promise<number> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(Number.POSITIVE_INFINITY), 15_000);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - startedAt);
    });
  });
}

const routedOnR1 = (line: LogLine) => line.msg === 'circuit created' && line.service === 'echo';

test('an identity whose edge router policy grants only router 2 is refused on router 1 and served on router 2', async () => {
  const setup = await OverlaySetup.create(controller);
  await setup.createUser('erin', 'erin-password', { roleAttributes: ['people'] });
  const erpId = await post('/edge-router-policies', { name: 'people-on-r2', semantic: 'AnyOf', identityRoles: ['#people'], edgeRouterRoles: [`@${routers.r2.id}`] });
  const token = await controller.login('erin', 'erin-password');

  const refused = await connectThrough('r1', token);
  refused.socket.destroy();
  assert.equal(refused.status, 403, refused.body);
  assert.equal(JSON.parse(refused.body).error.code, 'NO_EDGE_ROUTER_POLICY');
  const refusal = await routers.r1.run!.waitForLog((line) => line.msg === 'circuit refused' && line.code === 'NO_EDGE_ROUTER_POLICY', 10_000, "r1's refusal");
  assert.match(String(refusal.reason), /no edge router policy lets the identity use router/);

  const served = await until('a CONNECT tunnel on r2', async () => {
    const answer = await connectThrough('r2', token);
    if (answer.status === 200) return answer;
    answer.socket.destroy();
    return undefined;
  }, 30_000);
  assert.equal(await echoes(served.socket, 'through r2\n'), true);

  // Moving the grant to router 3 closes the live circuit on router 2: the policy no longer allows it.
  const started = Date.now();
  const closed = closedWithin(served.socket, started);
  await patch(`/edge-router-policies/${erpId}`, { edgeRouterRoles: [`@${routers.r3.id}`] });
  const elapsed = await closed;
  assert.ok(elapsed < 5000, `the tunnel closed ${elapsed} ms after the policy change`);
  const revoked = await routers.r2.run!.waitForLog((line) => line.msg === 'circuits closed: revoked by the controller' && line.code === 'ROUTER_POLICY_REVOKED', 10_000, "r2's revocation");
  assert.ok(Number(revoked.closed) >= 1);
});

test("router 1's tunnel listener, acting for router 1's identity, is served through its system policy", async () => {
  const list = await controller.http.get(`${controller.managementApi}/edge-router-policies?filter=${encodeURIComponent('isSystem=true')}`, { headers: admin });
  assert.ok(list.json.data.some((policy: { name: string }) => policy.name === `edge-router-${routers.r1.id}-system`));
  const socket = await openTunnelListener();
  socket.destroy();
});

test('a service edge router policy that leaves router 3 out moves circuits to the direct link, and closes the circuit through router 3', async () => {
  const r1 = routers.r1.run!;
  const socket = await openTunnelListener();
  const viaMiddle = r1.lines.filter(routedOnR1).at(-1)!;
  assert.deepEqual(viaMiddle.path, [routers.r1.id, routers.r3.id, routers.r2.id], 'the fast path goes through router 3');

  const started = Date.now();
  const closed = closedWithin(socket, started);
  await patch(`/service-edge-router-policies/${serpId}`, { semantic: 'AnyOf', edgeRouterRoles: [`@${routers.r1.id}`, `@${routers.r2.id}`] });
  const elapsed = await closed;
  assert.ok(elapsed < 5000, `the tunnel through router 3 closed ${elapsed} ms after the policy change`);
  await r1.waitForLog((line) => line.msg === 'circuits closed: revoked by the controller' && line.code === 'ROUTER_POLICY_REVOKED', 10_000, "r1's revocation");

  const before = r1.lines.filter(routedOnR1).length;
  const around = await openTunnelListener();
  around.destroy();
  const routed = r1.lines.filter(routedOnR1).slice(before).at(-1)!;
  assert.deepEqual(routed.path, [routers.r1.id, routers.r2.id], 'the path goes around router 3');

  // Leaving router 2 (the only host) out as well: no router may carry the service from its terminator.
  await patch(`/service-edge-router-policies/${serpId}`, { edgeRouterRoles: [`@${routers.r1.id}`] });
  const refusedSocket = connect({ host: '127.0.0.1', port: tunnelPort });
  refusedSocket.on('error', () => undefined);
  const refusal = await r1.waitForLog((line) => line.msg === 'circuit refused' && line.code === 'NO_SERVICE_EDGE_ROUTER_POLICY', 20_000, 'the SERP refusal');
  assert.match(String(refusal.reason), /use a router hosting it/);
  refusedSocket.destroy();
});

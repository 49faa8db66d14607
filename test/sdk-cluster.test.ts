// edgeward's TypeScript SDK against a whole network, across real processes: three controllers in a cluster and three
// routers run as an operator runs them. The dialing identity may use only r1 and the hosting one only r3 (edge router
// policies). r2 hosts `routed` (host.v1, its tunnel listener); `sdk-hosted` is hosted by `./edgeward tunnel run` as an
// SDK (a Bind on r3). Links: r1 → r2 (through a proxy that can be cut), r1 → r3, and a slow r3 → r2 (a proxy that
// delays every chunk), so `routed` goes r1 → r2 until that link is cut.
//
// Shown as an app developer sees it: the SDK dials both services, 50 MB each way intact, sealed end to end, with
// half-close; dials are refused with the codes SDKs act on (a service it may not dial, one whose posture check fails,
// one with no terminators); cutting the r1 → r2 link mid-transfer moves the circuit through r3 with nothing lost; the
// hosting SDK killed, its terminator is gone on every controller within seconds and dials are refused.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { EdgeSdk } from '../sdk/edge-sdk.ts';
import { ControllerApiError, DialRefusedError } from '../sdk/sdk-errors.ts';
import { enrollTestRouter, linkListenerYaml, managementPoster, startWelcomedRouters, terminatorsOnEveryController } from './support/circuit-routers.ts';
import { threeControllerCluster, until } from './support/cluster-helpers.ts';
import type { ControllerFixture } from './support/controller-fixture.ts';
import { startEchoServer, type EchoServer } from './support/echo-server.ts';
import { freePort } from './support/free-port.ts';
import type { RouterRun } from './support/router-fixture.ts';
import { TcpProxy } from './support/tcp-proxy.ts';
import { enrolledIdentityFile, startTunnel, type TunnelProcess } from './support/tunnel-process.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-sdk-cluster-'));
let nodes: ControllerFixture[] = [];
let admin: Record<string, string>;
let echo: EchoServer;
let front: TcpProxy;
let slow: TcpProxy;
let host: TunnelProcess | undefined;
let sdk: EdgeSdk;
const routers: Record<'r1' | 'r2' | 'r3', { id: string; config: string; edgePort: number; run?: RouterRun }> = {} as never;
const serviceIds: Record<string, string> = {};

const post = (path: string, body: Record<string, unknown>): Promise<string> => managementPoster(nodes[0]!, admin)(path, body);
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * Sends `payload` over a new SDK connection to `service` (in pieces, `pace` ms apart when given; `midway` runs once
 * half is sent), half-closes, and reads until the far end ends (bounded).
 */
async function roundTrip(service: string, payload: Buffer, options: { pace?: number; midway?: () => void } = {}): Promise<Buffer> {
  const connection = await sdk.dial(service);
  return new Promise<Buffer>((resolve, reject) => {
    const received: Buffer[] = [];
    const timer = setTimeout(() => {
      connection.destroy();
      reject(new Error(`no end of the echo within 120 s (${received.reduce((sum, chunk) => sum + chunk.length, 0)} bytes back)`));
    }, 120_000);
    connection.on('data', (chunk: Buffer) => received.push(chunk));
    connection.once('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(received));
    });
    connection.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    const piece = 256 * 1024;
    let offset = 0;
    let called = false;
    const next = () => {
      while (offset < payload.length) {
        const more = connection.write(payload.subarray(offset, offset + piece));
        offset += piece;
        if (!called && options.midway && offset >= payload.length / 2) {
          called = true;
          options.midway();
        }
        if (options.pace) return void setTimeout(next, options.pace);
        if (!more) return void connection.once('drain', next);
      }
      connection.end();
    };
    next();
  });
}

before(async () => {
  nodes = await threeControllerCluster(join(root, 'pki'));
  admin = { 'zt-session': await nodes[0]!.adminToken() };
  echo = await startEchoServer();
  const [r2Front, r2Mid, r3Link] = [await freePort(), await freePort(), await freePort()];
  front = new TcpProxy(r2Front);
  slow = new TcpProxy(r2Mid, '127.0.0.1', 25);
  const [frontPort, slowPort] = [await front.start(), await slow.start()];
  const dialer = (groups: string[]) => `link:\n  dialers:\n    - binding: transport\n      groups: [${groups.join(', ')}]\n      healthyDialBackoff: {retryBackoffFactor: 2, minRetryInterval: 200ms, maxRetryInterval: 1s}`;
  routers.r1 = await enrollTestRouter(nodes[0]!, admin, join(root, 'r1'), 'r1', { endpoint: nodes[0]!.ctrlAddress, transportDialer: false, tail: dialer(['front', 'r3']) }, { roleAttributes: ['r1'] });
  routers.r2 = await enrollTestRouter(
    nodes[0]!,
    admin,
    join(root, 'r2'),
    'r2',
    {
      endpoint: nodes[1]!.ctrlAddress,
      transportDialer: false,
      listeners: ['  - binding: tunnel\n    options: {mode: host}'],
      tail: `link:\n  listeners:\n    - {binding: transport, bind: "tls:127.0.0.1:${r2Front}", advertise: "tls:127.0.0.1:${frontPort}", groups: [front]}\n    - {binding: transport, bind: "tls:127.0.0.1:${r2Mid}", advertise: "tls:127.0.0.1:${slowPort}", groups: [mid]}`,
    },
    { roleAttributes: ['r2'], isTunnelerEnabled: true },
  );
  routers.r3 = await enrollTestRouter(
    nodes[0]!,
    admin,
    join(root, 'r3'),
    'r3',
    { endpoint: nodes[2]!.ctrlAddress, transportDialer: false, tail: `${linkListenerYaml(r3Link).replace('[default]', '[r3]')}\n${dialer(['mid']).replace('link:\n', '')}` },
    { roleAttributes: ['r3'] },
  );

  const hostConfig = await post('/configs', { name: 'echo-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: echo.port } });
  serviceIds.routed = await post('/services', { name: 'routed', encryptionRequired: true, roleAttributes: ['routed', 'dialable'], configs: [hostConfig] });
  serviceIds['sdk-hosted'] = await post('/services', { name: 'sdk-hosted', encryptionRequired: true, roleAttributes: ['sdk-hosted', 'dialable'], configs: [hostConfig] });
  serviceIds.forbidden = await post('/services', { name: 'forbidden', encryptionRequired: true, roleAttributes: ['routed'], configs: [hostConfig] });
  serviceIds.guarded = await post('/services', { name: 'guarded', encryptionRequired: true, roleAttributes: ['guarded'], configs: [hostConfig] });
  serviceIds.unhosted = await post('/services', { name: 'unhosted', encryptionRequired: true, roleAttributes: ['dialable'] });
  const process = await post('/posture-checks', { name: 'needs-agent', typeId: 'PROCESS', roleAttributes: ['agent'], process: { osType: 'Linux', path: '/opt/agent/agent' } });
  assert.ok(process);
  await post('/service-policies', { name: 'r2-binds', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#r2'], serviceRoles: ['#routed', '#guarded'] });
  await post('/service-policies', { name: 'host-binds', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#sdk-host'], serviceRoles: ['#sdk-hosted'] });
  await post('/service-policies', { name: 'dialer-dials', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#dialer'], serviceRoles: ['#dialable'] });
  await post('/service-policies', { name: 'dialer-dials-guarded', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#dialer'], serviceRoles: ['#guarded'], postureCheckRoles: ['#agent'] });
  await post('/edge-router-policies', { name: 'dialers-on-r1', semantic: 'AnyOf', identityRoles: ['#dialer'], edgeRouterRoles: ['#r1'] });
  await post('/edge-router-policies', { name: 'hosts-on-r3', semantic: 'AnyOf', identityRoles: ['#sdk-host'], edgeRouterRoles: ['#r3'] });
  await post('/service-edge-router-policies', { name: 'services-everywhere', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] });

  await startWelcomedRouters(routers, ['r1', 'r2', 'r3']);
  await routers.r1.run!.waitForLog((line) => line.msg === 'link established' && line.destRouterId === routers.r2.id, 30_000, "r1's link to r2");
  await routers.r3.run!.waitForLog((line) => line.msg === 'link established' && line.destRouterId === routers.r2.id, 30_000, "r3's link to r2");
  const hosting = await enrolledIdentityFile(nodes[0]!, admin, root, 'sdk-host', ['sdk-host']);
  host = startTunnel(hosting.file, []);
  await terminatorsOnEveryController(nodes, 4, 'r2 hosting routed, forbidden and guarded, and the SDK hosting sdk-hosted, on every controller');
  const dialing = await enrolledIdentityFile(nodes[0]!, admin, root, 'sdk-dialer', ['dialer']);
  sdk = EdgeSdk.fromIdentityFile(dialing.file);
});

after(async () => {
  sdk?.close();
  host?.child.kill('SIGKILL');
  await Promise.all(Object.values(routers).map((router) => router.run?.stop()));
  await front?.stop();
  await slow?.stop();
  await echo?.close();
  for (const node of nodes) await node.dispose();
  rmSync(root, { recursive: true, force: true });
});

test('the SDK dials a router-hosted service and an SDK-hosted one: 50 MB each way intact, sealed end to end, with half-close', async (t) => {
  for (const service of ['routed', 'sdk-hosted']) {
    const payload = randomBytes(50 * 1024 * 1024);
    const startedAt = performance.now();
    const echoed = await roundTrip(service, payload);
    t.diagnostic(`${service}: 50 MB each way in ${Math.round(performance.now() - startedAt)} ms`);
    assert.equal(echoed.length, payload.length, `${service}: every byte came back`);
    assert.equal(sha256(echoed), sha256(payload), `${service}: in order, nothing doubled`);
  }
  const created = routers.r1.run!.lines.filter((line) => line.msg === 'circuit created');
  assert.deepEqual(created.find((line) => line.service === 'sdk-hosted')?.path, [routers.r1.id, routers.r3.id], 'the SDK-hosted circuit ran r1 → r3');
  assert.deepEqual(created.find((line) => line.service === 'routed')?.path, [routers.r1.id, routers.r2.id], 'the router-hosted circuit ran r1 → r2');
});

test('dials are refused with the codes SDKs act on: no Dial policy, failing posture, no terminators', async () => {
  const refusal = async (service: string) => sdk.dial(service).then(() => assert.fail(`${service} was dialed`), (error: unknown) => error);
  const forbidden = await refusal('forbidden');
  assert.ok(forbidden instanceof Error, String(forbidden));
  assert.match(forbidden.message, /forbidden/, 'a service the identity may not dial is not among its services');
  const guarded = await refusal('guarded');
  assert.ok(guarded instanceof ControllerApiError, String(guarded));
  assert.equal(guarded.code, 'INVALID_POSTURE', 'the Dial session is refused for posture');
  const unhosted = await refusal('unhosted');
  assert.ok(unhosted instanceof DialRefusedError, String(unhosted));
  assert.equal(unhosted.edgeCode, 1);
  assert.match(unhosted.reason, /terminator/i);
});

test('cutting the r1 → r2 link mid-transfer moves the circuit through r3 with nothing lost', async () => {
  const payload = randomBytes(16 * 1024 * 1024);
  const echoed = await roundTrip('routed', payload, { pace: 20, midway: () => front.cut() });
  assert.equal(echoed.length, payload.length, 'nothing lost');
  assert.equal(sha256(echoed), sha256(payload), 'nothing doubled or reordered');
  const moved = await routers.r1.run!.waitForLog((line) => line.msg === 'circuit re-routed', 10_000, 'the re-route');
  assert.deepEqual(moved.path, [routers.r1.id, routers.r3.id, routers.r2.id]);
});

test('the hosting SDK killed: its terminator is gone on every controller within seconds, and dials are refused', async () => {
  host!.child.kill('SIGKILL');
  const killedAt = Date.now();
  await until(
    'no SDK terminator on any controller',
    async () => {
      for (const node of nodes) {
        const list = await node.http.get(`${node.managementApi}/terminators?filter=${encodeURIComponent(`service="${serviceIds['sdk-hosted']}"`)}`, { headers: { 'zt-session': await node.adminToken() } });
        if ((list.json?.data?.length ?? -1) !== 0) return false;
      }
      return true;
    },
    15_000,
  );
  assert.ok(Date.now() - killedAt < 15_000);
  const refused = await sdk.dial('sdk-hosted').then(() => undefined, (error: unknown) => error);
  assert.ok(refused instanceof DialRefusedError, String(refused));
  assert.equal(refused.edgeCode, 1);
});

// Terminator choice through real routers (`./edgeward router run`) and a real controller: r1 has a proxy-mode tunnel
// listener for service `chosen` and, its identity allowed to Bind it, hosts it too; r2 hosts it in host mode; r1
// dials a link to r2. Both terminators reach the same TCP echo server. A user's bytes through r1's proxy port come
// back either way; which router carried them is what r1's `circuit created` line (its path) and r2's `circuit
// terminated here` show. Nearest first (smartrouting: r1's own terminator, no link), then the admin marks r1's
// terminator `failed` and circuits go to r2; back to default, the nearest again; then the service's strategy
// `random`: circuits end at both.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { allowEveryRouter, enrollTestRouter, linkListenerYaml, managementPoster, quickLinkDialer, startWelcomedRouters } from './support/circuit-routers.ts';
import { until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { startEchoServer, type EchoServer } from './support/echo-server.ts';
import { freePort } from './support/free-port.ts';
import type { RouterRun } from './support/router-fixture.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-terminator-choice-'));
let controller: ControllerFixture;
let admin: Record<string, string>;
let echo: EchoServer | undefined;
let proxyPort: number;
let serviceId: string;
const routers: Record<'r1' | 'r2', { id: string; config: string; run?: RouterRun }> = {} as never;

const mgmt = (path: string) => `${controller.managementApi}${path}`;

async function writeRouter(name: 'r1' | 'r2', roles: string[], tunnel: string, link: string): Promise<void> {
  const spec = { endpoint: controller.ctrlAddress, listeners: [`  - binding: tunnel\n    options: ${tunnel}`], tail: link };
  routers[name] = await enrollTestRouter(controller, admin, join(root, name), name, spec, { isTunnelerEnabled: true, roleAttributes: roles });
}

/** One line through r1's proxy port, echoed back; answers r1's `circuit created` line for that circuit. */
async function throughProxy(text: string): Promise<{ path: string[]; terminatorId: string }> {
  const r1 = routers.r1.run!;
  const seen = r1.lines.length;
  const socket = connect({ host: '127.0.0.1', port: proxyPort });
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      let received = '';
      const timer = setTimeout(() => reject(new Error(`no echo within 15 s (got ${JSON.stringify(received)})`)), 15_000);
      socket.on('error', (error) => { clearTimeout(timer); reject(error); });
      socket.on('data', (chunk) => {
        received += chunk.toString();
        if (received.endsWith('\n')) { clearTimeout(timer); resolve(received); }
      });
      socket.write(`${text}\n`);
    });
    assert.equal(answer, `${text}\n`);
  } finally {
    socket.destroy();
  }
  const line = await r1.waitForLog((entry) => r1.lines.indexOf(entry) >= seen && entry.msg === 'circuit created' && entry.service === 'chosen', 10_000, 'the circuit created line');
  return { path: line.path as string[], terminatorId: line.terminatorId as string };
}

async function patch(path: string, body: Record<string, unknown>): Promise<void> {
  const response = await controller.http.patch(mgmt(path), { headers: admin, body });
  assert.equal(response.status, 200, response.text);
}

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  echo = await startEchoServer();
  const post = managementPoster(controller, admin);
  const host = await post('/configs', { name: 'chosen-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: echo.port } });
  serviceId = await post('/services', { name: 'chosen', encryptionRequired: true, roleAttributes: ['chosen'], configs: [host] });
  await post('/service-policies', { name: 'chosen-bind', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosts'], serviceRoles: ['#chosen'] });
  await post('/service-policies', { name: 'chosen-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#clients'], serviceRoles: ['#chosen'] });
  await allowEveryRouter(post, 'terminators');

  proxyPort = await freePort();
  const r2Link = await freePort();
  await writeRouter('r1', ['clients', 'hosts'], `{mode: proxy, services: [chosen:${proxyPort}]}`,
    quickLinkDialer);
  await writeRouter('r2', ['hosts'], '{mode: host}',
    linkListenerYaml(r2Link));
  await startWelcomedRouters(routers, ['r1', 'r2']);
  await routers.r1.run!.waitForLog((line) => line.msg === 'link established' && line.destRouterId === routers.r2.id, 30_000, "r1's link to r2");
  await until('both routers\' terminators', async () => {
    const list = await controller.http.get(mgmt(`/services/${serviceId}/terminators`), { headers: admin });
    return list.json?.data?.length === 2;
  }, 30_000);
});

after(async () => {
  await Promise.all(Object.values(routers).map((router) => router.run?.stop()));
  await echo?.close();
  await controller?.dispose();
  rmSync(root, { recursive: true, force: true });
});

test('precedence and the terminator strategy an admin sets decide which real router a circuit ends at', async () => {
  const list = (await controller.http.get(mgmt(`/services/${serviceId}/terminators`), { headers: admin })).json.data as any[];
  const onR1 = list.find((row) => row.routerId === routers.r1.id);
  const onR2 = list.find((row) => row.routerId === routers.r2.id);
  assert.ok(onR1 && onR2, JSON.stringify(list));

  assert.deepEqual(await throughProxy('nearest'), { path: [routers.r1.id], terminatorId: onR1.id }, 'smartrouting: r1 hosts it itself, no link to pay');

  await patch(`/terminators/${onR1.id}`, { precedence: 'failed' });
  const r2 = routers.r2.run!;
  const seen = r2.lines.length;
  assert.deepEqual(await throughProxy('failed over'), { path: [routers.r1.id, routers.r2.id], terminatorId: onR2.id }, "r1's terminator is failed: r2's default one wins");
  await r2.waitForLog((line) => r2.lines.indexOf(line) >= seen && line.msg === 'circuit terminated here' && line.service === 'chosen', 10_000, 'r2 terminating the circuit');

  await patch(`/terminators/${onR1.id}`, { precedence: 'default' });
  assert.deepEqual((await throughProxy('back')).path, [routers.r1.id], 'default again: the nearest again');
  await patch(`/services/${serviceId}`, { terminatorStrategy: 'random' });
  const used = new Set<string>();
  for (let i = 0; i < 20 && used.size < 2; i++) used.add((await throughProxy(`random ${i}`)).terminatorId);
  assert.deepEqual([...used].sort(), [onR1.id, onR2.id].sort(), 'random: both terminators carry circuits (all 20 on one: 1 in 500,000)');
});

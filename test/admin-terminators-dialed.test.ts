// Terminators an administrator creates (POST /terminators) are dialed by real routers (`./edgeward router run`) and
// a real controller: r1 has a proxy-mode tunnel listener and no `transport` dialer; r2 lists a `transport` dialer and a
// link listener, hosts nothing itself (no Bind policy, not tunneler-enabled). An admin terminator on r2 naming a local
// echo server carries a user's bytes through r1 → r2; one on r2 naming a closed port fails at r2's dial, and one on
// r1 (no transport dialer) is refused by r1: both close the user's connection with the reason in r1's log and in the
// controller's circuit `failed` events (naming the terminator), and neither router stops serving.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

const root = mkdtempSync(join(tmpdir(), 'edgeward-admin-terminators-'));
let controller: ControllerFixture;
let admin: Record<string, string>;
let echo: EchoServer | undefined;
const ports: Record<'echoed' | 'closed' | 'nodialer', number> = { echoed: 0, closed: 0, nodialer: 0 };
const routers: Record<'r1' | 'r2', { id: string; config: string; run?: RouterRun }> = {} as never;
/** Each service's admin terminator id. */
const terminatorIds: Record<string, string> = {};

async function writeRouter(name: 'r1' | 'r2', body: Record<string, unknown>, tunnel: string, spec: { transportDialer: boolean; tail: string }): Promise<void> {
  const listeners = [`  - binding: tunnel\n    options: ${tunnel}`];
  routers[name] = await enrollTestRouter(controller, admin, join(root, name), name, { endpoint: controller.ctrlAddress, listeners, ...spec }, body);
}

/** A line written to r1's proxy port for `service`: the echo, or how the connection ended without one. */
async function throughProxy(service: keyof typeof ports, text: string): Promise<{ echoed: string; closed: boolean }> {
  const socket = connect({ host: '127.0.0.1', port: ports[service] });
  try {
    return await new Promise((resolve, reject) => {
      let received = '';
      const timer = setTimeout(() => reject(new Error(`no echo and no close within 15 s (got ${JSON.stringify(received)})`)), 15_000);
      socket.on('error', () => undefined);
      socket.on('data', (chunk) => {
        received += chunk.toString();
        if (received.endsWith('\n')) { clearTimeout(timer); resolve({ echoed: received, closed: false }); }
      });
      socket.on('close', () => { clearTimeout(timer); resolve({ echoed: received, closed: true }); });
      socket.write(`${text}\n`);
    });
  } finally {
    socket.destroy();
  }
}

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  echo = await startEchoServer();
  const closedPort = await freePort();
  const post = managementPoster(controller, admin);
  await post('/service-policies', { name: 'admin-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#clients'], serviceRoles: ['#admin-terminated'] });
  await allowEveryRouter(post, 'admin-terminators');

  for (const service of Object.keys(ports) as Array<keyof typeof ports>) ports[service] = await freePort();
  const r2Link = await freePort();
  await writeRouter('r1', { isTunnelerEnabled: true, roleAttributes: ['clients'] }, `{mode: proxy, services: [${Object.entries(ports).map(([service, port]) => `${service}:${port}`).join(', ')}]}`,
    { transportDialer: false, tail: quickLinkDialer });
  await writeRouter('r2', {}, '{mode: host}',
    { transportDialer: true, tail: linkListenerYaml(r2Link) });
  const echoPort = echo.port;
  const targets = { echoed: [routers.r2.id, `tcp:127.0.0.1:${echoPort}`], closed: [routers.r2.id, `tcp:127.0.0.1:${closedPort}`], nodialer: [routers.r1.id, `tcp:127.0.0.1:${echoPort}`] } as const;
  for (const [service, [router, address]] of Object.entries(targets)) {
    const serviceId = await post('/services', { name: service, encryptionRequired: true, roleAttributes: ['admin-terminated'] });
    terminatorIds[service] = await post('/terminators', { service: serviceId, router, binding: 'transport', address });
  }
  await startWelcomedRouters(routers, ['r1', 'r2']);
  await routers.r1.run!.waitForLog((line) => line.msg === 'link established' && line.destRouterId === routers.r2.id, 30_000, "r1's link to r2");
});

after(async () => {
  await Promise.all(Object.values(routers).map((router) => router.run?.stop()));
  await echo?.close();
  await controller?.dispose();
  rmSync(root, { recursive: true, force: true });
});

test("an administrator's transport terminator on r2 is dialed by r2: a user's bytes through r1 reach the echo server", async () => {
  const r2 = routers.r2.run!;
  assert.deepEqual(await throughProxy('echoed', 'to the admin terminator'), { echoed: 'to the admin terminator\n', closed: false });
  const terminated = await r2.waitForLog((line) => line.msg === 'circuit terminated here' && line.service === 'echoed', 10_000, 'r2 terminating the circuit');
  assert.match(String(terminated.address), /^tcp:127\.0\.0\.1:\d+$/);
  const created = await routers.r1.run!.waitForLog((line) => line.msg === 'circuit created' && line.service === 'echoed', 10_000, "r1's circuit created line");
  assert.deepEqual(created.path, [routers.r1.id, routers.r2.id]);
});

test('an admin terminator its router cannot dial fails the circuit cleanly, with the reason, and the routers go on serving', async () => {
  const r1 = routers.r1.run!;
  assert.deepEqual(await throughProxy('closed', 'nobody listens'), { echoed: '', closed: true });
  const dialFailed = await r1.waitForLog((line) => line.msg === 'circuit setup failed' && line.service === 'closed', 10_000, 'the failed dial at r2');
  assert.match(String(dialFailed.reason), /dial tcp:127\.0\.0\.1:\d+ failed/);
  assert.equal(dialFailed.avoid, routers.r2.id);

  assert.deepEqual(await throughProxy('nodialer', 'r1 has no transport dialer'), { echoed: '', closed: true });
  const refused = await r1.waitForLog((line) => line.msg === 'circuit setup failed' && line.service === 'nodialer', 10_000, "r1's refusal");
  assert.match(String(refused.reason), /has binding transport and this router has no transport dialer/);

  // The controller records each failed attempt as a circuit `failed` event naming the terminator and the reason.
  const failedEvents = await until('the failed circuit events', async () => {
    const events = existsSync(controller.eventsFile) ? readFileSync(controller.eventsFile, 'utf8').split('\n').filter((line) => line.includes('"namespace":"circuit"')).map((line) => JSON.parse(line)) : [];
    const failed = events.filter((event) => event.event_type === 'failed');
    return [terminatorIds.closed, terminatorIds.nodialer].every((id) => failed.some((event) => event.terminator_id === id)) ? failed : undefined;
  }, 15_000);
  const closedEvent = failedEvents.find((event) => event.terminator_id === terminatorIds.closed);
  assert.deepEqual([closedEvent.failure_cause, closedEvent.path.egress_id], ['SETUP_FAILED', routers.r2.id]);
  assert.match(String(closedEvent.reason), /dial tcp:127\.0\.0\.1:\d+ failed/);
  assert.match(String(failedEvents.find((event) => event.terminator_id === terminatorIds.nodialer).reason), /no transport dialer/);

  assert.deepEqual(await throughProxy('echoed', 'still served'), { echoed: 'still served\n', closed: false }, 'both routers still carry circuits');
  for (const run of [r1, routers.r2.run!]) assert.deepEqual([run.child.exitCode, run.child.signalCode], [null, null], 'no router exited');
});

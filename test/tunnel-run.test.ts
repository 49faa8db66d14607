// `edgeward tunnel run` as a real child process: an identity file written by `./edgeward edge enroll`, a
// controller, an edge router the identity may use and, behind it over a link, a router hosting an echo service
// (host.v1). The tunneler offers each dialable service on its intercept.v1 port, carries 5 MB each way through it
// with half-close, follows service updates (a new service opens a port, a removed one closes it), and stops cleanly on
// SIGTERM.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { circuitRouterYaml, enrollRouterProcess, managementPoster, startWelcomedRouter } from './support/circuit-routers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { freePort } from './support/free-port.ts';
import type { RouterRun } from './support/router-fixture.ts';
import { enrolledIdentityFile, startTunnel as startTunnelFor, transfer, untilEchoes, type TunnelProcess } from './support/tunnel-process.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-tunnel-run-'));
let controller: ControllerFixture;
let admin: Record<string, string>;
let echo: Server;
let echoPort: number;
const routers: RouterRun[] = [];
let identityFile: string;
let tunnel: TunnelProcess | undefined;
let tunnelIdentityId: string;

const startTunnel = (args: string[]): TunnelProcess => startTunnelFor(identityFile, args);

const post = (path: string, body: Record<string, unknown>): Promise<string> => managementPoster(controller, admin)(path, body);

const intercept = (name: string, port: number) => post('/configs', { name, configTypeId: 'intercept.v1', data: { protocols: ['tcp'], addresses: [`${name}.ziti`], portRanges: [{ low: port, high: port }] } });

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  echo = createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', () => resolve()));
  echoPort = (echo.address() as { port: number }).port;

  // The hosting router (behind) and the edge router the identity uses, linked.
  const linkPort = await freePort();
  const hostYaml = circuitRouterYaml({ ctrlAddress: controller.ctrlAddress, edgePort: await freePort(), tunnel: '{mode: host}', tail: `link:\n  listeners:\n    - {binding: transport, bind: "tls:127.0.0.1:${linkPort}", advertise: "tls:127.0.0.1:${linkPort}"}\n` });
  const host = await enrollRouterProcess(controller, admin, join(root, 'host'), hostYaml, 'host-router', { isTunnelerEnabled: true, roleAttributes: ['hosting'] });
  const edgeYaml = circuitRouterYaml({ ctrlAddress: controller.ctrlAddress, edgePort: await freePort(), tunnel: '{mode: host}', tail: 'link:\n  dialers:\n    - binding: transport\n' });
  const edge = await enrollRouterProcess(controller, admin, join(root, 'edge'), edgeYaml, 'edge-router', { isTunnelerEnabled: true, roleAttributes: ['edge'] });

  const hostConfig = await post('/configs', { name: 'echo-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: echoPort } });
  const echoPortLocal = await freePort();
  await post('/services', { name: 'echo', encryptionRequired: true, roleAttributes: ['echo'], configs: [hostConfig, await intercept('echo-intercept', echoPortLocal)] });
  await post('/service-policies', { name: 'bind-echo', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosting'], serviceRoles: ['#echo'], postureCheckRoles: [] });
  await post('/service-policies', { name: 'dial-echo', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#dialer'], serviceRoles: ['#echo'], postureCheckRoles: [] });
  await post('/service-edge-router-policies', { name: 'services-everywhere', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] });
  await post('/edge-router-policies', { name: 'dialers-on-edge', semantic: 'AnyOf', identityRoles: ['#dialer'], edgeRouterRoles: ['#edge'] });
  await post('/edge-router-policies', { name: 'hosts-everywhere', semantic: 'AnyOf', identityRoles: ['#hosting'], edgeRouterRoles: ['#all'] });
  // A service the tunneler will host itself (host.v1) once its identity may bind it, and dial through its own port.
  const tunnelHostConfig = await post('/configs', { name: 'tunnel-hosted-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: echoPort } });
  await post('/services', { name: 'tunnel-hosted', encryptionRequired: true, roleAttributes: ['tunnel-hosted'], configs: [tunnelHostConfig, await intercept('tunnel-hosted-intercept', await freePort())] });
  await post('/service-policies', { name: 'tunnel-binds', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#tunnel-host'], serviceRoles: ['#tunnel-hosted'], postureCheckRoles: [] });
  await post('/service-policies', { name: 'tunnel-dials', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#dialer'], serviceRoles: ['#tunnel-hosted'], postureCheckRoles: [] });
  routers.push(await startWelcomedRouter(host.config, 'host router welcomed'));
  routers.push(await startWelcomedRouter(edge.config, 'edge router welcomed'));

  // The identity file, written by `./edgeward edge enroll` from the identity's one-time JWT.
  ({ id: tunnelIdentityId, file: identityFile } = await enrolledIdentityFile(controller, admin, root, 'tunnel-user', ['dialer']));
});

after(async () => {
  tunnel?.child.kill('SIGKILL');
  for (const router of routers) await router.stop();
  echo?.close();
  await controller?.dispose();
  rmSync(root, { recursive: true, force: true });
});


test('the tunneler offers the service on its intercept.v1 port and carries 5 MB each way, encrypted end to end, with half-close, through a router behind the edge router', async () => {
  tunnel = startTunnel(['--poll-interval', '1s']);
  const listening = await tunnel.line((line) => line.msg === 'tunnel listening' && line.service === 'echo', 'tunnel listening for echo');
  assert.equal(listening.portFrom, 'intercept.v1');
  const port = Number(String(listening.address).split(':')[1]);
  await untilEchoes(port);

  const payload = randomBytes(5 * 1024 * 1024);
  const started = Date.now();
  const back = await transfer(port, payload);
  const seconds = (Date.now() - started) / 1000;
  assert.equal(back.length, payload.length, 'every byte came back');
  assert.ok(back.equals(payload), 'intact and in order');
  console.log(`tunnel: 5 MiB each way in ${seconds.toFixed(2)} s`);
  assert.ok(!tunnel.lines.some((line) => line.level === 'error'), 'no error logged');
});

test('the tunneler hosts a host.v1 service once its identity may bind it, and a dial through its own port reaches the service through its Bind', async () => {
  assert.ok(tunnel, 'the first test started the tunneler');
  const proxied = await tunnel.line((line) => line.msg === 'tunnel listening' && line.service === 'tunnel-hosted', 'tunnel listening for tunnel-hosted');
  const port = Number(String(proxied.address).split(':')[1]);
  assert.ok(!tunnel.lines.some((line) => line.msg === 'tunnel hosting'), 'nothing hosted before the identity may bind');
  const patched = await controller.http.patch(`${controller.managementApi}/identities/${tunnelIdentityId}`, { headers: admin, body: { roleAttributes: ['dialer', 'tunnel-host'] } });
  assert.equal(patched.status, 200, patched.text);
  const hosting = await tunnel.line((line) => line.msg === 'tunnel hosting' && line.service === 'tunnel-hosted', 'tunnel hosting tunnel-hosted');
  assert.equal(hosting.address, `127.0.0.1:${echoPort}`);
  await untilEchoes(port);
  const payload = randomBytes(1024 * 1024);
  assert.ok((await transfer(port, payload)).equals(payload), 'dialed by the proxy, hosted by the Bind, sealed both ways, intact');
});

test('the tunneler follows service updates: a new dialable service opens its port, a removed one closes it; SIGTERM stops it cleanly', async () => {
  assert.ok(tunnel, 'the first test started the tunneler');
  const latePort = await freePort();
  const hostConfig = await post('/configs', { name: 'late-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: echoPort } });
  const lateId = await post('/services', { name: 'late', encryptionRequired: false, roleAttributes: ['echo'], configs: [hostConfig, await intercept('late-intercept', latePort)] });
  const opened = await tunnel.line((line) => line.msg === 'tunnel listening' && line.service === 'late', 'tunnel listening for late');
  assert.equal(opened.address, `127.0.0.1:${latePort}`);
  await untilEchoes(latePort);

  const removed = await controller.http.delete(`${controller.managementApi}/services/${lateId}`, { headers: admin });
  assert.equal(removed.status, 200, removed.text);
  const closed = await tunnel.line((line) => line.msg === 'tunnel closed' && line.service === 'late', 'tunnel closed for late');
  assert.equal(closed.reason, 'service no longer dialable');
  await assert.rejects(transfer(latePort, Buffer.from('x'), 5_000), /ECONNREFUSED/);

  tunnel.child.kill('SIGTERM');
  assert.equal(await tunnel.exited, 0);
  await tunnel.line((line) => line.msg === 'tunnel stopped', 'tunnel stopped');
});

test('with --proxy the tunneler offers only the named service, on the named port', async () => {
  const port = await freePort();
  const named = startTunnel(['--proxy', `echo:${port}`]);
  try {
    const listening = await named.line((line) => line.msg === 'tunnel listening', 'tunnel listening');
    assert.deepEqual([listening.service, listening.address, listening.portFrom], ['echo', `127.0.0.1:${port}`, '--proxy']);
    await untilEchoes(port);
    assert.equal(named.lines.filter((line) => line.msg === 'tunnel listening').length, 1, 'no other service is offered');
  } finally {
    named.child.kill('SIGTERM');
    assert.equal(await named.exited, 0);
  }
});

// Not part of the suite (deleted after use): a controller and two routers for checking real OpenZiti clients by hand.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { allowEveryRouter, enrollTestRouter, managementPoster, quickLinkDialer, startWelcomedRouters } from './test/support/circuit-routers.ts';
import { ControllerFixture } from './test/support/controller-fixture.ts';
import { freePort } from './test/support/free-port.ts';

test('hand check setup', { timeout: 3_600_000 }, async () => {
  const root = '/work/handcheck/run';
  const controller = await ControllerFixture.create();
  const admin = { 'zt-session': await controller.adminToken() };
  const post = managementPoster(controller, admin);
  const web = createServer((req, res) => res.end(`hello from edgeward's echo web: ${req.method} ${req.url}\n`));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', () => resolve()));
  const webPort = (web.address() as { port: number }).port;
  const r2Link = await freePort();
  const routers: Record<string, any> = {};
  routers.r1 = await enrollTestRouter(controller, admin, join(root, 'r1'), 'r1', { endpoint: controller.ctrlAddress, transportDialer: false, tail: quickLinkDialer }, { roleAttributes: ['edge'], isTunnelerEnabled: true });
  routers.r2 = await enrollTestRouter(controller, admin, join(root, 'r2'), 'r2', { endpoint: controller.ctrlAddress, transportDialer: false, listeners: ['  - binding: tunnel\n    options: {mode: host}'], tail: `link:\n  listeners:\n    - {binding: transport, bind: "tls:127.0.0.1:${r2Link}", advertise: "tls:127.0.0.1:${r2Link}", groups: [default]}` }, { roleAttributes: ['edge', 'hosting'], isTunnelerEnabled: true });
  const host = await post('/configs', { name: 'web-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: webPort } });
  const intercept = await post('/configs', { name: 'web-intercept', configTypeId: 'intercept.v1', data: { protocols: ['tcp'], addresses: ['web.ziti'], portRanges: [{ low: 80, high: 80 }] } });
  await post('/services', { name: 'web', encryptionRequired: true, roleAttributes: ['web'], configs: [host, intercept] });
  const prox = await post('/configs', { name: 'prox-intercept', configTypeId: 'intercept.v1', data: { protocols: ['tcp'], addresses: ['prox.ziti'], portRanges: [{ low: 80, high: 80 }] } });
  await post('/services', { name: 'prox', encryptionRequired: true, roleAttributes: ['prox'], configs: [prox] });
  await post('/service-policies', { name: 'r-bind', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosting'], serviceRoles: ['#web'], postureCheckRoles: [] });
  await post('/service-policies', { name: 'c-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#clients'], serviceRoles: ['#web', '#prox'], postureCheckRoles: [] });
  await post('/service-policies', { name: 'h-bind', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#sdkhost'], serviceRoles: ['#prox'], postureCheckRoles: [] });
  await allowEveryRouter(post, 'hand');
  for (const [name, roles] of [['csdk', ['clients']], ['csdk2', ['clients']], ['proxhost', ['sdkhost']], ['tunneler', ['clients']]] as const) {
    const id = await post('/identities', { name, type: 'Device', isAdmin: false, roleAttributes: roles, enrollment: { ott: true } });
    const detail = await controller.http.get(`${controller.managementApi}/identities/${id}`, { headers: admin });
    writeFileSync(join(root, `${name}.jwt`), detail.json.data.enrollment.ott.jwt);
  }
  await startWelcomedRouters(routers, ['r1', 'r2']);
  writeFileSync(join(root, 'info.json'), JSON.stringify({ origin: controller.origin, webPort, logFile: controller.logFile, r1: routers.r1.config, r2: routers.r2.config, adminToken: admin['zt-session'] }, null, 2));
  console.log('READY', controller.origin);
  await new Promise((resolve) => setTimeout(resolve, 3_500_000));
});

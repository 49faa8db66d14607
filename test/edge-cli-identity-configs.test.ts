// `edgeward edge update identity-configs <identity> <service> <config> [--remove]` and `list identity
// service-configs <identity>` as processes against a real controller over TLS, by names: the identity's client
// service list then shows the config in place of the service's own, the sub-list shows the pair, and --remove
// restores it; an unknown name fails with exit code 1 and changes nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ControllerFixture } from './support/controller-fixture.ts';
import { loginEdgeCliAsAdmin } from './support/edge-cli-admin-login.ts';
import { runEdgeCli } from './support/edge-cli-scenario.ts';
import { OverlaySetup } from './support/overlay-setup.ts';

let controller: ControllerFixture;
let setup: OverlaySetup;
let env: NodeJS.ProcessEnv;
let aliceId: string;
const password = 'cli-identity-configs-password';

before(async () => {
  controller = await ControllerFixture.create();
  env = await loginEdgeCliAsAdmin(controller, 'cli-identity-configs-session.json');

  setup = await OverlaySetup.create(controller);
  aliceId = await setup.createUser('cfg-alice', password, { roleAttributes: ['cfg'] });
  const mgmt = (path: string) => `${controller.managementApi}${path}`;
  for (const [name, port] of [['cfg-service-host', 80], ['cfg-alice-host', 8080]] as const) {
    const created = await controller.http.post(mgmt('/configs'), { headers: setup.adminHeaders, body: { name, configTypeId: 'host.v1', data: { protocol: 'tcp', address: 'localhost', port } } });
    assert.equal(created.status, 201, created.text);
  }
  const serviceHost = (await controller.http.get(mgmt(`/configs?filter=${encodeURIComponent('name = "cfg-service-host"')}`), { headers: setup.adminHeaders })).json.data[0].id as string;
  const service = await controller.http.post(mgmt('/services'), { headers: setup.adminHeaders, body: { name: 'cfg-web', encryptionRequired: true, roleAttributes: ['cfg-web'], configs: [serviceHost] } });
  assert.equal(service.status, 201, service.text);
  await setup.createPolicy({ name: 'cfg-dial', type: 'Dial', identityRoles: ['#cfg'], serviceRoles: ['#cfg-web'] });
});
after(async () => controller?.dispose());

async function alicePort(): Promise<number> {
  const token = await controller.login('cfg-alice', password);
  const services = await controller.http.get(`${controller.clientApi}/services?configTypes=host.v1`, { headers: { 'zt-session': token } });
  assert.equal(services.status, 200, services.text);
  return services.json.data[0].config['host.v1'].port as number;
}

test('update identity-configs gives the identity its own config for the service, and --remove takes it back', async () => {
  assert.equal(await alicePort(), 80);
  const assigned = await runEdgeCli(['update', 'identity-configs', 'cfg-alice', 'cfg-web', 'cfg-alice-host'], { env });
  assert.equal(assigned.code, 0, assigned.stderr);
  assert.equal(assigned.stdout, 'Identity cfg-alice now uses config cfg-alice-host for service cfg-web\n');
  assert.equal(await alicePort(), 8080);
  const listed = await runEdgeCli(['list', 'identity', 'service-configs', 'cfg-alice'], { env });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /SERVICE NAME.*CONFIG NAME[\s\S]*cfg-web.*cfg-alice-host[\s\S]*results: 1-1 of 1\n$/);

  const unknown = await runEdgeCli(['update', 'identity-configs', 'cfg-alice', 'cfg-web', 'no-such-config', '--remove'], { env });
  assert.equal(unknown.code, 1, unknown.stdout);
  assert.match(unknown.stderr, /no config has the name or id 'no-such-config'/);
  assert.equal(await alicePort(), 8080, 'nothing changed');

  const removed = await runEdgeCli(['update', 'identity-configs', '-r', 'cfg-alice', 'cfg-web', 'cfg-alice-host'], { env });
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(removed.stdout, 'Identity cfg-alice no longer uses config cfg-alice-host for service cfg-web\n');
  assert.equal(await alicePort(), 80);
  const none = await controller.http.get(`${controller.managementApi}/identities/${aliceId}/service-configs`, { headers: setup.adminHeaders });
  assert.deepEqual(none.json.data, []);
  const listedJson = await runEdgeCli(['list', 'identity', 'cfg-alice', 'service-configs', '--json'], { env });
  assert.equal(listedJson.code, 0, listedJson.stderr);
  assert.deepEqual(JSON.parse(listedJson.stdout), []);
});

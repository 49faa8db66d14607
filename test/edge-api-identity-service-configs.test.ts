// Identity-specific service configs over HTTPS against a real controller: an administrator assigns a config to one
// identity for one service (`POST /identities/{id}/service-configs`); that identity's client service list shows it
// in place of the service's own config of that type, another identity still sees the service's, and the first
// identity's service updates move. Removal restores the service's config; bad input is refused with nothing
// changed; a config in use cannot be deleted; the pairs survive a controller restart. Every answer validates
// against the spec.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas } from './support/edge-api-schemas.ts';
import { OverlaySetup } from './support/overlay-setup.ts';

const clientSchemas = EdgeApiSchemas.load('client');
const managementSchemas = EdgeApiSchemas.load('management');
const password = 'identity-configs-password';
let controller: ControllerFixture;
let setup: OverlaySetup;
let ids: { alice: string; bob: string; service: string; serviceHost: string; aliceHost: string; intercept: string };
let tokens: { alice: string; bob: string };

const mgmt = (path: string) => `${controller.managementApi}${path}`;
const serviceConfigsPath = '/identities/{id}/service-configs';

async function postConfig(name: string, configTypeId: string, data: Record<string, unknown>): Promise<string> {
  const response = await controller.http.post(mgmt('/configs'), { headers: setup.adminHeaders, body: { name, configTypeId, data } });
  assert.equal(response.status, 201, response.text);
  return response.json.data.id as string;
}

async function login(): Promise<void> {
  tokens = { alice: await controller.login('isc-alice', password), bob: await controller.login('isc-bob', password) };
}

before(async () => {
  controller = await ControllerFixture.create();
  setup = await OverlaySetup.create(controller);
  const alice = await setup.createUser('isc-alice', password, { roleAttributes: ['isc'] });
  const bob = await setup.createUser('isc-bob', password, { roleAttributes: ['isc'] });
  const serviceHost = await postConfig('isc-service-host', 'host.v1', { protocol: 'tcp', address: 'service.internal', port: 80 });
  const aliceHost = await postConfig('isc-alice-host', 'host.v1', { protocol: 'tcp', address: 'alice.internal', port: 8080 });
  const intercept = await postConfig('isc-intercept', 'intercept.v1', { protocols: ['tcp'], addresses: ['web.isc'], portRanges: [{ low: 80, high: 80 }] });
  const created = await controller.http.post(mgmt('/services'), { headers: setup.adminHeaders, body: { name: 'isc-web', encryptionRequired: true, roleAttributes: ['isc-web'], configs: [serviceHost] } });
  assert.equal(created.status, 201, created.text);
  await setup.createPolicy({ name: 'isc-dial', type: 'Dial', identityRoles: ['#isc'], serviceRoles: ['#isc-web'] });
  ids = { alice, bob, service: created.json.data.id as string, serviceHost, aliceHost, intercept };
  await login();
});
after(async () => controller?.dispose());

/** The `config` map a client sees for the service, in the list and in the detail (they must agree). */
async function configSeenBy(token: string, configTypes = 'all'): Promise<Record<string, unknown>> {
  const headers = { 'zt-session': token };
  const list = await controller.http.get(`${controller.clientApi}/services?configTypes=${configTypes}`, { headers });
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(clientSchemas.problems('GET', '/services', 200, list.json), []);
  const detail = await controller.http.get(`${controller.clientApi}/services/${ids.service}?configTypes=${configTypes}`, { headers });
  assert.equal(detail.status, 200, detail.text);
  assert.deepEqual(clientSchemas.problems('GET', '/services/{id}', 200, detail.json), []);
  const listed = (list.json.data as Array<{ id: string; config: Record<string, unknown> }>).find((service) => service.id === ids.service);
  assert.ok(listed, 'the service is listed');
  assert.deepEqual(detail.json.data.config, listed.config, 'list and detail show the same config');
  return listed.config;
}

const port = (config: Record<string, unknown>) => (config['host.v1'] as { port: number } | undefined)?.port;

async function lastChangeAt(token: string): Promise<string> {
  await sleep(5);
  const response = await controller.http.get(`${controller.clientApi}/current-api-session/service-updates`, { headers: { 'zt-session': token } });
  assert.equal(response.status, 200, response.text);
  return response.json.data.lastChangeAt as string;
}

async function pairsOf(identityId: string): Promise<Array<[string, string]>> {
  const response = await controller.http.get(mgmt(`/identities/${identityId}/service-configs`), { headers: setup.adminHeaders });
  assert.equal(response.status, 200, response.text);
  assert.deepEqual(managementSchemas.problems('GET', serviceConfigsPath, 200, response.json), []);
  return (response.json.data as Array<{ serviceId: string; configId: string }>).map((row) => [row.serviceId, row.configId]);
}

async function change(method: 'post' | 'delete', identityId: string, body?: unknown) {
  const response = await controller.http[method](mgmt(`/identities/${identityId}/service-configs`), { headers: setup.adminHeaders, ...(body === undefined ? {} : { body }) });
  if (response.status === 200) assert.deepEqual(managementSchemas.problems(method.toUpperCase(), serviceConfigsPath, 200, response.json), []);
  return response;
}

test("an identity's own config replaces the service's config of that type for that identity only", async () => {
  assert.equal(port(await configSeenBy(tokens.alice)), 80);
  const aliceBefore = await lastChangeAt(tokens.alice);
  const bobBefore = await lastChangeAt(tokens.bob);

  const assigned = await change('post', ids.alice, [{ serviceId: ids.service, configId: ids.aliceHost }, { serviceId: ids.service, configId: ids.intercept }]);
  assert.equal(assigned.status, 200, assigned.text);
  assert.deepEqual((await pairsOf(ids.alice)).sort(), [[ids.service, ids.aliceHost], [ids.service, ids.intercept]].sort());
  const detail = await controller.http.get(mgmt(`/identities/${ids.alice}/service-configs`), { headers: setup.adminHeaders });
  const hostRow = (detail.json.data as Array<{ configId: string; config: { name: string }; service: { name: string } }>).find((row) => row.configId === ids.aliceHost)!;
  assert.deepEqual([hostRow.config.name, hostRow.service.name], ['isc-alice-host', 'isc-web']);

  const alice = await configSeenBy(tokens.alice);
  assert.deepEqual(alice['host.v1'], { protocol: 'tcp', address: 'alice.internal', port: 8080 });
  assert.deepEqual(alice['intercept.v1'], { protocols: ['tcp'], addresses: ['web.isc'], portRanges: [{ low: 80, high: 80 }] }, 'a type the service has none of is added');
  assert.deepEqual(Object.keys(await configSeenBy(tokens.alice, 'intercept.v1')), ['intercept.v1'], 'configTypes still filters');
  assert.equal(port(await configSeenBy(tokens.alice, 'host.v1')), 8080);
  assert.deepEqual(await configSeenBy(tokens.bob), { 'host.v1': { protocol: 'tcp', address: 'service.internal', port: 80 } }, 'another identity sees the service config');

  assert.ok((await lastChangeAt(tokens.alice)) > aliceBefore, "alice's service updates move, so her SDK lists again");
  assert.equal(await lastChangeAt(tokens.bob), bobBefore, "bob's do not");
});

test('bad input is refused with the error envelope and nothing changes', async () => {
  const before = (await pairsOf(ids.alice)).sort();
  const good = { serviceId: ids.service, configId: ids.serviceHost };
  const cases: Array<[string, 'post' | 'delete', string, unknown, number, string]> = [
    ['unknown service', 'post', ids.alice, [good, { serviceId: 'no-such-service', configId: ids.aliceHost }], 404, 'NOT_FOUND'],
    ['unknown config', 'post', ids.alice, [good, { serviceId: ids.service, configId: 'no-such-config' }], 404, 'NOT_FOUND'],
    ['unknown identity', 'post', 'no-such-identity', [good], 404, 'NOT_FOUND'],
    ['two configs of one type for one service', 'post', ids.alice, [good, { serviceId: ids.service, configId: ids.aliceHost }], 400, 'COULD_NOT_VALIDATE'],
    ['not a list', 'post', ids.alice, { serviceId: ids.service, configId: ids.serviceHost }, 400, 'COULD_NOT_VALIDATE'],
    ['a pair without its config', 'post', ids.alice, [{ serviceId: ids.service }], 400, 'COULD_NOT_VALIDATE'],
    ['no body', 'post', ids.alice, undefined, 400, 'COULD_NOT_VALIDATE'],
    ['more than 1,000 pairs', 'post', ids.alice, Array.from({ length: 1001 }, () => good), 400, 'COULD_NOT_VALIDATE'],
    ['removing an unknown config', 'delete', ids.alice, [{ serviceId: ids.service, configId: ids.aliceHost }, { serviceId: ids.service, configId: 'no-such-config' }], 404, 'NOT_FOUND'],
  ];
  for (const [name, method, identityId, body, status, code] of cases) {
    const response = await change(method, identityId, body);
    assert.equal(response.status, status, `${name}: ${response.text}`);
    assert.equal(response.json.error.code, code, name);
    assert.deepEqual((await pairsOf(ids.alice)).sort(), before, `${name}: nothing changed`);
  }
  const empty = await change('post', ids.alice, []);
  assert.equal(empty.status, 200, `an empty list assigns nothing: ${empty.text}`);
  assert.deepEqual((await pairsOf(ids.alice)).sort(), before);
  const inUse = await controller.http.delete(mgmt(`/configs/${ids.aliceHost}`), { headers: setup.adminHeaders });
  assert.equal(inUse.status, 409, inUse.text);
  assert.equal(inUse.json.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
  assert.match(JSON.stringify(inUse.json.error.cause), new RegExp(`config is in use by identity ${ids.alice} for service ${ids.service}`));
  assert.equal(port(await configSeenBy(tokens.alice)), 8080);
});

test('the pairs survive a controller restart; removing them restores the service config', async () => {
  await controller.stop();
  await controller.start();
  await login();
  assert.equal((await pairsOf(ids.alice)).length, 2);
  assert.equal(port(await configSeenBy(tokens.alice)), 8080);

  const removed = await change('delete', ids.alice, [{ serviceId: ids.service, configId: ids.aliceHost }]);
  assert.equal(removed.status, 200, removed.text);
  assert.deepEqual(await pairsOf(ids.alice), [[ids.service, ids.intercept]]);
  assert.deepEqual(Object.keys(await configSeenBy(tokens.alice)).sort(), ['host.v1', 'intercept.v1']);
  assert.equal(port(await configSeenBy(tokens.alice)), 80, "the service's own config is back");

  const cleared = await change('delete', ids.alice);
  assert.equal(cleared.status, 200, cleared.text);
  assert.deepEqual(await pairsOf(ids.alice), [], 'a DELETE without a body removes every pair');
  assert.deepEqual(await configSeenBy(tokens.alice), await configSeenBy(tokens.bob));
  const deleted = await controller.http.delete(mgmt(`/configs/${ids.aliceHost}`), { headers: setup.adminHeaders });
  assert.equal(deleted.status, 200, 'a config no identity uses any more can be deleted');
});

test('deleting the identity removes its pairs', async () => {
  const assigned = await change('post', ids.bob, [{ serviceId: ids.service, configId: ids.intercept }]);
  assert.equal(assigned.status, 200, assigned.text);
  const inUse = await controller.http.delete(mgmt(`/configs/${ids.intercept}`), { headers: setup.adminHeaders });
  assert.equal(inUse.status, 409, inUse.text);
  const gone = await controller.http.delete(mgmt(`/identities/${ids.bob}`), { headers: setup.adminHeaders });
  assert.equal(gone.status, 200, gone.text);
  const listed = await controller.http.get(mgmt(`/identities/${ids.bob}/service-configs`), { headers: setup.adminHeaders });
  assert.equal(listed.status, 404, listed.text);
  const deleted = await controller.http.delete(mgmt(`/configs/${ids.intercept}`), { headers: setup.adminHeaders });
  assert.equal(deleted.status, 200, `the config is free once its identity is gone: ${deleted.text}`);
});

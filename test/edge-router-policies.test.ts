// Edge router policies and service edge router policies against a real controller over HTTPS: CRUD and refusals of
// both collections, the system policy of a tunneler-enabled router, the relationship lists, and what clients are
// told: the routers their identity may use, those they may use for a service, and a session's `edgeRouters` (the
// online routers both kinds of policy allow, with their URLs by protocol). Routers are scripted control channels
// that say what a real router says in its hello. Every 2xx body is checked against the 0.29 spec's schema.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas, type EdgeApi } from './support/edge-api-schemas.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import { openSession, OverlaySetup } from './support/overlay-setup.ts';
import { enrollRouter, ScriptedRouter } from './support/scripted-router.ts';

const schemas: Record<EdgeApi, EdgeApiSchemas> = { management: EdgeApiSchemas.load('management'), client: EdgeApiSchemas.load('client') };

let controller: ControllerFixture;
let setup: OverlaySetup;
let admin: { 'zt-session': string };
const channels: ScriptedRouter[] = [];
before(async () => {
  controller = await ControllerFixture.create();
  setup = await OverlaySetup.create(controller);
  admin = setup.adminHeaders;
});
after(async () => {
  for (const channel of channels) channel.socket.destroy();
  await controller?.dispose();
});

const as = (token: string) => ({ 'zt-session': token });

/**
 * The spec path whose schema a list is checked against. 0.29's management.yml gives
 * `/edge-routers/{id}/service-edge-router-policies` the service-policy list envelope; the real controller answers
 * service edge router policies there, and so do we (docs/api-reference.md lists this departure).
 */
const schemaPathOf = (path: string) => (/^\/edge-routers\/[^/]+\/service-edge-router-policies$/.test(path) ? '/service-edge-router-policies' : path);

/** GET on one of the two APIs, asserting 200 and a body the spec's schema accepts. */
async function get(api: EdgeApi, path: string, headers: Record<string, string> = admin): Promise<any> {
  const base = api === 'management' ? controller.managementApi : controller.clientApi;
  const response = await controller.http.get(`${base}${path}`, { headers });
  assert.equal(response.status, 200, `GET ${path}: ${response.text}`);
  assert.deepEqual(schemas[api].problems('GET', schemaPathOf(path.split('?')[0]!), 200, response.json), []);
  return response.json.data;
}

async function post(path: string, body: Record<string, unknown>): Promise<{ status: number; json: any; text: string }> {
  return controller.http.post(`${controller.managementApi}${path}`, { headers: admin, body });
}

async function created(path: string, body: Record<string, unknown>): Promise<string> {
  const response = await post(path, body);
  assert.equal(response.status, 201, `POST ${path}: ${response.text}`);
  return response.json.data.id as string;
}

function assertInvalid(response: { status: number; json: any; text: string }, field: string, reason?: RegExp) {
  assert.equal(response.status, 400, response.text);
  assert.equal(response.json.error.code, 'COULD_NOT_VALIDATE');
  assert.equal(response.json.error.cause.field, field);
  if (reason) assert.match(response.json.error.cause.reason, reason);
}

const names = (rows: Array<{ name: string }>) => rows.map((row) => row.name).sort();

test('edge router policies: create, read, list with a filter, PATCH, PUT, delete', async () => {
  const routerId = await created('/edge-routers', { name: 'crud-router', roleAttributes: ['crud'] });
  const id = await created('/edge-router-policies', { name: 'crud-erp', semantic: 'AnyOf', identityRoles: ['#crew'], edgeRouterRoles: [`@${routerId}`], tags: { team: 'a' } });

  const detail = await get('management', `/edge-router-policies/${id}`);
  assert.equal(detail.name, 'crud-erp');
  assert.equal(detail.semantic, 'AnyOf');
  assert.equal(detail.isSystem, false);
  assert.deepEqual(detail.identityRoles, ['#crew']);
  assert.deepEqual(detail.edgeRouterRolesDisplay, [{ role: `@${routerId}`, name: '@crud-router' }]);
  assert.deepEqual(detail.tags, { team: 'a' });

  const filtered = await get('management', `/edge-router-policies?filter=${encodeURIComponent('name="crud-erp"')}`);
  assert.deepEqual(filtered.map((row: { id: string }) => row.id), [id]);

  const patched = await controller.http.patch(`${controller.managementApi}/edge-router-policies/${id}`, { headers: admin, body: { identityRoles: ['#all'] } });
  assert.equal(patched.status, 200, patched.text);
  const afterPatch = await get('management', `/edge-router-policies/${id}`);
  assert.deepEqual([afterPatch.identityRoles, afterPatch.edgeRouterRoles, afterPatch.semantic], [['#all'], [`@${routerId}`], 'AnyOf']);

  // PUT replaces everything: the role lists it leaves out are emptied.
  const put = await controller.http.put(`${controller.managementApi}/edge-router-policies/${id}`, { headers: admin, body: { name: 'crud-erp-2', semantic: 'AllOf' } });
  assert.equal(put.status, 200, put.text);
  const afterPut = await get('management', `/edge-router-policies/${id}`);
  assert.deepEqual([afterPut.name, afterPut.semantic, afterPut.identityRoles, afterPut.edgeRouterRoles], ['crud-erp-2', 'AllOf', [], []]);

  const deleted = await controller.http.delete(`${controller.managementApi}/edge-router-policies/${id}`, { headers: admin });
  assert.equal(deleted.status, 200, deleted.text);
  const gone = await controller.http.get(`${controller.managementApi}/edge-router-policies/${id}`, { headers: admin });
  assert.equal(gone.status, 404);
  assert.equal(gone.json.error.code, 'NOT_FOUND');
});

test('edge router policies refuse bad roles, unknown @ids, a taken name and a missing semantic, storing nothing', async () => {
  assertInvalid(await post('/edge-router-policies', { name: 'bad-1', semantic: 'AnyOf', identityRoles: ['crew'] }), 'identityRoles', /prefixed with #/);
  assertInvalid(await post('/edge-router-policies', { name: 'bad-2', semantic: 'AnyOf', edgeRouterRoles: ['#all', '#x'] }), 'edgeRouterRoles', /only role/);
  assertInvalid(await post('/edge-router-policies', { name: 'bad-3', semantic: 'AnyOf', edgeRouterRoles: ['@no-such-router'] }), 'edgeRouterRoles', /no edge routers found/);
  assertInvalid(await post('/edge-router-policies', { name: 'bad-4', semantic: 'AnyOf', identityRoles: ['@no-such-identity'] }), 'identityRoles', /no identities found/);
  assertInvalid(await post('/edge-router-policies', { name: 'bad-5' }), 'semantic');
  assertInvalid(await post('/edge-router-policies', { name: 'bad-6', semantic: 'Some' }), 'semantic');
  await created('/edge-router-policies', { name: 'taken', semantic: 'AnyOf' });
  assertInvalid(await post('/edge-router-policies', { name: 'taken', semantic: 'AnyOf' }), 'name');
  const list = await get('management', `/edge-router-policies?filter=${encodeURIComponent('name contains "bad-"')}`);
  assert.deepEqual(list, []);
});

test('service edge router policies: create, read, PATCH, PUT, delete, and their refusals', async () => {
  const serviceId = await setup.createService('serp-crud-svc', ['serp-crud']);
  const id = await created('/service-edge-router-policies', { name: 'crud-serp', semantic: 'AllOf', serviceRoles: [`@${serviceId}`], edgeRouterRoles: ['#all'] });
  const detail = await get('management', `/service-edge-router-policies/${id}`);
  assert.deepEqual([detail.name, detail.semantic, detail.serviceRoles, detail.edgeRouterRoles], ['crud-serp', 'AllOf', [`@${serviceId}`], ['#all']]);
  assert.deepEqual(detail.serviceRolesDisplay, [{ role: `@${serviceId}`, name: '@serp-crud-svc' }]);
  assert.equal(detail.isSystem, undefined);

  const patched = await controller.http.patch(`${controller.managementApi}/service-edge-router-policies/${id}`, { headers: admin, body: { semantic: 'AnyOf' } });
  assert.equal(patched.status, 200, patched.text);
  assert.equal((await get('management', `/service-edge-router-policies/${id}`)).semantic, 'AnyOf');
  const put = await controller.http.put(`${controller.managementApi}/service-edge-router-policies/${id}`, { headers: admin, body: { name: 'crud-serp', semantic: 'AnyOf', serviceRoles: ['#serp-crud'] } });
  assert.equal(put.status, 200, put.text);
  const afterPut = await get('management', `/service-edge-router-policies/${id}`);
  assert.deepEqual([afterPut.serviceRoles, afterPut.edgeRouterRoles], [['#serp-crud'], []]);

  assertInvalid(await post('/service-edge-router-policies', { name: 'serp-bad', semantic: 'AnyOf', serviceRoles: ['@no-such-service'] }), 'serviceRoles', /no services found/);
  assertInvalid(await post('/service-edge-router-policies', { name: 'serp-bad', semantic: 'AnyOf', edgeRouterRoles: ['web'] }), 'edgeRouterRoles');

  const deleted = await controller.http.delete(`${controller.managementApi}/service-edge-router-policies/${id}`, { headers: admin });
  assert.equal(deleted.status, 200, deleted.text);
  assert.equal((await controller.http.get(`${controller.managementApi}/service-edge-router-policies/${id}`, { headers: admin })).status, 404);
});

test('a tunneler-enabled router has a system edge router policy for its own identity that no one may change or delete', async () => {
  const routerId = await created('/edge-routers', { name: 'tunneling-router', isTunnelerEnabled: true });
  const systemName = `edge-router-${routerId}-system`;
  const list = await get('management', `/edge-router-policies?filter=${encodeURIComponent('isSystem=true')}`);
  const system = list.find((row: { name: string }) => row.name === systemName);
  assert.ok(system, JSON.stringify(list));
  assert.deepEqual([system.isSystem, system.semantic, system.identityRoles, system.edgeRouterRoles], [true, 'AnyOf', [`@${routerId}`], [`@${routerId}`]]);
  assert.deepEqual(names(await get('management', `/edge-routers/${routerId}/edge-router-policies`)).includes(systemName), true);

  for (const attempt of [
    controller.http.delete(`${controller.managementApi}/edge-router-policies/${system.id}`, { headers: admin }),
    controller.http.patch(`${controller.managementApi}/edge-router-policies/${system.id}`, { headers: admin, body: { identityRoles: ['#all'] } }),
    controller.http.put(`${controller.managementApi}/edge-router-policies/${system.id}`, { headers: admin, body: { name: 'x', semantic: 'AnyOf' } }),
  ]) {
    const refused = await attempt;
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.json.error.code, 'ENTITY_CAN_NOT_BE_DELETED');
  }
  assertInvalid(await post('/edge-router-policies', { name: systemName, semantic: 'AnyOf' }), 'name');

  // Turning the tunneler off takes the system policy away.
  const off = await controller.http.patch(`${controller.managementApi}/edge-routers/${routerId}`, { headers: admin, body: { isTunnelerEnabled: false } });
  assert.equal(off.status, 200, off.text);
  assert.equal((await controller.http.get(`${controller.managementApi}/edge-router-policies/${system.id}`, { headers: admin })).status, 404);
});

/** Creates, enrolls and connects a scripted router that reports an edge listener at `tls://<name>.test:<port>`. */
async function onlineRouter(workbench: OpensslWorkbench, name: string, roleAttributes: string[], port: number): Promise<string> {
  const id = await created('/edge-routers', { name, roleAttributes });
  const detail = await get('management', `/edge-routers/${id}`);
  const enrolled = await enrollRouter(controller, workbench, id, detail.enrollmentToken as string);
  const channel = await ScriptedRouter.connect(controller.ctrlAddress, controller.caPem, enrolled);
  channels.push(channel);
  channel.hello(id, { hostname: `${name}.test`, supportedProtocols: { tls: `tls://${name}.test:${port}` } });
  await channel.next('ctrl.welcome');
  return id;
}

test('relationship lists, the client lists and session edgeRouters give exactly the routers both kinds of policy allow', async () => {
  const workbench = new OpensslWorkbench(join(controller.root, 'erp-router-certs'));
  // granted: ERP and SERP, online; no-serp: ERP only, online; offline: both, never connected; no-erp: SERP only, online.
  const granted = await onlineRouter(workbench, 'rel-granted', ['erp', 'serp'], 3101);
  const noSerp = await onlineRouter(workbench, 'rel-no-serp', ['erp'], 3102);
  const offline = await created('/edge-routers', { name: 'rel-offline', roleAttributes: ['erp', 'serp'] });
  const noErp = await onlineRouter(workbench, 'rel-no-erp', ['serp'], 3104);

  const userId = await setup.createUser('rel-user', 'rel-user-password', { roleAttributes: ['rel-users'] });
  await setup.createUser('rel-other', 'rel-other-password', { roleAttributes: ['others'] });
  const serviceId = await setup.createService('rel-svc', ['rel-svc']);
  await setup.createPolicy({ name: 'rel-dial', type: 'Dial', identityRoles: ['#rel-users'], serviceRoles: ['#rel-svc'] });
  const erpId = await created('/edge-router-policies', { name: 'rel-erp', semantic: 'AnyOf', identityRoles: ['#rel-users'], edgeRouterRoles: ['#erp'] });
  const serpId = await created('/service-edge-router-policies', { name: 'rel-serp', semantic: 'AllOf', serviceRoles: ['#rel-svc'], edgeRouterRoles: ['#serp'] });

  assert.deepEqual(names(await get('management', `/edge-router-policies/${erpId}/edge-routers`)), ['rel-granted', 'rel-no-serp', 'rel-offline']);
  assert.deepEqual(names(await get('management', `/edge-router-policies/${erpId}/identities`)), ['rel-user']);
  assert.deepEqual(names(await get('management', `/service-edge-router-policies/${serpId}/edge-routers`)), ['rel-granted', 'rel-no-erp', 'rel-offline']);
  assert.deepEqual(names(await get('management', `/service-edge-router-policies/${serpId}/services`)), ['rel-svc']);
  assert.deepEqual(names(await get('management', `/identities/${userId}/edge-router-policies`)), ['rel-erp']);
  assert.deepEqual(names(await get('management', `/identities/${userId}/edge-routers`)), ['rel-granted', 'rel-no-serp', 'rel-offline']);
  assert.deepEqual(names(await get('management', `/services/${serviceId}/service-edge-router-policies`)), ['rel-serp']);
  assert.deepEqual(names(await get('management', `/services/${serviceId}/edge-routers`)), ['rel-granted', 'rel-no-erp', 'rel-offline']);
  assert.deepEqual(names(await get('management', `/edge-routers/${granted}/edge-router-policies`)), ['rel-erp']);
  assert.deepEqual(names(await get('management', `/edge-routers/${granted}/service-edge-router-policies`)), ['rel-serp']);
  assert.deepEqual(names(await get('management', `/edge-routers/${granted}/identities`)), ['rel-user']);
  assert.deepEqual(names(await get('management', `/edge-routers/${granted}/services`)), ['rel-svc']);
  assert.deepEqual(await get('management', `/edge-routers/${noErp}/identities`), []);
  assert.deepEqual(await get('management', `/edge-routers/${noSerp}/services`), []);

  const token = await controller.login('rel-user', 'rel-user-password');
  const mine = await get('client', '/current-identity/edge-routers', as(token));
  assert.deepEqual(names(mine), ['rel-granted', 'rel-no-serp', 'rel-offline']);
  const grantedView = mine.find((row: { name: string }) => row.name === 'rel-granted');
  assert.deepEqual([grantedView.isOnline, grantedView.hostname, grantedView.supportedProtocols], [true, 'rel-granted.test', { tls: 'tls://rel-granted.test:3101' }]);
  assert.equal(mine.find((row: { name: string }) => row.name === 'rel-offline').isOnline, false);
  const forService = await get('client', `/services/${serviceId}/edge-routers`, as(token));
  assert.deepEqual(forService.edgeRouters.map((row: { name: string; urls: unknown }) => [row.name, row.urls]), [['rel-granted', { tls: 'tls://rel-granted.test:3101' }]], 'online routers only');
  const otherToken = await controller.login('rel-other', 'rel-other-password');
  assert.deepEqual(await get('client', '/current-identity/edge-routers', as(otherToken)), []);
  // The routers per identity are kept while the policies and routers stay the same: a change to either shows at once.
  const patchOk = async (path: string, body: unknown) => assert.equal((await controller.http.patch(`${controller.managementApi}${path}`, { headers: admin, body })).status, 200);
  await patchOk(`/edge-router-policies/${erpId}`, { identityRoles: ['#rel-users', '#others'] });
  assert.deepEqual(names(await get('client', '/current-identity/edge-routers', as(otherToken))), ['rel-granted', 'rel-no-serp', 'rel-offline']);
  await patchOk(`/edge-routers/${noErp}`, { roleAttributes: ['serp', 'erp'] });
  assert.deepEqual(names(await get('client', '/current-identity/edge-routers', as(otherToken))), ['rel-granted', 'rel-no-erp', 'rel-no-serp', 'rel-offline']);
  await patchOk(`/edge-routers/${noErp}`, { roleAttributes: ['serp'] });
  await patchOk(`/edge-router-policies/${erpId}`, { identityRoles: ['#rel-users'] });
  assert.deepEqual(await get('client', '/current-identity/edge-routers', as(otherToken)), []);
  assert.deepEqual(names(await get('client', '/current-identity/edge-routers', as(token))), ['rel-granted', 'rel-no-serp', 'rel-offline']);
  const hidden = await controller.http.get(`${controller.clientApi}/services/${serviceId}/edge-routers`, { headers: as(otherToken) });
  assert.equal(hidden.status, 404, 'a service the identity may not use does not exist for it');

  const session = await openSession(controller, token, serviceId, 'Dial');
  assert.equal(session.status, 201, session.text);
  assert.deepEqual(schemas.client.problems('POST', '/sessions', 201, session.json), []);
  assert.deepEqual(session.json.data.edgeRouters.map((row: { name: string; hostname: string; urls: unknown }) => [row.name, row.hostname, row.urls]), [
    ['rel-granted', 'rel-granted.test', { tls: 'tls://rel-granted.test:3101' }],
  ]);
  const listed = await get('client', '/sessions', as(token));
  assert.deepEqual(listed.map((row: { edgeRouters: Array<{ name: string }> }) => names(row.edgeRouters)), [['rel-granted']]);
  const managed = await get('management', `/sessions/${session.json.data.id}`);
  assert.deepEqual(names(managed.edgeRouters), ['rel-granted']);

  // A policy change shows at once: opening the service edge router policy to every router adds the online no-serp router.
  const widened = await controller.http.patch(`${controller.managementApi}/service-edge-router-policies/${serpId}`, { headers: admin, body: { edgeRouterRoles: ['#all'] } });
  assert.equal(widened.status, 200, widened.text);
  const again = await openSession(controller, token, serviceId, 'Dial');
  assert.deepEqual(names(again.json.data.edgeRouters), ['rel-granted', 'rel-no-serp']);

  // A router that goes offline leaves the session's list.
  channels.find((channel) => !channel.closed)!.socket.destroy();
  await until('the granted router offline', async () => (await get('management', `/edge-routers/${granted}`)).isOnline === false, 10_000);
  const third = await openSession(controller, token, serviceId, 'Dial');
  assert.deepEqual(names(third.json.data.edgeRouters), ['rel-no-serp']);
  void offline;
});

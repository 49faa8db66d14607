// Terminators an admin makes, changes and deletes over HTTPS in a real controller, in the spec's shapes; and the
// choice they drive: scripted routers on the control channel (mutual TLS, enrolled certificates) ask the controller
// for circuits, and the route it signs names the terminator that precedence, cost and the service's
// terminatorStrategy pick. `pick-in` dials; `pick-near` is 5 ms away, `pick-far` 80 ms; `pick-host` registers a
// terminator from its Bind policy, of which an admin may change cost and precedence only.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas } from './support/edge-api-schemas.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import { welcomedScriptedRouter, type EnrolledRouter, type ScriptedRouter } from './support/scripted-router.ts';
import { allowEveryRouter } from './support/circuit-routers.ts';

let controller: ControllerFixture;
let admin: Record<string, string>;
let workbench: OpensslWorkbench;
const schemas = EdgeApiSchemas.load('management');
const open: ScriptedRouter[] = [];
const routers = {} as Record<'in' | 'near' | 'far' | 'host', { enrolled: EnrolledRouter; channel: ScriptedRouter }>;
let serviceId: string;

const mgmt = (path: string) => `${controller.managementApi}${path}`;

/** A management call whose 2xx body must validate against the spec. */
async function call(method: string, path: string, body?: Record<string, unknown>, headers = admin) {
  const response = await controller.http.request(method, mgmt(path), { headers, ...(body ? { body } : {}) });
  if (response.status < 300) assert.deepEqual(schemas.problems(method, path.split('?')[0]!, response.status, response.json), [], `${method} ${path}`);
  return response;
}

async function post(path: string, body: Record<string, unknown>): Promise<string> {
  const response = await call('POST', path, body);
  assert.equal(response.status, 201, response.text);
  return response.json.data.id as string;
}

async function router(name: string, body: Record<string, unknown>) {
  const id = await post('/edge-routers', { name, ...body });
  const detail = await controller.http.get(mgmt(`/edge-routers/${id}`), { headers: admin });
  const welcomed = await welcomedScriptedRouter(controller, workbench, id, detail.json.data.enrollmentToken as string);
  open.push(welcomed.channel);
  return welcomed;
}

async function request(name: keyof typeof routers, body: Record<string, unknown>): Promise<any> {
  return routers[name].channel.request(body);
}

/** The terminator id of the route the controller signs for a circuit from pick-in now. */
async function chosen(): Promise<string> {
  for (const name of Object.keys(routers) as Array<keyof typeof routers>) assert.equal((await request(name, { op: 'ping' })).ok, true);
  const answer = await request('in', { op: 'circuit.create', service: 'picked' });
  assert.equal(answer.ok, true, JSON.stringify(answer));
  assert.ok(answer.value.route, JSON.stringify(answer.value));
  return JSON.parse(answer.value.route.text as string).terminator.id as string;
}

async function patch(path: string, body: Record<string, unknown>): Promise<void> {
  const response = await call('PATCH', path, body);
  assert.equal(response.status, 200, response.text);
}

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  workbench = new OpensslWorkbench(join(controller.root, 'router-certs'));
  const hostConfig = await post('/configs', { name: 'picked-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: 18111 } });
  serviceId = await post('/services', { name: 'picked', encryptionRequired: true, roleAttributes: ['picked'], configs: [hostConfig] });
  await post('/service-policies', { name: 'picked-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#dialer'], serviceRoles: ['#picked'], postureCheckRoles: [] });
  await post('/service-policies', { name: 'picked-bind', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosting'], serviceRoles: ['#picked'], postureCheckRoles: [] });
  await allowEveryRouter(post, 'terminators');
  routers.in = await router('pick-in', { isTunnelerEnabled: true, roleAttributes: ['dialer'] });
  routers.near = await router('pick-near', {});
  routers.far = await router('pick-far', {});
  routers.host = await router('pick-host', { isTunnelerEnabled: true, roleAttributes: ['hosting'] });
  const send = (name: keyof typeof routers, links: Array<[string, keyof typeof routers, number]>) =>
    routers[name].channel.send({ type: 'router.links', links: links.map(([id, to, latencyMs]) => ({ id, destRouterId: routers[to].enrolled.id, latencyMs })) });
  send('in', [['L-near', 'near', 5], ['L-far', 'far', 80]]);
  send('near', [['L-near', 'in', 5]]);
  send('far', [['L-far', 'in', 80]]);
});

after(async () => {
  for (const channel of open) channel.close();
  await controller?.dispose();
});

describe('admin terminators', () => {
  let nearId: string;
  let farId: string;

  it('are created, read, changed and deleted over HTTPS in the spec\'s shapes; bad input is refused with the field named', async () => {
    nearId = await post('/terminators', { service: serviceId, router: routers.near.enrolled.id, binding: 'transport', address: 'tcp:127.0.0.1:18112' });
    const detail = await call('GET', `/terminators/${nearId}`);
    assert.equal(detail.status, 200);
    assert.deepEqual(
      { service: detail.json.data.serviceId, router: detail.json.data.routerId, binding: detail.json.data.binding, address: detail.json.data.address, cost: detail.json.data.cost, precedence: detail.json.data.precedence },
      { service: serviceId, router: routers.near.enrolled.id, binding: 'transport', address: 'tcp:127.0.0.1:18112', cost: 0, precedence: 'default' },
    );
    assert.equal(detail.json.data.service.name, 'picked');
    farId = await post('/terminators', { service: serviceId, router: routers.far.enrolled.id, binding: 'transport', address: 'tcp:127.0.0.1:18113', cost: 7, precedence: 'failed', identity: 'far-host', identitySecret: 'c2VjcmV0', tags: { team: 'a' } });
    const listed = await call('GET', `/services/${serviceId}/terminators`);
    assert.deepEqual((listed.json.data as any[]).map((row) => row.id).filter((id) => id === nearId || id === farId).sort(), [nearId, farId].sort());
    const far = (await call('GET', `/terminators/${farId}`)).json.data;
    assert.deepEqual([far.cost, far.precedence, far.identity, far.tags], [7, 'failed', 'far-host', { team: 'a' }]);
    assert.equal(JSON.stringify(far).includes('c2VjcmV0'), false, 'the identity secret is never shown');

    await patch(`/terminators/${farId}`, { cost: 0, precedence: 'default' });
    const patched = (await call('GET', `/terminators/${farId}`)).json.data;
    assert.deepEqual([patched.cost, patched.precedence, patched.address, patched.tags], [0, 'default', 'tcp:127.0.0.1:18113', { team: 'a' }]);
    const put = await call('PUT', `/terminators/${farId}`, { service: serviceId, router: routers.far.enrolled.id, binding: 'transport', address: 'tcp:127.0.0.1:18114' });
    assert.equal(put.status, 200, put.text);
    const replaced = (await call('GET', `/terminators/${farId}`)).json.data;
    assert.deepEqual([replaced.address, replaced.tags, replaced.cost], ['tcp:127.0.0.1:18114', {}, 0]);

    const refusals: Array<[string, string, Record<string, unknown>, string]> = [
      ['POST', '/terminators', { service: serviceId, router: routers.near.enrolled.id, address: 'tcp:127.0.0.1:1' }, 'binding'],
      ['POST', '/terminators', { service: 'no-such-service', router: routers.near.enrolled.id, binding: 'transport', address: 'tcp:127.0.0.1:1' }, 'service'],
      ['POST', '/terminators', { service: serviceId, router: 'no-such-router', binding: 'transport', address: 'tcp:127.0.0.1:1' }, 'router'],
      ['POST', '/terminators', { service: serviceId, router: routers.near.enrolled.id, binding: 'transport', address: 'tcp:127.0.0.1:1', cost: 70000 }, 'cost'],
      ['PATCH', `/terminators/${farId}`, { precedence: 'sometimes' }, 'precedence'],
      ['PUT', `/terminators/${farId}`, { service: serviceId, router: routers.far.enrolled.id, binding: 'transport' }, 'address'],
      // What no router can dial: a binding routers do not dial directly, an address not tcp:<host>:<port>.
      ['POST', '/terminators', { service: serviceId, router: routers.near.enrolled.id, binding: 'edge', address: 'tcp:127.0.0.1:1' }, 'routers dial administrator terminators of binding .{1,3}transport.{1,3} only'],
      ['POST', '/terminators', { service: serviceId, router: routers.near.enrolled.id, binding: 'transport', address: 'tls:127.0.0.1:443' }, 'must be tcp:<host>:<port>'],
      ['PATCH', `/terminators/${farId}`, { address: 'tcp:127.0.0.1:0' }, 'must be tcp:<host>:<port>'],
      ['PATCH', `/terminators/${farId}`, { binding: 'udp' }, 'binding'],
    ];
    for (const [method, path, body, field] of refusals) {
      const response = await call(method, path, body);
      assert.equal(response.status, 400, `${method} ${path} ${JSON.stringify(body)}: ${response.text}`);
      assert.match(JSON.stringify(response.json.error), new RegExp(field), response.text);
    }
    assert.equal((await call('GET', '/terminators', undefined, {})).status, 401);
    assert.equal((await call('GET', `/terminators/${farId}`)).json.data.address, 'tcp:127.0.0.1:18114', 'a refused change changed nothing');

    const gone = await post('/terminators', { service: serviceId, router: routers.near.enrolled.id, binding: 'transport', address: 'tcp:127.0.0.1:18115' });
    assert.equal((await call('DELETE', `/terminators/${gone}`)).status, 200);
    assert.equal((await call('GET', `/terminators/${gone}`)).status, 404);
    assert.equal((await call('DELETE', `/terminators/${gone}`)).status, 404);
  });

  it('drive the circuit\'s choice: precedence first, then the service\'s terminator strategy with cost', async () => {
    assert.equal(await chosen(), nearId, 'smartrouting: the nearer of two equal-cost terminators');
    await patch(`/terminators/${farId}`, { precedence: 'required' });
    assert.equal(await chosen(), farId, 'required beats default, however far');
    await patch(`/terminators/${farId}`, { precedence: 'default' });
    await patch(`/terminators/${nearId}`, { precedence: 'failed' });
    assert.equal(await chosen(), farId, 'failed is used only when nothing else is');
    await patch(`/terminators/${nearId}`, { precedence: 'default', cost: 50 });
    assert.equal(await chosen(), nearId, 'smartrouting: 50 + 6 ms beats 0 + 81 ms');
    await patch(`/services/${serviceId}`, { terminatorStrategy: 'ha' });
    assert.equal(await chosen(), farId, 'ha: the lower terminator cost wins, path cost aside');
    await patch(`/services/${serviceId}`, { terminatorStrategy: 'smartrouting' });
    assert.equal(await chosen(), nearId);
  });

  it('on a terminator a router registered, only cost, precedence and tags can change, and it cannot be deleted', async () => {
    routers.host.channel.send({ type: 'router.terminator.create', terminators: [{ serviceId, address: 'tcp:127.0.0.1:18111' }] });
    const deadline = Date.now() + 10_000;
    let registered: any;
    while (!registered && Date.now() < deadline) {
      registered = ((await call('GET', '/terminators')).json.data as any[]).find((row) => row.routerId === routers.host.enrolled.id);
      if (!registered) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(registered, 'pick-host registered its terminator');
    await patch(`/terminators/${registered.id}`, { cost: 12, precedence: 'failed', tags: { pinned: true } });
    const detail = (await call('GET', `/terminators/${registered.id}`)).json.data;
    assert.deepEqual([detail.cost, detail.precedence, detail.tags, detail.address], [12, 'failed', { pinned: true }, 'tcp:127.0.0.1:18111']);
    const moved = await call('PATCH', `/terminators/${registered.id}`, { address: 'tcp:127.0.0.1:9' });
    assert.equal(moved.status, 400, moved.text);
    assert.match(moved.text, /only cost, precedence and tags/);
    const deleted = await call('DELETE', `/terminators/${registered.id}`);
    assert.equal(deleted.status, 400, deleted.text);
    assert.equal(deleted.json.error.code, 'ENTITY_CAN_NOT_BE_DELETED');
    assert.equal((await call('GET', `/terminators/${registered.id}`)).status, 200);
  });

  it('go with their service', async () => {
    const other = await post('/services', { name: 'short-lived', encryptionRequired: true });
    const doomed = await post('/terminators', { service: other, router: routers.near.enrolled.id, binding: 'transport', address: 'tcp:127.0.0.1:18116' });
    assert.equal((await call('DELETE', `/services/${other}`)).status, 200);
    assert.equal((await call('GET', `/terminators/${doomed}`)).status, 404);
  });
});

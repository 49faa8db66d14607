// A client flow driven by OpenZiti's own generated JavaScript client, @openziti/ziti-browzer-edge-client (npm, built
// from the controller's client.yml by OpenZiti, not by us), against a real controller over TLS: password login,
// service updates, services with their posture queries, a posture response, the edge routers a client may use, a Dial
// session, logout.
// The client hands back parsed bodies only; the fetch it is given (test/support/https-fetch.ts) keeps each exchange,
// so every status is checked and every 2xx body is validated against the client spec's response schema as well.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ZitiBrowzerEdgeClient } from '@openziti/ziti-browzer-edge-client';
import { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas } from './support/edge-api-schemas.ts';
import { httpsFetch, type FetchedExchange } from './support/https-fetch.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import { enrollRouter, ScriptedRouter } from './support/scripted-router.ts';

const schemas = EdgeApiSchemas.load('client');
const exchanges: FetchedExchange[] = [];
let controller: ControllerFixture;
const ids: Record<string, string> = {};
const routers: ScriptedRouter[] = [];

before(async () => {
  controller = await ControllerFixture.create();
  (globalThis as { _ziti_realFetch?: unknown })._ziti_realFetch = httpsFetch(controller.caPem, exchanges);
  const admin = { 'zt-session': await controller.adminToken() };
  const create = async (collection: string, body: unknown) => {
    const response = await controller.http.post(`${controller.managementApi}${collection}`, { headers: admin, body });
    assert.equal(response.status, 201, `${collection}: ${response.text}`);
    return response.json.data.id as string;
  };
  ids.open = await create('/services', { name: 'browzer-open', encryptionRequired: true, roleAttributes: ['browzer'] });
  ids.guarded = await create('/services', { name: 'browzer-guarded', encryptionRequired: true, roleAttributes: ['browzer-mfa'] });
  ids.user = await create('/identities', { name: 'browzer-user', type: 'User', isAdmin: false, roleAttributes: ['browzer-users'] });
  await create('/authenticators', { method: 'updb', identityId: ids.user, username: 'browzer-user', password: 'browzer-user-password' });
  ids.mfa = await create('/posture-checks', { typeId: 'MFA', name: 'browzer-mfa', roleAttributes: ['browzer-mfa'] });
  ids.os = await create('/posture-checks', { typeId: 'OS', name: 'browzer-os', roleAttributes: ['browzer-os'], operatingSystems: [{ type: 'Linux', versions: ['>=4.0.0'] }] });
  await create('/service-policies', { name: 'browzer-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#browzer-users'], serviceRoles: ['#browzer'], postureCheckRoles: [] });
  ids.guardedPolicy = await create('/service-policies', { name: 'browzer-dial-mfa', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#browzer-users'], serviceRoles: ['#browzer-mfa'], postureCheckRoles: ['#browzer-mfa'] });
  // Three online routers, each with an edge listener: the user's edge router policy grants `#browzer-routers` (the
  // first and third), the services' service edge router policy `#browzer-carriers` (the first and second), so only
  // the first is both the identity's and the service's.
  const workbench = new OpensslWorkbench(join(controller.root, 'browzer-router-certs'));
  const online = async (name: string, roleAttributes: string[], port: number) => {
    const id = await create('/edge-routers', { name, roleAttributes, isTunnelerEnabled: false });
    const detail = await controller.http.get(`${controller.managementApi}/edge-routers/${id}`, { headers: admin });
    const router = await ScriptedRouter.connect(controller.ctrlAddress, controller.caPem, await enrollRouter(controller, workbench, id, detail.json.data.enrollmentToken as string));
    routers.push(router);
    router.hello(id, { hostname: `${name}.test`, supportedProtocols: { tls: `tls://${name}.test:${port}` } });
    await router.next('ctrl.welcome');
    return id;
  };
  ids.router = await online('browzer-router', ['browzer-routers', 'browzer-carriers'], 3201);
  ids.carrierOnly = await online('browzer-carrier-only', ['browzer-carriers'], 3202);
  ids.identityOnly = await online('browzer-identity-only', ['browzer-routers'], 3203);
  await create('/edge-router-policies', { name: 'browzer-erp', semantic: 'AnyOf', identityRoles: ['#browzer-users'], edgeRouterRoles: ['#browzer-routers'] });
  await create('/service-edge-router-policies', { name: 'browzer-serp', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#browzer-carriers'] });
});

after(async () => {
  delete (globalThis as { _ziti_realFetch?: unknown })._ziti_realFetch;
  for (const router of routers) router.socket.destroy();
  await controller?.dispose();
});

/** The client's declarations (made from its JSDoc) mark every parameter required; its code takes them as optional. */
const some = (parameters: object) => parameters as never;

/** The status the client's last request got: the generated client resolves error envelopes like any other body. */
const lastStatus = () => exchanges.at(-1)!.status;

test('the OpenZiti browser edge client logs in, reads its services and posture queries, dials and logs out', async () => {
  const client = new ZitiBrowzerEdgeClient({ domain: controller.clientApi, logger: { trace: () => undefined } });

  const version = await client.listVersion({});
  assert.equal(lastStatus(), 200);
  assert.ok(version.data.apiVersions.edge, 'the version names the edge API');

  const login = await client.authenticate({ method: 'password', auth: { username: 'browzer-user', password: 'browzer-user-password', configTypes: ['all'], sdkInfo: { type: 'ziti-browzer-edge-client', version: '0.7.0' }, envInfo: { os: 'linux' } } });
  assert.equal(lastStatus(), 200, JSON.stringify(login));
  assert.deepEqual(login.data.authQueries, [], 'no MFA is asked of this identity');
  client.setToken(login.data.token, 'zt-session', false);

  const session = await client.getCurrentAPISession({});
  assert.equal(lastStatus(), 200);
  assert.equal(session.data.identity.name, 'browzer-user');
  assert.equal((await client.getCurrentIdentity({})).data.id, ids.user);

  // When the identity's service list last changed: an SDK polls it and refetches the services when it moves.
  const updates = await client.listServiceUpdates({});
  assert.equal(lastStatus(), 200);
  const firstChange = Date.parse(updates.data.lastChangeAt);
  assert.ok(Number.isFinite(firstChange), `lastChangeAt is a date: ${JSON.stringify(updates.data)}`);

  const services = await client.listServices(some({ configTypes: ['all'] }));
  assert.equal(lastStatus(), 200);
  const byName = new Map<string, any>(services.data.map((service: any) => [service.name, service]));
  assert.deepEqual([...byName.keys()].sort(), ['browzer-guarded', 'browzer-open']);
  assert.deepEqual(byName.get('browzer-open').permissions, ['Dial']);
  // One entry per Dial policy, as the real controller answers: the open service's policy has no queries and passes.
  assert.deepEqual(byName.get('browzer-open').postureQueries.map((policy: any) => [policy.policyType, policy.isPassing, policy.postureQueries]), [['Dial', true, []]]);
  const [guardedPolicy] = byName.get('browzer-guarded').postureQueries;
  assert.equal(guardedPolicy.policyId, ids.guardedPolicy);
  assert.equal(guardedPolicy.isPassing, false, 'the identity has no MFA, so the policy does not pass');
  assert.deepEqual(guardedPolicy.postureQueries.map((query: any) => [query.id, query.queryType, query.isPassing]), [[ids.mfa, 'MFA', false]]);
  assert.equal((await client.detailService({ id: ids.open })).data.name, 'browzer-open');
  // No router hosts it: the service has no terminators.
  assert.deepEqual((await client.listServiceTerminators(some({ id: ids.open }))).data, []);
  assert.equal(lastStatus(), 200);

  // The client reports its operating system, as an SDK does for OS posture checks; an administrator sees it.
  await client.createPostureResponse({ postureResponse: { id: ids.os, typeId: 'OS', type: 'Linux', version: '6.1.0', build: '1' } } as never);
  assert.equal(lastStatus(), 201);
  const postureData = await controller.http.get(`${controller.managementApi}/identities/${ids.user}/posture-data`, { headers: { 'zt-session': await controller.adminToken() } });
  assert.deepEqual([postureData.json.data.os.type, postureData.json.data.os.version], ['Linux', '6.1.0'], postureData.text);

  // The edge routers this identity may use: exactly those its edge router policy grants, online, with their listeners.
  const ownRouters = await client.getCurrentIdentityEdgeRouters({});
  assert.equal(lastStatus(), 200);
  assert.deepEqual(
    ownRouters.data.map((router: any) => [router.name, router.isOnline, router.supportedProtocols]).sort(),
    [
      ['browzer-identity-only', true, { tls: 'tls://browzer-identity-only.test:3203' }],
      ['browzer-router', true, { tls: 'tls://browzer-router.test:3201' }],
    ],
  );
  // Those it may use for a service: the ones the service's service edge router policy grants as well.
  const serviceRouters = await client.listServiceEdgeRouters(some({ id: ids.open }));
  assert.equal(lastStatus(), 200);
  assert.deepEqual(serviceRouters.data.edgeRouters.map((router: any) => [router.name, router.urls]), [['browzer-router', { tls: 'tls://browzer-router.test:3201' }]]);

  const dial = await client.createSession({ session: { serviceId: ids.open, type: 'Dial' } });
  assert.equal(lastStatus(), 201, JSON.stringify(dial));
  assert.equal(dial.data.service.id, ids.open);
  assert.equal(dial.data.type, 'Dial');
  assert.ok(dial.data.token, 'the session carries the token an edge router checks');
  // Where the client connects: the online routers both kinds of policy allow, by protocol, and no other.
  assert.deepEqual(dial.data.edgeRouters.map((router: any) => [router.name, router.hostname, router.urls]), [['browzer-router', 'browzer-router.test', { tls: 'tls://browzer-router.test:3201' }]]);

  const refused = await client.createSession({ session: { serviceId: ids.guarded, type: 'Dial' } });
  assert.equal(lastStatus(), 409, 'a failing posture check refuses the dial');
  assert.equal(refused.error.code, 'INVALID_POSTURE');

  const listed = await client.listSessions(some({}));
  assert.deepEqual(listed.data.map((item: any) => [item.id, item.edgeRouters.map((router: any) => router.name)]), [[dial.data.id, ['browzer-router']]]);
  assert.equal((await client.detailSession({ id: dial.data.id })).data.id, dial.data.id);
  await client.deleteSession({ id: dial.data.id });
  assert.equal(lastStatus(), 200);
  await client.detailSession({ id: dial.data.id });
  assert.equal(lastStatus(), 404, 'the deleted session is gone');

  // An administrator grants the identity one more service: the service-updates moment moves, and the list shows it.
  assert.equal((await client.listServiceUpdates({})).data.lastChangeAt, updates.data.lastChangeAt, 'no change, same moment');
  const added = await controller.http.post(`${controller.managementApi}/services`, { headers: { 'zt-session': await controller.adminToken() }, body: { name: 'browzer-late', encryptionRequired: true, roleAttributes: ['browzer'] } });
  assert.equal(added.status, 201, added.text);
  const moved = await client.listServiceUpdates({});
  assert.equal(lastStatus(), 200);
  assert.ok(Date.parse(moved.data.lastChangeAt) > firstChange, `lastChangeAt moved: ${updates.data.lastChangeAt} -> ${moved.data.lastChangeAt}`);
  assert.ok((await client.listServices(some({}))).data.some((service: any) => service.name === 'browzer-late'));

  await client.deleteCurrentApiSession({});
  assert.equal(lastStatus(), 200);
  const afterLogout = await client.getCurrentAPISession({});
  assert.equal(lastStatus(), 401);
  assert.equal(afterLogout.error.code, 'UNAUTHORIZED');

  // Every answer is one the spec lists for its operation, and every body (data or error envelope) is what the spec's
  // schema for that status says.
  const problems: string[] = [];
  for (const exchange of exchanges) {
    const path = new URL(exchange.url).pathname.slice(schemas.basePath.length) || '/';
    const body = exchange.contentType.includes('json') ? JSON.parse(exchange.text) : exchange.text;
    problems.push(...schemas.problems(exchange.method, path, exchange.status, body));
  }
  // As the real controller (its INVALID_POSTURE is http.StatusConflict), a posture refusal is a 409 the client spec
  // does not list: docs/api-reference.md, Conformance.
  assert.deepEqual(problems.filter((problem) => problem !== 'POST /sessions: the spec documents no 409 response'), []);
  assert.ok(exchanges.length >= 15, `${exchanges.length} requests made by the client`);
});

// A client flow driven by OpenZiti's own generated JavaScript client, @openziti/ziti-browzer-edge-client (npm, built
// from the controller's client.yml by OpenZiti, not by us), against a real controller over TLS: password login,
// service updates, services with their posture queries, the edge routers a client may use, a Dial session, logout.
// The client hands back parsed bodies only; the fetch it is given (test/support/https-fetch.ts) keeps each exchange,
// so every status is checked and every 2xx body is validated against the client spec's response schema as well.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ZitiBrowzerEdgeClient } from '@openziti/ziti-browzer-edge-client';
import { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas } from './support/edge-api-schemas.ts';
import { httpsFetch, type FetchedExchange } from './support/https-fetch.ts';

const schemas = EdgeApiSchemas.load('client');
const exchanges: FetchedExchange[] = [];
let controller: ControllerFixture;
const ids: Record<string, string> = {};

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
  await create('/service-policies', { name: 'browzer-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#browzer-users'], serviceRoles: ['#browzer'], postureCheckRoles: [] });
  ids.guardedPolicy = await create('/service-policies', { name: 'browzer-dial-mfa', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#browzer-users'], serviceRoles: ['#browzer-mfa'], postureCheckRoles: ['#browzer-mfa'] });
  ids.router = await create('/edge-routers', { name: 'browzer-router', roleAttributes: ['browzer-routers'], isTunnelerEnabled: false });
});

after(async () => {
  delete (globalThis as { _ziti_realFetch?: unknown })._ziti_realFetch;
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

  // Service updates are not served yet: being built on branch i38-lists (then: 200 with `lastChangeAt`).
  const updates = await client.listServiceUpdates({});
  assert.equal(lastStatus(), 404);
  assert.equal(updates.error.code, 'NOT_FOUND');

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

  // The edge routers this identity may use are not served yet: being built on branch i38-erp (then: the online
  // routers its edge router policies grant).
  const ownRouters = await client.getCurrentIdentityEdgeRouters({});
  assert.equal(lastStatus(), 404);
  assert.equal(ownRouters.error.code, 'NOT_FOUND');
  const serviceRouters = await client.listServiceEdgeRouters(some({ id: ids.open }));
  assert.equal(lastStatus(), 404);
  assert.equal(serviceRouters.error.code, 'NOT_FOUND');

  const dial = await client.createSession({ session: { serviceId: ids.open, type: 'Dial' } });
  assert.equal(lastStatus(), 201, JSON.stringify(dial));
  assert.equal(dial.data.service.id, ids.open);
  assert.equal(dial.data.type, 'Dial');
  assert.ok(dial.data.token, 'the session carries the token an edge router checks');
  // Sessions list no edge routers until edge router policies exist: branch i38-erp makes this the online routers
  // both kinds of policy allow.
  assert.deepEqual(dial.data.edgeRouters, []);

  const refused = await client.createSession({ session: { serviceId: ids.guarded, type: 'Dial' } });
  assert.equal(lastStatus(), 409, 'a failing posture check refuses the dial');
  assert.equal(refused.error.code, 'INVALID_POSTURE');

  const listed = await client.listSessions(some({}));
  assert.deepEqual(listed.data.map((item: any) => item.id), [dial.data.id]);
  assert.equal((await client.detailSession({ id: dial.data.id })).data.id, dial.data.id);
  await client.deleteSession({ id: dial.data.id });
  assert.equal(lastStatus(), 200);
  await client.detailSession({ id: dial.data.id });
  assert.equal(lastStatus(), 404, 'the deleted session is gone');

  await client.deleteCurrentApiSession({});
  assert.equal(lastStatus(), 200);
  const afterLogout = await client.getCurrentAPISession({});
  assert.equal(lastStatus(), 401);
  assert.equal(afterLogout.error.code, 'UNAUTHORIZED');

  // Every answer is one the spec lists for its operation, and every body (data or error envelope) is what the spec's
  // schema for that status says; the three operations not served yet (above) answer a 404 their spec does not list.
  const notServedYet = new Set(['/current-api-session/service-updates', '/current-identity/edge-routers', `/services/${ids.open}/edge-routers`]);
  const problems: string[] = [];
  for (const exchange of exchanges) {
    const path = new URL(exchange.url).pathname.slice(schemas.basePath.length) || '/';
    const body = exchange.contentType.includes('json') ? JSON.parse(exchange.text) : exchange.text;
    if (!notServedYet.has(path)) problems.push(...schemas.problems(exchange.method, path, exchange.status, body));
  }
  // As the real controller (its INVALID_POSTURE is http.StatusConflict), a posture refusal is a 409 the client spec
  // does not list: docs/api-reference.md, Conformance.
  assert.deepEqual(problems.filter((problem) => problem !== 'POST /sessions: the spec documents no 409 response'), []);
  assert.ok(exchanges.length >= 15, `${exchanges.length} requests made by the client`);
});

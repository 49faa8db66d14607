// The read-mostly lists of the Management API against a real controller over HTTPS: the relationship lists that
// service policies make (identity ↔ service ↔ policy ↔ posture check), the role-attribute lists, `/summary` and policy
// advice. Each answer is the entities the policies really relate, pages and filters like any list, and validates
// against the 0.29 spec's response schema; an unknown entity is 404 and a non-admin is refused.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas } from './support/edge-api-schemas.ts';
import { OverlaySetup } from './support/overlay-setup.ts';

const schemas = EdgeApiSchemas.load('management');
let controller: ControllerFixture;
let setup: OverlaySetup;
let admin: { 'zt-session': string };
const ids: Record<string, string> = {};
const password = 'relationship-lists-password';

before(async () => {
  controller = await ControllerFixture.create();
  setup = await OverlaySetup.create(controller);
  admin = setup.adminHeaders;
  ids.alice = await setup.createUser('rel-alice', password, { roleAttributes: ['eng'] });
  ids.bob = await setup.createUser('rel-bob', password, { roleAttributes: ['ops'] });
  ids.carol = await setup.createUser('rel-carol', password, { roleAttributes: ['eng', 'ops'] });
  ids.web = await setup.createService('rel-web', ['web']);
  ids.db = await setup.createService('rel-db', ['db']);
  ids.check = await setup.createMfaCheck('rel-mfa', { roleAttributes: ['mfa-check'] });
  ids.dial = await setup.createPolicy({ name: 'rel-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#eng'], serviceRoles: ['#web'], postureCheckRoles: ['#mfa-check'] });
  ids.bind = await setup.createPolicy({ name: 'rel-bind', type: 'Bind', semantic: 'AllOf', identityRoles: ['#eng', '#ops'], serviceRoles: [`@${ids.db}`] });
});
after(async () => controller?.dispose());

/**
 * GET on the Management API as admin (or `headers`); a 2xx is checked against the spec's schema. (The spec documents
 * no 404 for some relationship lists; an unknown entity is 404 on all of them, as on the real controller.)
 */
async function get(path: string, headers: Record<string, string> = admin) {
  const response = await controller.http.get(`${controller.managementApi}${path}`, { headers });
  const specPath = path.split('?')[0]!;
  if (response.status < 300) assert.deepEqual(schemas.problems('GET', specPath, response.status, response.json), [], `${path} answers in the spec's shape`);
  return response;
}

async function names(path: string): Promise<string[]> {
  const response = await get(path);
  assert.equal(response.status, 200, response.text);
  return response.json.data.map((row: { name: string }) => row.name);
}

test('the relationship lists answer the entities the service policies relate', async () => {
  assert.deepEqual(await names(`/identities/${ids.alice}/services`), ['rel-web']);
  assert.deepEqual((await names(`/identities/${ids.carol}/services`)).sort(), ['rel-db', 'rel-web']);
  assert.deepEqual(await names(`/identities/${ids.bob}/services`), [], 'ops alone matches neither the AnyOf #eng nor the AllOf #eng #ops policy');

  assert.deepEqual(await names(`/identities/${ids.alice}/service-policies`), ['rel-dial']);
  assert.deepEqual((await names(`/identities/${ids.carol}/service-policies`)).sort(), ['rel-bind', 'rel-dial']);

  assert.deepEqual((await names(`/services/${ids.web}/identities`)).sort(), ['rel-alice', 'rel-carol']);
  assert.deepEqual(await names(`/services/${ids.db}/identities`), ['rel-carol']);
  assert.deepEqual(await names(`/services/${ids.db}/service-policies`), ['rel-bind']);

  assert.deepEqual((await names(`/service-policies/${ids.dial}/identities`)).sort(), ['rel-alice', 'rel-carol']);
  assert.deepEqual(await names(`/service-policies/${ids.bind}/identities`), ['rel-carol']);
  assert.deepEqual(await names(`/service-policies/${ids.dial}/services`), ['rel-web']);
  assert.deepEqual(await names(`/service-policies/${ids.dial}/posture-checks`), ['rel-mfa']);
  assert.deepEqual(await names(`/service-policies/${ids.bind}/posture-checks`), []);
});

test('a relationship list follows a policy change at once', async () => {
  const policy = await setup.createPolicy({ name: 'rel-late', type: 'Dial', identityRoles: [`@${ids.bob}`], serviceRoles: [`@${ids.db}`] });
  assert.deepEqual(await names(`/identities/${ids.bob}/services`), ['rel-db']);
  const removed = await controller.http.delete(`${controller.managementApi}/service-policies/${policy}`, { headers: admin });
  assert.equal(removed.status, 200, removed.text);
  assert.deepEqual(await names(`/identities/${ids.bob}/services`), []);
});

test('relationship lists page, filter and sort like their collection', async () => {
  const page = await get(`/services/${ids.web}/identities?limit=1&offset=1&sort=name desc`);
  assert.equal(page.status, 200, page.text);
  assert.deepEqual(page.json.data.map((row: { name: string }) => row.name), ['rel-alice']);
  assert.deepEqual(page.json.meta.pagination, { limit: 1, offset: 1, totalCount: 2 });
  assert.deepEqual(await names(`/services/${ids.web}/identities?filter=${encodeURIComponent('name = "rel-carol"')}`), ['rel-carol']);
  const bad = await get(`/services/${ids.web}/identities?filter=${encodeURIComponent('name ==== 1')}`);
  assert.equal(bad.status, 400, bad.text);
  assert.equal(bad.json.error.code, 'INVALID_FILTER');
});

test('a relationship list of an unknown entity is 404, and a non-admin is refused', async () => {
  for (const path of ['/identities/nope/services', '/identities/nope/service-policies', '/services/nope/identities', '/services/nope/service-policies', '/service-policies/nope/identities', '/service-policies/nope/services', '/service-policies/nope/posture-checks', `/identities/nope/policy-advice/${ids.web}`, `/identities/${ids.alice}/policy-advice/nope`]) {
    const response = await get(path);
    assert.equal(response.status, 404, `${path}: ${response.text}`);
    assert.equal(response.json.error.code, 'NOT_FOUND');
  }
  const user = { 'zt-session': await controller.login('rel-alice', password, 'management') };
  for (const path of [`/identities/${ids.alice}/services`, '/identity-role-attributes', '/summary', `/identities/${ids.alice}/policy-advice/${ids.web}`]) {
    const response = await get(path, user);
    assert.equal(response.status, 401, `${path}: ${response.text}`);
  }
});

test('the role-attribute lists name each attribute in use once, sorted, and page and filter on it', async () => {
  const attributes = async (path: string) => {
    const response = await get(path);
    assert.equal(response.status, 200, response.text);
    return response.json.data as string[];
  };
  assert.deepEqual(await attributes('/identity-role-attributes'), ['eng', 'ops']);
  assert.deepEqual(await attributes('/service-role-attributes'), ['db', 'web']);
  assert.deepEqual(await attributes('/posture-check-role-attributes'), ['mfa-check']);
  assert.deepEqual(await attributes('/edge-router-role-attributes'), []);
  const router = await controller.http.post(`${controller.managementApi}/edge-routers`, { headers: admin, body: { name: 'rel-router', roleAttributes: ['east', 'all-routers'] } });
  assert.equal(router.status, 201, router.text);
  ids.router = router.json.data.id;
  assert.deepEqual(await attributes('/edge-router-role-attributes'), ['all-routers', 'east']);

  assert.deepEqual(await attributes(`/identity-role-attributes?filter=${encodeURIComponent('id contains "ng"')}`), ['eng']);
  const page = await get('/service-role-attributes?limit=1&offset=1');
  assert.deepEqual(page.json.data, ['web']);
  assert.equal(page.json.meta.pagination.totalCount, 2);
  assert.deepEqual(await attributes('/service-role-attributes?sort=id desc'), ['web', 'db']);
});

test('/summary counts every kind of entity', async () => {
  const before = await get('/summary');
  assert.equal(before.status, 200, before.text);
  const counts = before.json.data as Record<string, number>;
  for (const kind of ['identities', 'services', 'servicePolicies', 'postureChecks', 'configs', 'configTypes', 'edgeRouters', 'authenticators', 'apiSessions', 'sessions', 'authPolicies', 'cas', 'terminators']) {
    assert.ok(Number.isInteger(counts[kind]), `${kind} is counted: ${before.text}`);
  }
  const identities = await get('/identities?limit=1');
  assert.equal(counts.identities, identities.json.meta.pagination.totalCount);
  await setup.createService('rel-summary');
  const after = (await get('/summary')).json.data as Record<string, number>;
  assert.equal(after.services, counts.services! + 1, 'a new service is counted at once');
  assert.equal(after.identities, counts.identities);
});

test('policy advice: Dial and Bind from the service policies, the routers both may use', async () => {
  const advice = async (identity: string, service: string) => {
    const response = await get(`/identities/${identity}/policy-advice/${service}`);
    assert.equal(response.status, 200, response.text);
    return response.json.data;
  };
  const alice = await advice(ids.alice!, ids.web!);
  assert.equal(alice.identityId, ids.alice);
  assert.equal(alice.identity.name, 'rel-alice');
  assert.equal(alice.serviceId, ids.web);
  assert.equal(alice.service.name, 'rel-web');
  assert.equal(alice.isDialAllowed, true);
  assert.equal(alice.isBindAllowed, false);

  const carol = await advice(ids.carol!, ids.db!);
  assert.equal(carol.isDialAllowed, false);
  assert.equal(carol.isBindAllowed, true);

  const bob = await advice(ids.bob!, ids.web!);
  assert.equal(bob.isDialAllowed, false);
  assert.equal(bob.isBindAllowed, false);

  // Without edge router policies no router serves bob or web.
  assert.deepEqual([bob.identityRouterCount, bob.serviceRouterCount, bob.commonRouters], [0, 0, []]);

  // An edge router policy grants bob the router made above, a service edge router policy every router to web: the
  // router is common to both, and offline (it never connected).
  const post = async (path: string, body: Record<string, unknown>) => {
    const response = await controller.http.request('POST', `${controller.managementApi}${path}`, { headers: admin, body });
    assert.equal(response.status, 201, response.text);
  };
  await post('/edge-router-policies', { name: 'rel-bob-router', semantic: 'AnyOf', identityRoles: [`@${ids.bob}`], edgeRouterRoles: [`@${ids.router}`] });
  await post('/service-edge-router-policies', { name: 'rel-web-everywhere', semantic: 'AnyOf', serviceRoles: [`@${ids.web}`], edgeRouterRoles: ['#all'] });
  const granted = await advice(ids.bob!, ids.web!);
  const routers = (await get('/edge-routers')).json.meta.pagination.totalCount as number;
  assert.ok(routers >= 1);
  assert.equal(granted.identityRouterCount, 1);
  assert.equal(granted.serviceRouterCount, routers);
  assert.deepEqual(
    granted.commonRouters.map((router: { id: string; name: string; isOnline: boolean; entity: string }) => ({ id: router.id, name: router.name, isOnline: router.isOnline, entity: router.entity })),
    [{ id: ids.router, name: 'rel-router', isOnline: false, entity: 'edge-routers' }],
  );
});

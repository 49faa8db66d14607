// Services, service policies and MFA posture checks (the other types: edge-api-posture.test.ts) against a real controller over HTTPS: CRUD and refusals of the
// three collections, who sees which service (role matching, Dial vs Bind), opening and ending sessions, and an MFA
// posture check refusing a session that has not answered MFA.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { authPolicyBody } from './support/auth-policy-bodies.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { clientService, openSession, OverlaySetup } from './support/overlay-setup.ts';

let controller: ControllerFixture;
let setup: OverlaySetup;
let admin: { 'zt-session': string };
before(async () => {
  controller = await ControllerFixture.create();
  setup = await OverlaySetup.create(controller);
  admin = setup.adminHeaders;
});
after(async () => controller?.dispose());

const mgmt = (path: string) => `${controller.managementApi}${path}`;
const client = (path: string) => `${controller.clientApi}${path}`;
const as = (token: string) => ({ 'zt-session': token });
const password = 'service-test-password';

async function userToken(name: string, roleAttributes: string[] = []): Promise<{ id: string; token: string }> {
  const id = await setup.createUser(name, password, { roleAttributes });
  return { id, token: await controller.login(name, password) };
}

/** The services a client lists, as name → permissions. */
async function visibleServices(token: string): Promise<Record<string, string[]>> {
  const list = await controller.http.get(client('/services?limit=500'), { headers: as(token) });
  assert.equal(list.status, 200, list.text);
  return Object.fromEntries(list.json.data.map((service: { name: string; permissions: string[] }) => [service.name, service.permissions]));
}

function assertInvalid(response: { status: number; json: any; text: string }, field: string, reason?: RegExp) {
  assert.equal(response.status, 400, response.text);
  assert.equal(response.json.error.code, 'COULD_NOT_VALIDATE');
  assert.equal(response.json.error.cause.field, field);
  if (reason) assert.match(response.json.error.cause.reason, reason);
}

test('services: create, read, list, PATCH, PUT, delete, with the real controller defaults', async () => {
  const created = await controller.http.post(mgmt('/services'), { headers: admin, body: { name: 'crud-svc', encryptionRequired: true, roleAttributes: ['web'] } });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  assert.equal(created.json.data._links.self.href, `./services/${id}`);

  const detail = await controller.http.get(mgmt(`/services/${id}`), { headers: admin });
  assert.equal(detail.status, 200);
  const service = detail.json.data;
  assert.equal(service.name, 'crud-svc');
  assert.equal(service.encryptionRequired, true);
  assert.equal(service.terminatorStrategy, 'smartrouting');
  assert.equal(service.maxIdleTimeMillis, 0);
  assert.deepEqual(service.roleAttributes, ['web']);
  assert.deepEqual(service.configs, []);
  assert.deepEqual(service.config, {});
  assert.deepEqual(service.tags, {});
  assert.deepEqual(service.permissions, ['Bind', 'Dial'], 'an admin is shown both permissions, though no policy grants it anything');
  assert.deepEqual(
    service.postureQueries.map((query: { policyId: string; policyType: string; isPassing: boolean; postureQueries: unknown[] }) => [query.policyId, query.policyType, query.isPassing, query.postureQueries.length]),
    [
      ['dummy bind policy: no posture checks defined', 'Bind', true, 0],
      ['dummy dial policy: no posture checks defined', 'Dial', true, 0],
    ],
    'one placeholder query set per permission shown, as the real controller lists them',
  );

  const patched = await controller.http.patch(mgmt(`/services/${id}`), { headers: admin, body: { maxIdleTimeMillis: 5000, terminatorStrategy: 'weighted' } });
  assert.equal(patched.status, 200, patched.text);
  const afterPatch = (await controller.http.get(mgmt(`/services/${id}`), { headers: admin })).json.data;
  assert.equal(afterPatch.maxIdleTimeMillis, 5000);
  assert.equal(afterPatch.terminatorStrategy, 'weighted');
  assert.deepEqual(afterPatch.roleAttributes, ['web'], 'PATCH keeps what it does not name');

  const put = await controller.http.put(mgmt(`/services/${id}`), { headers: admin, body: { name: 'crud-svc-2', encryptionRequired: false } });
  assert.equal(put.status, 200, put.text);
  const afterPut = (await controller.http.get(mgmt(`/services/${id}`), { headers: admin })).json.data;
  assert.equal(afterPut.name, 'crud-svc-2');
  assert.deepEqual(afterPut.roleAttributes, [], 'PUT resets what it omits');
  assert.equal(afterPut.terminatorStrategy, 'smartrouting');
  assert.equal(afterPut.encryptionRequired, true, 'encryptionRequired is fixed at creation');

  const list = await controller.http.get(mgmt(`/services?filter=${encodeURIComponent('name = "crud-svc-2"')}`), { headers: admin });
  assert.equal(list.status, 200);
  assert.equal(list.json.meta.pagination.totalCount, 1);
  assert.ok(list.json.meta.filterableFields.includes('roleAttributes'));

  assert.equal((await controller.http.delete(mgmt(`/services/${id}`), { headers: admin })).status, 200);
  const gone = await controller.http.get(mgmt(`/services/${id}`), { headers: admin });
  assert.equal(gone.status, 404);
  assert.equal(gone.json.error.code, 'NOT_FOUND');
});

test('services: bad input is a 400 naming the field, and nothing is created', async () => {
  const count = async () => (await controller.http.get(mgmt('/services?limit=1'), { headers: admin })).json.meta.pagination.totalCount as number;
  const before = await count();
  const post = (body: unknown) => controller.http.post(mgmt('/services'), { headers: admin, body });
  assertInvalid(await post({ name: 'no-encryption' }), 'encryptionRequired');
  assertInvalid(await post({ encryptionRequired: true }), 'name');
  assertInvalid(await post({ name: 'bad-strategy', encryptionRequired: true, terminatorStrategy: 'fastest' }), 'terminatorStrategy');
  assertInvalid(await post({ name: 'bad-configs', encryptionRequired: true, configs: ['no-such-config'] }), 'configs', /no configs found/);
  assertInvalid(await post({ name: 'bad-idle', encryptionRequired: true, maxIdleTimeMillis: -1 }), 'maxIdleTimeMillis');
  assertInvalid(await post({ name: 'bad-attrs', encryptionRequired: true, roleAttributes: 'web' }), 'roleAttributes');
  await setup.createService('dup-svc');
  assertInvalid(await post({ name: 'dup-svc', encryptionRequired: true }), 'name', /duplicate value 'dup-svc'/);
  assert.equal(await count(), before + 1, 'only dup-svc itself was created');
  await setup.createUser('svc-non-admin', password);
  const refused = await controller.http.get(mgmt('/services'), { headers: as(await controller.login('svc-non-admin', password, 'management')) });
  assert.equal(refused.status, 401, 'a non-admin gets 401 on the management API');
});

test('service policies: CRUD with role display names, and bad roles refused by field', async () => {
  const serviceId = await setup.createService('policy-target');
  const identityId = await setup.createUser('policy-user', password);
  const checkId = await setup.createMfaCheck('policy-check');
  const created = await controller.http.post(mgmt('/service-policies'), {
    headers: admin,
    body: { name: 'crud-policy', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#staff', `@${identityId}`], serviceRoles: [`@${serviceId}`], postureCheckRoles: [`@${checkId}`] },
  });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  const detail = (await controller.http.get(mgmt(`/service-policies/${id}`), { headers: admin })).json.data;
  assert.equal(detail.type, 'Dial');
  assert.equal(detail.semantic, 'AnyOf');
  assert.deepEqual(detail.identityRolesDisplay, [{ role: '#staff', name: '#staff' }, { role: `@${identityId}`, name: '@policy-user' }]);
  assert.deepEqual(detail.serviceRolesDisplay, [{ role: `@${serviceId}`, name: '@policy-target' }]);
  assert.deepEqual(detail.postureCheckRolesDisplay, [{ role: `@${checkId}`, name: '@policy-check' }]);

  assert.equal((await controller.http.patch(mgmt(`/service-policies/${id}`), { headers: admin, body: { type: 'Bind' } })).status, 200);
  const patched = (await controller.http.get(mgmt(`/service-policies/${id}`), { headers: admin })).json.data;
  assert.equal(patched.type, 'Bind');
  assert.deepEqual(patched.serviceRoles, [`@${serviceId}`]);
  const put = await controller.http.put(mgmt(`/service-policies/${id}`), { headers: admin, body: { name: 'crud-policy', type: 'Dial', semantic: 'AllOf' } });
  assert.equal(put.status, 200, put.text);
  assert.deepEqual((await controller.http.get(mgmt(`/service-policies/${id}`), { headers: admin })).json.data.identityRoles, []);

  const post = (body: Record<string, unknown>) => controller.http.post(mgmt('/service-policies'), { headers: admin, body: { name: 'bad-policy', type: 'Dial', semantic: 'AnyOf', ...body } });
  assertInvalid(await post({ semantic: undefined }), 'semantic');
  assertInvalid(await post({ type: 'Both' }), 'type');
  assertInvalid(await post({ identityRoles: ['staff'] }), 'identityRoles', /must prefixed with #/);
  assertInvalid(await post({ serviceRoles: ['#all', '#web'] }), 'serviceRoles', /only role specified/);
  assertInvalid(await post({ identityRoles: ['@no-such-identity'] }), 'identityRoles', /no identities found with the given ids/);
  assertInvalid(await post({ postureCheckRoles: [`@${serviceId}`] }), 'postureCheckRoles', /no posture checks found/);
  assertInvalid(await post({ name: 'crud-policy' }), 'name', /duplicate value/);
  const named = await controller.http.get(mgmt(`/service-policies?filter=${encodeURIComponent('name = "bad-policy"')}`), { headers: admin });
  assert.equal(named.json.meta.pagination.totalCount, 0, 'no refused policy was half-created');

  assert.equal((await controller.http.delete(mgmt(`/service-policies/${id}`), { headers: admin })).status, 200);
  assert.equal((await controller.http.get(mgmt(`/service-policies/${id}`), { headers: admin })).status, 404);
});

test('MFA posture checks: no timeout reported as -1, version bumped by each update', async () => {
  const created = await controller.http.post(mgmt('/posture-checks'), { headers: admin, body: { typeId: 'MFA', name: 'crud-check', timeoutSeconds: 0, promptOnWake: true } });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  const detail = (await controller.http.get(mgmt(`/posture-checks/${id}`), { headers: admin })).json.data;
  assert.deepEqual(
    { typeId: detail.typeId, version: detail.version, timeoutSeconds: detail.timeoutSeconds, promptOnWake: detail.promptOnWake, promptOnUnlock: detail.promptOnUnlock, ignoreLegacyEndpoints: detail.ignoreLegacyEndpoints, roleAttributes: detail.roleAttributes },
    { typeId: 'MFA', version: 1, timeoutSeconds: -1, promptOnWake: true, promptOnUnlock: false, ignoreLegacyEndpoints: false, roleAttributes: [] },
  );
  assert.equal((await controller.http.patch(mgmt(`/posture-checks/${id}`), { headers: admin, body: { typeId: 'MFA', timeoutSeconds: 600 } })).status, 200);
  const patched = (await controller.http.get(mgmt(`/posture-checks/${id}`), { headers: admin })).json.data;
  assert.equal(patched.version, 2);
  assert.equal(patched.timeoutSeconds, 600);
  assert.equal(patched.promptOnWake, true);
  assert.equal((await controller.http.put(mgmt(`/posture-checks/${id}`), { headers: admin, body: { typeId: 'MFA', name: 'crud-check' } })).status, 200);
  const put = (await controller.http.get(mgmt(`/posture-checks/${id}`), { headers: admin })).json.data;
  assert.equal(put.version, 3);
  assert.equal(put.promptOnWake, false, 'PUT resets what it omits');

  const post = (body: Record<string, unknown>) => controller.http.post(mgmt('/posture-checks'), { headers: admin, body: { name: 'bad-check', ...body } });
  assertInvalid(await post({ typeId: 'FOO' }), 'typeId');
  assertInvalid(await post({}), 'typeId');
  assertInvalid(await post({ typeId: 'MFA', name: undefined }), 'name');
  assertInvalid(await post({ typeId: 'MFA', timeoutSeconds: 1.5 }), 'timeoutSeconds');
  assertInvalid(await controller.http.put(mgmt(`/posture-checks/${id}`), { headers: admin, body: { name: 'crud-check' } }), 'typeId');
  assert.equal((await controller.http.get(mgmt(`/posture-checks/${id}`), { headers: admin })).json.data.version, 3, 'a refused update changes nothing');

  assert.equal((await controller.http.delete(mgmt(`/posture-checks/${id}`), { headers: admin })).status, 200);
  assert.equal((await controller.http.get(mgmt(`/posture-checks/${id}`), { headers: admin })).status, 404);
});

test('role matching decides who sees which service: #attr, @id, #all, AllOf versus AnyOf', async () => {
  const eng = await userToken('rm-eng', ['rm-eng']);
  const both = await userToken('rm-both', ['rm-eng', 'rm-ops']);
  const binder = await userToken('rm-binder');
  const nobody = await userToken('rm-nobody', ['rm-other']);
  await setup.createService('rm-eng-svc', ['rm-eng']);
  const opsSvc = await setup.createService('rm-ops-svc', ['rm-ops']);
  const plainSvc = await setup.createService('rm-plain-svc');
  await setup.createPolicy({ name: 'rm-eng-dial', type: 'Dial', identityRoles: ['#rm-eng'], serviceRoles: ['#rm-eng'] });
  await setup.createPolicy({ name: 'rm-allof', type: 'Dial', semantic: 'AllOf', identityRoles: ['#rm-eng', '#rm-ops'], serviceRoles: [`@${opsSvc}`] });
  await setup.createPolicy({ name: 'rm-anyof', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#rm-ops', `@${eng.id}`], serviceRoles: [`@${plainSvc}`] });
  await setup.createPolicy({ name: 'rm-bind-all', type: 'Bind', identityRoles: [`@${binder.id}`], serviceRoles: ['#all'] });

  const engSees = await visibleServices(eng.token);
  assert.deepEqual(Object.keys(engSees).sort(), ['rm-eng-svc', 'rm-plain-svc']);
  assert.deepEqual(engSees['rm-eng-svc'], ['Dial']);
  const bothSees = await visibleServices(both.token);
  assert.deepEqual(Object.keys(bothSees).sort(), ['rm-eng-svc', 'rm-ops-svc', 'rm-plain-svc'], 'AllOf needs both attributes; AnyOf one');
  const binderSees = await visibleServices(binder.token);
  for (const name of ['rm-eng-svc', 'rm-ops-svc', 'rm-plain-svc']) assert.deepEqual(binderSees[name], ['Bind'], `#all includes ${name}`);
  assert.ok(Object.values(binderSees).every((permissions) => permissions.join() === 'Bind'));
  assert.deepEqual(await visibleServices(nobody.token), {});

  const hidden = await clientService(controller, eng.token, opsSvc);
  assert.equal(hidden.status, 404, 'a service no policy grants does not exist for the client');
  assert.equal(hidden.json.error.code, 'NOT_FOUND');
  const shown = await clientService(controller, both.token, opsSvc);
  assert.equal(shown.status, 200);
  assert.equal(shown.json.data.id, opsSvc);
  assert.deepEqual(shown.json.data.postureQueries.map((query: { isPassing: boolean }) => query.isPassing), [true]);

  const paged = await controller.http.get(client('/services?limit=1&sort=name'), { headers: as(both.token) });
  assert.equal(paged.status, 200);
  assert.deepEqual(paged.json.meta.pagination, { limit: 1, offset: 0, totalCount: 3 });
  assert.equal(paged.json.data[0].name, 'rm-eng-svc');
});

test('sessions: Dial and Bind are separate permissions; a session is opened, listed, and ended', async () => {
  const user = await userToken('sess-user', ['sess-user']);
  const other = await userToken('sess-other', ['sess-user']);
  const serviceId = await setup.createService('sess-svc');
  const hiddenId = await setup.createService('sess-hidden');
  const bindPolicy = await setup.createPolicy({ name: 'sess-bind', type: 'Bind', identityRoles: ['#sess-user'], serviceRoles: [`@${serviceId}`] });

  assert.deepEqual((await clientService(controller, user.token, serviceId)).json.data.permissions, ['Bind']);
  const dial = await openSession(controller, user.token, serviceId, 'Dial');
  assertInvalid(dial, 'serviceId', /service not found/);
  assertInvalid(await openSession(controller, user.token, serviceId), 'serviceId');
  const hidden = await openSession(controller, user.token, hiddenId, 'Bind');
  assert.equal(hidden.status, 404, hidden.text);
  assert.equal(hidden.json.error.code, 'NOT_FOUND');
  assertInvalid(await controller.http.post(client('/sessions'), { headers: as(user.token), body: { type: 'Bind' } }), 'serviceId');

  const created = await openSession(controller, user.token, serviceId, 'Bind');
  assert.equal(created.status, 201, created.text);
  const session = created.json.data;
  assert.equal(session.type, 'Bind');
  assert.equal(session.serviceId, serviceId);
  assert.equal(session.service.name, 'sess-svc');
  assert.deepEqual(session.edgeRouters, []);
  assert.match(session.token, /^[0-9a-f-]{36}$/);
  const current = (await controller.http.get(client('/current-api-session'), { headers: as(user.token) })).json.data;
  assert.equal(session.apiSessionId, current.id);
  assert.equal(session.identityId, user.id);

  const mine = await controller.http.get(client('/sessions'), { headers: as(user.token) });
  assert.equal(mine.status, 200);
  assert.deepEqual(mine.json.data.map((row: { id: string }) => row.id), [session.id]);
  assert.equal(mine.json.data[0].token, '', 'the token is shown only at creation');
  assert.equal((await controller.http.get(client('/sessions'), { headers: as(other.token) })).json.data.length, 0, 'a client lists only its own');
  assert.equal((await controller.http.get(client(`/sessions/${session.id}`), { headers: as(other.token) })).status, 404);
  assert.equal((await controller.http.delete(client(`/sessions/${session.id}`), { headers: as(other.token) })).status, 404);

  const managed = await controller.http.get(mgmt(`/sessions/${session.id}`), { headers: admin });
  assert.equal(managed.status, 200);
  assert.deepEqual(managed.json.data.servicePolicies.map((ref: { id: string; name: string }) => [ref.id, ref.name]), [[bindPolicy, 'sess-bind']]);
  const ofApiSession = await controller.http.get(mgmt(`/api-sessions/${current.id}/sessions`), { headers: admin });
  assert.deepEqual(ofApiSession.json.data.map((row: { id: string }) => row.id), [session.id]);

  assert.equal((await controller.http.delete(client(`/sessions/${session.id}`), { headers: as(user.token) })).status, 200);
  assert.equal((await controller.http.get(client('/sessions'), { headers: as(user.token) })).json.data.length, 0);

  // Ending the API session (logout) and deleting the service both end the sessions that hang off them.
  const again = (await openSession(controller, user.token, serviceId, 'Bind')).json.data.id as string;
  const othersSession = (await openSession(controller, other.token, serviceId, 'Bind')).json.data.id as string;
  assert.equal((await controller.http.delete(client('/current-api-session'), { headers: as(user.token) })).status, 200);
  assert.equal((await controller.http.get(mgmt(`/sessions/${again}`), { headers: admin })).status, 404, 'logout ended it');
  assert.equal((await controller.http.get(mgmt(`/sessions/${othersSession}`), { headers: admin })).status, 200);
  assert.equal((await controller.http.delete(mgmt(`/services/${serviceId}`), { headers: admin })).status, 200);
  assert.equal((await controller.http.get(mgmt(`/sessions/${othersSession}`), { headers: admin })).status, 404, 'deleting the service ended it');
});

test('an MFA posture check fails for a session that has not done MFA: listed as not passing, session refused', async () => {
  const user = await userToken('mfa-pc-user', ['mfa-pc-user']);
  const { serviceId, policyId, checkId } = await setup.mfaGuardedService('mfa-pc-svc', 'mfa-pc-user', 300);

  const listed = await clientService(controller, user.token, serviceId);
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(listed.json.data.permissions, ['Dial']);
  const [queries] = listed.json.data.postureQueries;
  assert.equal(listed.json.data.postureQueries.length, 1);
  assert.deepEqual({ policyId: queries.policyId, policyType: queries.policyType, isPassing: queries.isPassing }, { policyId, policyType: 'Dial', isPassing: false });
  const [query] = queries.postureQueries;
  assert.deepEqual(
    { id: query.id, queryType: query.queryType, isPassing: query.isPassing, timeout: query.timeout, timeoutRemaining: query.timeoutRemaining, promptOnWake: query.promptOnWake, promptOnUnlock: query.promptOnUnlock },
    { id: checkId, queryType: 'MFA', isPassing: false, timeout: 300, timeoutRemaining: 0, promptOnWake: false, promptOnUnlock: false },
  );

  const refused = await openSession(controller, user.token, serviceId, 'Dial');
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.json.error.code, 'INVALID_POSTURE');
  assert.equal(refused.json.error.cause.message, `Failed to pass posture checks for service policies: [${policyId}]`);
  assert.equal((await controller.http.get(client('/sessions'), { headers: as(user.token) })).json.data.length, 0);

  // One passing policy is enough: a second Dial policy without checks lets the session through.
  const open = await setup.createPolicy({ name: 'mfa-pc-open', type: 'Dial', identityRoles: ['#mfa-pc-user'], serviceRoles: [`@${serviceId}`] });
  const allowed = await openSession(controller, user.token, serviceId, 'Dial');
  assert.equal(allowed.status, 201, allowed.text);
  const managed = await controller.http.get(mgmt(`/sessions/${allowed.json.data.id}`), { headers: admin });
  assert.deepEqual(managed.json.data.servicePolicies.map((ref: { id: string }) => ref.id), [open]);
});

test('a partially authenticated session (MFA outstanding) gets 401 from services and sessions', async () => {
  const policy = await controller.http.post(mgmt('/auth-policies'), { headers: admin, body: authPolicyBody('svc-require-totp', { secondary: { requireTotp: true } }) });
  assert.equal(policy.status, 201, policy.text);
  await setup.createUser('svc-partial', password, { authPolicyId: policy.json.data.id, roleAttributes: ['svc-partial'] });
  const serviceId = await setup.createService('svc-partial-svc');
  await setup.createPolicy({ name: 'svc-partial-dial', type: 'Dial', identityRoles: ['#svc-partial'], serviceRoles: [`@${serviceId}`] });
  const token = await controller.login('svc-partial', password);
  const current = (await controller.http.get(client('/current-api-session'), { headers: as(token) })).json.data;
  assert.ok(current.authQueries.length > 0, 'the session owes an MFA answer');
  assert.equal((await controller.http.get(client('/services'), { headers: as(token) })).status, 401);
  assert.equal((await clientService(controller, token, serviceId)).status, 401);
  assert.equal((await openSession(controller, token, serviceId, 'Dial')).status, 401);
  assert.equal((await controller.http.get(client('/sessions'), { headers: as(token) })).status, 401);
});

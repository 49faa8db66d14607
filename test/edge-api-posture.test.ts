// Posture checks beyond MFA and posture responses against a real controller over HTTPS: OS, MAC, DOMAIN, PROCESS
// and PROCESS_MULTI checks created, read, updated and refused with the field at fault; a client's responses
// (single and bulk) deciding its sessions and its services' postureQueries; an ENDPOINT_STATE wake starting an MFA
// check's grace period; the identity's posture data on the Management API.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas } from './support/edge-api-schemas.ts';
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
const password = 'posture-test-password';

function assertInvalid(response: { status: number; json: any; text: string }, field: string, reason?: RegExp) {
  assert.equal(response.status, 400, response.text);
  assert.equal(response.json.error.code, 'COULD_NOT_VALIDATE');
  assert.equal(response.json.error.cause.field, field, response.text);
  if (reason) assert.match(response.json.error.cause.reason, reason);
}

async function createCheck(body: Record<string, unknown>): Promise<string> {
  const created = await controller.http.post(mgmt('/posture-checks'), { headers: admin, body });
  assert.equal(created.status, 201, created.text);
  return created.json.data.id as string;
}

/** A user, a service only it may dial behind the given checks, and a session token. */
async function guardedService(name: string, checkIds: string[]): Promise<{ token: string; serviceId: string; policyId: string; identityId: string }> {
  const identityId = await setup.createUser(name, password, { roleAttributes: [name] });
  const serviceId = await setup.createService(`${name}-svc`);
  const policyId = await setup.createPolicy({ name: `${name}-dial`, type: 'Dial', identityRoles: [`#${name}`], serviceRoles: [`@${serviceId}`], postureCheckRoles: checkIds.map((id) => `@${id}`) });
  return { token: await controller.login(name, password), serviceId, policyId, identityId };
}

const respond = (token: string, body: unknown) => controller.http.post(client('/posture-response'), { headers: as(token), body });
const respondBulk = (token: string, body: unknown) => controller.http.post(client('/posture-response-bulk'), { headers: as(token), body });

test('every posture check type is created with its fields, read back, patched and put; bad fields are refused by name', async () => {
  const kinds: Record<string, Record<string, unknown>> = {
    OS: { operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041'] }, { type: 'Linux', versions: [] }] },
    MAC: { macAddresses: ['AA:BB:CC:DD:EE:FF'] },
    DOMAIN: { domains: ['corp.example'] },
    PROCESS: { process: { osType: 'Linux', path: '/usr/bin/agent', hashes: ['abc123'], signerFingerprint: 'f00d' } },
    PROCESS_MULTI: { semantic: 'AnyOf', processes: [{ osType: 'Windows', path: 'C:\\agent.exe', hashes: [], signerFingerprints: ['beef'] }] },
  };
  for (const [typeId, fields] of Object.entries(kinds)) {
    const id = await createCheck({ typeId, name: `crud-${typeId}`, roleAttributes: ['r'], ...fields });
    const detail = (await controller.http.get(mgmt(`/posture-checks/${id}`), { headers: admin })).json.data;
    assert.equal(detail.typeId, typeId);
    assert.equal(detail.version, 1);
    for (const [key, value] of Object.entries(fields)) assert.deepEqual(detail[key], value, `${typeId}.${key}`);
    assert.equal(detail.timeoutSeconds, undefined, `${typeId} has no MFA fields`);
    // PATCH keeps what it omits; a change of type is refused.
    assert.equal((await controller.http.patch(mgmt(`/posture-checks/${id}`), { headers: admin, body: { typeId, roleAttributes: ['s'] } })).status, 200);
    const patched = (await controller.http.get(mgmt(`/posture-checks/${id}`), { headers: admin })).json.data;
    assert.deepEqual([patched.version, patched.roleAttributes, patched.name], [2, ['s'], `crud-${typeId}`]);
    for (const [key, value] of Object.entries(fields)) assert.deepEqual(patched[key], value, `${typeId}.${key} kept by PATCH`);
    assertInvalid(await controller.http.patch(mgmt(`/posture-checks/${id}`), { headers: admin, body: { typeId: typeId === 'OS' ? 'MAC' : 'OS' } }), 'typeId', /cannot change/);
    // PUT needs the type's fields.
    const firstRequired = typeId === 'PROCESS_MULTI' ? 'semantic' : Object.keys(fields)[0]!;
    assertInvalid(await controller.http.put(mgmt(`/posture-checks/${id}`), { headers: admin, body: { typeId, name: `crud-${typeId}` } }), firstRequired);
    assert.equal((await controller.http.put(mgmt(`/posture-checks/${id}`), { headers: admin, body: { typeId, name: `crud-${typeId}`, ...fields } })).status, 200);
    assert.equal((await controller.http.get(mgmt(`/posture-checks/${id}`), { headers: admin })).json.data.version, 3);
  }
  const list = await controller.http.get(mgmt('/posture-checks?filter=' + encodeURIComponent('name contains "crud-"')), { headers: admin });
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.json.data.map((check: { typeId: string }) => check.typeId).sort(), Object.keys(kinds).sort());

  const post = (body: Record<string, unknown>) => controller.http.post(mgmt('/posture-checks'), { headers: admin, body: { name: 'bad', ...body } });
  assertInvalid(await post({ typeId: 'OS' }), 'operatingSystems');
  assertInvalid(await post({ typeId: 'OS', operatingSystems: [] }), 'operatingSystems');
  assertInvalid(await post({ typeId: 'OS', operatingSystems: [{ type: 'Plan9', versions: [] }] }), 'operatingSystems.0.type');
  assertInvalid(await post({ typeId: 'OS', operatingSystems: [{ type: 'Linux', versions: ['>=10'] }] }), 'operatingSystems[0].versions[0]', /not a version comparison/);
  assertInvalid(await post({ typeId: 'MAC', macAddresses: ['not-a-mac'] }), 'macAddresses[0]', /12 hex digits/);
  assertInvalid(await post({ typeId: 'MAC', macAddresses: [] }), 'macAddresses');
  assertInvalid(await post({ typeId: 'DOMAIN', domains: [''] }), 'domains.0');
  assertInvalid(await post({ typeId: 'PROCESS', process: { osType: 'Linux' } }), 'process.path');
  assertInvalid(await post({ typeId: 'PROCESS', process: { osType: 'Linux', path: '/x', hashes: ['xyz!'] } }), 'process.hashes.0');
  assertInvalid(await post({ typeId: 'PROCESS_MULTI', semantic: 'Most', processes: [{ osType: 'Linux', path: '/x' }] }), 'semantic');
  assertInvalid(await post({ typeId: 'PROCESS_MULTI', semantic: 'AllOf', processes: [] }), 'processes');
  assertInvalid(await post({ typeId: 'FOO' }), 'typeId');
  const count = (await controller.http.get(mgmt('/posture-checks?filter=' + encodeURIComponent('name = "bad"')), { headers: admin })).json.data.length;
  assert.equal(count, 0, 'nothing refused was written');
});

test('OS, MAC and DOMAIN responses decide the session and the postureQueries; a bulk answer counts as one', async () => {
  const osCheck = await createCheck({ typeId: 'OS', name: 'dev-os', operatingSystems: [{ type: 'Linux', versions: ['>=6.0.0 <7.0.0'] }] });
  const macCheck = await createCheck({ typeId: 'MAC', name: 'dev-mac', macAddresses: ['00:11:22:33:44:55'] });
  const domainCheck = await createCheck({ typeId: 'DOMAIN', name: 'dev-domain', domains: ['corp.example'] });
  const { token, serviceId, policyId } = await guardedService('device-user', [osCheck, macCheck, domainCheck]);

  const queries = async () => {
    const detail = await clientService(controller, token, serviceId);
    assert.equal(detail.status, 200, detail.text);
    const [set] = detail.json.data.postureQueries;
    assert.equal(set.policyId, policyId);
    return { isPassing: set.isPassing as boolean, byType: Object.fromEntries(set.postureQueries.map((query: { queryType: string; isPassing: boolean; timeout: number }) => [query.queryType, [query.isPassing, query.timeout]])) };
  };
  assert.deepEqual(await queries(), { isPassing: false, byType: { OS: [false, -1], MAC: [false, -1], DOMAIN: [false, -1] } });
  const refused = await openSession(controller, token, serviceId);
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.json.error.code, 'INVALID_POSTURE');

  const single = await respond(token, { id: osCheck, typeId: 'OS', type: 'Linux', version: '6.1.0', build: '1' });
  assert.equal(single.status, 201, single.text);
  assert.deepEqual(single.json.data, { services: [] });
  assert.deepEqual((await queries()).byType, { OS: [true, -1], MAC: [false, -1], DOMAIN: [false, -1] });

  const bulk = await respondBulk(token, [
    { id: macCheck, typeId: 'MAC', macAddresses: ['de:ad:be:ef:00:01', '00-11-22-33-44-55'] },
    { id: domainCheck, typeId: 'DOMAIN', domain: 'CORP.example' },
  ]);
  assert.equal(bulk.status, 200, bulk.text);
  assert.deepEqual(await queries(), { isPassing: true, byType: { OS: [true, -1], MAC: [true, -1], DOMAIN: [true, -1] } });
  const opened = await openSession(controller, token, serviceId);
  assert.equal(opened.status, 201, opened.text);

  // A newer OS outside the range fails again.
  assert.equal((await respond(token, { id: osCheck, typeId: 'OS', type: 'Linux', version: '7.0.0' })).status, 201);
  assert.equal((await queries()).byType.OS[0], false);
  assert.equal((await openSession(controller, token, serviceId)).json.error.code, 'INVALID_POSTURE');
});

test('PROCESS and PROCESS_MULTI responses: running with the right hash passes, stopped fails; processes are shown to the client', async () => {
  const single = await createCheck({ typeId: 'PROCESS', name: 'proc-one', process: { osType: 'Linux', path: '/opt/agent', hashes: ['AA11'] } });
  const multi = await createCheck({ typeId: 'PROCESS_MULTI', name: 'proc-all', semantic: 'AllOf', processes: [{ osType: 'Linux', path: '/opt/a' }, { osType: 'Linux', path: '/opt/b', signerFingerprints: ['f1'] }] });
  const { token, serviceId } = await guardedService('process-user', [single, multi]);
  const detail = (await clientService(controller, token, serviceId)).json.data.postureQueries[0].postureQueries;
  const shown = Object.fromEntries(detail.map((query: { id: string; process?: unknown; processes?: unknown }) => [query.id, query.process ?? query.processes]));
  assert.deepEqual(shown, { [single]: { osType: 'Linux', path: '/opt/agent' }, [multi]: [{ osType: 'Linux', path: '/opt/a' }, { osType: 'Linux', path: '/opt/b' }] });

  assert.equal((await respondBulk(token, [
    { id: single, typeId: 'PROCESS', isRunning: true, hash: 'aa11' },
    { id: multi, typeId: 'PROCESS', path: '/opt/a', isRunning: true },
    { id: multi, typeId: 'PROCESS', path: '/opt/b', isRunning: true, signerFingerprints: ['F1'] },
  ])).status, 200);
  assert.equal((await openSession(controller, token, serviceId)).status, 201);
  assert.equal((await respond(token, { id: multi, typeId: 'PROCESS', path: '/opt/b', isRunning: false })).status, 201);
  assert.equal((await openSession(controller, token, serviceId)).json.error.code, 'INVALID_POSTURE', 'AllOf: one process stopped');
  assert.equal((await respond(token, { id: multi, typeId: 'PROCESS', path: '/opt/b', isRunning: true, signerFingerprints: ['f1'] })).status, 201);
  assert.equal((await respond(token, { id: single, typeId: 'PROCESS', isRunning: true, hash: 'bb22' })).status, 201);
  assert.equal((await openSession(controller, token, serviceId)).json.error.code, 'INVALID_POSTURE', 'a hash not listed');

  // Bad responses are refused whole, naming the field; what was kept stays.
  assertInvalid(await respond(token, { id: serviceId, typeId: 'PROCESS', isRunning: true }), 'id', /PROCESS or PROCESS_MULTI/);
  assertInvalid(await respond(token, { id: multi, typeId: 'PROCESS', isRunning: true }), 'path', /PROCESS_MULTI/);
  assertInvalid(await respond(token, { id: 'x', typeId: 'OS', type: 'Linux' }), 'version');
  assertInvalid(await respond(token, { id: 'x', typeId: 'BOGUS' }), 'typeId');
  assertInvalid(await respond(token, { typeId: 'OS' }), 'id');
  assertInvalid(await respondBulk(token, [{ id: single, typeId: 'PROCESS', isRunning: true, hash: 'aa11' }, { id: 'x', typeId: 'MAC' }]), '[1].macAddresses');
  assertInvalid(await respondBulk(token, { id: 'x', typeId: 'MAC', macAddresses: [] }), '(root)');
  assertInvalid(await respondBulk(token, Array.from({ length: 101 }, () => ({ id: 'x', typeId: 'DOMAIN', domain: 'd' }))), '(root)', /at most 100/);
  assert.equal((await openSession(controller, token, serviceId)).json.error.code, 'INVALID_POSTURE', 'the refused bulk kept nothing (its valid first item included)');
  assert.equal((await respond('not-a-session', { id: 'x', typeId: 'DOMAIN', domain: 'd' })).status, 401);
});

test('an ENDPOINT_STATE wake after the MFA answer reports the shortened MFA timer', async () => {
  const { AuthenticatorApp } = await import('./support/authenticator-app.ts');
  const check = await createCheck({ typeId: 'MFA', name: 'mfa-wake', timeoutSeconds: 3600, promptOnWake: true });
  const { token, serviceId } = await guardedService('wake-user', [check]);
  const headers = as(token);
  assert.equal((await controller.http.post(client('/current-identity/mfa'), { headers, body: {} })).status, 201);
  const app = AuthenticatorApp.fromUrl((await controller.http.get(client('/current-identity/mfa'), { headers })).json.data.provisioningUrl);
  assert.equal((await controller.http.post(client('/current-identity/mfa/verify'), { headers, body: { code: await app.nextCode() } })).status, 200);
  assert.equal((await openSession(controller, token, serviceId)).status, 201);

  const woken = await respond(token, { id: 'endpoint', typeId: 'ENDPOINT_STATE', woken: true });
  assert.equal(woken.status, 201, woken.text);
  assert.equal(woken.json.data.services.length, 1);
  const [timer] = woken.json.data.services;
  assert.deepEqual([timer.id, timer.name, timer.postureQueryType, timer.timeout], [serviceId, 'wake-user-svc', 'MFA', 3600]);
  assert.ok(timer.timeoutRemaining <= 300 && timer.timeoutRemaining >= 295, `the 5-minute grace: ${timer.timeoutRemaining}`);
  const query = (await clientService(controller, token, serviceId)).json.data.postureQueries[0].postureQueries[0];
  assert.deepEqual([query.isPassing, query.promptOnWake, query.timeoutRemaining <= 300], [true, true, true]);
});

test('GET /identities/{id}/posture-data shows what the identity\'s sessions reported, in the spec\'s shape', async () => {
  const identityId = await setup.createUser('data-user', password);
  const token = await controller.login('data-user', password);
  const empty = await controller.http.get(mgmt(`/identities/${identityId}/posture-data`), { headers: admin });
  assert.equal(empty.status, 200, empty.text);
  assert.deepEqual(empty.json.data.os, { postureCheckId: '', timedOut: false, lastUpdatedAt: '0001-01-01T00:00:00.000Z', type: '', version: '', build: '' });
  assert.deepEqual(empty.json.data.processes, []);
  const sessionIds = Object.keys(empty.json.data.apiSessionPostureData);
  assert.equal(sessionIds.length, 1);
  assert.equal(empty.json.data.apiSessionPostureData[sessionIds[0]!].mfa.passedMfa, false);

  assert.equal((await respondBulk(token, [
    { id: 'o', typeId: 'OS', type: 'macOS', version: '14.2.1', build: '23C71' },
    { id: 'm', typeId: 'MAC', macAddresses: ['aa:bb:cc:dd:ee:ff'] },
    { id: 'd', typeId: 'DOMAIN', domain: 'home' },
    { id: 'e', typeId: 'ENDPOINT_STATE', unlocked: true },
  ])).status, 200);
  const data = (await controller.http.get(mgmt(`/identities/${identityId}/posture-data`), { headers: admin })).json.data;
  assert.deepEqual([data.os.type, data.os.version, data.os.build, data.mac.addresses, data.domain.domain], ['macOS', '14.2.1', '23C71', ['aa:bb:cc:dd:ee:ff'], 'home']);
  assert.ok(Date.parse(data.os.lastUpdatedAt) > Date.now() - 60_000);
  assert.ok(Date.parse(data.apiSessionPostureData[sessionIds[0]!].endpointState.unlockedAt) > Date.now() - 60_000);
  assert.equal((await controller.http.get(mgmt('/identities/no-such-identity/posture-data'), { headers: admin })).status, 404);
  assert.equal((await controller.http.get(mgmt(`/identities/${identityId}/posture-data`), { headers: as(token) })).status, 401);
  // Logging out drops the session's data.
  assert.equal((await controller.http.delete(client('/current-api-session'), { headers: as(token) })).status, 200);
  const after = (await controller.http.get(mgmt(`/identities/${identityId}/posture-data`), { headers: admin })).json.data;
  assert.deepEqual([after.os.type, Object.keys(after.apiSessionPostureData)], ['', []]);
});

test('the new answers validate against the 0.29 spec: check details of every type, posture responses, posture data, process queries', async () => {
  const schemas = { management: EdgeApiSchemas.load('management'), client: EdgeApiSchemas.load('client') };
  const problems: string[] = [];
  const check = async (api: 'management' | 'client', method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: unknown) => {
    const base = api === 'management' ? controller.managementApi : controller.clientApi;
    const response = method === 'GET' ? await controller.http.get(`${base}${path}`, { headers }) : await controller.http.post(`${base}${path}`, { headers, body });
    assert.ok(response.status < 300, `${method} ${path}: ${response.text}`);
    problems.push(...schemas[api].problems(method, path, response.status, response.json));
    return response.json;
  };
  const ids = [
    await createCheck({ typeId: 'OS', name: 'spec-os', operatingSystems: [{ type: 'Linux', versions: ['>=1.0.0'] }] }),
    await createCheck({ typeId: 'MAC', name: 'spec-mac', macAddresses: ['001122334455'] }),
    await createCheck({ typeId: 'DOMAIN', name: 'spec-domain', domains: ['d'] }),
    await createCheck({ typeId: 'PROCESS', name: 'spec-process', process: { osType: 'Linux', path: '/p' } }),
    await createCheck({ typeId: 'PROCESS_MULTI', name: 'spec-multi', semantic: 'AllOf', processes: [{ osType: 'Linux', path: '/q' }] }),
    await createCheck({ typeId: 'MFA', name: 'spec-mfa', promptOnUnlock: true }),
  ];
  for (const id of ids) await check('management', 'GET', `/posture-checks/${id}`, admin);
  await check('management', 'GET', '/posture-checks', admin);
  const { token, serviceId, identityId } = await guardedService('spec-user', ids);
  await check('client', 'POST', '/posture-response', as(token), { id: ids[3], typeId: 'PROCESS', isRunning: true, hash: 'aa', signerFingerprints: ['bb'] });
  await check('client', 'POST', '/posture-response-bulk', as(token), [{ id: ids[0], typeId: 'OS', type: 'Linux', version: '1.2.3' }, { id: 'e', typeId: 'ENDPOINT_STATE', woken: true, unlocked: true }]);
  await check('client', 'GET', `/services/${serviceId}`, as(token));
  await check('client', 'GET', '/services', as(token));
  await check('management', 'GET', `/identities/${identityId}/posture-data`, admin);
  assert.deepEqual(problems, []);
});

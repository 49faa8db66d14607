// Identities and authenticators on the Management API, and what bad input gets, against a real controller.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { ControllerFixture } from './support/controller-fixture.ts';

let controller: ControllerFixture;
let headers: Record<string, string>;
before(async () => {
  controller = await ControllerFixture.create();
  headers = { 'zt-session': await controller.adminToken() };
});
after(async () => controller?.dispose());

const api = (path: string) => `${controller.managementApi}${path}`;

/** The events file's text and its events that `wanted` keeps, once there are `count` of them (or after 2.5 s):
 * events are written on the tick after the change, so a test waits for them. */
async function eventsFound(wanted: (event: any) => boolean, count: number): Promise<{ text: string; events: any[] }> {
  let text = '';
  let events: any[] = [];
  for (let i = 0; i < 50 && events.length < count; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    text = readFileSync(controller.eventsFile, 'utf8');
    events = text.trim().split('\n').map((line) => JSON.parse(line)).filter(wanted);
  }
  return { text, events };
}

async function createIdentity(body: Record<string, unknown>): Promise<string> {
  const response = await controller.http.post(api('/identities'), { headers, body });
  assert.equal(response.status, 201, response.text);
  return response.json.data.id as string;
}

test('create answers 201 with the id and a relative self link; detail has the real fields', async () => {
  const response = await controller.http.post(api('/identities'), { headers, body: { name: 'laptop-1', type: 'Device', isAdmin: false, roleAttributes: ['laptops', 'sales'], externalId: 'ext-laptop-1', tags: { owner: 'it' } } });
  assert.equal(response.status, 201);
  const id = response.json.data.id as string;
  assert.match(id, /^[0-9A-Za-z.-]{10}$/);
  assert.deepEqual(response.json, { data: { id, _links: { self: { href: `./identities/${id}` } } }, meta: {} });

  const detail = await controller.http.get(api(`/identities/${id}`), { headers });
  assert.equal(detail.status, 200);
  const identity = detail.json.data;
  assert.equal(identity.name, 'laptop-1');
  assert.equal(identity.typeId, 'Default', 'new identities are always of type Default');
  assert.equal(identity.type.entity, 'identity-types');
  assert.equal(identity.isAdmin, false);
  assert.equal(identity.authPolicyId, 'default');
  assert.equal(identity.authPolicy.name, 'Default');
  assert.equal(identity.externalId, 'ext-laptop-1');
  assert.deepEqual(identity.roleAttributes, ['laptops', 'sales']);
  assert.deepEqual(identity.tags, { owner: 'it' });
  assert.ok(Date.parse(identity.createdAt) > 0 && identity.createdAt === identity.updatedAt);
  assert.equal(identity._links.self.href, `./identities/${id}`);
});

test('names and external ids are unique: a clash is 400 COULD_NOT_VALIDATE naming the field', async () => {
  await createIdentity({ name: 'unique-name', isAdmin: false, externalId: 'unique-ext' });
  const byName = await controller.http.post(api('/identities'), { headers, body: { name: 'unique-name', isAdmin: false } });
  assert.equal(byName.status, 400);
  assert.equal(byName.json.error.code, 'COULD_NOT_VALIDATE');
  assert.equal(byName.json.error.cause.field, 'name');
  assert.match(byName.json.error.cause.reason, /duplicate value 'unique-name' in unique index on identities store/);
  const byExternalId = await controller.http.post(api('/identities'), { headers, body: { name: 'other-name', isAdmin: false, externalId: 'unique-ext' } });
  assert.equal(byExternalId.json.error.cause.field, 'externalId');
  const list = await controller.http.get(api(`/identities?filter=${encodeURIComponent('name = "other-name"')}`), { headers });
  assert.equal(list.json.meta.pagination.totalCount, 0, 'the refused create left nothing behind');
});

test('list supports limit, offset, sort and filters with contains and and', async () => {
  for (let i = 0; i < 12; i++) await createIdentity({ name: `fleet-${String(i).padStart(2, '0')}`, isAdmin: false, roleAttributes: i % 2 ? ['odd'] : ['even'] });
  const page = await controller.http.get(api(`/identities?filter=${encodeURIComponent('name contains "fleet-"')}&sort=${encodeURIComponent('name desc')}&limit=5&offset=2`), { headers });
  assert.equal(page.status, 200);
  assert.deepEqual(page.json.meta.pagination, { limit: 5, offset: 2, totalCount: 12 });
  assert.deepEqual(page.json.data.map((row: { name: string }) => row.name), ['fleet-09', 'fleet-08', 'fleet-07', 'fleet-06', 'fleet-05']);
  assert.ok(page.json.meta.filterableFields.includes('name'));

  const both = await controller.http.get(api(`/identities?filter=${encodeURIComponent('name contains "fleet-" and anyOf(roleAttributes) = "odd" and name != "fleet-01"')}&limit=100`), { headers });
  assert.equal(both.json.meta.pagination.totalCount, 5);
  const exact = await controller.http.get(api(`/identities?filter=${encodeURIComponent('name = "fleet-03"')}`), { headers });
  assert.equal(exact.json.data.length, 1);

  const defaults = await controller.http.get(api('/identities'), { headers });
  assert.equal(defaults.json.meta.pagination.limit, 10);
  const capped = await controller.http.get(api('/identities?limit=100000'), { headers });
  assert.equal(capped.json.meta.pagination.limit, 500);
});

test('name text filters (contains, icontains, startswith, endswith) answer exactly, with mixed case and Greek, across renames', async () => {
  const names = ['Text-Alpha-1', 'text-alpha-2', 'TEXT-BETA-3', 'ΚΟΣΑ-4', 'κοσ-5', 'ΚΟΣ'];
  const ids = new Map<string, string>();
  for (const name of names) ids.set(name, await createIdentity({ name, isAdmin: false }));
  const listed = async (filter: string) => {
    const response = await controller.http.get(api(`/identities?filter=${encodeURIComponent(filter)}&sort=name&limit=100`), { headers });
    assert.equal(response.status, 200, response.text);
    return response.json.data.map((row: { name: string }) => row.name);
  };
  assert.deepEqual(await listed('name icontains "TEXT-ALPHA"'), ['Text-Alpha-1', 'text-alpha-2']);
  assert.deepEqual(await listed('name contains "ext-alpha"'), ['text-alpha-2']);
  assert.deepEqual(await listed('name startswith "TEXT-" or name endswith "Alpha-1"'), ['TEXT-BETA-3', 'Text-Alpha-1']);
  // "ΚΟΣΑ-4" lowercases to "κοσα-4": it holds "ΚΟΣ" exactly but not the lowercasing of "ΚΟΣ" ("κος").
  assert.deepEqual(await listed('name contains "ΚΟΣ"'), ['ΚΟΣ', 'ΚΟΣΑ-4']);
  assert.deepEqual(await listed('name icontains "ΚΟΣ"'), ['ΚΟΣ']);
  assert.deepEqual(await listed('name icontains "κοσ"'), ['ΚΟΣΑ-4', 'κοσ-5']);

  const renamed = await controller.http.patch(api(`/identities/${ids.get('text-alpha-2')}`), { headers, body: { name: 'text-gamma-2' } });
  assert.equal(renamed.status, 200);
  assert.deepEqual(await listed('name icontains "TEXT-ALPHA"'), ['Text-Alpha-1']);
  assert.deepEqual(await listed('name icontains "xt-gam"'), ['text-gamma-2']);
});

test('bad list queries are 400 with the specific code', async () => {
  const cases: Array<[string, string]> = [
    [`filter=${encodeURIComponent('name = ')}`, 'INVALID_FILTER'],
    [`filter=${encodeURIComponent('colour = "red"')}`, 'INVALID_FILTER'],
    [`sort=${encodeURIComponent('shoeSize asc')}`, 'INVALID_SORT_IDENTIFIER'],
    ['limit=abc', 'INVALID_PAGINATION'],
    ['offset=1.5', 'INVALID_PAGINATION'],
  ];
  for (const [query, code] of cases) {
    const response = await controller.http.get(api(`/identities?${query}`), { headers });
    assert.equal(response.status, 400, query);
    assert.equal(response.json.error.code, code, query);
  }
});

test('PUT replaces, PATCH changes only what it names, DELETE removes; unknown ids are 404', async () => {
  const id = await createIdentity({ name: 'mutable', isAdmin: false, roleAttributes: ['a'], tags: { keep: true } });
  const patched = await controller.http.patch(api(`/identities/${id}`), { headers, body: { roleAttributes: ['b'] } });
  assert.equal(patched.status, 200);
  assert.deepEqual(patched.json, { data: {}, meta: {} });
  let detail = (await controller.http.get(api(`/identities/${id}`), { headers })).json.data;
  assert.deepEqual(detail.roleAttributes, ['b']);
  assert.deepEqual(detail.tags, { keep: true });
  assert.ok(detail.updatedAt > detail.createdAt);

  const put = await controller.http.put(api(`/identities/${id}`), { headers, body: { name: 'mutable-renamed', isAdmin: true, type: 'User' } });
  assert.equal(put.status, 200);
  detail = (await controller.http.get(api(`/identities/${id}`), { headers })).json.data;
  assert.equal(detail.name, 'mutable-renamed');
  assert.equal(detail.isAdmin, true);
  assert.deepEqual(detail.roleAttributes, [], 'PUT resets what it does not name');
  assert.deepEqual(detail.tags, {});

  const emptyPatch = await controller.http.patch(api(`/identities/${id}`), { headers: { ...headers, 'content-type': 'application/json' }, rawBody: '' });
  assert.equal(emptyPatch.status, 200, 'an empty body with Content-Type: application/json is accepted where the body is optional');

  assert.equal((await controller.http.delete(api(`/identities/${id}`), { headers })).status, 200);
  for (const response of [
    await controller.http.get(api(`/identities/${id}`), { headers }),
    await controller.http.patch(api(`/identities/${id}`), { headers, body: { name: 'ghost' } }),
    await controller.http.delete(api(`/identities/${id}`), { headers }),
  ]) {
    assert.equal(response.status, 404);
    assert.equal(response.json.error.code, 'NOT_FOUND');
  }
});

test('the default admin cannot be deleted or demoted', async () => {
  const admins = await controller.http.get(api(`/identities?filter=${encodeURIComponent('isDefaultAdmin = true')}`), { headers });
  const adminId = admins.json.data[0].id as string;
  const deleted = await controller.http.delete(api(`/identities/${adminId}`), { headers });
  assert.equal(deleted.status, 400);
  assert.equal(deleted.json.error.code, 'ENTITY_CAN_NOT_BE_DELETED');
  const demoted = await controller.http.patch(api(`/identities/${adminId}`), { headers, body: { isAdmin: false } });
  assert.equal(demoted.status, 400);
  assert.equal(demoted.json.error.cause.field, 'isAdmin');
  const authenticatorId = admins.json.data[0].authenticators.updb.id as string;
  const lockout = await controller.http.delete(api(`/authenticators/${authenticatorId}`), { headers });
  assert.equal(lockout.status, 400, 'the default admin cannot lose its only way in');
  assert.equal(lockout.json.error.code, 'ENTITY_CAN_NOT_BE_DELETED');
});

test('bad identity bodies: wrong types, missing and unknown values, malformed JSON; nothing half-created', async () => {
  const before = (await controller.http.get(api('/identities?limit=1'), { headers })).json.meta.pagination.totalCount;
  const cases: Array<[unknown, string, string]> = [
    [{ isAdmin: false }, 'COULD_NOT_VALIDATE', 'name'],
    [{ name: 'x1', isAdmin: 'yes' }, 'COULD_NOT_VALIDATE', 'isAdmin'],
    [{ name: 'x2', isAdmin: false, type: 'Robot' }, 'COULD_NOT_VALIDATE', 'type'],
    [{ name: 'x3', isAdmin: false, roleAttributes: 'admins' }, 'COULD_NOT_VALIDATE', 'roleAttributes'],
    [{ name: 'x4', isAdmin: false, roleAttributes: [1, 2] }, 'COULD_NOT_VALIDATE', 'roleAttributes.0'],
    [{ name: 'x5', isAdmin: false, authPolicyId: 'no-such-policy' }, 'COULD_NOT_VALIDATE', 'authPolicyId'],
    [{ name: '', isAdmin: false }, 'COULD_NOT_VALIDATE', 'name'],
    [['name', 'isAdmin'], 'COULD_NOT_VALIDATE', '(root)'],
    ['just a string', 'COULD_NOT_VALIDATE', '(root)'],
  ];
  for (const [body, code, field] of cases) {
    const response = await controller.http.post(api('/identities'), { headers, body });
    assert.equal(response.status, 400, JSON.stringify(body));
    assert.equal(response.json.error.code, code);
    assert.equal(response.json.error.cause.field, field, JSON.stringify(body));
  }
  const malformed = await controller.http.post(api('/identities'), { headers: { ...headers, 'content-type': 'application/json' }, rawBody: '{"name": "broken", "isAdmin": fals' });
  assert.equal(malformed.status, 400);
  assert.equal(malformed.json.error.code, 'COULD_NOT_PARSE_BODY');
  const extra = await controller.http.post(api('/identities'), { headers, body: { name: 'with-extras', isAdmin: false, shoeSize: 44 } });
  assert.equal(extra.status, 201, 'unknown fields are ignored');
  const after = (await controller.http.get(api('/identities?limit=1'), { headers })).json.meta.pagination.totalCount;
  assert.equal(after, before + 1);
});

test('updb authenticators: create for an identity, log in, change the password as admin, delete', async () => {
  const id = await createIdentity({ name: 'dana', isAdmin: false });
  const weak = await controller.http.post(api('/authenticators'), { headers, body: { method: 'updb', identityId: id, username: 'dana', password: 'abc' } });
  assert.equal(weak.status, 400);
  assert.equal(weak.json.error.cause.field, 'password');
  const missingIdentity = await controller.http.post(api('/authenticators'), { headers, body: { method: 'updb', identityId: 'nope', username: 'dana', password: 'dana-password' } });
  assert.equal(missingIdentity.json.error.cause.field, 'identityId');

  const created = await controller.http.post(api('/authenticators'), { headers, body: { method: 'updb', identityId: id, username: 'dana', password: 'dana-password' } });
  assert.equal(created.status, 201, created.text);
  const authenticatorId = created.json.data.id as string;
  const duplicate = await controller.http.post(api('/authenticators'), { headers, body: { method: 'updb', identityId: id, username: 'dana2', password: 'dana-password' } });
  assert.equal(duplicate.status, 400);

  const detail = await controller.http.get(api(`/authenticators/${authenticatorId}`), { headers });
  assert.equal(detail.json.data.username, 'dana');
  assert.equal(detail.json.data.method, 'updb');
  assert.ok(!detail.text.includes('scrypt') && !('password' in detail.json.data), 'no password material is returned');
  const identity = await controller.http.get(api(`/identities/${id}`), { headers });
  assert.deepEqual(identity.json.data.authenticators.updb, { id: authenticatorId, username: 'dana' });

  assert.ok(await controller.login('dana', 'dana-password'));
  const changed = await controller.http.patch(api(`/authenticators/${authenticatorId}`), { headers, body: { password: 'dana-new-password' } });
  assert.equal(changed.status, 200);
  const old = await controller.http.post(`${controller.clientApi}/authenticate?method=password`, { body: { username: 'dana', password: 'dana-password' } });
  assert.equal(old.status, 401);
  assert.ok(await controller.login('dana', 'dana-new-password'));

  assert.equal((await controller.http.delete(api(`/authenticators/${authenticatorId}`), { headers })).status, 200);
  const gone = await controller.http.post(`${controller.clientApi}/authenticate?method=password`, { body: { username: 'dana', password: 'dana-new-password' } });
  assert.equal(gone.status, 401);
});

test('deleting an identity ends its sessions and removes its authenticators', async () => {
  const id = await createIdentity({ name: 'leaver', isAdmin: false });
  await controller.http.post(api('/authenticators'), { headers, body: { method: 'updb', identityId: id, username: 'leaver', password: 'leaver-password' } });
  const token = await controller.login('leaver', 'leaver-password');
  assert.equal((await controller.http.delete(api(`/identities/${id}`), { headers })).status, 200);
  const session = await controller.http.get(`${controller.clientApi}/current-api-session`, { headers: { 'zt-session': token } });
  assert.equal(session.status, 401);
  const authenticators = await controller.http.get(api(`/authenticators?filter=${encodeURIComponent(`identityId = "${id}"`)}`), { headers });
  assert.equal(authenticators.json.meta.pagination.totalCount, 0);
});

test('every write shows up in the events file with its raft index', async () => {
  const id = await createIdentity({ name: 'evented', isAdmin: false });
  await eventsFound((event) => event.finalState?.id === id, 1);
  const events = readFileSync(controller.eventsFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  const created = events.find((event) => event.finalState?.id === id);
  assert.ok(created, 'the create is in the events file');
  assert.equal(created.namespace, 'entityChange');
  assert.equal(created.eventType, 'created');
  assert.equal(created.entityType, 'identities');
  assert.ok(Number.isInteger(created.raftIndex) && created.raftIndex > 0);
  assert.equal(created.metadata.raft_index, created.raftIndex);
  assert.ok(Date.parse(created.timestamp) > 0);
  assert.ok(events.every((event) => !JSON.stringify(event).includes('scrypt')), 'no password hashes in events');
});

test('logins and logouts show up as apiSession events, with the identity and address but never the token', async () => {
  const id = await createIdentity({ name: 'session-evented', isAdmin: false });
  await controller.http.post(api('/authenticators'), { headers, body: { method: 'updb', identityId: id, username: 'session-evented', password: 'session-evented-pw' } });
  const token = await controller.login('session-evented', 'session-evented-pw');
  const current = await controller.http.get(`${controller.clientApi}/current-api-session`, { headers: { 'zt-session': token } });
  const sessionId = current.json.data.id as string;
  assert.equal((await controller.http.delete(`${controller.clientApi}/current-api-session`, { headers: { 'zt-session': token } })).status, 200);
  const { text, events: sessionEvents } = await eventsFound((event) => event.namespace === 'apiSession' && event.id === sessionId, 2);
  assert.deepEqual(
    sessionEvents.map((event) => [event.event_type, event.identity_id, event.ip_address, event.type, event.event_src_id]),
    [
      ['created', id, '127.0.0.1', 'legacy', controller.id],
      ['deleted', id, '127.0.0.1', 'legacy', controller.id],
    ],
  );
  assert.ok(sessionEvents.every((event) => Number.isInteger(event.raftIndex) && Date.parse(event.timestamp) > 0));
  assert.ok(!text.includes(token), 'no session token anywhere in the events file');
});

test('a refused and an accepted password login show up as authentication events of this controller', async () => {
  const id = await createIdentity({ name: 'auth-evented', isAdmin: false });
  const authenticator = await controller.http.post(api('/authenticators'), { headers, body: { method: 'updb', identityId: id, username: 'auth-evented', password: 'auth-evented-pw' } });
  const authenticatorId = authenticator.json.data.id as string;
  const refused = await controller.http.post(`${controller.clientApi}/authenticate?method=password`, { body: { username: 'auth-evented', password: 'not-the-password' } });
  assert.equal(refused.status, 401);
  await controller.login('auth-evented', 'auth-evented-pw');
  const { text, events: attempts } = await eventsFound((event) => event.namespace === 'authentication' && event.identity_id === id, 2);
  const common = { namespace: 'authentication', event_src_id: controller.id, type: 'updb', authenticator_id: authenticatorId, external_jwt_signer_id: '', identity_id: id, remote_address: '127.0.0.1', improper_client_cert_chain: false };
  assert.deepEqual(
    attempts.map(({ timestamp, ...rest }) => (assert.ok(Date.parse(timestamp) > 0), rest)),
    [
      { ...common, event_type: 'fail', auth_policy_id: '', success: false, reason: 'wrong password' },
      { ...common, event_type: 'success', auth_policy_id: 'default', success: true, reason: '' },
    ],
  );
  assert.ok(!text.includes('not-the-password') && !text.includes('auth-evented-pw'), 'no password in the events file');
});

test('a login refused before any credential check is an authentication event naming the error code and its message', async () => {
  const refused = await controller.http.post(`${controller.clientApi}/authenticate?method=password`, { body: { username: 'malformed-login' } });
  assert.equal(refused.status, 400);
  assert.equal(refused.json.error.code, 'COULD_NOT_VALIDATE');
  const { events } = await eventsFound((event) => event.namespace === 'authentication' && String(event.reason).startsWith('COULD_NOT_VALIDATE'), 1);
  assert.equal(events.length, 1);
  assert.equal(events[0].reason, `COULD_NOT_VALIDATE: ${refused.json.error.message}`);
  assert.equal(events[0].reason, 'COULD_NOT_VALIDATE: The supplied request contains an invalid document or no valid accept content were available, see cause');
});

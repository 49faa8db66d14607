// Revocations applied through raft on the model: an API_SESSION revocation ends that session and its service
// sessions, an IDENTITY revocation ends every session the identity has then (and none made later), a JTI revocation
// makes the enrollment token it names unredeemable, and pruning removes expired rows, at most `limit` per entry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tables, type ApiSession, type Enrollment, type Identity } from './entities.ts';
import { openTestModel } from './model-test-harness.ts';
import { revocationTables, type Revocation, type RevocationType } from './revocation-entities.ts';
import { serviceTables, type ServiceSession } from './service-entities.ts';

const openModel = () => openTestModel({ prefix: 'edgeward-revocations-' });

const at = '2026-01-01T00:00:00.000Z';
const later = '2026-01-02T00:00:00.000Z';
const base = (id: string) => ({ id, createdAt: at, updatedAt: at, tags: {} });
const identity = (id: string): Identity => ({
  ...base(id), name: id, typeId: 'User', isAdmin: false, isDefaultAdmin: false, authPolicyId: 'default', externalId: null, roleAttributes: [], disabledAt: null, disabledUntil: null,
});
const apiSession = (id: string, identityId: string): ApiSession => ({
  ...base(id), tokenHash: `hash-${id}`, identityId, authenticatorId: 'a', authMethod: 'password', ipAddress: '127.0.0.1', configTypes: [], authQueries: [], isMfaRequired: false, isMfaComplete: false, lastActivityAt: at,
});
const serviceSession = (id: string, apiSessionId: string, identityId: string): ServiceSession => ({
  ...base(id), apiSessionId, identityId, serviceId: 'svc', type: 'Dial', tokenHash: `hash-${id}`, servicePolicyIds: [],
});
const revocation = (id: string, type: RevocationType, expiresAt = later): Revocation => ({ ...base(id), type, expiresAt });

async function withSessions() {
  const model = await openModel();
  for (const id of ['alice', 'bob']) assert.equal((await model.apply({ type: 'identity.create', identity: identity(id) })).ok, true);
  for (const [id, owner] of [['s1', 'alice'], ['s2', 'alice'], ['s3', 'bob']] as const) assert.equal((await model.apply({ type: 'apiSession.create', session: apiSession(id, owner) })).ok, true);
  return model;
}

test('an API_SESSION revocation ends that API session and its service sessions, and is kept as a row', async () => {
  const { store, apply } = await withSessions();
  store.table<ServiceSession>(serviceTables.serviceSessions).put(serviceSession('ss1', 's1', 'alice'));
  const result = await apply({ type: 'revocation.create', revocation: revocation('s1', 'API_SESSION') });
  assert.deepEqual(result, { ok: true, value: { id: 's1', endedApiSessions: 1 } });
  assert.equal(store.table(tables.apiSessions).get('s1'), undefined);
  assert.equal(store.table(serviceTables.serviceSessions).get('ss1'), undefined, 'its service session ended with it');
  assert.ok(store.table(tables.apiSessions).get('s2'), 'another session of the identity lives on');
  assert.equal(store.table<Revocation>(revocationTables.revocations).get('s1')?.type, 'API_SESSION');
});

test('an IDENTITY revocation ends every API session the identity has then; one made after it lives', async () => {
  const { store, apply } = await withSessions();
  assert.deepEqual(await apply({ type: 'revocation.create', revocation: revocation('alice', 'IDENTITY') }), { ok: true, value: { id: 'alice', endedApiSessions: 2 } });
  assert.deepEqual(store.table<ApiSession>(tables.apiSessions).all().map((session) => session.id), ['s3']);
  assert.equal((await apply({ type: 'apiSession.create', session: apiSession('s4', 'alice') })).ok, true);
  assert.ok(store.table(tables.apiSessions).get('s4'), 'a login after the revocation is not revoked');
  // Revoking again applies again, and keeps the first createdAt.
  const again = { ...revocation('alice', 'IDENTITY', '2026-01-03T00:00:00.000Z'), createdAt: later, updatedAt: later };
  assert.deepEqual(await apply({ type: 'revocation.create', revocation: again }), { ok: true, value: { id: 'alice', endedApiSessions: 1 } });
  assert.deepEqual([store.table<Revocation>(revocationTables.revocations).get('alice')?.createdAt, store.table<Revocation>(revocationTables.revocations).get('alice')?.expiresAt], [at, '2026-01-03T00:00:00.000Z']);
});

test('an IDENTITY revocation of an unknown identity is refused and stores nothing', async () => {
  const { store, apply } = await openModel();
  const result = await apply({ type: 'revocation.create', revocation: revocation('nobody', 'IDENTITY') });
  assert.equal(result.ok ? 'applied' : result.error.code, 'NOT_FOUND');
  assert.equal(store.table(revocationTables.revocations).size, 0);
});

test('a JTI revocation makes the enrollment token it names unredeemable, until the revocation expires', async () => {
  const { store, apply } = await openModel();
  await apply({ type: 'identity.create', identity: identity('carol') });
  const enrollment: Enrollment = { ...base('e1'), method: 'updb', identityId: 'carol', token: 'tok-1', jwt: 'jwt', expiresAt: '2026-01-05T00:00:00.000Z', username: 'carol' };
  await apply({ type: 'enrollment.create', enrollment });
  await apply({ type: 'revocation.create', revocation: revocation('tok-1', 'JTI') });
  const authenticator = { ...base('auth-1'), method: 'updb' as const, identityId: 'carol', username: 'carol', password: { algorithm: 'scrypt' as const, hash: 'h', salt: 's', N: 2, r: 1, p: 1 } };
  const refused = await apply({ type: 'enrollment.complete', id: 'e1', token: 'tok-1', at, authenticator });
  assert.deepEqual(refused, { ok: false, error: { code: 'INVALID_ENROLLMENT_TOKEN', cause: { field: 'token', reason: 'the enrollment JWT was revoked' } } });
  assert.ok(store.table(tables.enrollments).get('e1'), 'the enrollment is still listed');
  // Past the revocation's expiry (but not the token's) the revocation no longer holds.
  const redeemed = await apply({ type: 'enrollment.complete', id: 'e1', token: 'tok-1', at: '2026-01-03T00:00:00.000Z', authenticator });
  assert.equal(redeemed.ok, true);
});

test('pruning removes revocations whose expiresAt has passed, at most `limit` per entry', async () => {
  const { store, apply } = await openModel();
  for (let i = 0; i < 5; i++) await apply({ type: 'revocation.create', revocation: revocation(`00000000-0000-4000-8000-00000000000${i}`, 'JTI', i < 4 ? at : later) });
  assert.deepEqual(await apply({ type: 'revocation.prune', before: at, limit: 3 }), { ok: true, value: { pruned: 3 } });
  assert.equal(store.table(revocationTables.revocations).size, 2);
  assert.deepEqual(await apply({ type: 'revocation.prune', before: at, limit: 3 }), { ok: true, value: { pruned: 1 } });
  assert.deepEqual(store.table<Revocation>(revocationTables.revocations).all().map((row) => row.expiresAt), [later], 'the unexpired one stays');
});

test('controller settings: a controller row is created once, written whole, and the global row cannot be deleted', async () => {
  const { store, apply } = await openModel();
  const setting = { ...base('ctrl2'), oidc: { redirectUris: ['https://a.example/cb'] } };
  assert.equal((await apply({ type: 'controllerSetting.create', setting })).ok, true);
  const twice = await apply({ type: 'controllerSetting.create', setting });
  assert.equal(twice.ok ? 'applied' : twice.error.code, 'COULD_NOT_VALIDATE');
  assert.equal((await apply({ type: 'controllerSetting.put', setting: { ...setting, createdAt: later, updatedAt: later, oidc: null } })).ok, true);
  assert.deepEqual(store.table('controllerSettings').get('ctrl2'), { ...base('ctrl2'), updatedAt: later, oidc: null });
  const global = await apply({ type: 'controllerSetting.delete', id: 'global' });
  assert.equal(global.ok ? 'applied' : global.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
  assert.equal((await apply({ type: 'controllerSetting.delete', id: 'ctrl2' })).ok, true);
  assert.equal(store.table('controllerSettings').size, 0);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ApiSession, type Identity } from './entities.ts';
import { openTestModel } from './model-test-harness.ts';
import { serviceTables, type PostureCheck, type Service, type ServicePolicy, type ServiceSession } from './service-entities.ts';

const openModel = () => openTestModel({ prefix: 'edgeward-services-' });

const at = '2026-01-01T00:00:00.000Z';
const base = (id: string) => ({ id, createdAt: at, updatedAt: at, tags: {} });
const identity = (id: string): Identity => ({
  ...base(id), name: id, typeId: 'Default', isAdmin: false, isDefaultAdmin: false, authPolicyId: 'default', externalId: null, roleAttributes: [], disabledAt: null, disabledUntil: null,
});
const apiSession = (id: string, identityId: string): ApiSession => ({
  ...base(id), tokenHash: `hash-${id}`, identityId, authenticatorId: 'a', authMethod: 'password', ipAddress: '127.0.0.1', configTypes: [], authQueries: [], isMfaRequired: false, isMfaComplete: false, lastActivityAt: at,
});
const service = (id: string): Service => ({ ...base(id), name: id, encryptionRequired: true, configs: [], roleAttributes: [], terminatorStrategy: 'smartrouting', maxIdleTimeMillis: 0 });
const policy = (id: string, roles: Partial<Pick<ServicePolicy, 'identityRoles' | 'serviceRoles' | 'postureCheckRoles'>> = {}): ServicePolicy => ({
  ...base(id), name: id, type: 'Dial', semantic: 'AnyOf', identityRoles: [], serviceRoles: [], postureCheckRoles: [], ...roles,
});
const check = (id: string): PostureCheck => ({ ...base(id), name: id, typeId: 'MFA', roleAttributes: [], timeoutSeconds: -1, promptOnWake: false, promptOnUnlock: false, ignoreLegacyEndpoints: false, version: 1 });
const session = (id: string, apiSessionId: string, identityId: string, serviceId: string, type: 'Dial' | 'Bind' = 'Dial'): ServiceSession => ({
  ...base(id), apiSessionId, identityId, serviceId, type, tokenHash: `token-${id}`, servicePolicyIds: [],
});

test('a policy naming an entity that does not exist is refused with the field and the missing ids', async () => {
  const model = await openModel();
  await model.ok({ type: 'identity.create', identity: identity('alice') });
  const refused = await model.apply({ type: 'servicePolicy.create', policy: policy('p', { identityRoles: ['@alice', '@ghost', '#any'] }) });
  assert.deepEqual(!refused.ok && refused.error, { code: 'COULD_NOT_VALIDATE', cause: { field: 'identityRoles', reason: 'no identities found with the given ids', value: ['ghost'] } });
  const wrongKind = await model.apply({ type: 'servicePolicy.create', policy: policy('p', { serviceRoles: ['@alice'] }) });
  assert.deepEqual(!wrongKind.ok && wrongKind.error.cause, { field: 'serviceRoles', reason: 'no services found with the given ids', value: ['alice'] });
  assert.equal(model.store.table(serviceTables.servicePolicies).size, 0);
});

test("an edge router's id names its identity in a policy's identity roles", async () => {
  const model = await openModel();
  await model.ok({
    type: 'edgeRouter.create',
    router: {
      ...base('r1'), name: 'r1', roleAttributes: [], isTunnelerEnabled: true, cost: 0, noTraversal: false, disabled: false, appData: {}, isVerified: false, fingerprint: null, certPem: null,
      enrollmentToken: 'token-r1', enrollmentJwt: 'jwt', enrollmentCreatedAt: at, enrollmentExpiresAt: at,
    },
  });
  await model.ok({ type: 'servicePolicy.create', policy: { ...policy('p', { identityRoles: ['@r1'], serviceRoles: ['#all'] }), type: 'Bind' } });
  const wrongKind = await model.apply({ type: 'servicePolicy.create', policy: policy('q', { serviceRoles: ['@r1'] }) });
  assert.deepEqual(!wrongKind.ok && wrongKind.error.cause, { field: 'serviceRoles', reason: 'no services found with the given ids', value: ['r1'] });
});

test('an id a policy already holds may stay after its entity is deleted; only newly added ids must exist', async () => {
  const model = await openModel();
  await model.ok({ type: 'postureCheck.create', check: check('c1') });
  await model.ok({ type: 'servicePolicy.create', policy: policy('p', { postureCheckRoles: ['@c1'] }) });
  await model.ok({ type: 'postureCheck.delete', id: 'c1' });
  assert.deepEqual(model.store.table<ServicePolicy>(serviceTables.servicePolicies).get('p')!.postureCheckRoles, ['@c1'], 'the dangling id stays and matches nothing');
  await model.ok({ type: 'servicePolicy.update', id: 'p', at, policy: { ...policy('p', { postureCheckRoles: ['@c1'] }), name: 'renamed' } });
  const added = await model.apply({ type: 'servicePolicy.update', id: 'p', at, policy: policy('p', { postureCheckRoles: ['@c1', '@c2'] }) });
  assert.deepEqual(!added.ok && added.error.cause, { field: 'postureCheckRoles', reason: 'no posture checks found with the given ids', value: ['c2'] });
});

test('a posture check update bumps its version in the apply', async () => {
  const model = await openModel();
  await model.ok({ type: 'postureCheck.create', check: check('c1') });
  const { version: _version, id: _id, createdAt: _c, updatedAt: _u, ...body } = check('c1');
  await model.ok({ type: 'postureCheck.update', id: 'c1', at, check: { ...body, timeoutSeconds: 30 } });
  await model.ok({ type: 'postureCheck.update', id: 'c1', at, check: body });
  const stored = model.store.table<PostureCheck>(serviceTables.postureChecks).get('c1')!;
  assert.equal(stored.version, 3);
  assert.equal(stored.timeoutSeconds, -1);
});

test('a repeated session request replaces the earlier session of the same service and type', async () => {
  const model = await openModel();
  await model.ok({ type: 'identity.create', identity: identity('alice') });
  await model.ok({ type: 'apiSession.create', session: apiSession('as1', 'alice') });
  await model.ok({ type: 'service.create', service: service('web') });
  await model.ok({ type: 'serviceSession.create', session: session('s1', 'as1', 'alice', 'web') });
  await model.ok({ type: 'serviceSession.create', session: session('s2', 'as1', 'alice', 'web', 'Bind') });
  await model.ok({ type: 'serviceSession.create', session: session('s3', 'as1', 'alice', 'web') });
  assert.deepEqual(model.store.table(serviceTables.serviceSessions).all().map((row) => row.id).sort(), ['s2', 's3']);
});

test('a session for an ended API session or a deleted service is refused as not found', async () => {
  const model = await openModel();
  await model.ok({ type: 'identity.create', identity: identity('alice') });
  await model.ok({ type: 'service.create', service: service('web') });
  const noApiSession = await model.apply({ type: 'serviceSession.create', session: session('s1', 'gone', 'alice', 'web') });
  assert.equal(!noApiSession.ok && noApiSession.error.code, 'NOT_FOUND');
  await model.ok({ type: 'apiSession.create', session: apiSession('as1', 'alice') });
  const noService = await model.apply({ type: 'serviceSession.create', session: session('s1', 'as1', 'alice', 'nope') });
  assert.equal(!noService.ok && noService.error.code, 'NOT_FOUND');
});

test('service sessions end with their service, their API session, and their identity being disabled, locked or deleted', async () => {
  const model = await openModel();
  const sessions = () => model.store.table(serviceTables.serviceSessions).all().map((row) => row.id).sort();
  for (const id of ['alice', 'bob', 'dave']) await model.ok({ type: 'identity.create', identity: identity(id) });
  const password = { algorithm: 'scrypt' as const, hash: 'aGFzaA==', salt: 'c2FsdA==', N: 16384, r: 8, p: 1 };
  await model.ok({ type: 'identity.create', identity: identity('carol'), authenticators: [{ ...base('carol-updb'), method: 'updb', identityId: 'carol', username: 'carol', password }] });
  await model.ok({ type: 'service.create', service: service('web') });
  await model.ok({ type: 'service.create', service: service('db') });
  for (const id of ['alice', 'bob', 'carol', 'dave']) {
    await model.ok({ type: 'apiSession.create', session: apiSession(`as-${id}`, id) });
    await model.ok({ type: 'serviceSession.create', session: session(`s-${id}`, `as-${id}`, id, 'web') });
  }
  await model.ok({ type: 'serviceSession.create', session: session('s-alice-db', 'as-alice', 'alice', 'db') });

  await model.ok({ type: 'service.delete', id: 'db' });
  assert.deepEqual(sessions(), ['s-alice', 's-bob', 's-carol', 's-dave']);
  await model.ok({ type: 'apiSession.delete', ids: ['as-alice'], reason: 'logout' });
  assert.deepEqual(sessions(), ['s-bob', 's-carol', 's-dave']);
  await model.ok({ type: 'identity.disable', id: 'bob', at, until: null });
  assert.deepEqual(sessions(), ['s-carol', 's-dave']);
  await model.ok({ type: 'authenticator.loginFailed', id: 'carol-updb', at, maxAttempts: 1, lockoutMinutes: 5 });
  assert.deepEqual(sessions(), ['s-dave'], 'a lockout ends them too');
  await model.ok({ type: 'identity.delete', id: 'dave' });
  assert.deepEqual(sessions(), []);
});

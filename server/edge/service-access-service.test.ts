// The service access an identity is shown is kept between questions, and the very next question after a command that
// changes it (a policy, a service, a posture check, the identity's attributes) is answered on the new rows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestModel } from '../model/model-test-harness.ts';
import type { PostureCheck, Service, ServicePolicy } from '../model/service-entities.ts';
import { ServiceAccessService } from './service-access-service.ts';

const at = '2026-01-01T00:00:00.000Z';
const base = (id: string) => ({ id, createdAt: at, updatedAt: at, tags: {} });
const service = (id: string, roleAttributes: string[]): Service => ({ ...base(id), name: id, encryptionRequired: false, configs: [], roleAttributes, terminatorStrategy: 'smartrouting', maxIdleTimeMillis: 0 });
const policy = (id: string, identityRoles: string[], serviceRoles: string[], postureCheckRoles: string[] = []): ServicePolicy => ({ ...base(id), name: id, type: 'Dial', semantic: 'AnyOf', identityRoles, serviceRoles, postureCheckRoles });
const check: PostureCheck = { ...base('mfa'), name: 'mfa', typeId: 'MFA', roleAttributes: ['mfa'], timeoutSeconds: -1, promptOnWake: false, promptOnUnlock: false, ignoreLegacyEndpoints: false, version: 1 };
const alice = { id: 'alice', roleAttributes: ['staff'] };

test('the kept answer is the same object until a command changes services, policies or posture checks', async () => {
  const model = await openTestModel({ prefix: 'edgeward-service-access-' });
  await model.ok({ type: 'service.create', service: service('web', ['web']) });
  await model.ok({ type: 'service.create', service: service('db', ['db']) });
  await model.ok({ type: 'servicePolicy.create', policy: policy('staff-web', ['#staff'], ['#web']) });
  const access = new ServiceAccessService(model.store);
  const first = access.accessFor(alice);
  assert.deepEqual([...first.keys()], ['web']);
  assert.equal(access.accessFor(alice), first, 'kept between questions');
  await model.ok({ type: 'identity.create', identity: { ...base('bob'), name: 'bob', typeId: 'Default', isAdmin: false, isDefaultAdmin: false, authPolicyId: 'default', externalId: null, roleAttributes: [], disabledAt: null, disabledUntil: null } });
  assert.equal(access.accessFor(alice), first, 'a command on another table keeps it');

  await model.ok({ type: 'servicePolicy.create', policy: policy('staff-db', ['#staff'], ['#db']) });
  assert.deepEqual([...access.accessFor(alice).keys()].sort(), ['db', 'web'], 'a policy added');
  await model.ok({ type: 'postureCheck.create', check });
  const { id: _i, createdAt: _c, updatedAt: _u, ...body } = policy('staff-db', ['#staff'], ['#db'], ['#mfa']);
  await model.ok({ type: 'servicePolicy.update', id: 'staff-db', at, policy: body });
  assert.deepEqual(access.accessFor(alice).get('db')?.grants[0]?.checks.map((c) => c.id), ['mfa'], 'a posture check required');
  await model.ok({ type: 'service.delete', id: 'web' });
  assert.deepEqual([...access.accessFor(alice).keys()], ['db'], 'a service deleted');
  assert.deepEqual([...access.accessFor({ id: 'alice', roleAttributes: [] }).keys()], [], "the identity's attributes changed");
  await model.ok({ type: 'servicePolicy.delete', id: 'staff-db' });
  assert.deepEqual([...access.accessFor(alice).keys()], [], 'a policy deleted');
  await model.close();
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PostureCheck, Service, ServicePolicy } from '../model/service-entities.ts';
import { serviceAccessFor } from './service-access.ts';

const at = '2026-01-01T00:00:00.000Z';
const service = (id: string, roleAttributes: string[] = []): Service => ({
  id, createdAt: at, updatedAt: at, tags: {}, name: id, encryptionRequired: true, configs: [], roleAttributes, terminatorStrategy: 'smartrouting', maxIdleTimeMillis: 0,
});
const policy = (id: string, type: 'Dial' | 'Bind', identityRoles: string[], serviceRoles: string[], postureCheckRoles: string[] = [], semantic: 'AllOf' | 'AnyOf' = 'AnyOf'): ServicePolicy => ({
  id, createdAt: at, updatedAt: at, tags: {}, name: id, type, semantic, identityRoles, serviceRoles, postureCheckRoles,
});
const mfaCheck = (id: string, roleAttributes: string[] = []): PostureCheck => ({
  id, createdAt: at, updatedAt: at, tags: {}, name: id, typeId: 'MFA', roleAttributes, timeoutSeconds: -1, promptOnWake: false, promptOnUnlock: false, ignoreLegacyEndpoints: false, version: 1,
});

const identity = { id: 'me', roleAttributes: ['staff'] };

test('an identity sees only the services a policy selecting it grants, with Bind before Dial', () => {
  const access = serviceAccessFor(identity, {
    services: [service('web', ['public']), service('db', ['internal']), service('hidden')],
    policies: [policy('p-dial', 'Dial', ['#staff'], ['#public', '#internal']), policy('p-bind', 'Bind', ['@me'], ['@db']), policy('p-other', 'Dial', ['#contractors'], ['#all'])],
    postureChecks: [],
  });
  assert.deepEqual([...access.keys()].sort(), ['db', 'web']);
  assert.deepEqual(access.get('web')!.permissions, ['Dial']);
  assert.deepEqual(access.get('db')!.permissions, ['Bind', 'Dial']);
  assert.deepEqual(access.get('db')!.grants.map((grant) => grant.policy.id), ['p-bind', 'p-dial'], 'grants in policy id order');
});

test('each grant carries the posture checks its policy selects, read with the policy semantic', () => {
  const access = serviceAccessFor(identity, {
    services: [service('web')],
    policies: [
      policy('p-any', 'Dial', ['#all'], ['@web'], ['#mfa', '@strict'], 'AnyOf'),
      policy('p-all', 'Dial', ['#all'], ['@web'], ['#mfa', '#strict'], 'AllOf'),
      policy('p-none', 'Bind', ['#all'], ['@web']),
    ],
    postureChecks: [mfaCheck('loose', ['mfa']), mfaCheck('strict', ['mfa', 'strict']), mfaCheck('other')],
  });
  const checks = (id: string) => access.get('web')!.grants.find((grant) => grant.policy.id === id)!.checks.map((check) => check.id).sort();
  assert.deepEqual(checks('p-any'), ['loose', 'strict']);
  assert.deepEqual(checks('p-all'), ['strict']);
  assert.deepEqual(checks('p-none'), []);
});

test('AllOf identity roles need every attribute', () => {
  const rows = { services: [service('web')], policies: [policy('p', 'Dial', ['#staff', '#admins'], ['#all'], [], 'AllOf')], postureChecks: [] };
  assert.equal(serviceAccessFor(identity, rows).size, 0);
  assert.equal(serviceAccessFor({ id: 'boss', roleAttributes: ['staff', 'admins'] }, rows).size, 1);
});

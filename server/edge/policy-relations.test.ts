import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Service, ServicePolicy } from '../model/service-entities.ts';
import { identitiesOfService, policiesOfIdentity, servicesOfPolicy } from './policy-relations.ts';

const at = '2026-01-01T00:00:00.000Z';
const service = (id: string, roleAttributes: string[]): Service => ({ id, roleAttributes, name: id, createdAt: at, updatedAt: at, tags: {}, configs: [], encryptionRequired: true, terminatorStrategy: 'smartrouting', maxIdleTimeMillis: 0 }) as Service;
const policy = (id: string, semantic: 'AllOf' | 'AnyOf', identityRoles: string[], serviceRoles: string[]): ServicePolicy =>
  ({ id, name: id, type: 'Dial', semantic, identityRoles, serviceRoles, postureCheckRoles: [], createdAt: at, updatedAt: at, tags: {} }) as ServicePolicy;

test('an identity relates to a service only through one policy that selects both', () => {
  const web = service('web', ['web']);
  const policies = [policy('p1', 'AnyOf', ['#eng'], ['#web']), policy('p2', 'AllOf', ['#eng', '#ops'], ['@db'])];
  const alice = { id: 'alice', roleAttributes: ['eng'] };
  const bob = { id: 'bob', roleAttributes: ['ops'] };
  const carol = { id: 'carol', roleAttributes: ['eng', 'ops'] };
  assert.deepEqual(identitiesOfService(web, policies, [alice, bob, carol]).map((row) => row.id), ['alice', 'carol']);
  assert.deepEqual(identitiesOfService(service('db', []), policies, [alice, bob, carol]).map((row) => row.id), ['carol']);
  assert.deepEqual(policiesOfIdentity(bob, policies), []);
  assert.deepEqual(servicesOfPolicy(policies[1]!, [web, service('db', [])]).map((row) => row.id), ['db']);
});

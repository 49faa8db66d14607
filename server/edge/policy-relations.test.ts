import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Service, ServicePolicy } from '../model/service-entities.ts';
import { EntityTable } from '../store/entity-table.ts';
import { roleAttributeIndex, rowsSelected } from '../store/role-selection.ts';
import { identitySelectorsOfService, policiesOfIdentity, servicesOfPolicy } from './policy-relations.ts';

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
  const identities = new EntityTable<typeof alice>('identities').multiValueIndex(roleAttributeIndex, (row) => row.roleAttributes);
  for (const identity of [carol, alice, bob]) identities.put(identity);
  const identitiesOf = (granted: Service) => rowsSelected(identities, identitySelectorsOfService(granted, policies)).map((row) => row.id);
  assert.deepEqual(identitiesOf(web), ['alice', 'carol']);
  assert.deepEqual(identitiesOf(service('db', [])), ['carol']);
  assert.deepEqual(policiesOfIdentity(bob, policies), []);
  assert.deepEqual(servicesOfPolicy(policies[1]!, [web, service('db', [])]).map((row) => row.id), ['db']);
});

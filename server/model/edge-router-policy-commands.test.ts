// Edge router policies through raft: applied in log order on the model, the @ids they add checked against the rows
// then, ids they already held kept (a deleted router does not make its policy unchangeable).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { edgeRouterPolicyTables, type EdgeRouterPolicy, type ServiceEdgeRouterPolicy } from './edge-router-policy-entities.ts';
import { openTestModel } from './model-test-harness.ts';
import type { EdgeRouter } from './router-entities.ts';

const openModel = () => openTestModel({ prefix: 'edgeward-erp-' });

const at = '2026-01-01T00:00:00.000Z';
const base = (id: string) => ({ id, createdAt: at, updatedAt: at, tags: {} });
const router = (id: string): EdgeRouter => ({
  ...base(id), name: id, roleAttributes: [], isTunnelerEnabled: false, cost: 0, noTraversal: false, disabled: false, appData: {}, isVerified: false, fingerprint: null, certPem: null,
  enrollmentToken: `token-${id}`, enrollmentJwt: null, enrollmentCreatedAt: null, enrollmentExpiresAt: null,
});
const erp = (id: string, edgeRouterRoles: string[]): EdgeRouterPolicy => ({ ...base(id), name: id, semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles });
const serp = (id: string, serviceRoles: string[]): ServiceEdgeRouterPolicy => ({ ...base(id), name: id, semantic: 'AllOf', serviceRoles, edgeRouterRoles: ['#all'] });

test('an edge router policy naming a router that does not exist is refused; one naming an existing one is stored', async () => {
  const { store, apply } = await openModel();
  const refused = await apply({ type: 'edgeRouterPolicy.create', policy: erp('p1', ['@r1']) });
  assert.deepEqual(refused, { ok: false, error: { code: 'COULD_NOT_VALIDATE', cause: { field: 'edgeRouterRoles', reason: 'no edge routers found with the given ids', value: ['r1'] } } });
  assert.equal(store.table(edgeRouterPolicyTables.edgeRouterPolicies).size, 0);
  assert.equal((await apply({ type: 'edgeRouter.create', router: router('r1') })).ok, true);
  assert.equal((await apply({ type: 'edgeRouterPolicy.create', policy: erp('p1', ['@r1']) })).ok, true);
  assert.deepEqual(store.table<EdgeRouterPolicy>(edgeRouterPolicyTables.edgeRouterPolicies).get('p1')?.edgeRouterRoles, ['@r1']);
});

test('after its router is deleted a policy keeps the @id and can still be updated; a new unknown @id is refused', async () => {
  const { store, apply } = await openModel();
  await apply({ type: 'edgeRouter.create', router: router('r1') });
  await apply({ type: 'edgeRouterPolicy.create', policy: erp('p1', ['@r1']) });
  await apply({ type: 'edgeRouter.delete', id: 'r1' });
  const { id: _id, createdAt: _c, updatedAt: _u, ...body } = erp('p1', ['@r1']);
  assert.equal((await apply({ type: 'edgeRouterPolicy.update', id: 'p1', at, policy: { ...body, identityRoles: ['#ops'] } })).ok, true);
  const stored = store.table<EdgeRouterPolicy>(edgeRouterPolicyTables.edgeRouterPolicies).get('p1')!;
  assert.deepEqual([stored.identityRoles, stored.edgeRouterRoles], [['#ops'], ['@r1']]);
  const widened = await apply({ type: 'edgeRouterPolicy.update', id: 'p1', at, policy: { ...body, edgeRouterRoles: ['@r1', '@r2'] } });
  assert.equal(widened.ok, false);
  assert.equal((await apply({ type: 'edgeRouterPolicy.delete', id: 'p1' })).ok, true);
  const gone = await apply({ type: 'edgeRouterPolicy.delete', id: 'p1' });
  assert.deepEqual(gone, { ok: false, error: { code: 'NOT_FOUND', cause: { code: 'UNHANDLED', message: 'edge router policy with id p1 not found' } } });
});

test('a service edge router policy checks its service @ids in log order', async () => {
  const { store, apply } = await openModel();
  const refused = await apply({ type: 'serviceEdgeRouterPolicy.create', policy: serp('s1', ['@web']) });
  assert.equal(refused.ok, false);
  assert.equal((await apply({ type: 'service.create', service: { ...base('web'), name: 'web', encryptionRequired: true, configs: [], roleAttributes: [], terminatorStrategy: 'smartrouting', maxIdleTimeMillis: 0 } })).ok, true);
  assert.equal((await apply({ type: 'serviceEdgeRouterPolicy.create', policy: serp('s1', ['@web']) })).ok, true);
  assert.equal(store.table(edgeRouterPolicyTables.serviceEdgeRouterPolicies).size, 1);
});

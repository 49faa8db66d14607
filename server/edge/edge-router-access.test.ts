import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EdgeRouterPolicy, ServiceEdgeRouterPolicy } from '../model/edge-router-policy-entities.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { allEdgeRouterPolicies, routersCarryingService, routersForIdentity, routersForService, systemPolicyName } from './edge-router-access.ts';

const at = '2026-01-01T00:00:00.000Z';

function router(id: string, roleAttributes: string[], isTunnelerEnabled = false): EdgeRouter {
  return {
    id, createdAt: at, updatedAt: at, tags: {}, name: id, roleAttributes, isTunnelerEnabled, cost: 0, noTraversal: false, disabled: false, appData: {},
    isVerified: true, fingerprint: null, certPem: null, enrollmentToken: null, enrollmentJwt: null, enrollmentCreatedAt: null, enrollmentExpiresAt: null,
  };
}

function erp(id: string, semantic: 'AllOf' | 'AnyOf', identityRoles: string[], edgeRouterRoles: string[]): EdgeRouterPolicy {
  return { id, createdAt: at, updatedAt: at, tags: {}, name: id, semantic, identityRoles, edgeRouterRoles };
}

function serp(id: string, semantic: 'AllOf' | 'AnyOf', serviceRoles: string[], edgeRouterRoles: string[]): ServiceEdgeRouterPolicy {
  return { id, createdAt: at, updatedAt: at, tags: {}, name: id, semantic, serviceRoles, edgeRouterRoles };
}

const routers = [router('r1', ['east', 'public']), router('r2', ['west', 'public']), router('r3', ['east'], true)];
const alice = { id: 'alice', roleAttributes: ['sales'] };

test('an identity with no edge router policy may use no router', () => {
  assert.deepEqual([...routersForIdentity(alice, { routers, policies: [] })], []);
});

test('#all on both sides grants every router', () => {
  assert.deepEqual([...routersForIdentity(alice, { routers, policies: [erp('p', 'AllOf', ['#all'], ['#all'])] })].sort(), ['r1', 'r2', 'r3']);
});

test('AllOf edge router roles need every attribute, AnyOf one of them', () => {
  const allOf = erp('p', 'AllOf', ['#sales'], ['#east', '#public']);
  const anyOf = erp('q', 'AnyOf', ['#sales'], ['#east', '#public']);
  assert.deepEqual([...routersForIdentity(alice, { routers, policies: [allOf] })], ['r1']);
  assert.deepEqual([...routersForIdentity(alice, { routers, policies: [anyOf] })].sort(), ['r1', 'r2', 'r3']);
});

test('the identity roles must select the identity, by attribute or @id', () => {
  const other = erp('p', 'AnyOf', ['#support'], ['#all']);
  const byId = erp('q', 'AnyOf', ['@alice'], ['@r2']);
  assert.deepEqual([...routersForIdentity(alice, { routers, policies: [other] })], []);
  assert.deepEqual([...routersForIdentity(alice, { routers, policies: [other, byId] })], ['r2']);
});

test('grants of several policies add up', () => {
  const policies = [erp('p', 'AnyOf', ['#sales'], ['@r1']), erp('q', 'AnyOf', ['#sales'], ['@r2'])];
  assert.deepEqual([...routersForIdentity(alice, { routers, policies })].sort(), ['r1', 'r2']);
});

test('a tunneler-enabled router has a system policy granting its own identity that router only', () => {
  const shown = allEdgeRouterPolicies({ routers, policies: [] });
  assert.deepEqual(shown.map((policy) => [policy.name, policy.isSystem, policy.identityRoles, policy.edgeRouterRoles]), [[systemPolicyName('r3'), true, ['@r3'], ['@r3']]]);
  assert.deepEqual([...routersForIdentity({ id: 'r3', roleAttributes: ['east'] }, { routers, policies: [] })], ['r3']);
  assert.deepEqual([...routersForIdentity({ id: 'r1', roleAttributes: ['east'] }, { routers, policies: [] })], []);
});

test('a service may use the routers its service edge router policies select', () => {
  const web = { id: 'web', roleAttributes: ['internal'] };
  assert.deepEqual([...routersForService(web, [], routers)], []);
  assert.deepEqual([...routersForService(web, [serp('s', 'AllOf', ['#internal'], ['#west'])], routers)], ['r2']);
  assert.deepEqual([...routersForService(web, [serp('s', 'AllOf', ['#internal', '#other'], ['#all'])], routers)], []);
  assert.deepEqual([...routersForService(web, [serp('s', 'AnyOf', ['#internal', '#other'], ['#all'])], routers)].sort(), ['r1', 'r2', 'r3']);
});

test('a transit router is selected by no policy, not even #all or @id, and carries every service', () => {
  const transit: EdgeRouter = { ...router('t1', ['east']), isTransitRouter: true };
  const rows = [...routers, transit];
  const policies = [erp('all', 'AnyOf', ['#all'], ['#all']), erp('by-id', 'AnyOf', ['#all'], ['@t1', '#east'])];
  assert.deepEqual([...routersForIdentity(alice, { routers: rows, policies })].sort(), ['r1', 'r2', 'r3']);
  const payroll = { id: 'payroll', roleAttributes: ['finance'] };
  assert.deepEqual([...routersForService(payroll, [serp('s', 'AnyOf', ['#all'], ['#all'])], rows)].sort(), ['r1', 'r2', 'r3']);
  assert.deepEqual([...routersCarryingService(payroll, [serp('s', 'AnyOf', ['#all'], ['@r2'])], rows)].sort(), ['r2', 't1'], 'its SERP routers and the transit router');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';
import type { ServiceAccess } from '../edge/service-access.ts';
import type { Service, ServicePolicy } from '../model/service-entities.ts';
import { linkGraph } from './circuit-paths.ts';
import { planCircuit, type PlanInput } from './circuit-planner.ts';

const at = '2026-01-01T00:00:00.000Z';
const service: Service = { id: 'svc', createdAt: at, updatedAt: at, tags: {}, name: 'web', encryptionRequired: true, configs: [], roleAttributes: [], terminatorStrategy: 'smartrouting', maxIdleTimeMillis: 0 };
const dial: ServicePolicy = { id: 'p', createdAt: at, updatedAt: at, tags: {}, name: 'dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#all'], serviceRoles: ['#all'], postureCheckRoles: [] };
const access: ServiceAccess = { service, permissions: ['Dial'], grants: [{ policy: dial, checks: [] }] };

function terminator(routerId: string): TerminatorRecord {
  return { id: `t-${routerId}`, serviceId: 'svc', routerId, binding: 'tunnel', address: 'tcp:127.0.0.1:1', identity: routerId, cost: 0, precedence: 'default', createdAt: at, updatedAt: at } as TerminatorRecord;
}

// r1 reaches r3 directly (slow) or through r2 (fast): the planner prefers r1 → r2 → r3.
const graph = linkGraph(
  [
    { routerId: 'r1', links: [{ id: 'l12', destRouterId: 'r2', latencyMs: 1 }, { id: 'l13', destRouterId: 'r3', latencyMs: 50 }] },
    { routerId: 'r2', links: [{ id: 'l12', destRouterId: 'r1', latencyMs: 1 }, { id: 'l23', destRouterId: 'r3', latencyMs: 1 }] },
    { routerId: 'r3', links: [{ id: 'l13', destRouterId: 'r1', latencyMs: 50 }, { id: 'l23', destRouterId: 'r2', latencyMs: 1 }] },
  ],
  new Set(['r1', 'r2', 'r3']),
);

const every = new Set(['r1', 'r2', 'r3']);

function input(overrides: Partial<PlanInput>): PlanInput {
  return {
    routerId: 'r1', dialer: 'client', router: { isTunnelerEnabled: true }, service: { id: 'svc', name: 'web' }, access, posture: { isMfaComplete: false },
    terminators: [terminator('r3')], graph, avoidRouters: new Set(), identityRouters: every, serviceRouters: every, nowMs: Date.parse(at), ...overrides,
  };
}

test('with every router granted, the cheapest path goes through r2', () => {
  const plan = planCircuit(input({}));
  assert.equal(plan.ok, true);
  if (plan.ok) assert.deepEqual(plan.path.routers, ['r1', 'r2', 'r3']);
});

test('an identity no edge router policy grants the ingress router is refused there', () => {
  const plan = planCircuit(input({ identityRouters: new Set(['r2', 'r3']) }));
  assert.deepEqual(plan, { ok: false, code: 'NO_EDGE_ROUTER_POLICY', message: 'no edge router policy lets the identity use router r1' });
});

test('a service no service edge router policy grants the ingress router is refused there', () => {
  const plan = planCircuit(input({ serviceRouters: new Set(['r2', 'r3']) }));
  assert.equal(plan.ok, false);
  if (!plan.ok) assert.equal(plan.code, 'NO_SERVICE_EDGE_ROUTER_POLICY');
});

test('the path goes around a router the service edge router policies exclude', () => {
  const plan = planCircuit(input({ serviceRouters: new Set(['r1', 'r3']) }));
  assert.equal(plan.ok, true);
  if (plan.ok) assert.deepEqual(plan.path.routers, ['r1', 'r3']);
});

test('terminators on routers the service may not use are not candidates', () => {
  const onlyExcluded = planCircuit(input({ serviceRouters: new Set(['r1', 'r2']) }));
  assert.equal(onlyExcluded.ok, false);
  if (!onlyExcluded.ok) assert.equal(onlyExcluded.code, 'NO_SERVICE_EDGE_ROUTER_POLICY');
  const plan = planCircuit(input({ serviceRouters: new Set(['r1', 'r2']), terminators: [terminator('r3'), terminator('r2')] }));
  assert.equal(plan.ok, true);
  if (plan.ok) assert.equal(plan.terminator.routerId, 'r2');
});

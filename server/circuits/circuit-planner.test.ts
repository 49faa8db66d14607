import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
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
    terminators: [terminator('r3')], graph, avoidRouters: new Set(), identityRouters: every, serviceRouters: every, nowMs: Date.parse(at), random: () => 0, ...overrides,
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

// The service's terminator strategy, with every router granted.
const strategyTerminator = (id: string, routerId: string, extra: Partial<TerminatorRecord> = {}): TerminatorRecord => ({
  id, serviceId: 'svc', routerId, binding: 'transport', address: `tcp:127.0.0.1:${1000 + id.length}`, identity: '', cost: 0, precedence: 'default',
  createdAt: at, updatedAt: at, controllerId: 'c1', ...extra,
});
// in ── 5 ms ── near; in ── 80 ms ── far
const strategyGraph = linkGraph(
  [
    { routerId: 'in', links: [{ id: 'l1', destRouterId: 'near', latencyMs: 5 }, { id: 'l2', destRouterId: 'far', latencyMs: 80 }] },
    { routerId: 'near', links: [{ id: 'l1', destRouterId: 'in', latencyMs: 5 }] },
    { routerId: 'far', links: [{ id: 'l2', destRouterId: 'in', latencyMs: 80 }] },
  ],
  new Set(['in', 'near', 'far']),
);
const strategyAccess = { permissions: ['Dial'], grants: [{ policy: { id: 'p', type: 'Dial' }, checks: [] }] } as unknown as ServiceAccess;

const strategyRouters = new Set(['in', 'near', 'far']);

function plan(strategy: string, terminators: TerminatorRecord[], avoid: string[] = []): string | undefined {
  const input: PlanInput = {
    routerId: 'in', dialer: 'router', router: { isTunnelerEnabled: true },
    service: { id: 'svc', name: 'svc', terminatorStrategy: strategy }, access: strategyAccess, posture: { isMfaComplete: false },
    terminators, graph: strategyGraph, avoidRouters: new Set(avoid), identityRouters: strategyRouters, serviceRouters: strategyRouters, nowMs: 0, random: () => 0.99,
  };
  const result = planCircuit(input);
  return result.ok ? result.terminator.id : undefined;
}

describe('circuit planner: the service terminator strategy picks the terminator', () => {
  it('smartrouting takes the nearer router unless cost says otherwise; ha keeps the cheaper terminator over the slower path', () => {
    const both = [strategyTerminator('t-near', 'near', { cost: 50 }), strategyTerminator('t-far', 'far')];
    assert.equal(plan('smartrouting', both), 't-near'); // 50 + 6 < 0 + 81
    assert.equal(plan('ha', both), 't-far');
  });

  it('a required terminator on the far router beats a default one on the near router; a failed one is the last resort', () => {
    assert.equal(plan('smartrouting', [strategyTerminator('t-near', 'near'), strategyTerminator('t-far', 'far', { precedence: 'required' })]), 't-far');
    assert.equal(plan('smartrouting', [strategyTerminator('t-near', 'near', { precedence: 'failed' }), strategyTerminator('t-far', 'far')]), 't-far');
    assert.equal(plan('smartrouting', [strategyTerminator('t-near', 'near', { precedence: 'failed' }), strategyTerminator('t-far', 'far')], ['far']), 't-near');
  });

  it('random draws among reachable terminators (here the last one for a draw near 1)', () => {
    assert.equal(plan('random', [strategyTerminator('t-a', 'near'), strategyTerminator('t-b', 'far')]), 't-b');
    assert.equal(plan('random', [strategyTerminator('t-a', 'near'), strategyTerminator('t-b', 'far')], ['far']), 't-a');
  });
});

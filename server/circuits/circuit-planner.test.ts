import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';
import type { ServiceAccess } from '../edge/service-access.ts';
import { linkGraph } from './circuit-paths.ts';
import { planCircuit, type PlanInput } from './circuit-planner.ts';

const at = '2026-01-01T00:00:00.000Z';
const terminator = (id: string, routerId: string, extra: Partial<TerminatorRecord> = {}): TerminatorRecord => ({
  id, serviceId: 'svc', routerId, binding: 'transport', address: `tcp:127.0.0.1:${1000 + id.length}`, identity: '', cost: 0, precedence: 'default',
  createdAt: at, updatedAt: at, controllerId: 'c1', ...extra,
});
// in ── 5 ms ── near; in ── 80 ms ── far
const graph = linkGraph(
  [
    { routerId: 'in', links: [{ id: 'l1', destRouterId: 'near', latencyMs: 5 }, { id: 'l2', destRouterId: 'far', latencyMs: 80 }] },
    { routerId: 'near', links: [{ id: 'l1', destRouterId: 'in', latencyMs: 5 }] },
    { routerId: 'far', links: [{ id: 'l2', destRouterId: 'in', latencyMs: 80 }] },
  ],
  new Set(['in', 'near', 'far']),
);
const access = { permissions: ['Dial'], grants: [{ policy: { id: 'p', type: 'Dial' }, checks: [] }] } as unknown as ServiceAccess;

function plan(strategy: string, terminators: TerminatorRecord[], avoid: string[] = []): string | undefined {
  const input: PlanInput = {
    routerId: 'in', dialer: 'router', router: { isTunnelerEnabled: true },
    service: { id: 'svc', name: 'svc', terminatorStrategy: strategy }, access, posture: { isMfaComplete: false },
    terminators, graph, avoidRouters: new Set(avoid), nowMs: 0, random: () => 0.99,
  };
  const result = planCircuit(input);
  return result.ok ? result.terminator.id : undefined;
}

describe('circuit planner: the service terminator strategy picks the terminator', () => {
  it('smartrouting takes the nearer router unless cost says otherwise; ha keeps the cheaper terminator over the slower path', () => {
    const both = [terminator('t-near', 'near', { cost: 50 }), terminator('t-far', 'far')];
    assert.equal(plan('smartrouting', both), 't-near'); // 50 + 6 < 0 + 81
    assert.equal(plan('ha', both), 't-far');
  });

  it('a required terminator on the far router beats a default one on the near router; a failed one is the last resort', () => {
    assert.equal(plan('smartrouting', [terminator('t-near', 'near'), terminator('t-far', 'far', { precedence: 'required' })]), 't-far');
    assert.equal(plan('smartrouting', [terminator('t-near', 'near', { precedence: 'failed' }), terminator('t-far', 'far')]), 't-far');
    assert.equal(plan('smartrouting', [terminator('t-near', 'near', { precedence: 'failed' }), terminator('t-far', 'far')], ['far']), 't-near');
  });

  it('random draws among reachable terminators (here the last one for a draw near 1)', () => {
    assert.equal(plan('random', [terminator('t-a', 'near'), terminator('t-b', 'far')]), 't-b');
    assert.equal(plan('random', [terminator('t-a', 'near'), terminator('t-b', 'far')], ['far']), 't-a');
  });
});

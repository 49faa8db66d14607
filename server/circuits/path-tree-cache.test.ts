import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cheapestPaths, type ReportedLink } from './circuit-paths.ts';
import { planCircuit, type PlanInput } from './circuit-planner.ts';
import { MaintainedLinkGraph } from './maintained-link-graph.ts';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';
import type { ServiceAccess } from '../edge/service-access.ts';
import type { Service, ServicePolicy } from '../model/service-entities.ts';
import { seededRandom } from '../raft/sim/seeded-random.ts';

test('a kept tree gives every router the path a fresh search gives, after every random link change', () => {
  let lookups = 0;
  let searches = 0;
  for (let seed = 1; seed <= 30; seed++) {
    const random = seededRandom(seed);
    const routers = Array.from({ length: 14 }, (_, index) => `r${String(index).padStart(2, '0')}`);
    const maintained = new MaintainedLinkGraph();
    // Each router's links as it reports them now; a change is one router reporting again, or leaving.
    const reports = new Map<string, ReportedLink[]>();
    for (const router of routers) reports.set(router, []);
    // Exclusion sets stand for a service's routers: the same object while the set stays, a new one when it changes.
    const exclusions = [new Set<string>(), new Set([routers[3]!]), new Set([routers[5]!, routers[8]!])];
    for (let step = 0; step < 200; step++) {
      const router = random.pick(routers);
      const roll = random();
      if (roll < 0.08) {
        reports.delete(router);
        maintained.setRouter(router, undefined);
      } else if (roll < 0.12) {
        // A service's routers changed: a new set object, never the old one altered.
        const at = random.int(exclusions.length);
        exclusions[at] = new Set(routers.filter(() => random.chance(0.15)));
      } else {
        // Add, drop or re-measure one link of this router; both ends report it (costs from a few values, so ties
        // are common), and now and then only one end does.
        const peer = random.pick(routers);
        if (peer !== router) {
          const [a, b] = router < peer ? [router, peer] : [peer, router];
          const id = `${a}-${b}`;
          const down = random.chance(0.3);
          const latencyMs = random.chance(0.1) ? null : random.int(4);
          for (const [end, other] of [[a, b], [b, a]] as const) {
            if (!down && end !== router && random.chance(0.1)) continue;
            const links = (reports.get(end) ?? []).filter((link) => link.id !== id);
            if (!down) links.push({ id, destRouterId: other, latencyMs });
            reports.set(end, links);
            maintained.setRouter(end, links);
          }
        }
      }
      for (let probe = 0; probe < 3; probe++) {
        // Mostly two ingress routers, as a network has few busy ones: their trees live through many changes.
        const from = random.chance(0.8) ? routers[probe % 2]! : random.pick(routers);
        const exclusion = random.pick(exclusions);
        const excluded = (id: string) => exclusion.has(id);
        const before = maintained.trees.searches;
        const kept = maintained.pathsFrom(from, exclusion, excluded);
        lookups++;
        searches += maintained.trees.searches - before;
        const fresh = cheapestPaths(maintained.graph, from, { excluded });
        for (const to of routers) assert.deepEqual(kept.to(to), fresh.to(to), `seed ${seed}, step ${step}: ${from} → ${to}, excluding ${[...exclusion]}`);
      }
    }
  }
  // The trees must be kept across changes that cannot alter them, or this test proves nothing about invalidation.
  assert.ok(searches < lookups * 0.6, `${searches} searches for ${lookups} lookups`);
});

test('the trees are bounded: the least recently used goes first', () => {
  const maintained = new MaintainedLinkGraph();
  maintained.setRouter('a', [{ id: 'l', destRouterId: 'b', latencyMs: 1 }]);
  maintained.setRouter('b', [{ id: 'l', destRouterId: 'a', latencyMs: 1 }]);
  const none = () => false;
  const exclusions = Array.from({ length: 70 }, () => ({}));
  for (const exclusion of exclusions) maintained.pathsFrom('a', exclusion, none);
  assert.equal(maintained.trees.size, 64);
  const searches = maintained.trees.searches;
  maintained.pathsFrom('a', exclusions[69]!, none);
  assert.equal(maintained.trees.searches, searches, 'the newest tree is kept');
  maintained.pathsFrom('a', exclusions[0]!, none);
  assert.equal(maintained.trees.searches, searches + 1, 'the oldest was let go');
});

const at = '2026-01-01T00:00:00.000Z';
const service: Service = { id: 'svc', createdAt: at, updatedAt: at, tags: {}, name: 'web', encryptionRequired: false, configs: [], roleAttributes: [], terminatorStrategy: 'smartrouting', maxIdleTimeMillis: 0 };
const dial: ServicePolicy = { id: 'p', createdAt: at, updatedAt: at, tags: {}, name: 'dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#all'], serviceRoles: ['#all'], postureCheckRoles: [] };
const access: ServiceAccess = { service, permissions: ['Dial'], grants: [{ policy: dial, checks: [] }] };
const onR3 = { id: 't-r3', serviceId: 'svc', routerId: 'r3', binding: 'tunnel', address: 'tcp:127.0.0.1:1', identity: 'r3', cost: 0, precedence: 'default', createdAt: at, updatedAt: at } as TerminatorRecord;

/** r1 reaches r3 directly (slow, l13) or through r2 (fast, l12 and l23). */
function mesh(): MaintainedLinkGraph {
  const graph = new MaintainedLinkGraph();
  graph.setRouter('r1', [{ id: 'l12', destRouterId: 'r2', latencyMs: 1 }, { id: 'l13', destRouterId: 'r3', latencyMs: 50 }]);
  graph.setRouter('r2', [{ id: 'l12', destRouterId: 'r1', latencyMs: 1 }, { id: 'l23', destRouterId: 'r3', latencyMs: 1 }]);
  graph.setRouter('r3', [{ id: 'l13', destRouterId: 'r1', latencyMs: 50 }, { id: 'l23', destRouterId: 'r2', latencyMs: 1 }]);
  return graph;
}

const everyRouter = new Set(['r1', 'r2', 'r3']);

function plan(graph: MaintainedLinkGraph, serviceRouters: ReadonlySet<string> = everyRouter) {
  const input: PlanInput = {
    routerId: 'r1', dialer: 'client', router: { isTunnelerEnabled: true }, service: { id: 'svc', name: 'web' }, access, posture: { isMfaComplete: false },
    terminators: [onR3], graph: graph.graph, pathsFrom: (from, exclusion, excluded) => graph.pathsFrom(from, exclusion, excluded),
    avoidRouters: new Set(), identityRouters: everyRouter, serviceRouters, nowMs: Date.parse(at), random: () => 0,
  };
  const result = planCircuit(input);
  assert.ok(result.ok, JSON.stringify(result));
  return result.path;
}

test('a link that goes down is never planned through after the change, though the path was kept', () => {
  const graph = mesh();
  assert.deepEqual(plan(graph).links, ['l12', 'l23']);
  assert.deepEqual(plan(graph).links, ['l12', 'l23'], 'the second plan reads the kept tree');
  assert.equal(graph.trees.searches, 1);
  // r2 stops reporting l23: the link is down.
  graph.setRouter('r2', [{ id: 'l12', destRouterId: 'r1', latencyMs: 1 }]);
  assert.deepEqual(plan(graph).links, ['l13']);
  // It comes back, and then r2 leaves the cluster: no path through r2 after either change.
  graph.setRouter('r2', [{ id: 'l12', destRouterId: 'r1', latencyMs: 1 }, { id: 'l23', destRouterId: 'r3', latencyMs: 1 }]);
  assert.deepEqual(plan(graph).links, ['l12', 'l23']);
  graph.setRouter('r2', undefined);
  assert.deepEqual(plan(graph).routers, ['r1', 'r3']);
});

test('a link on the kept path that gets dearer, or one off it that gets cheaper, moves the next plan', () => {
  const graph = mesh();
  assert.deepEqual(plan(graph).links, ['l12', 'l23']);
  graph.setRouter('r2', [{ id: 'l12', destRouterId: 'r1', latencyMs: 1 }, { id: 'l23', destRouterId: 'r3', latencyMs: 80 }]);
  assert.deepEqual(plan(graph).links, ['l13'], 'l23 now costs more than l13');
  graph.setRouter('r2', [{ id: 'l12', destRouterId: 'r1', latencyMs: 1 }, { id: 'l23', destRouterId: 'r3', latencyMs: 1 }]);
  graph.setRouter('r3', [{ id: 'l13', destRouterId: 'r1', latencyMs: 50 }, { id: 'l23', destRouterId: 'r2', latencyMs: 1 }]);
  assert.deepEqual(plan(graph).links, ['l12', 'l23']);
});

test('a changed set of routers the service may use is a new tree: the path leaves a router no longer granted', () => {
  const graph = mesh();
  assert.deepEqual(plan(graph, everyRouter).links, ['l12', 'l23']);
  assert.deepEqual(plan(graph, new Set(['r1', 'r3'])).links, ['l13']);
});

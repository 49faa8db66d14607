import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cheapestPaths, linkGraph, type Edge, type ReportedLink, type RouterLinkReport } from './circuit-paths.ts';
import { MaintainedLinkGraph } from './maintained-link-graph.ts';
import { seededRandom as seeded } from '../raft/sim/seeded-random.ts';

const normalized = (graph: ReadonlyMap<string, readonly Edge[]>) =>
  Object.fromEntries([...graph.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([router, edges]) => [router, [...edges].sort((x, y) => (x.linkId < y.linkId ? -1 : x.linkId > y.linkId ? 1 : x.to < y.to ? -1 : 1))]));

test('the maintained graph equals linkGraph rebuilt from the same reports after every connect, report and leave', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const random = seeded(seed);
    const routers = Array.from({ length: 12 }, (_, index) => `r${String(index).padStart(2, '0')}`);
    const pick = () => routers[Math.floor(random() * routers.length)]!;
    const maintained = new MaintainedLinkGraph();
    const reports = new Map<string, ReportedLink[]>();
    for (let step = 0; step < 150; step++) {
      const router = pick();
      if (random() < 0.15) {
        reports.delete(router);
        maintained.setRouter(router, undefined);
      } else {
        // A link id names its pair, so only that pair can vouch for it; sometimes the wrong peer, a duplicate, a
        // missing latency or the router itself.
        const links: ReportedLink[] = [];
        for (let i = Math.floor(random() * 5); i > 0; i--) {
          const peer = pick();
          const [a, b] = router < peer ? [router, peer] : [peer, router];
          const id = `${a}-${b}-${Math.floor(random() * 2)}`;
          const roll = random();
          const dest = roll < 0.08 ? pick() : peer;
          links.push({ id, destRouterId: dest, latencyMs: roll > 0.9 ? null : Math.floor(random() * 4) });
          if (roll > 0.85) links.push({ id, destRouterId: dest, latencyMs: Math.floor(random() * 4) });
        }
        reports.set(router, links);
        maintained.setRouter(router, links);
      }
      const asReports: RouterLinkReport[] = [...reports].map(([routerId, links]) => ({ routerId, links }));
      const rebuilt = linkGraph(asReports, new Set(reports.keys()));
      assert.deepEqual(normalized(maintained.graph), normalized(rebuilt), `seed ${seed}, step ${step}`);
      const from = pick();
      const a = cheapestPaths(maintained.graph, from);
      const b = cheapestPaths(rebuilt, from);
      for (const to of routers) assert.deepEqual(a.to(to), b.to(to), `seed ${seed}, step ${step}: path ${from} → ${to}`);
    }
  }
});

test('a router that leaves takes the links to it out of the graph, and they come back when it returns', () => {
  const graph = new MaintainedLinkGraph();
  graph.setRouter('a', [{ id: 'l1', destRouterId: 'b', latencyMs: 5 }]);
  assert.equal(graph.graph.size, 0, 'one end alone does not make a link');
  graph.setRouter('b', [{ id: 'l1', destRouterId: 'a', latencyMs: 7 }]);
  assert.deepEqual(graph.graph.get('a'), [{ to: 'b', linkId: 'l1', cost: 8 }]);
  graph.setRouter('b', undefined);
  assert.equal(graph.graph.size, 0);
  graph.setRouter('b', [{ id: 'l1', destRouterId: 'a', latencyMs: 2 }]);
  assert.deepEqual(graph.graph.get('b'), [{ to: 'a', linkId: 'l1', cost: 6 }], 'the higher latency of the two ends, plus a hop');
});

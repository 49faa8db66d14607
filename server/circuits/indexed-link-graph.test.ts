import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cheapestPaths, type Edge } from './circuit-paths.ts';
import { IndexedLinkGraph } from './indexed-link-graph.ts';
import { seededRandom } from '../raft/sim/seeded-random.ts';

test('the numbered search gives every router the path, cost and arriving link cheapestPaths gives, ties and exclusions included', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const random = seededRandom(seed);
    const routers = Array.from({ length: 16 }, (_, index) => `r${String(15 - index).padStart(2, '0')}`);
    const graph = new Map<string, Edge[]>();
    const numbered = new IndexedLinkGraph();
    for (let i = 0; i < 40; i++) {
      const a = random.pick(routers);
      const b = random.pick(routers);
      if (a === b) continue;
      // Few distinct costs, so equal-cost routes (the tie rules) are common.
      const cost = 1 + random.int(3);
      const linkId = `l${String(random.int(1000)).padStart(3, '0')}`;
      if ([...(graph.get(a) ?? [])].some((edge) => edge.linkId === linkId)) continue;
      graph.set(a, [...(graph.get(a) ?? []), { to: b, linkId, cost }]);
      graph.set(b, [...(graph.get(b) ?? []), { to: a, linkId, cost }]);
    }
    // One router loses its links (its number stays), as when it leaves.
    const gone = random.pick(routers);
    for (const edge of graph.get(gone) ?? []) graph.set(edge.to, graph.get(edge.to)!.filter((held) => held.linkId !== edge.linkId));
    graph.delete(gone);
    for (const [router, edges] of graph) numbered.setEdges(router, edges);
    for (const router of routers) if (!graph.has(router)) numbered.setEdges(router, []);
    const excluded = new Set(routers.filter(() => random.chance(0.2)));
    for (const from of [...routers, 'not-a-router']) {
      const expected = cheapestPaths(graph, from, { excluded: (router) => excluded.has(router) });
      const found = numbered.paths(from, (router) => excluded.has(router));
      for (const to of [...routers, 'not-a-router']) {
        assert.deepEqual(found.to(to), expected.to(to), `seed ${seed}: ${from} → ${to}`);
        assert.equal(found.costTo(to), expected.costTo(to), `seed ${seed}: cost ${from} → ${to}`);
        assert.equal(found.linkInto(to), expected.linkInto(to), `seed ${seed}: link into ${to} from ${from}`);
      }
    }
  }
});

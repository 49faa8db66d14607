import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cheapestPath, cheapestPaths, linkGraph, type RouterLinkReport } from './circuit-paths.ts';

const all = new Set(['r1', 'r2', 'r3', 'r4']);

type Claim = [id: string, dest: string, latency: number | null];

function report(routerId: string, ...links: Claim[]): RouterLinkReport {
  return { routerId, links: links.map(([id, destRouterId, latencyMs]) => ({ id, destRouterId, latencyMs })) };
}

/** Both ends' reports of the given links, each end measuring the same latency. */
function mutual(...links: Array<[id: string, a: string, b: string, latency: number | null]>): RouterLinkReport[] {
  const byRouter = new Map<string, Claim[]>();
  const add = (router: string, claim: Claim) => byRouter.set(router, [...(byRouter.get(router) ?? []), claim]);
  for (const [id, a, b, latency] of links) {
    add(a, [id, b, latency]);
    add(b, [id, a, latency]);
  }
  return [...byRouter].map(([router, claims]) => report(router, ...claims));
}

describe('circuit paths', () => {
  it('takes the lowest-latency chain of links, in either direction of a link', () => {
    const graph = linkGraph(mutual(['a', 'r1', 'r2', 1], ['b', 'r1', 'r4', 2], ['c', 'r3', 'r2', 1], ['d', 'r4', 'r3', 9]), all);
    assert.deepEqual(cheapestPath(graph, 'r1', 'r3'), { routers: ['r1', 'r2', 'r3'], links: ['a', 'c'], cost: 4 });
    assert.deepEqual(cheapestPath(graph, 'r3', 'r1'), { routers: ['r3', 'r2', 'r1'], links: ['c', 'a'], cost: 4 });
  });

  it('routes around a slow link and around a router that is not connected', () => {
    const reports = mutual(['a', 'r1', 'r2', 50], ['b', 'r1', 'r4', 2], ['c', 'r2', 'r3', 1], ['d', 'r4', 'r3', 3]);
    assert.deepEqual(cheapestPath(linkGraph(reports, all), 'r1', 'r3')?.routers, ['r1', 'r4', 'r3']);
    assert.deepEqual(cheapestPath(linkGraph(reports, new Set(['r1', 'r2', 'r3'])), 'r1', 'r3')?.routers, ['r1', 'r2', 'r3']);
  });

  it('does not plan over a link only one end reports, however cheap it claims to be', () => {
    // r4 claims 0 ms links to r1 and r3; neither r1 nor r3 lists them.
    const reports = [...mutual(['a', 'r1', 'r2', 20], ['c', 'r2', 'r3', 20]), report('r4', ['x', 'r1', 0], ['y', 'r3', 0])];
    assert.deepEqual(cheapestPath(linkGraph(reports, all), 'r1', 'r3'), { routers: ['r1', 'r2', 'r3'], links: ['a', 'c'], cost: 42 });
    assert.equal(cheapestPath(linkGraph([report('r1', ['a', 'r2', 1])], all), 'r1', 'r2'), undefined, 'one end alone: no path');
  });

  it('does not plan over a link whose ends name different peers', () => {
    // r1 says link a goes to r2; r2 says its link a goes to r3; r3 says a goes to r2.
    const graph = linkGraph([report('r1', ['a', 'r2', 1]), report('r2', ['a', 'r3', 1]), report('r3', ['a', 'r2', 1])], all);
    assert.equal(cheapestPath(graph, 'r1', 'r2'), undefined);
    assert.deepEqual(cheapestPath(graph, 'r2', 'r3')?.links, ['a'], 'the pair that agrees keeps it');
    // A router naming two peers for one link id vouches for neither.
    const torn = linkGraph([report('r1', ['a', 'r2', 1], ['a', 'r3', 1]), report('r2', ['a', 'r1', 1]), report('r3', ['a', 'r1', 1])], all);
    assert.equal(cheapestPath(torn, 'r1', 'r2'), undefined);
    assert.equal(cheapestPath(torn, 'r1', 'r3'), undefined);
  });

  it('costs a link the higher of its two ends\' measurements; an unmeasured end counts as expensive; a hop costs something', () => {
    // r2 under-reports link a as 0 ms; r1 measured it at 30 ms. The direct b (r1 measures 5, r3 measures 8) wins.
    const reports = [report('r1', ['a', 'r2', 30], ['b', 'r3', 5]), report('r2', ['a', 'r1', 0], ['c', 'r3', 0]), report('r3', ['b', 'r1', 8], ['c', 'r2', 0])];
    assert.deepEqual(cheapestPath(linkGraph(reports, all), 'r1', 'r3'), { routers: ['r1', 'r3'], links: ['b'], cost: 9 });
    const unmeasured = linkGraph([report('r1', ['a', 'r2', null]), report('r2', ['a', 'r1', 0.5])], all);
    assert.equal(cheapestPath(unmeasured, 'r1', 'r2')?.cost, 1001);
    const even = linkGraph(mutual(['a', 'r1', 'r2', 0], ['b', 'r1', 'r3', 1], ['c', 'r2', 'r3', 0]), all);
    assert.deepEqual(cheapestPath(even, 'r1', 'r3')?.links, ['b'], 'one hop of 1 ms + 1 beats two hops of 0 ms + 1 each');
  });

  it('has no path between routers no links join, and a one-router path to itself', () => {
    const graph = linkGraph(mutual(['a', 'r1', 'r2', 1]), all);
    assert.equal(cheapestPath(graph, 'r1', 'r3'), undefined);
    assert.deepEqual(cheapestPath(graph, 'r2', 'r2'), { routers: ['r2'], links: [], cost: 0 });
  });

  it('ignores links to itself, to unknown routers and with nonsense latencies', () => {
    const graph = linkGraph([report('r1', ['x', 'r1', 1], ['y', 'r9', 1], ['a', 'r2', -4]), report('r2', ['a', 'r1', -4]), report('r9', ['y', 'r1', 1])], all);
    assert.deepEqual(cheapestPath(graph, 'r1', 'r2')?.cost, 1001);
    assert.equal(cheapestPath(graph, 'r1', 'r9'), undefined);
  });
});

/** The search as the planner ran it before cheapestPaths, once per target (a linear scan for the next router): the
 * reference the one-search-for-all must agree with, path for path. */
function referencePath(graph: ReturnType<typeof linkGraph>, from: string, to: string): { routers: string[]; links: string[]; cost: number } | undefined {
  if (from === to) return { routers: [from], links: [], cost: 0 };
  const cost = new Map<string, number>([[from, 0]]);
  const previous = new Map<string, { router: string; linkId: string }>();
  const done = new Set<string>();
  for (;;) {
    let current: string | undefined;
    for (const [router, value] of cost) {
      if (done.has(router)) continue;
      if (current === undefined || value < cost.get(current)! || (value === cost.get(current)! && router < current)) current = router;
    }
    if (current === undefined) return undefined;
    if (current === to) break;
    done.add(current);
    for (const edge of graph.get(current) ?? []) {
      if (done.has(edge.to)) continue;
      const through = cost.get(current)! + edge.cost;
      const held = cost.get(edge.to);
      if (held === undefined || through < held || (through === held && edge.linkId < previous.get(edge.to)!.linkId)) {
        cost.set(edge.to, through);
        previous.set(edge.to, { router: current, linkId: edge.linkId });
      }
    }
  }
  const routers = [to];
  const links: string[] = [];
  for (let at = to; at !== from; ) {
    const step = previous.get(at)!;
    links.unshift(step.linkId);
    routers.unshift(step.router);
    at = step.router;
  }
  return { routers, links, cost: cost.get(to)! };
}

/** A random mesh of 3 to 42 routers and twice as many links, drawn from `next`. */
function randomMesh(next: () => number): { routers: string[]; graph: ReturnType<typeof linkGraph> } {
  const routers = Array.from({ length: 3 + Math.floor(next() * 40) }, (_, i) => `r${String(i).padStart(2, '0')}`);
  const links: Array<[string, string, string, number | null]> = [];
  for (let i = 0; i < routers.length * 2; i++) {
    const a = routers[Math.floor(next() * routers.length)]!;
    const b = routers[Math.floor(next() * routers.length)]!;
    // Few distinct latencies, so equal-cost routes (the tie rules) are common; some links not yet measured.
    if (a !== b) links.push([`l${String(i).padStart(3, '0')}`, a, b, next() < 0.1 ? null : Math.floor(next() * 4)]);
  }
  return { routers, graph: linkGraph(mutual(...links), new Set(routers)) };
}

describe('cheapestPaths: one search from the ingress', () => {
  it('gives every router the path a search for that router alone gives, ties included, on many random meshes', () => {
    // A small deterministic generator, so a failure names a mesh that can be built again.
    let seed = 42;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let mesh = 0; mesh < 60; mesh++) {
      const { routers, graph } = randomMesh(next);
      const from = routers[Math.floor(next() * routers.length)]!;
      const paths = cheapestPaths(graph, from);
      for (const to of [...routers, 'not-a-router']) {
        assert.deepEqual(paths.to(to), referencePath(graph, from, to), `mesh ${mesh}: ${from} → ${to}`);
        assert.deepEqual(cheapestPath(graph, from, to), referencePath(graph, from, to));
      }
    }
  });

  it('excluding routers and stopping at the targets gives the paths of a full search over the graph without them', () => {
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let mesh = 0; mesh < 60; mesh++) {
      const { routers, graph } = randomMesh(next);
      const from = routers[Math.floor(next() * routers.length)]!;
      const excluded = new Set(routers.filter((router) => router !== from && next() < 0.25));
      const targets = new Set(routers.filter((router) => !excluded.has(router) && next() < 0.2));
      // The reference: the graph with the excluded routers and every link to them taken out, searched in full.
      const trimmed = new Map([...graph].filter(([router]) => !excluded.has(router)).map(([router, edges]) => [router, edges.filter((edge) => !excluded.has(edge.to))]));
      const paths = cheapestPaths(graph, from, { excluded: (router) => excluded.has(router), targets });
      for (const to of targets) assert.deepEqual(paths.to(to), referencePath(trimmed, from, to), `mesh ${mesh}: ${from} → ${to}`);
      for (const to of excluded) assert.equal(paths.to(to), undefined, `mesh ${mesh}: ${to} is excluded`);
    }
  });
});

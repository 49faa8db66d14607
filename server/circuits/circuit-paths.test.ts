import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cheapestPath, linkGraph, type RouterLinkReport } from './circuit-paths.ts';

const all = new Set(['r1', 'r2', 'r3', 'r4']);

function report(routerId: string, ...links: Array<[id: string, dest: string, latency: number | null]>): RouterLinkReport {
  return { routerId, links: links.map(([id, destRouterId, latencyMs]) => ({ id, destRouterId, latencyMs })) };
}

describe('circuit paths', () => {
  it('takes the lowest-latency chain of links, in either direction of a link', () => {
    const graph = linkGraph([report('r1', ['a', 'r2', 1], ['b', 'r4', 2]), report('r3', ['c', 'r2', 1]), report('r4', ['d', 'r3', 9])], all);
    assert.deepEqual(cheapestPath(graph, 'r1', 'r3'), { routers: ['r1', 'r2', 'r3'], links: ['a', 'c'], cost: 4 });
    assert.deepEqual(cheapestPath(graph, 'r3', 'r1'), { routers: ['r3', 'r2', 'r1'], links: ['c', 'a'], cost: 4 });
  });

  it('routes around a slow link and around a router that is not connected', () => {
    const reports = [report('r1', ['a', 'r2', 50], ['b', 'r4', 2]), report('r2', ['c', 'r3', 1]), report('r4', ['d', 'r3', 3])];
    assert.deepEqual(cheapestPath(linkGraph(reports, all), 'r1', 'r3')?.routers, ['r1', 'r4', 'r3']);
    assert.deepEqual(cheapestPath(linkGraph(reports, new Set(['r1', 'r2', 'r3'])), 'r1', 'r3')?.routers, ['r1', 'r2', 'r3']);
  });

  it('counts an unmeasured link as expensive, the lower of two ends\' figures, and a hop as costing something', () => {
    const graph = linkGraph([report('r1', ['a', 'r2', null], ['b', 'r3', 5]), report('r2', ['a', 'r1', 0.5], ['c', 'r3', 0.5])], all);
    assert.deepEqual(cheapestPath(graph, 'r1', 'r3'), { routers: ['r1', 'r2', 'r3'], links: ['a', 'c'], cost: 3 });
    const even = linkGraph([report('r1', ['a', 'r2', 0], ['b', 'r3', 1]), report('r2', ['c', 'r3', 0])], all);
    assert.deepEqual(cheapestPath(even, 'r1', 'r3')?.links, ['b'], 'one hop of 1 ms + 1 beats two hops of 0 ms + 1 each');
  });

  it('has no path between routers no links join, and a one-router path to itself', () => {
    const graph = linkGraph([report('r1', ['a', 'r2', 1])], all);
    assert.equal(cheapestPath(graph, 'r1', 'r3'), undefined);
    assert.deepEqual(cheapestPath(graph, 'r2', 'r2'), { routers: ['r2'], links: [], cost: 0 });
  });

  it('ignores links to itself, to unknown routers and with nonsense latencies', () => {
    const graph = linkGraph([report('r1', ['x', 'r1', 1], ['y', 'r9', 1], ['a', 'r2', -4])], all);
    assert.deepEqual(cheapestPath(graph, 'r1', 'r2')?.cost, 1001);
    assert.equal(cheapestPath(graph, 'r1', 'r9'), undefined);
  });
});

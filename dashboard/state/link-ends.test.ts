// Each link shown by the router at its other end: named from routers[].name when the page knows it, its id
// otherwise, and found through the other router reporting the same link when no health check names it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withLinkEnds } from './link-ends.ts';
import type { RouterView } from './snapshot.ts';

const view = (id: string, links: RouterView['links'], name?: string): RouterView => ({ id, ...(name === undefined ? {} : { name }), controllers: ['ctrl1'], links });

test('a link\'s far end named by the health check is given its configured name', () => {
  const [first, second] = withLinkEnds([view('k4L', [{ id: 'L1', destRouterId: 'riX', latencySeconds: 0.006 }], 'router1'), view('riX', [], 'router2')]);
  assert.deepEqual(first!.links, [{ id: 'L1', destRouterId: 'riX', destRouterName: 'router2', latencySeconds: 0.006 }]);
  assert.deepEqual(second!.links, []);
});

test('a link only the controllers report is matched with the other router holding the same link id', () => {
  const views = withLinkEnds([view('k4L', [{ id: 'L1', latencySeconds: 0.006 }, { id: 'L9' }], 'router1'), view('riX', [{ id: 'L1', latencySeconds: 0.007 }])]);
  assert.deepEqual(views[0]!.links, [{ id: 'L1', destRouterId: 'riX', latencySeconds: 0.006 }, { id: 'L9' }], 'an unnamed router keeps its id; an unmatched link stays as it is');
  assert.deepEqual(views[1]!.links, [{ id: 'L1', destRouterId: 'k4L', destRouterName: 'router1', latencySeconds: 0.007 }]);
});

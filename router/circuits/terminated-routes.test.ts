import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TerminatedRoutes } from './terminated-routes.ts';

describe('terminated routes', () => {
  it('a route is claimed once; a second use within its window is refused', () => {
    const routes = new TerminatedRoutes(60_000);
    assert.deepEqual(routes.claim('a', 1_000, 2_000), { ok: true });
    assert.deepEqual(routes.claim('b', 1_000, 2_000), { ok: true });
    assert.match(String((routes.claim('a', 1_000, 30_000) as { reason?: string }).reason), /used before/);
    assert.equal(routes.size, 2);
  });

  it('forgets a route once its window has passed, so memory follows the window', () => {
    const routes = new TerminatedRoutes(60_000);
    for (let index = 0; index < 100; index++) routes.claim(`r${index}`, 1_000 + index, 2_000);
    assert.equal(routes.size, 100);
    routes.claim('late', 70_000, 61_050);
    assert.equal(routes.size, 51, 'routes issued before 1050 ms are past their window at 61050 ms');
    routes.claim('later', 190_000, 200_000);
    assert.equal(routes.size, 1, 'only the route still in its window');
  });

  it('when full, refuses a new route rather than forget one still in its window', () => {
    const routes = new TerminatedRoutes(60_000, 3);
    for (const digest of ['a', 'b', 'c']) assert.ok(routes.claim(digest, 1_000, 1_000).ok);
    const refused = routes.claim('d', 1_000, 1_500);
    assert.equal(refused.ok, false);
    assert.match(String((refused as { reason?: string }).reason), /terminated 3 routes within the setup window/);
    assert.match(String((routes.claim('a', 1_000, 1_600) as { reason?: string }).reason), /used before/);
    assert.ok(routes.claim('d', 62_000, 62_000).ok, 'room again once the old ones expire');
  });

  it('refuses a route issued before it began remembering (a restarted egress cannot know whether it was used)', () => {
    const routes = new TerminatedRoutes(60_000, 10, 5_000);
    const refused = routes.claim('old', 4_999, 5_100);
    assert.equal(refused.ok, false);
    assert.match(String((refused as { reason?: string }).reason), /issued before this router started/);
    assert.ok(routes.claim('new', 5_000, 5_100).ok);
  });
});

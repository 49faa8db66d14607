import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { ServiceUpdateTracker } from './service-updates.ts';

test('lastChangeAt holds for the same digest, moves for a new one, and forgets the longest-unasked identity past its limit', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const tracker = new ServiceUpdateTracker(clock, 2);
  const first = tracker.lastChangeAt('a', 'd1');
  assert.equal(first, '2026-01-01T00:00:00.000Z');
  clock.advance(1000);
  assert.equal(tracker.lastChangeAt('a', 'd1'), first);
  assert.equal(tracker.lastChangeAt('a', 'd2'), '2026-01-01T00:00:01.000Z');
  tracker.lastChangeAt('b', 'x');
  clock.advance(1000);
  tracker.lastChangeAt('a', 'd2'); // a is now the most recently asked
  tracker.lastChangeAt('c', 'y'); // over the limit: b goes
  clock.advance(1000);
  assert.equal(tracker.lastChangeAt('a', 'd2'), '2026-01-01T00:00:01.000Z', 'a was kept');
  assert.equal(tracker.lastChangeAt('b', 'x'), '2026-01-01T00:00:03.000Z', 'b was forgotten: its answer is the time of asking');
});

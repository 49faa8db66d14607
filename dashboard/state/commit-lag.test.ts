import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CommitLagTracker } from './commit-lag.ts';

test('entries behind the highest index, and seconds only while another controller is ahead', () => {
  const lag = new CommitLagTracker(['ctrl1', 'ctrl2', 'ctrl3']);
  assert.deepEqual(lag.lag(0), {}, 'nothing until some controller writes an event');
  lag.note('ctrl1', 10, 1000);
  assert.deepEqual(lag.lag(4000), { ctrl1: { entries: 0, seconds: 0 }, ctrl2: { seconds: 3 }, ctrl3: { seconds: 3 } });
  lag.note('ctrl2', 10, 1100);
  lag.note('ctrl3', 7, 1200);
  lag.note('ctrl1', 12, 2000);
  assert.deepEqual(lag.lag(5000), { ctrl1: { entries: 0, seconds: 0 }, ctrl2: { entries: 2, seconds: 3.9 }, ctrl3: { entries: 5, seconds: 3.8 } });
  lag.note('ctrl3', 12, 5100);
  lag.note('ctrl3', 11, 5200);
  assert.deepEqual(lag.lag(6000).ctrl3, { entries: 0, seconds: 0 }, 'an older index read later does not move a controller back');
});

test('a controller that is not tracked is ignored', () => {
  const lag = new CommitLagTracker(['ctrl1']);
  lag.note('ctrl9', 100, 0);
  assert.deepEqual(lag.lag(10), {});
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextSnapshotCheckMs } from './snapshot-schedule.ts';

test('snapshot checks come between one and two intervals apart, spread across that range', () => {
  assert.equal(nextSnapshotCheckMs(120_000, () => 0), 120_000);
  assert.equal(nextSnapshotCheckMs(120_000, () => 0.5), 180_000);
  assert.equal(nextSnapshotCheckMs(120_000, () => 0.999999), 239_999);
  const delays = Array.from({ length: 2000 }, () => nextSnapshotCheckMs(10_000));
  assert.ok(delays.every((delay) => delay >= 10_000 && delay < 20_000));
  // Three members started together: their checks do not line up (each tenth of the range is used).
  const tenths = new Set(delays.map((delay) => Math.floor((delay - 10_000) / 1000)));
  assert.equal(tenths.size, 10);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChartHistory, trimHistory } from './chart-history.ts';

const point = (t: number) => ({ t, values: { c: { s: t } } });

test('the history keeps the last historyMs, and never more than maxPoints', () => {
  const history = new ChartHistory(10_000, 5);
  for (let t = 0; t <= 12_000; t += 1000) history.add(point(t));
  assert.deepEqual(history.points().map((p) => p.t), [8000, 9000, 10_000, 11_000, 12_000], 'capped at 5');
  const long = new ChartHistory(3000, 100);
  for (let t = 0; t <= 10_000; t += 1000) long.add(point(t));
  assert.deepEqual(long.points().map((p) => p.t), [7000, 8000, 9000, 10_000]);
  assert.equal(long.latest()?.t, 10_000);
  for (let t = 11_000; t < 2_000_000; t += 1000) long.add(point(t));
  assert.equal(long.points().length, 4, 'memory stays bounded however long it runs');
});

test('the browser trims its copy the same way', () => {
  const points = [0, 1000, 2000, 3000, 4000].map(point);
  assert.deepEqual(trimHistory(points, 2000, 100).map((p) => p.t), [2000, 3000, 4000]);
  assert.deepEqual(trimHistory(points, 60_000, 2).map((p) => p.t), [3000, 4000]);
  assert.deepEqual(trimHistory([], 1000, 10), []);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HistogramWindow, histogramDelta, histogramQuantile } from './histogram.ts';
import type { Histogram } from './histogram.ts';

const histogram = (counts: [number, number][], sum = 0): Histogram => ({ buckets: counts, count: counts.at(-1)![1], sum });
const inf = Number.POSITIVE_INFINITY;

test('quantiles interpolate inside the bucket, as histogram_quantile does', () => {
  // 10 observations: 4 up to 1 ms, 4 more up to 2 ms, 2 more up to 4 ms.
  const h = histogram([[0.001, 4], [0.002, 8], [0.004, 10], [inf, 10]]);
  assert.equal(histogramQuantile(0.4, h), 0.001);
  assert.ok(Math.abs(histogramQuantile(0.5, h)! - 0.00125) < 1e-12);
  assert.ok(Math.abs(histogramQuantile(0.9, h)! - 0.003) < 1e-12);
  assert.equal(histogramQuantile(1, h), 0.004);
  assert.ok(Math.abs(histogramQuantile(0.2, h)! - 0.0005) < 1e-12, 'the first bucket starts at 0');
});

test('observations past the last finite bucket give its bound; none give nothing', () => {
  assert.equal(histogramQuantile(0.99, histogram([[0.1, 1], [5, 1], [inf, 4]])), 5);
  assert.equal(histogramQuantile(0.5, histogram([[0.1, 0], [inf, 0]])), undefined);
  assert.equal(histogramQuantile(0.5, { buckets: [], count: 0, sum: 0 }), undefined);
});

test('the difference of two readings is what was observed between them; a reset counts from zero', () => {
  const older = histogram([[0.01, 5], [inf, 6]], 0.5);
  const newer = histogram([[0.01, 7], [inf, 10]], 2);
  assert.deepEqual(histogramDelta(newer, older), { buckets: [[0.01, 2], [inf, 4]], count: 4, sum: 1.5 });
  const restarted = histogram([[0.01, 1], [inf, 1]], 0.001);
  assert.deepEqual(histogramDelta(restarted, older), restarted);
  assert.deepEqual(histogramDelta(newer, undefined), newer);
});

test('the window compares with the reading one window back and forgets keys that stopped', () => {
  const window = new HistogramWindow(60_000);
  const at = (n: number) => histogram([[0.01, n], [inf, n]]);
  assert.equal(window.observe('a', 0, at(10)), undefined, 'the first reading has nothing to compare with');
  assert.equal(window.observe('a', 30_000, at(13))?.count, 3);
  assert.equal(window.observe('a', 60_000, at(20))?.count, 10, 'exactly one window back');
  assert.equal(window.observe('a', 90_000, at(21))?.count, 8, 'compared with the reading at 30 s');
  window.observe('b', 90_000, at(1));
  window.prune(160_000);
  assert.equal(window.size, 0);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { controllerTarget, down, encodeSamples, histogramBuckets, ramp, repeat, seriesName } from './test-series.ts';

test('samples are written in promtool\'s expanding notation', () => {
  assert.equal(encodeSamples(repeat(1, 10)), '1x9');
  assert.equal(encodeSamples(ramp(100, 10, 4)), '100+10x3');
  assert.equal(encodeSamples([5, 3, 1]), '5-2x2');
  assert.equal(encodeSamples([1, 5, 5, 5]), '1 5x2');
  assert.equal(encodeSamples([7]), '7');
  assert.equal(encodeSamples([1, ...down(3), 0, 0]), '1 stale _x2 0x1');
  assert.equal(encodeSamples(['missing', 2]), '_ 2');
  assert.equal(encodeSamples([0.25, 0.5]), '0.25 0.5');
});

test('a number promtool cannot read is refused', () => {
  assert.throws(() => encodeSamples([1e-9]), /cannot be written/);
  assert.throws(() => encodeSamples([Number.NaN]), /cannot be written/);
});

test('a series carries the scrape job and target labels, in name order', () => {
  assert.equal(
    seriesName('up', controllerTarget('ctrl2')),
    'up{cluster="demo",controller="ctrl2",instance="127.0.0.1:1281",job="edgeward-controller"}',
  );
});

test('histogram buckets are cumulative and start again after the target was down', () => {
  const buckets = histogramBuckets('h', { job: 'j' }, [0.001, 0.01], [0.005, 0.005, 'down', 0.0005, 0.0005], 2);
  assert.deepEqual(
    buckets.map((bucket) => [bucket.series, bucket.values]),
    [
      ['h_bucket{job="j",le="0.001"}', '0x1 stale 2 4'],
      ['h_bucket{job="j",le="0.01"}', '0 2 stale 2 4'],
      ['h_bucket{job="j",le="+Inf"}', '0 2 stale 2 4'],
    ],
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { HttpRequestDurations } from './http-request-durations.ts';
import { hrTimeNow, PrometheusExposition } from './prometheus-exposition.ts';

const boundaries = [0.001, 0.01, 0.1, 1];

test('durations land in the bucket of the first boundary at or above them, per API and status class', () => {
  const durations = new HttpRequestDurations({ name: 'd', description: 'd', boundaries }, [0, 0]);
  durations.record('edge-client', 200, 0.001);
  durations.record('edge-client', 204, 0.05);
  durations.record('edge-client', 200, 7);
  durations.record('edge-client', 404, 0.0001);
  durations.record('root', 999, 0.2);
  const points = durations.collect([1, 0]).dataPoints.map((point) => ({ ...point.attributes, ...point.value, buckets: point.value.buckets.counts }));
  assert.deepEqual(points, [
    { api: 'edge-client', status_class: '2xx', buckets: [1, 0, 1, 0, 1], count: 3, sum: 7.051, min: 0.001, max: 7 },
    { api: 'edge-client', status_class: '4xx', buckets: [1, 0, 0, 0, 0], count: 1, sum: 0.0001, min: 0.0001, max: 0.0001 },
    { api: 'root', status_class: 'other', buckets: [0, 0, 0, 1, 0], count: 1, sum: 0.2, min: 0.2, max: 0.2 },
  ]);
});

test('boundaries that do not ascend are refused', () => {
  assert.throws(() => new HttpRequestDurations({ name: 'd', description: 'd', boundaries: [0.1, 0.1] }, [0, 0]), /must ascend/);
});

test('the exposition renders the aggregated histogram exactly as it renders an SDK histogram given the same values', async () => {
  const exposition = new PrometheusExposition();
  const provider = new MeterProvider({ readers: [exposition.reader] });
  const sdk = provider.getMeter('t').createHistogram('sdk.duration.seconds', { description: 'same', advice: { explicitBucketBoundaries: boundaries } });
  const ours = new HttpRequestDurations({ name: 'ours.duration.seconds', description: 'same', boundaries }, hrTimeNow());
  const remove = exposition.addSource((now) => ours.collect(now));
  const samples: Array<[string, number, number]> = [
    ['edge-client', 200, 0.0004],
    ['edge-client', 200, 0.02],
    ['edge-management', 401, 0.3],
    ['edge-client', 500, 12],
  ];
  for (const [api, status, seconds] of samples) {
    ours.record(api, status, seconds);
    sdk.record(seconds, { api, status_class: `${Math.floor(status / 100)}xx` });
  }
  const text = await exposition.text();
  const lines = (name: string) =>
    text
      .split('\n')
      .filter((line) => line.includes(`edgeward_${name}_duration_seconds`))
      .map((line) => line.replace(`edgeward_${name}_duration_seconds`, 'NAME'))
      .sort();
  assert.ok(lines('ours').some((line) => line === 'NAME_bucket{api="edge-client",status_class="2xx",le="0.001"} 1'), text);
  assert.deepEqual(lines('ours'), lines('sdk'));

  remove();
  assert.ok(!(await exposition.text()).includes('edgeward_ours_duration_seconds'));
  await provider.shutdown();
  await exposition.shutdown();
});

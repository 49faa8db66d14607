import assert from 'node:assert/strict';
import { test } from 'node:test';
import { routerSeries } from './router-metric-series.ts';

test('router gauges are named under router., with milliseconds as seconds and per-link names as a link_id', () => {
  assert.deepEqual(routerSeries('link.count', 3), { metric: 'router.link.count', value: 3, attributes: {} });
  assert.deepEqual(routerSeries('ctrl.latency_ms', 12.5), { metric: 'router.ctrl.latency.seconds', value: 0.0125, attributes: {} });
  assert.deepEqual(routerSeries('link.L1.latency_ms', 3), { metric: 'router.link.latency.seconds', value: 0.003, attributes: { link_id: 'L1' } });
  assert.deepEqual(routerSeries('xgress.Queue-Size', 7), { metric: 'router.xgress.queue_size', value: 7, attributes: {} });
  assert.deepEqual(routerSeries('memory.heap_bytes', 1024), { metric: 'router.memory.heap_bytes', value: 1024, attributes: {} });
});

test('what cannot be a gauge is left out', () => {
  for (const [name, value] of [['link.count', Number.NaN], ['link.count', Infinity], ['link.count', '3'], ['', 1], ['...', 1], ['x'.repeat(201), 1]] as const) {
    assert.equal(routerSeries(name, value), undefined, `${name}=${String(value)}`);
  }
});

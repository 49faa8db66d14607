import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RouterMetricsStore } from './router-metrics-store.ts';

const options = { retainMs: 60_000, staleMs: 300_000, maxSeriesPerRouter: 3 };

test('the latest value per router and series is kept, labelled router_id', () => {
  const store = new RouterMetricsStore(options);
  assert.deepEqual(store.record('r1', { 'link.count': 1, 'link.L1.latency_ms': 2 }, 0).sort(), ['router.link.count', 'router.link.latency.seconds']);
  store.record('r2', { 'link.count': 5 }, 0);
  store.record('r1', { 'link.count': 4 }, 1000);
  assert.deepEqual(store.series('router.link.count'), [
    { value: 4, attributes: { router_id: 'r1' } },
    { value: 5, attributes: { router_id: 'r2' } },
  ]);
  assert.deepEqual(store.series('router.link.latency.seconds'), [{ value: 0.002, attributes: { router_id: 'r1', link_id: 'L1' } }]);
});

test('a disconnected router keeps its series for retainMs, then they go; reconnecting in time keeps them', () => {
  const store = new RouterMetricsStore(options);
  store.record('r1', { 'link.count': 1 }, 0);
  store.record('r2', { 'link.count': 2 }, 0);
  store.disconnected('r1', 1000);
  store.disconnected('r2', 1000);
  store.sweep(60_999);
  assert.equal(store.series('router.link.count').length, 2);
  store.connected('r2');
  store.sweep(61_000);
  assert.deepEqual(store.series('router.link.count'), [{ value: 2, attributes: { router_id: 'r2' } }]);
  assert.deepEqual(store.routerIds(), ['r2']);
});

test('a series the router stopped reporting goes after staleMs; a router is bounded in series', () => {
  const store = new RouterMetricsStore(options);
  store.record('r1', { 'link.A.latency_ms': 1, 'link.count': 1 }, 0);
  store.record('r1', { 'link.count': 2 }, 200_000);
  store.sweep(300_000);
  assert.deepEqual(store.series('router.link.latency.seconds'), []);
  assert.equal(store.series('router.link.count').length, 1);
  store.record('r1', { a: 1, b: 2, c: 3, d: 4 }, 300_000);
  assert.equal(['router.a', 'router.b', 'router.c', 'router.d'].flatMap((metric) => store.series(metric)).length, 2, 'three series at most, link.count included');
});

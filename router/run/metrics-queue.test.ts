import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RouterMetrics } from '../../common/control-channel/control-messages.ts';
import { MetricsQueue } from './metrics-queue.ts';
import { buildRouterMetrics } from './router-metrics.ts';

const at = (timestamp: number): RouterMetrics => ({ type: 'router.metrics', routerId: 'r1', timestamp, gauges: {} });

describe('MetricsQueue', () => {
  it('holds at most messageQueueSize messages, dropping the oldest', () => {
    const queue = new MetricsQueue({ maxMessages: 3, maxAgeMs: 80_000 });
    for (const t of [1000, 2000, 3000, 4000, 5000]) queue.push(at(t));
    assert.equal(queue.size, 3);
    assert.equal(queue.droppedFull, 2);
    assert.deepEqual(queue.drain(5000).map((message) => message.timestamp), [3000, 4000, 5000]);
    assert.equal(queue.size, 0);
  });

  it('never hands out an interval older than intervalAgeThreshold', () => {
    const queue = new MetricsQueue({ maxMessages: 10, maxAgeMs: 80_000 });
    queue.push(at(0));
    queue.push(at(20_000));
    queue.push(at(90_000));
    assert.deepEqual(queue.drain(100_000).map((message) => message.timestamp), [20_000, 90_000]);
    assert.equal(queue.droppedStale, 1);
  });

  it('keeps a message exactly at the threshold', () => {
    const queue = new MetricsQueue({ maxMessages: 10, maxAgeMs: 1000 });
    queue.push(at(0));
    assert.equal(queue.drain(1000).length, 1);
  });
});

describe('buildRouterMetrics', () => {
  it('names the gauges as the contract does, one latency per measured link', () => {
    const message = buildRouterMetrics({
      routerId: 'r1',
      now: 1234,
      links: [
        { id: 'l1', destRouterId: 'r2', latencyMs: 1.23456, localAddr: 'a', remoteAddr: 'b' },
        { id: 'l2', destRouterId: 'r3', latencyMs: null, localAddr: 'a', remoteAddr: 'c' },
      ],
      ctrlLatencyMs: 2.5,
      ctrlConnected: true,
      heapUsedBytes: 100,
      rssBytes: 200,
      metricsDropped: 0,
    });
    assert.equal(message.type, 'router.metrics');
    assert.equal(message.timestamp, 1234);
    assert.deepEqual(message.gauges, {
      'link.count': 2,
      'ctrl.connected': 1,
      'process.heap_used_bytes': 100,
      'process.rss_bytes': 200,
      'metrics.dropped_messages': 0,
      'ctrl.latency_ms': 2.5,
      'link.l1.latency_ms': 1.235,
    });
  });

  it('leaves ctrl.latency_ms out before the first heartbeat answer', () => {
    const message = buildRouterMetrics({ routerId: 'r1', now: 1, links: [], ctrlLatencyMs: undefined, ctrlConnected: false, heapUsedBytes: 1, rssBytes: 1, metricsDropped: 3 });
    assert.equal('ctrl.latency_ms' in message.gauges, false);
    assert.equal(message.gauges['ctrl.connected'], 0);
  });
});

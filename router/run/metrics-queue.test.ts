import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RouterMetrics } from '../../common/control-channel/control-messages.ts';
import { MetricsQueue, metricsCheckIntervalMs } from './metrics-queue.ts';
import { buildRouterMetrics } from './router-metrics.ts';

const at = (timestamp: number): RouterMetrics => ({ type: 'router.metrics', routerId: 'r1', timestamp, gauges: {} });

/** Everything due at `now`, as a sender that always succeeds takes it. */
function sendDue(queue: MetricsQueue, now: number): number[] {
  const sent: number[] = [];
  for (let message = queue.due(now); message !== undefined; message = queue.due(now)) {
    sent.push(message.timestamp);
    queue.sent();
  }
  return sent;
}

describe('MetricsQueue', () => {
  it('holds a message until it is intervalAgeThreshold old, then hands it out', () => {
    const queue = new MetricsQueue({ maxMessages: 10, minAgeMs: 80_000 });
    queue.push(at(0));
    assert.equal(queue.due(0), undefined, 'a new message is not sent');
    assert.equal(queue.due(79_999), undefined);
    assert.equal(queue.due(80_000)?.timestamp, 0, 'sent once exactly the threshold old');
    assert.equal(queue.size, 1, 'it stays queued until it is sent');
    queue.sent();
    assert.equal(queue.size, 0);
  });

  it('sends oldest first, each only once it is old enough, never dropping one for its age', () => {
    const queue = new MetricsQueue({ maxMessages: 10, minAgeMs: 1000 });
    for (const t of [0, 500, 1000, 1500]) queue.push(at(t));
    assert.deepEqual(sendDue(queue, 1200), [0]);
    assert.deepEqual(sendDue(queue, 2100), [500, 1000]);
    assert.deepEqual(sendDue(queue, 100_000), [1500], 'a message long past its threshold still goes');
  });

  it('with a threshold of 0 hands a message out at once', () => {
    const queue = new MetricsQueue({ maxMessages: 1, minAgeMs: 0 });
    queue.push(at(5));
    assert.deepEqual(sendDue(queue, 5), [5]);
  });

  it('holds at most messageQueueSize, dropping the oldest, and says when a run of drops starts', () => {
    const queue = new MetricsQueue({ maxMessages: 3, minAgeMs: 0 });
    const started = [1000, 2000, 3000, 4000, 5000].map((t) => queue.push(at(t)));
    assert.deepEqual(started, [false, false, false, true, false], 'the first drop starts the run; the next is part of it');
    assert.equal(queue.size, 3);
    assert.equal(queue.dropped, 2);
    assert.deepEqual(sendDue(queue, 5000), [3000, 4000, 5000]);
    for (const t of [6000, 7000, 8000]) queue.push(at(t));
    assert.equal(queue.push(at(9000)), true, 'a send ended the run: the next drop starts another');
    assert.equal(queue.dropped, 3);
  });

  it('a message that cannot go stays first in line (the sender calls sent() only on success)', () => {
    const queue = new MetricsQueue({ maxMessages: 5, minAgeMs: 100 });
    queue.push(at(0));
    queue.push(at(50));
    assert.equal(queue.due(500)?.timestamp, 0);
    assert.equal(queue.due(500)?.timestamp, 0, 'not sent: still the oldest');
    assert.equal(queue.size, 2);
  });
});

describe('metricsCheckIntervalMs', () => {
  it('checks every second at most, a tenth of the threshold when smaller, never under 10 ms', () => {
    assert.equal(metricsCheckIntervalMs(80_000), 1000);
    assert.equal(metricsCheckIntervalMs(5000), 500);
    assert.equal(metricsCheckIntervalMs(200), 20);
    assert.equal(metricsCheckIntervalMs(50), 10);
    assert.equal(metricsCheckIntervalMs(0), 10);
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

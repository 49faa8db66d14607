// The metrics timers with real time and a stand-in for the control channel's send.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RouterMetrics } from '../../common/control-channel/control-messages.ts';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { systemClock } from '../../common/time/clock.ts';
import { MetricsReporter } from './metrics-reporter.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function reporter(options: { reportIntervalMs: number; messageQueueSize: number; intervalAgeThresholdMs: number }) {
  const logger = createMemoryLogger();
  const sent: { message: RouterMetrics; at: number }[] = [];
  const state = { up: true };
  const metrics = new MetricsReporter({
    ...options,
    clock: systemClock,
    logger,
    build: (now, dropped) => ({ type: 'router.metrics', routerId: 'r1', timestamp: now, gauges: { 'metrics.dropped_messages': dropped } }),
    send: (message) => {
      if (!state.up) return false;
      sent.push({ message, at: Date.now() });
      return true;
    },
  });
  const drops = () => logger.lines.filter((line) => line.msg === 'metrics queue full: dropping the oldest messages until one can be sent');
  return { metrics, sent, state, drops };
}

describe('MetricsReporter', () => {
  it('sends each message once it is intervalAgeThreshold old, oldest first, within a check interval of it', async () => {
    const { metrics, sent } = reporter({ reportIntervalMs: 40, messageQueueSize: 20, intervalAgeThresholdMs: 150 });
    assert.equal(metrics.checkIntervalMs, 15);
    const startedAt = Date.now();
    metrics.start();
    await sleep(140);
    assert.equal(sent.length, 0, 'nothing is sent before the first message is 150 ms old');
    await sleep(560);
    metrics.stop();
    assert.ok(sent.length >= 8, `${sent.length} messages sent in 700 ms`);
    assert.ok(sent[0]!.at - startedAt >= 40 + 150);
    const timestamps = sent.map((entry) => entry.message.timestamp);
    assert.deepEqual(timestamps, [...timestamps].sort((a, b) => a - b), 'oldest first');
    for (const { message, at } of sent) {
      const age = at - message.timestamp;
      // Never early; late by at most one check interval (15 ms) plus the slack of a loaded machine.
      assert.ok(age >= 150 && age <= 150 + 15 + 100, `sent at age ${age} ms`);
    }
  });

  it('keeps at most messageQueueSize while the controller is unreachable, logs each run of drops once, and delivers them once it is back', async () => {
    const { metrics, sent, state, drops } = reporter({ reportIntervalMs: 20, messageQueueSize: 4, intervalAgeThresholdMs: 60 });
    state.up = false;
    metrics.start();
    await sleep(300);
    assert.equal(sent.length, 0);
    assert.equal(metrics.queued, 4, 'bounded by messageQueueSize');
    assert.ok(metrics.dropped >= 5, `${metrics.dropped} dropped`);
    assert.equal(drops().length, 1, 'one log line for the whole run of drops');

    state.up = true;
    metrics.flush(); // what the router does on the welcome
    assert.ok(sent.length >= 1, 'the queued messages already old enough go out at once');
    await sleep(200);
    assert.ok(sent.length >= 8, `${sent.length}: the queued ones, then new ones`);
    const timestamps = sent.map((entry) => entry.message.timestamp);
    assert.deepEqual(timestamps, [...timestamps].sort((a, b) => a - b), 'oldest first');
    assert.ok(sent.every(({ message, at }) => at - message.timestamp >= 60), 'none before it is 60 ms old');
    assert.ok((sent[0]!.message.gauges['metrics.dropped_messages'] ?? 0) > 0, 'the drops are reported in the gauge');

    state.up = false;
    await sleep(200);
    metrics.stop();
    assert.equal(drops().length, 2, 'after a send, a new run of drops is logged again');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DialBackoff, jitteredDelay, linkDialJitter, nextRetryInterval } from './dial-backoff.ts';

const healthy = { minRetryInterval: 5_000, maxRetryInterval: 300_000, retryBackoffFactor: 1.5 };
const unhealthy = { minRetryInterval: 60_000, maxRetryInterval: 3_600_000, retryBackoffFactor: 10 };
const noJitter = () => 0;

function intervals(backoff: DialBackoff, count: number): number[] {
  return Array.from({ length: count }, () => backoff.next().intervalMs);
}

describe('link dial backoff', () => {
  it('starts at minRetryInterval, multiplies by the factor and stops at maxRetryInterval (spec healthy defaults)', () => {
    const backoff = new DialBackoff({ healthy, unhealthy }, noJitter);
    const seen = intervals(backoff, 12);
    assert.deepEqual(seen.slice(0, 4), [5_000, 7_500, 11_250, 16_875]);
    assert.equal(seen.at(-1), 300_000);
    assert.ok(seen.every((value, i) => i === 0 || value >= seen[i - 1]!), 'never shrinks');
  });

  it('follows the unhealthy defaults: 1m, 10m, then the 1h cap', () => {
    const backoff = new DialBackoff({ healthy, unhealthy }, noJitter);
    backoff.use('unhealthy');
    assert.deepEqual(intervals(backoff, 4), [60_000, 600_000, 3_600_000, 3_600_000]);
  });

  it('with the short test policy (20ms, ×2, 200ms) gives 20, 40, 80, 160, 200, 200', () => {
    const policy = { minRetryInterval: 20, maxRetryInterval: 200, retryBackoffFactor: 2 };
    const backoff = new DialBackoff({ healthy: policy, unhealthy: policy }, noJitter);
    assert.deepEqual(intervals(backoff, 6), [20, 40, 80, 160, 200, 200]);
  });

  it('a factor of 1 retries at the minimum every time', () => {
    assert.equal(nextRetryInterval({ minRetryInterval: 10, maxRetryInterval: 1_000, retryBackoffFactor: 1 }, 10), 10);
  });

  it('keeps a previous interval outside the policy within min..max', () => {
    assert.equal(nextRetryInterval(unhealthy, 7_500), 75_000);
    assert.equal(nextRetryInterval(healthy, 3_600_000), 300_000);
    assert.equal(nextRetryInterval(healthy, 1), 5_000);
  });

  it('jitter takes at most 10% off and never adds', () => {
    assert.equal(linkDialJitter, 0.1);
    assert.equal(jitteredDelay(1_000, 0), 1_000);
    assert.equal(jitteredDelay(1_000, 0.5), 950);
    assert.equal(jitteredDelay(1_000, 0.999_999), 900);
    assert.equal(jitteredDelay(1_000, 5), 900, 'a draw above 1 is clamped');
    assert.equal(jitteredDelay(1_000, -1), 1_000, 'a draw below 0 is clamped');
    assert.equal(jitteredDelay(1_000, Number.NaN), 1_000);
    for (let draw = 0; draw < 1; draw += 0.01) {
      const delay = jitteredDelay(300_000, draw);
      assert.ok(delay >= 270_000 && delay <= 300_000, `${delay} within [270000, 300000]`);
    }
  });

  it('reports the policy, interval and jittered delay of each step', () => {
    const backoff = new DialBackoff({ healthy, unhealthy }, () => 0.5);
    assert.deepEqual(backoff.next(), { policy: 'healthy', intervalMs: 5_000, delayMs: 4_750 });
  });

  it('switching policy restarts the sequence at the new minimum; staying does not', () => {
    const backoff = new DialBackoff({ healthy, unhealthy }, noJitter);
    intervals(backoff, 3);
    assert.equal(backoff.use('healthy'), false);
    assert.equal(backoff.next().intervalMs, 16_875);
    assert.equal(backoff.use('unhealthy'), true);
    assert.equal(backoff.policy, 'unhealthy');
    assert.equal(backoff.next().intervalMs, 60_000);
    assert.equal(backoff.use('healthy'), true);
    assert.equal(backoff.next().intervalMs, 5_000);
  });

  it('reset starts over at the minimum', () => {
    const backoff = new DialBackoff({ healthy, unhealthy }, noJitter);
    intervals(backoff, 5);
    backoff.reset();
    assert.equal(backoff.next().intervalMs, 5_000);
  });

  it('refuses a policy with min above max or a factor below 1', () => {
    assert.throws(() => new DialBackoff({ healthy: { ...healthy, minRetryInterval: 400_000 }, unhealthy }, noJitter), /invalid healthy/);
    assert.throws(() => new DialBackoff({ healthy, unhealthy: { ...unhealthy, retryBackoffFactor: 0.5 } }, noJitter), /invalid unhealthy/);
  });
});

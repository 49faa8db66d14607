import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { LoginThrottle } from './login-throttle.ts';

test('after maxFailures within the window an address waits until the oldest failure leaves it', () => {
  const clock = new ManualClock();
  const throttle = new LoginThrottle({ now: () => clock.now(), maxFailures: 3, windowMs: 60_000 });
  for (let i = 0; i < 3; i++) {
    assert.equal(throttle.retryAfterSeconds('10.0.0.1'), 0);
    throttle.failed('10.0.0.1');
    clock.advance(10_000);
  }
  assert.equal(throttle.retryAfterSeconds('10.0.0.1'), 30);
  assert.equal(throttle.retryAfterSeconds('10.0.0.2'), 0, 'other addresses are not held back');
  clock.advance(30_001);
  assert.equal(throttle.retryAfterSeconds('10.0.0.1'), 0);
  throttle.failed('10.0.0.1');
  throttle.succeeded('10.0.0.1');
  assert.equal(throttle.retryAfterSeconds('10.0.0.1'), 0, 'a success clears the count');
});

test('no more than maxAddresses are tracked', () => {
  const clock = new ManualClock();
  const throttle = new LoginThrottle({ now: () => clock.now(), maxFailures: 1, maxAddresses: 100 });
  for (let i = 0; i < 1000; i++) throttle.failed(`10.0.${i >> 8}.${i & 255}`);
  assert.equal((throttle as unknown as { failures: Map<string, unknown> }).failures.size, 100);
  assert.ok(throttle.retryAfterSeconds('10.0.3.231') > 0, 'the newest are kept');
  assert.equal(throttle.retryAfterSeconds('10.0.0.0'), 0, 'the stalest went');
});

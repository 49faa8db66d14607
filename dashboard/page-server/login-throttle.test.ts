import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { LoginThrottle } from './login-throttle.ts';

const fail = (throttle: LoginThrottle, address: string) => {
  const reservation = throttle.reserve(address);
  assert.ok(reservation.ok, `${address} may try`);
  reservation.slot.failed();
};

test('after maxFailuresPerAddress within the window an address waits until the oldest failure leaves it', () => {
  const clock = new ManualClock();
  const throttle = new LoginThrottle({ now: () => clock.now(), maxFailuresPerAddress: 3, windowMs: 60_000 });
  for (let i = 0; i < 3; i++) {
    fail(throttle, '10.0.0.1');
    clock.advance(10_000);
  }
  assert.deepEqual(throttle.reserve('10.0.0.1'), { ok: false, scope: 'address', retryAfterSeconds: 30 });
  assert.ok(throttle.reserve('10.0.0.2').ok, 'other addresses are not held back');
  clock.advance(30_001);
  const success = throttle.reserve('10.0.0.1');
  assert.ok(success.ok);
  success.slot.succeeded();
  for (let i = 0; i < 2; i++) fail(throttle, '10.0.0.1');
  assert.ok(throttle.reserve('10.0.0.1').ok, 'a success cleared the count');
});

test('attempts in flight hold their slots: concurrent attempts beyond the budget are refused before any ends', () => {
  const clock = new ManualClock();
  const throttle = new LoginThrottle({ now: () => clock.now(), maxFailuresPerAddress: 3 });
  const held = [throttle.reserve('10.0.0.1'), throttle.reserve('10.0.0.1'), throttle.reserve('10.0.0.1')];
  assert.ok(held.every((reservation) => reservation.ok));
  assert.deepEqual(throttle.reserve('10.0.0.1'), { ok: false, scope: 'address', retryAfterSeconds: 1 });
  // One given back (no controller answered): its slot is free again; ending it twice changes nothing.
  if (held[0]!.ok) {
    held[0]!.slot.released();
    held[0]!.slot.failed();
  }
  const next = throttle.reserve('10.0.0.1');
  assert.ok(next.ok);
  assert.equal(throttle.reserve('10.0.0.1').ok, false);
});

test('the whole page has a budget; addresses that logged in before keep a reserve beyond it', () => {
  const clock = new ManualClock();
  const throttle = new LoginThrottle({ now: () => clock.now(), maxFailuresPerAddress: 2, maxFailures: 4, reservedForKnown: 2, windowMs: 60_000, knownForMs: 30_000 });
  const operator = throttle.reserve('10.0.0.9');
  assert.ok(operator.ok);
  operator.slot.succeeded();
  for (const address of ['10.0.0.1', '10.0.0.1', '10.0.0.2', '10.0.0.2']) fail(throttle, address);
  assert.deepEqual(throttle.reserve('10.0.0.3'), { ok: false, scope: 'page', retryAfterSeconds: 60 });
  fail(throttle, '10.0.0.9');
  const again = throttle.reserve('10.0.0.9');
  assert.ok(again.ok, 'the known address still may try, within the reserve and its own budget');
  again.slot.released();
  clock.advance(30_000);
  assert.deepEqual(throttle.reserve('10.0.0.9'), { ok: false, scope: 'page', retryAfterSeconds: 30 }, 'known only for knownForMs');
  clock.advance(30_001);
  assert.ok(throttle.reserve('10.0.0.3').ok, 'the window passed');
});

test('no more than maxAddresses are tracked', () => {
  const clock = new ManualClock();
  const throttle = new LoginThrottle({ now: () => clock.now(), maxFailuresPerAddress: 1, maxFailures: 100_000, maxAddresses: 100 });
  for (let i = 0; i < 1000; i++) fail(throttle, `10.0.${i >> 8}.${i & 255}`);
  assert.equal((throttle as unknown as { failures: Map<string, unknown> }).failures.size, 100);
  assert.equal(throttle.reserve('10.0.3.231').ok, false, 'the newest are kept');
  assert.ok(throttle.reserve('10.0.0.0').ok, 'the stalest went');
});

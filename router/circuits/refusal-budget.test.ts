import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { RefusalBudget, sourceKeyOf } from './refusal-budget.ts';

test('a source may be refused `burst` times, then waits for its bucket to refill; other sources are not affected', () => {
  const clock = new ManualClock();
  const budget = new RefusalBudget(clock, { burst: 3, refillPerSecond: 0.5, maxSources: 100 });
  assert.equal(budget.retryAfterSeconds('10.0.0.1'), 0);
  assert.deepEqual([budget.spend('10.0.0.1'), budget.spend('10.0.0.1')], [false, false]);
  assert.equal(budget.retryAfterSeconds('10.0.0.1'), 0, 'one token left');
  assert.equal(budget.spend('10.0.0.1'), true, 'the last token: worth one log line');
  assert.equal(budget.retryAfterSeconds('10.0.0.1'), 2, 'one token comes back in 2 s');
  assert.equal(budget.spend('10.0.0.1'), false, 'already out');
  assert.equal(budget.retryAfterSeconds('10.0.0.2'), 0);
  clock.advance(1000);
  assert.equal(budget.retryAfterSeconds('10.0.0.1'), 1);
  clock.advance(1000);
  assert.equal(budget.retryAfterSeconds('10.0.0.1'), 0);
  clock.advance(10_000);
  assert.equal(budget.size, 1);
  budget.spend('10.0.0.2');
  assert.equal(budget.retryAfterSeconds('10.0.0.1'), 0);
  assert.equal(budget.size, 1, 'a refilled bucket is forgotten');
});

test('at most maxSources buckets: the least recently refused source is forgotten first', () => {
  const clock = new ManualClock();
  const budget = new RefusalBudget(clock, { burst: 1, refillPerSecond: 0.001, maxSources: 3 });
  for (const source of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) budget.spend(source);
  budget.spend('10.0.0.1');
  budget.spend('10.0.0.4');
  assert.equal(budget.size, 3);
  assert.equal(budget.retryAfterSeconds('10.0.0.2'), 0, 'the oldest is gone');
  for (const source of ['10.0.0.1', '10.0.0.3', '10.0.0.4']) assert.ok(budget.retryAfterSeconds(source) > 0, source);
  for (let i = 0; i < 10_000; i++) budget.spend(`10.1.${i >> 8}.${i & 255}`);
  assert.equal(budget.size, 3, 'memory stays bounded under a flood of sources');
});

test('sources are counted per IPv4 address and per IPv6 /64; an IPv4-mapped address is its IPv4 address', () => {
  assert.equal(sourceKeyOf('192.0.2.7'), '192.0.2.7');
  assert.equal(sourceKeyOf('::ffff:192.0.2.7'), '192.0.2.7');
  assert.equal(sourceKeyOf('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(sourceKeyOf('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
  assert.equal(sourceKeyOf('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(sourceKeyOf('::1'), '0:0:0:0::/64');
  assert.equal(sourceKeyOf('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(sourceKeyOf(undefined), 'unknown');
  const budget = new RefusalBudget(new ManualClock(), { burst: 1, refillPerSecond: 1, maxSources: 10 });
  budget.spend('2001:db8:1:2::1');
  assert.ok(budget.retryAfterSeconds('2001:db8:1:2::ffff') > 0, 'another address of the same /64 shares the bucket');
  assert.equal(budget.retryAfterSeconds('2001:db8:1:3::1'), 0);
});

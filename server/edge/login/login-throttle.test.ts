import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryLogger } from '../../../common/log/logger.ts';
import { ManualClock } from '../../../common/time/clock.ts';
import { EdgeError } from '../edge-error.ts';
import { defaultLoginThrottleLimits, LoginThrottle, type LoginThrottleLimits } from './login-throttle.ts';

const limits = (overrides: Partial<LoginThrottleLimits> = {}): LoginThrottleLimits => ({ ...defaultLoginThrottleLimits, windowMs: 60_000, maxFailuresPerAddress: 6, maxFailuresPerUser: 3, ...overrides });

const refused = () => Promise.reject(new EdgeError('INVALID_AUTH').withRefusal({ reason: 'wrong password' }));
const succeeded = () => Promise.resolve('session');

/** The outcome of one attempt: what the work returned, the refusal's code, or the 429 with its Retry-After. */
async function outcome(throttle: LoginThrottle, keys: { address: string; user?: string }, work: () => Promise<string>): Promise<string> {
  try {
    return await throttle.attempt(keys, work);
  } catch (error) {
    assert.ok(error instanceof EdgeError, String(error));
    return error.code === 'RATE_LIMITED' ? `429 after ${error.retryAfterSeconds} s` : error.code;
  }
}

test('a user key allows maxFailuresPerUser refusals, then answers 429 with Retry-After without running the attempt', async () => {
  const throttle = new LoginThrottle(limits(), new ManualClock(), createMemoryLogger());
  const keys = { address: '10.0.0.1', user: 'username:alice' };
  for (let i = 0; i < 3; i++) assert.equal(await outcome(throttle, keys, refused), 'INVALID_AUTH');
  let ran = false;
  const blocked = await outcome(throttle, keys, () => {
    ran = true;
    return succeeded();
  });
  // 3 per minute: one more every 20 s.
  assert.equal(blocked, '429 after 20 s');
  assert.equal(ran, false, 'a throttled attempt never reaches the password check');
  assert.equal(await outcome(throttle, { address: '10.0.0.1', user: 'username:bob' }, succeeded), 'session', 'another user from the same address is not held up');
});

test('the 429 is RATE_LIMITED in the error envelope shape, naming what was throttled; it is not itself a refusal', async () => {
  const throttle = new LoginThrottle(limits({ maxFailuresPerAddress: 1 }), new ManualClock(), createMemoryLogger());
  await outcome(throttle, { address: '10.0.0.2' }, refused);
  const error = await throttle.attempt({ address: '10.0.0.2' }, succeeded).then(
    () => assert.fail('not throttled'),
    (thrown: unknown) => thrown as EdgeError,
  );
  assert.equal(error.code, 'RATE_LIMITED');
  assert.deepEqual(error.cause, { code: 'AUTHENTICATION_THROTTLED', message: 'too many failed authentication attempts from this address; retry after 60 s' });
  assert.equal(error.retryAfterSeconds, 60);
  assert.equal(error.refusal, undefined, 'nothing was checked: not counted, and no authentication event');
});

test('successes are never counted: an owner logs in any number of times, many at once', async () => {
  const throttle = new LoginThrottle(limits({ maxFailuresPerAddress: 2, maxFailuresPerUser: 2 }), new ManualClock(), createMemoryLogger());
  const keys = { address: '10.0.0.3', user: 'username:owner' };
  for (let i = 0; i < 50; i++) assert.equal(await outcome(throttle, keys, succeeded), 'session');
  const together = await Promise.all(Array.from({ length: 50 }, () => outcome(throttle, keys, () => new Promise((resolve) => setImmediate(() => resolve('session'))))));
  assert.ok(together.every((answer) => answer === 'session'), 'fifty logins in flight from one address at once');
  // Other failures (a bad body, no leader) are not guesses either.
  for (let i = 0; i < 10; i++) assert.equal(await outcome(throttle, keys, () => Promise.reject(new EdgeError('CLUSTER_NO_LEADER'))), 'CLUSTER_NO_LEADER');
  assert.deepEqual(throttle.trackedKeys(), { addresses: 0, users: 0 });
  assert.equal(await outcome(throttle, keys, refused), 'INVALID_AUTH');
  assert.equal(await outcome(throttle, keys, refused), 'INVALID_AUTH');
  assert.equal(await outcome(throttle, keys, succeeded), '429 after 30 s');
});

test('guesses already in flight when a key fills are still charged: the key stays closed that much longer', async () => {
  const clock = new ManualClock();
  const throttle = new LoginThrottle(limits({ maxFailuresPerUser: 3 }), clock, createMemoryLogger());
  const keys = { address: '10.0.0.4', user: 'username:target' };
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const burst = Array.from({ length: 9 }, () => outcome(throttle, keys, () => gate.then(refused)));
  release();
  assert.ok((await Promise.all(burst)).every((answer) => answer === 'INVALID_AUTH'));
  // Nine refusals at 20 s each against a 60 s budget: 2 minutes more before the next one, so over time no more than the rate.
  assert.equal(await outcome(throttle, keys, succeeded), '429 after 140 s');
  clock.advance(139_000);
  assert.equal(await outcome(throttle, keys, succeeded), '429 after 1 s');
  clock.advance(1_000);
  assert.equal(await outcome(throttle, keys, succeeded), 'session');
});

test('a key recovers one attempt every window/max, and forgets itself once drained', async () => {
  const clock = new ManualClock();
  const throttle = new LoginThrottle(limits({ maxFailuresPerAddress: 4 }), clock, createMemoryLogger());
  const keys = { address: '10.0.0.5' };
  for (let i = 0; i < 4; i++) await outcome(throttle, keys, refused);
  assert.equal(await outcome(throttle, keys, succeeded), '429 after 15 s');
  clock.advance(14_000);
  assert.equal(await outcome(throttle, keys, succeeded), '429 after 1 s');
  clock.advance(1_000);
  assert.equal(await outcome(throttle, keys, refused), 'INVALID_AUTH', 'one more after window/max');
  assert.equal(await outcome(throttle, keys, succeeded), '429 after 15 s');
  clock.advance(60_000);
  for (let i = 0; i < 4; i++) assert.equal(await outcome(throttle, keys, refused), 'INVALID_AUTH', 'a full window later, the whole burst again');
  clock.advance(60_001);
  // A drained key is dropped when met at the front of its table.
  await outcome(throttle, { address: '10.0.0.6' }, succeeded);
  assert.equal(throttle.trackedKeys().addresses, 0);
});

test('memory is bounded: a flood of new addresses and usernames never holds more than maxTrackedKeys each, and says so once', async () => {
  const logger = createMemoryLogger();
  const throttle = new LoginThrottle(limits({ maxTrackedKeys: 100 }), new ManualClock(), logger);
  for (let i = 0; i < 5_000; i++) await outcome(throttle, { address: `10.1.${i >> 8}.${i & 255}`, user: `username:guess-${i}` }, refused);
  assert.deepEqual(throttle.trackedKeys(), { addresses: 100, users: 100 });
  const warnings = logger.lines.filter((line) => line.msg === 'authentication throttle is full: forgetting the oldest keys');
  assert.equal(warnings.length, 1);
  // The most recently charged keys are the ones kept.
  for (let i = 0; i < 5; i++) await outcome(throttle, { address: '10.1.19.135' }, refused);
  assert.match(await outcome(throttle, { address: '10.1.19.135' }, succeeded), /^429/);
});

test('a key that runs out is logged once, with the address and which limit, never the username', async () => {
  const logger = createMemoryLogger();
  const throttle = new LoginThrottle(limits(), new ManualClock(), logger);
  for (let i = 0; i < 5; i++) await outcome(throttle, { address: '10.0.0.7', user: 'username:secret-looking-name' }, refused);
  const lines = logger.lines.filter((line) => line.msg === 'authentication throttled: too many failed attempts');
  assert.deepEqual(lines.map((line) => [line.level, line.limit, line.address, line.windowSeconds]), [['warn', 'user', '10.0.0.7', 60]]);
  assert.doesNotMatch(JSON.stringify(logger.lines), /secret-looking-name/);
});

test('limits of 0 leave that kind uncounted, and a disabled throttle runs every attempt', async () => {
  const noUsers = new LoginThrottle(limits({ maxFailuresPerUser: 0, maxFailuresPerAddress: 100 }), new ManualClock(), createMemoryLogger());
  for (let i = 0; i < 20; i++) assert.equal(await outcome(noUsers, { address: '10.0.0.8', user: 'username:x' }, refused), 'INVALID_AUTH');
  assert.equal(noUsers.trackedKeys().users, 0);
  const off = new LoginThrottle(limits({ enabled: false }), new ManualClock(), createMemoryLogger());
  for (let i = 0; i < 100; i++) assert.equal(await outcome(off, { address: '10.0.0.9', user: 'username:x' }, refused), 'INVALID_AUTH');
  assert.deepEqual(off.trackedKeys(), { addresses: 0, users: 0 });
});

test('wrong MFA codes and wrong current passwords count as refusals too', async () => {
  const throttle = new LoginThrottle(limits({ maxFailuresPerUser: 2 }), new ManualClock(), createMemoryLogger());
  const keys = { address: '10.0.0.10', user: 'identity:abc' };
  assert.equal(await outcome(throttle, keys, () => Promise.reject(new EdgeError('MFA_INVALID_TOKEN', { field: 'code', reason: 'the code does not match' }))), 'MFA_INVALID_TOKEN');
  assert.equal(await outcome(throttle, keys, () => Promise.reject(EdgeError.validation('currentPassword', 'the current password is incorrect').withRefusal({ reason: 'wrong current password' }))), 'COULD_NOT_VALIDATE');
  assert.equal(await outcome(throttle, keys, succeeded), '429 after 30 s');
});

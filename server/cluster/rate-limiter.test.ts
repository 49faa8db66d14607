// The adaptive rate limiter with a manual clock and commands whose completion the test controls.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { AdaptiveRateLimiter, RateLimitedError, rateLimiterDefaults, validateRateLimiterConfig, type AdaptiveRateLimiterOptions, type WorkOutcome } from './rate-limiter.ts';

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every settled command's bookkeeping run. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

class TimeoutError extends Error {
  constructor() {
    super('timed out');
    this.name = 'TimeoutError';
  }
}

function limiter(options: Partial<AdaptiveRateLimiterOptions> = {}): { limiter: AdaptiveRateLimiter; clock: ManualClock } {
  const clock = new ManualClock();
  return { limiter: new AdaptiveRateLimiter({ clock, ...options }), clock };
}

async function backoffs(target: AdaptiveRateLimiter, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    await assert.rejects(target.run(() => Promise.reject(new TimeoutError())), TimeoutError);
  }
}

async function successes(target: AdaptiveRateLimiter, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) await target.run(() => Promise.resolve(i));
}

test('starts with the window at maxSize, nothing queued, and the spec defaults', () => {
  const { limiter: subject } = limiter();
  assert.equal(subject.windowSize(), 250);
  assert.equal(subject.queueSize(), 0);
  assert.equal(subject.config.minSize, 5);
  assert.equal(subject.config.maxQueued, 0);
  assert.equal(subject.config.timeoutMs, 30_000);
});

test('never runs more commands at once than the window, and runs every admitted one', async () => {
  const { limiter: subject } = limiter({ maxSize: 4, minSize: 2, maxQueued: 100 });
  const commands = Array.from({ length: 30 }, () => deferred<number>());
  let active = 0;
  let peak = 0;
  const results = commands.map((command, index) =>
    subject.run(async () => {
      active += 1;
      peak = Math.max(peak, active);
      assert.ok(active <= subject.windowSize(), `${active} commands running in a window of ${subject.windowSize()}`);
      try {
        return await command.promise;
      } finally {
        active -= 1;
      }
    }).then((value) => assert.equal(value, index)),
  );
  assert.equal(subject.inFlight(), 4);
  assert.equal(subject.queued(), 26);
  // Finish them out of order: odd positions first, then the rest.
  const order = [...commands.keys()].sort((a, b) => (a % 2) - (b % 2) || a - b).reverse();
  for (const index of order) {
    commands[index]!.resolve(index);
    await flush();
    assert.ok(subject.inFlight() <= 4);
  }
  await Promise.all(results);
  assert.equal(peak, 4);
  assert.equal(subject.queueSize(), 0);
});

test('starts waiting commands in the order they arrived', async () => {
  const { limiter: subject } = limiter({ maxSize: 2, minSize: 1, maxQueued: 10 });
  const started: string[] = [];
  const gates = new Map<string, Deferred<void>>();
  const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  const runs = names.map((name) => {
    const gate = deferred<void>();
    gates.set(name, gate);
    return subject.run(() => {
      started.push(name);
      return gate.promise;
    });
  });
  assert.deepEqual(started, ['a', 'b']);
  // Finish the later of the two running commands first: the next waiting one still starts next.
  gates.get('b')!.resolve();
  await flush();
  assert.deepEqual(started, ['a', 'b', 'c']);
  for (const name of ['a', 'c', 'd', 'e', 'f', 'g']) {
    gates.get(name)!.resolve();
    await flush();
  }
  await Promise.all(runs);
  assert.deepEqual(started, names);
});

test('refuses a command at once with RateLimitedError when the window and the queue are full', async () => {
  const { limiter: subject } = limiter({ maxSize: 2, minSize: 1, maxQueued: 3 });
  const gate = deferred<void>();
  const admitted = Array.from({ length: 5 }, () => subject.run(() => gate.promise));
  let ran = false;
  const refused = subject.run(async () => {
    ran = true;
  });
  await assert.rejects(refused, (error: unknown) => {
    assert.ok(error instanceof RateLimitedError);
    assert.equal(error.name, 'RateLimitedError');
    assert.deepEqual([error.window, error.inFlight, error.queued], [2, 2, 3]);
    return true;
  });
  assert.equal(ran, false);
  assert.equal(subject.queueSize(), 5);
  gate.resolve();
  await Promise.all(admitted);
  assert.equal(subject.queueSize(), 0);
  await subject.run(async () => {
    ran = true;
  });
  assert.equal(ran, true);
});

test('with the default maxQueued of 0, a full window is refused immediately, as the reference controller does', async () => {
  const { limiter: subject } = limiter({ maxSize: 5 });
  const gate = deferred<void>();
  const admitted = Array.from({ length: 5 }, () => subject.run(() => gate.promise));
  await assert.rejects(subject.run(() => Promise.resolve()), RateLimitedError);
  gate.resolve();
  await Promise.all(admitted);
  await subject.run(() => Promise.resolve());
});

test('shrinks the window on every tenth timeout, by a tenth, down to the floor of 5 and no further', async () => {
  const { limiter: subject } = limiter();
  await backoffs(subject, 9);
  assert.equal(subject.windowSize(), 250);
  await backoffs(subject, 1);
  assert.equal(subject.windowSize(), 225);
  let previous = subject.windowSize();
  for (let i = 0; i < 60 && subject.windowSize() > 5; i += 1) {
    await backoffs(subject, 10);
    assert.ok(subject.windowSize() < previous, 'each tenth backoff shrinks the window');
    previous = subject.windowSize();
  }
  assert.equal(subject.windowSize(), 5);
  await backoffs(subject, 100);
  assert.equal(subject.windowSize(), 5);
  assert.equal(subject.queueSize(), 0);
});

test('a command slower than applyTimeoutMs counts as a backoff but still returns its result', async () => {
  const { limiter: subject, clock } = limiter({ applyTimeoutMs: 1000 });
  for (let i = 0; i < 10; i += 1) {
    const value = await subject.run(async () => {
      clock.advance(1001);
      return i;
    });
    assert.equal(value, i);
  }
  assert.equal(subject.windowSize(), 225);
});

test('a command finishing exactly at applyTimeoutMs is a success', async () => {
  const { limiter: subject, clock } = limiter({ applyTimeoutMs: 1000 });
  await backoffs(subject, 10);
  for (let i = 0; i < 10; i += 1) {
    await subject.run(async () => {
      clock.advance(1000);
    });
  }
  assert.equal(subject.windowSize(), 225, 'successes alone do not shrink it');
  assert.equal(subject.successRate(), 0.5);
});

test('errors that are not timeouts free the slot without moving the window', async () => {
  const { limiter: subject } = limiter({ maxSize: 20, minSize: 5 });
  await backoffs(subject, 10);
  assert.equal(subject.windowSize(), 18);
  const failure = new Error('not the leader');
  for (let i = 0; i < 50; i += 1) await assert.rejects(subject.run(() => Promise.reject(failure)), (error) => error === failure);
  assert.equal(subject.windowSize(), 18);
  assert.equal(subject.successRate(), 0);
  assert.equal(subject.queueSize(), 0);
});

test('a work function that throws synchronously fails its command and frees its slot', async () => {
  const { limiter: subject } = limiter({ maxSize: 1, minSize: 1 });
  await assert.rejects(
    subject.run(() => {
      throw new TimeoutError();
    }),
    TimeoutError,
  );
  assert.equal(subject.queueSize(), 0);
  assert.equal(await subject.run(() => Promise.resolve('next')), 'next');
});

test('a per-command isTimeout decides which errors are backoffs', async () => {
  const { limiter: subject } = limiter();
  const slow = new Error('commit timed out');
  for (let i = 0; i < 10; i += 1) {
    await assert.rejects(subject.run(() => Promise.reject(slow), { isTimeout: (error) => error === slow }));
  }
  assert.equal(subject.windowSize(), 225);
});

test('grows back to 250 once commands succeed again, only while the success rate is above 0.9', async () => {
  const { limiter: subject } = limiter();
  await backoffs(subject, 400);
  assert.equal(subject.windowSize(), 5);
  // The last 128 outcomes are all backoffs: the rate first exceeds 0.9 at 116 successes, and the window is
  // checked on every tenth success, so the first growth comes at the 120th.
  await successes(subject, 119);
  assert.equal(subject.windowSize(), 5);
  await successes(subject, 1);
  assert.equal(subject.windowSize(), 6);
  let previous = subject.windowSize();
  for (let i = 0; i < 500 && subject.windowSize() < 250; i += 1) {
    await successes(subject, 10);
    assert.ok(subject.windowSize() > previous, 'each tenth success grows the window');
    assert.ok(subject.windowSize() <= 250);
    previous = subject.windowSize();
  }
  assert.equal(subject.windowSize(), 250);
  await successes(subject, 100);
  assert.equal(subject.windowSize(), 250);
  assert.equal(subject.queueSize(), 0);
});

test('grows multiplicatively by 2%, floored, and reports each change', async () => {
  const changes: { from: number; to: number }[] = [];
  const { limiter: subject } = limiter({ onWindowChange: ({ from, to }) => changes.push({ from, to }) });
  await backoffs(subject, 70);
  // Seven shrinks of ×0.9, floored: 250 225 202 181 162 145 130 117.
  assert.equal(subject.windowSize(), 117);
  assert.deepEqual(changes.at(-1), { from: 130, to: 117 });
  // The rate of the last 128 outcomes passes 0.9 at the 116th success; the next check is at the 120th.
  await successes(subject, 119);
  assert.equal(subject.windowSize(), 117);
  await successes(subject, 1);
  assert.deepEqual(changes.at(-1), { from: 117, to: 119 });
  await successes(subject, 10);
  assert.deepEqual(changes.at(-1), { from: 119, to: 121 });
  assert.equal(subject.windowSize(), 121);
});

test('a command outstanding longer than timeoutMs is expired: its slot is freed and it counts as a backoff', async () => {
  const observed: WorkOutcome[] = [];
  const { limiter: subject, clock } = limiter({ maxSize: 1, minSize: 1, timeoutMs: 30_000, onWork: (_, outcome) => observed.push(outcome) });
  const hung = deferred<string>();
  const first = subject.run(() => hung.promise);
  await assert.rejects(subject.run(() => Promise.resolve('refused')), RateLimitedError);
  clock.advance(30_000);
  await assert.rejects(subject.run(() => Promise.resolve('refused')), RateLimitedError);
  clock.advance(1);
  assert.equal(await subject.run(() => Promise.resolve('admitted')), 'admitted');
  assert.equal(subject.successRate(), 0.5, 'one expiry (backoff) and one success');
  hung.resolve('late');
  assert.equal(await first, 'late', 'the expired command still settles for its caller');
  assert.equal(subject.successRate(), 0.5, 'its late result is not counted twice');
  assert.equal(subject.queueSize(), 0);
  assert.deepEqual(observed, ['success', 'backoff'], 'the late command is timed when it settles');
});

test('expireOverdue starts a waiting command stuck behind a hung one', async () => {
  const { limiter: subject, clock } = limiter({ maxSize: 1, minSize: 1, maxQueued: 1, timeoutMs: 1000 });
  const hung = deferred<void>();
  void subject.run(() => hung.promise);
  let started = false;
  const waiting = subject.run(async () => {
    started = true;
  });
  assert.equal(subject.queueSize(), 2);
  clock.advance(1001);
  subject.expireOverdue();
  await waiting;
  assert.equal(started, true);
  hung.resolve();
  await flush();
  assert.equal(subject.queueSize(), 0);
});

test('queue size counts running and waiting commands and returns to 0 at rest', async () => {
  const { limiter: subject } = limiter({ maxSize: 3, minSize: 1, maxQueued: 5 });
  const gate = deferred<void>();
  const runs = Array.from({ length: 7 }, () => subject.run(() => gate.promise));
  assert.equal(subject.queueSize(), 7);
  assert.deepEqual([subject.inFlight(), subject.queued()], [3, 4]);
  gate.resolve();
  await Promise.all(runs);
  assert.deepEqual([subject.queueSize(), subject.inFlight(), subject.queued()], [0, 0, 0]);
});

test('the work timer observes each command that ran: its execution time and outcome, queue wait excluded', async () => {
  const observed: [number, WorkOutcome][] = [];
  const { limiter: subject, clock } = limiter({ maxSize: 1, minSize: 1, maxQueued: 1, applyTimeoutMs: 100, onWork: (duration, outcome) => observed.push([duration, outcome]) });
  const first = deferred<void>();
  const second = deferred<void>();
  const runs = [subject.run(() => first.promise), subject.run(() => second.promise)];
  await assert.rejects(subject.run(() => Promise.resolve()), RateLimitedError);
  clock.advance(40);
  first.resolve();
  await flush();
  clock.advance(250);
  second.resolve();
  await Promise.all(runs);
  await assert.rejects(subject.run(() => Promise.reject(new Error('no leader'))));
  assert.deepEqual(observed, [
    [40, 'success'],
    [250, 'backoff'],
    [0, 'failed'],
  ]);
});

test('validation reports every problem with its key path, and the constructor refuses a bad configuration', () => {
  const problems = validateRateLimiterConfig({ ...rateLimiterDefaults, minSize: 0, decreaseFactor: 1, successThreshold: 2, maxQueued: -1 });
  assert.deepEqual(
    problems.map((problem) => [problem.path, problem.rule, problem.value]),
    [
      ['cluster.rateLimiter.minSize', 'min', 0],
      ['cluster.rateLimiter.maxQueued', 'min', -1],
      ['cluster.rateLimiter.successThreshold', 'range', 2],
      ['cluster.rateLimiter.decreaseFactor', 'range', 1],
    ],
  );
  assert.deepEqual(
    validateRateLimiterConfig({ ...rateLimiterDefaults, minSize: 300 }).map((problem) => problem.rule),
    ['min-not-above-max'],
  );
  assert.deepEqual(validateRateLimiterConfig(rateLimiterDefaults), []);
  assert.throws(() => new AdaptiveRateLimiter({ clock: new ManualClock(), minSize: 10, maxSize: 5 }), /minSize \(10\) must not be above maxSize \(5\)/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EdgeError } from '../edge-error.ts';
import { HashQueue } from './hash-queue.ts';

/** A job that runs until released, recording that it started. */
function heldJob(started: string[], name: string): { job: () => Promise<string>; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    job: async () => {
      started.push(name);
      await gate;
      return name;
    },
    release: () => release(),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('at most `concurrency` jobs run at once; the rest wait their turn in order', async () => {
  const queue = new HashQueue({ concurrency: 2, maxQueued: 10 });
  const started: string[] = [];
  const jobs = ['a', 'b', 'c', 'd'].map((name) => heldJob(started, name));
  const results = jobs.map((held) => queue.run(held.job));
  await settle();
  assert.deepEqual(started, ['a', 'b']);
  assert.deepEqual(queue.stats(), { running: 2, queued: 2, refused: 0, abandoned: 0 });
  jobs[1]!.release();
  await settle();
  assert.deepEqual(started, ['a', 'b', 'c']);
  for (const held of jobs) held.release();
  assert.deepEqual(await Promise.all(results), ['a', 'b', 'c', 'd']);
  assert.deepEqual(queue.stats(), { running: 0, queued: 0, refused: 0, abandoned: 0 });
});

test('a full queue refuses at once with 429 RATE_LIMITED (PASSWORD_HASH_QUEUE_FULL) and Retry-After, without running the job', async () => {
  const queue = new HashQueue({ concurrency: 1, maxQueued: 1 });
  const started: string[] = [];
  const running = heldJob(started, 'running');
  const waiting = heldJob(started, 'waiting');
  const first = queue.run(running.job);
  const second = queue.run(waiting.job);
  const error = await queue.run(async () => {
    started.push('refused');
    return 'refused';
  }).then(
    () => assert.fail('not refused'),
    (thrown: unknown) => thrown as EdgeError,
  );
  assert.ok(error instanceof EdgeError);
  assert.equal(error.code, 'RATE_LIMITED');
  assert.deepEqual(error.cause, { code: 'PASSWORD_HASH_QUEUE_FULL', message: 'too many password checks are waiting on this controller; retry shortly' });
  assert.equal(error.retryAfterSeconds, 1);
  running.release();
  waiting.release();
  assert.deepEqual([await first, await second], ['running', 'waiting']);
  assert.deepEqual(started, ['running', 'waiting']);
  assert.equal(queue.stats().refused, 1);
});

test('a waiting job whose request is abandoned leaves the queue and never runs; a running one finishes', async () => {
  const queue = new HashQueue({ concurrency: 1, maxQueued: 5 });
  const started: string[] = [];
  const running = heldJob(started, 'running');
  const waiting = heldJob(started, 'waiting');
  const later = heldJob(started, 'later');
  const abandon = new AbortController();
  const runningAbandon = new AbortController();
  const first = queue.run(running.job, runningAbandon.signal);
  const second = queue.run(waiting.job, abandon.signal);
  const third = queue.run(later.job);
  await settle();
  abandon.abort();
  runningAbandon.abort();
  await assert.rejects(second, (error: unknown) => error instanceof EdgeError && error.code === 'TIMEOUT');
  assert.deepEqual(queue.stats(), { running: 1, queued: 1, refused: 0, abandoned: 1 });
  running.release();
  later.release();
  assert.equal(await first, 'running');
  assert.equal(await third, 'later');
  assert.deepEqual(started, ['running', 'later'], 'the abandoned job never ran');
  const gone = new AbortController();
  gone.abort();
  await assert.rejects(queue.run(async () => 'x', gone.signal), (error: unknown) => error instanceof EdgeError && error.code === 'TIMEOUT');
});

test('concurrency 0 is unbounded: every job runs at once, none is queued or refused', async () => {
  const queue = new HashQueue({ concurrency: 0, maxQueued: 0 });
  const started: string[] = [];
  const jobs = Array.from({ length: 50 }, (_, i) => heldJob(started, String(i)));
  const results = jobs.map((held) => queue.run(held.job));
  await settle();
  assert.equal(started.length, 50);
  for (const held of jobs) held.release();
  assert.equal((await Promise.all(results)).length, 50);
});

test('a job that throws frees its slot for the next', async () => {
  const queue = new HashQueue({ concurrency: 1, maxQueued: 5 });
  const failing = queue.run(async () => {
    throw new Error('scrypt failed');
  });
  const next = queue.run(async () => 'next');
  await assert.rejects(failing, /scrypt failed/);
  assert.equal(await next, 'next');
  assert.deepEqual(queue.stats(), { running: 0, queued: 0, refused: 0, abandoned: 0 });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pacedRequests } from './paced-requests.ts';

test('requests keep going out on time while none is answered, and each one\'s wait is timed from its own send', async () => {
  let release!: () => void;
  const stalled = new Promise<void>((resolve) => (release = resolve));
  const sentAt: number[] = [];
  const began = performance.now();
  const writes = pacedRequests(100, async (n) => {
    sentAt[n] = performance.now();
    await stalled;
    return true;
  });
  await sleep(300);
  const sentWhileStalled = sentAt.length;
  const due = Math.floor((performance.now() - began) / 10);
  assert.ok(sentWhileStalled >= 25 && sentWhileStalled >= due - 3 && sentWhileStalled <= due, `${due} writes due at 100/s, ${sentWhileStalled} sent`);
  const releasedAt = performance.now();
  release();
  const samples = await writes.stop();
  assert.ok(samples.length >= sentWhileStalled);
  assert.ok(samples.every((sample) => sample.ok));
  // Each waited from its own send until the release: the first the whole stall, the last sent much less.
  const last = sentWhileStalled - 1;
  assert.ok(samples[0]!.ms >= releasedAt - sentAt[0]! && samples[0]!.ms >= 200, `the first write waited ${samples[0]!.ms} ms`);
  assert.ok(samples[last]!.ms >= releasedAt - sentAt[last]!);
  assert.ok(samples[0]!.ms - samples[last]!.ms >= sentAt[last]! - sentAt[0]! - 5, 'the later send waited less, by the time between the sends');
});

test('a refused or failed request is kept with what went wrong, in the order sent', async () => {
  const writes = pacedRequests(200, async (n) => {
    if (n % 3 === 1) return `HTTP 503 write ${n}`;
    if (n % 3 === 2) throw new Error(`socket hang up ${n}`);
    return true;
  });
  await sleep(100);
  const samples = await writes.stop();
  assert.ok(samples.length >= 6, `${samples.length} writes in 100 ms at 200/s`);
  assert.deepEqual(samples.slice(0, 3).map((sample) => [sample.ok, sample.error]), [
    [true, undefined],
    [false, 'HTTP 503 write 1'],
    [false, 'socket hang up 2'],
  ]);
  assert.ok(samples.every((sample) => Number.isFinite(sample.ms)));
});

test('nothing is sent after stop', async () => {
  let sent = 0;
  const writes = pacedRequests(500, async () => {
    sent++;
    return true;
  });
  await sleep(50);
  await writes.stop();
  const atStop = sent;
  await sleep(60);
  assert.equal(sent, atStop);
});

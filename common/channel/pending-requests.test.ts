import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PendingRequests } from './pending-requests.ts';

test('an answer settles its own request only: ok resolves with the value, a failure rejects with its error', async () => {
  let next = 1;
  const pending = new PendingRequests<number>(() => next++);
  const sent: number[] = [];
  const first = pending.open(5000, 'timed out', (id) => (sent.push(id), true));
  const second = pending.open(5000, 'timed out', (id) => (sent.push(id), true));
  assert.deepEqual(sent, [1, 2]);
  pending.answer(99, { ok: true, value: 'stray' });
  pending.answer(2, { ok: false, error: 'no such thing' });
  pending.answer(1, { ok: true, value: { answer: 42 } });
  assert.deepEqual(await first, { answer: 42 });
  await assert.rejects(second, /no such thing/);
  assert.equal(pending.size, 0);
});

test('a request times out with its message, one that could not be sent fails at once, and closing rejects the rest', async () => {
  const pending = new PendingRequests<string>(() => Math.random().toString(36));
  await assert.rejects(pending.open(20, 'peer p2 did not answer within 20 ms', () => true), /did not answer within 20 ms/);
  await assert.rejects(pending.open(5000, 'timed out', () => false, 'send queue is full'), /send queue is full/);
  const open = pending.open(5000, 'timed out', () => true);
  pending.rejectAll('channel closed');
  await assert.rejects(open, /channel closed/);
  assert.equal(pending.size, 0);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slicesOnImmediate } from './slices-on-immediate.ts';

test('background slices run in order after the current turn, a chain of them to its end, and one that throws stops neither the others nor the process', async () => {
  const ran: string[] = [];
  let left = 500;
  const chain = () => {
    ran.push('chain');
    if (--left > 0) slicesOnImmediate(chain);
  };
  slicesOnImmediate(chain);
  slicesOnImmediate(() => {
    throw new Error('a failing slice');
  });
  slicesOnImmediate(() => void ran.push('after the failing one'));
  assert.equal(ran.length, 0, 'nothing runs inside the caller');
  const giveUp = Date.now() + 10_000;
  while ((left > 0 || !ran.includes('after the failing one')) && Date.now() < giveUp) await new Promise((done) => setImmediate(done));
  assert.equal(left, 0);
  assert.equal(ran.filter((entry) => entry === 'chain').length, 500);
  assert.ok(ran.includes('after the failing one'));
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyedSerialQueue } from './keyed-serial-queue.ts';

test('jobs of one key run one at a time in order; other keys do not wait; a failure does not stop the next; idle keys are forgotten', async () => {
  const queue = new KeyedSerialQueue();
  const events: string[] = [];
  let releaseFirst!: () => void;
  const first = queue.run('a', async () => {
    events.push('a1 start');
    await new Promise<void>((resolve) => (releaseFirst = resolve));
    events.push('a1 end');
    throw new Error('a1 failed');
  });
  const second = queue.run('a', async () => {
    events.push('a2');
    return 'a2';
  });
  const other = queue.run('b', async () => {
    events.push('b1');
    return 'b1';
  });
  assert.equal(await other, 'b1');
  assert.deepEqual(events, ['a1 start', 'b1'], 'b ran while a1 held key a; a2 waited');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(queue.size, 1, 'only key a has work');
  releaseFirst();
  await assert.rejects(first, /a1 failed/);
  assert.equal(await second, 'a2');
  assert.deepEqual(events, ['a1 start', 'b1', 'a1 end', 'a2']);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(queue.size, 0);
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedWorkQueue } from './bounded-work-queue.ts';

describe('BoundedWorkQueue', () => {
  it('runs at most `workers` items at once and refuses pushes beyond `maxQueued` waiting', async () => {
    const release: (() => void)[] = [];
    let peak = 0;
    let active = 0;
    const done: number[] = [];
    const queue = new BoundedWorkQueue<number>({
      maxQueued: 2,
      workers: 2,
      handle: async (item) => {
        active++;
        peak = Math.max(peak, active);
        await new Promise<void>((resolve) => release.push(resolve));
        active--;
        done.push(item);
      },
    });
    assert.deepEqual([1, 2, 3, 4, 5].map((item) => queue.push(item)), [true, true, true, true, false]);
    assert.equal(queue.refused, 1);
    assert.equal(queue.running, 2);
    assert.equal(queue.queued, 2);
    while (done.length < 4) {
      release.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await queue.idle();
    assert.equal(peak, 2);
    assert.deepEqual(done, [1, 2, 3, 4]);
  });

  it('goes on after a handler throws', async () => {
    const errors: unknown[] = [];
    const seen: number[] = [];
    const queue = new BoundedWorkQueue<number>({
      maxQueued: 5,
      workers: 1,
      handle: async (item) => {
        if (item === 1) throw new Error('boom');
        seen.push(item);
      },
      onError: (error) => errors.push(error),
    });
    queue.push(1);
    queue.push(2);
    await queue.idle();
    assert.deepEqual(seen, [2]);
    assert.equal(errors.length, 1);
  });
});

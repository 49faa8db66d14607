import assert from 'node:assert/strict';
import { test } from 'node:test';
import { busiestThreadSeconds, processCpuSeconds, threadCpuSeconds } from './process-cpu.ts';

test('per-thread CPU: this process lists its main thread, and a busy spell shows on it, within the process total', () => {
  const before = threadCpuSeconds(process.pid)!;
  const totalBefore = processCpuSeconds(process.pid)!;
  assert.ok(before.has(String(process.pid)), 'the main thread has the process id');
  const until = Date.now() + 300;
  let spin = 0;
  while (Date.now() < until) spin++;
  assert.ok(spin > 0);
  const after = threadCpuSeconds(process.pid)!;
  const main = after.get(String(process.pid))! - before.get(String(process.pid))!;
  assert.ok(main >= 0.1, `the main thread used ${main} s spinning 0.3 s`);
  assert.ok(busiestThreadSeconds(before, after) >= main);
  assert.ok(busiestThreadSeconds(before, after) <= processCpuSeconds(process.pid)! - totalBefore + 0.02);
  assert.equal(threadCpuSeconds(2 ** 22 + 7), undefined, 'no such process');
});

test('the busiest thread compares only threads seen in both readings', () => {
  const before = new Map([['1', 1], ['2', 5]]);
  const after = new Map([['1', 3.5], ['2', 6], ['3', 100]]);
  assert.equal(busiestThreadSeconds(before, after), 2.5);
  assert.equal(busiestThreadSeconds(new Map(), after), 0);
});

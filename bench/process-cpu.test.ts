import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawn } from 'node:child_process';
import { busiestThreadSeconds, processCpuSeconds, processCpuWithChildrenSeconds, threadCpuSeconds } from './process-cpu.ts';

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

test('a relay\'s CPU with its reaped children counts what a forked child spent; its own CPU does not', async () => {
  // A shell whose subshell spins for a while and is reaped, then the shell waits: socat's shape (a fork per connection).
  const shell = spawn('sh', ['-c', 'i=0; (while [ $i -lt 300000 ]; do i=$((i+1)); done); sleep 5'], { stdio: 'ignore' });
  try {
    const pid = shell.pid!;
    const deadline = Date.now() + 20_000;
    let withChildren = processCpuWithChildrenSeconds(pid) ?? 0;
    while (withChildren - (processCpuSeconds(pid) ?? 0) < 0.1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      withChildren = processCpuWithChildrenSeconds(pid) ?? 0;
    }
    const own = processCpuSeconds(pid)!;
    assert.ok(withChildren - own >= 0.1, `with reaped children ${withChildren} s, own ${own} s`);
  } finally {
    shell.kill('SIGKILL');
  }
  assert.equal(processCpuWithChildrenSeconds(undefined), undefined);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StopStack } from './stop-stack.ts';

test('parts stop in the reverse of the order they started, each after the one before finished', async () => {
  const stack = new StopStack();
  const stopped: string[] = [];
  stack.push('store', () => void stopped.push('store'));
  stack.push('raft', async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    stopped.push('raft');
  });
  stack.push('web', () => void stopped.push('web'));
  await stack.stopAll();
  assert.deepEqual(stopped, ['web', 'raft', 'store']);
});

test('a part that fails to stop does not keep the others running; the failure names the part', async () => {
  const stack = new StopStack();
  const stopped: string[] = [];
  stack.push('store', () => void stopped.push('store'));
  stack.push('agent socket', () => {
    throw new Error('EBUSY');
  });
  stack.push('timers', () => void stopped.push('timers'));
  await assert.rejects(stack.stopAll(), /agent socket did not stop cleanly: EBUSY/);
  assert.deepEqual(stopped, ['timers', 'store']);
});

test('stopping twice stops each part once', async () => {
  const stack = new StopStack();
  let stops = 0;
  stack.push('store', () => void stops++);
  await Promise.all([stack.stopAll(), stack.stopAll()]);
  await stack.stopAll();
  assert.equal(stops, 1);
  assert.throws(() => stack.push('late', () => undefined), /cannot add late: already stopping/);
});

test('a failed start step stops what started before it and throws the step\'s own error', async () => {
  const stack = new StopStack();
  const stopped: string[] = [];
  stack.push('store', () => void stopped.push('store'));
  await stack.starting(() => stack.push('raft', () => void stopped.push('raft')));
  stack.push('flaky', () => {
    throw new Error('also broken');
  });
  await assert.rejects(
    stack.starting(async () => {
      throw new Error('port in use');
    }),
    /^Error: port in use$/,
  );
  assert.deepEqual(stopped, ['raft', 'store']);
});

test('a start step that succeeds stops nothing and returns its value', async () => {
  const stack = new StopStack();
  let stops = 0;
  stack.push('store', () => void stops++);
  assert.equal(await stack.starting(async () => 42), 42);
  assert.equal(stops, 0);
});

test('with a reporter, each part that fails to stop is reported and stopping still resolves', async () => {
  const reported: string[] = [];
  const stack = new StopStack((part, error) => reported.push(`${part}: ${(error as Error).message}`));
  const stopped: string[] = [];
  stack.push('links', () => {
    throw new Error('socket gone');
  });
  stack.push('health', () => void stopped.push('health'));
  stack.push('profiler', async () => {
    throw new Error('no session');
  });
  await stack.stopAll();
  assert.deepEqual(reported, ['profiler: no session', 'links: socket gone']);
  assert.deepEqual(stopped, ['health']);
});

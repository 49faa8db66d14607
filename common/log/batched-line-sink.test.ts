import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { batchedLineSink } from './batched-line-sink.ts';
import { createJsonLogger } from './logger.ts';

function harness(maxBatchBytes?: number) {
  const writes: string[] = [];
  const pending: Array<() => void> = [];
  const batched = batchedLineSink((text) => writes.push(text), (run) => pending.push(run), maxBatchBytes);
  const endTurn = () => {
    for (const run of pending.splice(0)) run();
  };
  return { writes, pending, batched, endTurn };
}

describe('batchedLineSink', () => {
  it('writes every line of a turn in one write at the end of the turn, in order, each ending in a newline', () => {
    const { writes, pending, batched, endTurn } = harness();
    const logger = createJsonLogger({ sink: batched.sink, component: 'router', now: () => new Date(0) });
    logger.info('circuit created', { circuitId: 'a' });
    logger.info('circuit closed', { circuitId: 'b' });
    logger.warn('circuit setup refused', { circuitId: 'c' });
    assert.equal(writes.length, 0, 'nothing is written before the turn ends');
    assert.equal(pending.length, 1, 'one end-of-turn write is scheduled for the three lines');
    endTurn();
    assert.equal(writes.length, 1);
    assert.deepEqual(
      writes[0]!.split('\n').map((line) => (line === '' ? '' : (JSON.parse(line) as { msg: string }).msg)),
      ['circuit created', 'circuit closed', 'circuit setup refused', ''],
    );
  });

  it('schedules a new write for the lines of the next turn', () => {
    const { writes, batched, endTurn } = harness();
    batched.sink('one');
    endTurn();
    batched.sink('two');
    endTurn();
    assert.deepEqual(writes, ['one\n', 'two\n']);
  });

  it('writes at once when the batch reaches its bound, and the rest at the end of the turn', () => {
    const { writes, batched, endTurn } = harness(10);
    batched.sink('12345');
    batched.sink('67890');
    assert.deepEqual(writes, ['12345\n67890\n']);
    batched.sink('x');
    endTurn();
    assert.deepEqual(writes, ['12345\n67890\n', 'x\n']);
  });

  it('flush() writes what is batched now, and nothing when empty', () => {
    const { writes, batched, endTurn } = harness();
    batched.flush();
    batched.sink('last words');
    batched.flush();
    endTurn();
    assert.deepEqual(writes, ['last words\n']);
  });
});

describe('processLogSink', () => {
  const sinkModule = fileURLToPath(new URL('./process-log-sink.ts', import.meta.url));
  const loader = fileURLToPath(new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url));
  const run = (exit: string) => {
    const script = `
      const { stderrLogSink } = await import(${JSON.stringify(sinkModule)});
      const { createJsonLogger } = await import(${JSON.stringify(fileURLToPath(new URL('./logger.ts', import.meta.url)))});
      const logger = createJsonLogger({ sink: stderrLogSink().sink, component: 'router' });
      logger.info('circuit created', { circuitId: 'first' });
      logger.error('about to stop', { circuitId: 'second' });
      ${exit}
    `;
    return spawnSync(process.execPath, ['--import', loader, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  };
  const messages = (stderr: string) =>
    stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);

  it('writes the lines of the last turn when the process calls process.exit() in that turn', () => {
    const result = run('process.exit(3);');
    assert.equal(result.status, 3);
    assert.deepEqual(messages(result.stderr), ['circuit created', 'about to stop']);
  });

  it('writes the lines of the last turn when an uncaught exception ends the process in that turn', () => {
    const result = run("throw new Error('boom');");
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /boom/);
    assert.deepEqual(messages(result.stderr), ['circuit created', 'about to stop']);
  });
});

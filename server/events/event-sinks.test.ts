import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileEventSink } from './event-sinks.ts';

const dir = mkdtempSync(join(tmpdir(), 'edgeward-event-sink-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const lines = (path: string) => readFileSync(path, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { n: number });

test('events of one tick and of later ticks are appended as JSON lines, in order, and appear without close', async () => {
  const path = join(dir, 'nested', 'events.jsonl');
  const sink = fileEventSink(path);
  for (let n = 0; n < 3; n++) sink.write({ n });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(lines(path).map((line) => line.n), [0, 1, 2]);
  sink.write({ n: 3 });
  sink.write({ n: 4 });
  await sink.close();
  assert.deepEqual(lines(path).map((line) => line.n), [0, 1, 2, 3, 4]);
});

test('close writes what is still gathered, and a reopened sink appends', async () => {
  const path = join(dir, 'events.jsonl');
  const first = fileEventSink(path);
  first.write({ n: 1 });
  await first.close();
  const second = fileEventSink(path);
  second.write({ n: 2 });
  await second.close();
  assert.deepEqual(lines(path).map((line) => line.n), [1, 2]);
});

test('a failing append is reported once per failing run, never thrown at the writer', async () => {
  // /dev/full accepts the open and refuses every write with ENOSPC, as a full disk would.
  const failures: Error[] = [];
  const sink = fileEventSink('/dev/full', (error) => failures.push(error));
  sink.write({ n: 1 });
  await new Promise((resolve) => setImmediate(resolve));
  sink.write({ n: 2 });
  await new Promise((resolve) => setImmediate(resolve));
  await sink.close();
  assert.equal(failures.length, 1);
  assert.match(failures[0]!.message, /ENOSPC/);
});

test('the file is created with mode 0640 and nothing is written after close', async () => {
  const path = join(dir, 'mode', 'events.jsonl');
  const sink = fileEventSink(path);
  await sink.close();
  sink.write({ n: 1 });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(statSync(path).mode & 0o777, 0o640 & ~process.umask());
  assert.equal(readFileSync(path, 'utf8'), '');
});

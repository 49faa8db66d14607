import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
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

test('a write that would take the file past maxBytes rotates it first; maxBackups keeps the newest rotated files', async () => {
  const folder = join(dir, 'rotating');
  const path = join(folder, 'events.jsonl');
  let ms = Date.parse('2026-11-24T04:00:00.000Z');
  const sink = fileEventSink(path, undefined, { maxBytes: 100, maxBackups: 2, now: () => new Date((ms += 1000)) });
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  // Each event is 40 bytes as a line: two fit in 100 bytes, a third would not.
  const event = (n: number) => ({ n, pad: 'x'.repeat(24 - String(n).length) });
  for (let n = 0; n < 7; n++) {
    sink.write(event(n));
    await tick();
  }
  await sink.close();
  assert.equal(`${JSON.stringify(event(0))}\n`.length, 40);
  const files = readdirSync(folder).sort();
  assert.deepEqual(files, ['events-2026-11-24T04-00-02.000.jsonl', 'events-2026-11-24T04-00-03.000.jsonl', 'events.jsonl'], 'three rotations; the oldest rotated file was removed');
  assert.deepEqual(lines(join(folder, files[0]!)).map((line) => line.n), [2, 3]);
  assert.deepEqual(lines(join(folder, files[1]!)).map((line) => line.n), [4, 5]);
  assert.deepEqual(lines(path).map((line) => line.n), [6]);
  for (const file of files) assert.ok(statSync(join(folder, file)).size <= 100, `${file} stays within maxBytes`);
});

test('a tick of events larger than maxBytes goes whole into a fresh file; maxBackups 0 keeps every rotated file', async () => {
  const folder = join(dir, 'big-tick');
  const path = join(folder, 'events.jsonl');
  const ms = Date.parse('2026-11-24T05:00:00.000Z');
  const sink = fileEventSink(path, undefined, { maxBytes: 30, maxBackups: 0, now: () => new Date(ms) });
  sink.write({ n: 1 });
  await new Promise((resolve) => setImmediate(resolve));
  for (let n = 2; n <= 6; n++) sink.write({ n });
  await new Promise((resolve) => setImmediate(resolve));
  sink.write({ n: 7 });
  await sink.close();
  const files = readdirSync(folder).sort();
  assert.deepEqual(files, ['events-2026-11-24T05-00-00.000.jsonl', 'events-2026-11-24T05-00-00.001.jsonl', 'events.jsonl'], 'a second rotation in the same millisecond does not overwrite the first');
  assert.deepEqual(lines(join(folder, files[0]!)).map((line) => line.n), [1]);
  assert.deepEqual(lines(join(folder, files[1]!)).map((line) => line.n), [2, 3, 4, 5, 6]);
  assert.deepEqual(lines(path).map((line) => line.n), [7]);
});

test('a file removed from under the sink is started afresh at the next rotation, as lumberjack does', async () => {
  const folder = join(dir, 'removed');
  const path = join(folder, 'events.jsonl');
  const failures: Error[] = [];
  const sink = fileEventSink(path, (error) => failures.push(error), { maxBytes: 10, maxBackups: 0, now: () => new Date('2026-11-24T06:00:00.000Z') });
  sink.write({ n: 1 });
  await new Promise((resolve) => setImmediate(resolve));
  unlinkSync(path);
  sink.write({ n: 2 });
  await sink.close();
  assert.deepEqual(failures, []);
  assert.deepEqual(readdirSync(folder), ['events.jsonl']);
  assert.deepEqual(lines(path).map((line) => line.n), [2]);
});

import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EventsFileReader } from './events-file-reader.ts';

const dir = mkdtempSync(join(tmpdir(), 'edgeward-events-reader-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the backlog first (from a whole line), then what is appended, a partial line once it is complete', async () => {
  const path = join(dir, 'backlog.jsonl');
  writeFileSync(path, `${'a'.repeat(50)}\n${'b'.repeat(50)}\nccc\n`);
  const reader = new EventsFileReader(path, { backlogBytes: 60, maxLineBytes: 1024 });
  assert.deepEqual(await reader.readNew(), ['b'.repeat(50), 'ccc'], 'the line cut by the backlog\'s start is skipped');
  assert.deepEqual(await reader.readNew(), []);
  appendFileSync(path, 'dd');
  assert.deepEqual(await reader.readNew(), []);
  appendFileSync(path, 'd\neee\n\n');
  assert.deepEqual(await reader.readNew(), ['ddd', 'eee']);
});

test('a file that appears later, a rotated file and a truncated one are read from their start', async () => {
  const path = join(dir, 'events.jsonl');
  const reader = new EventsFileReader(path, { backlogBytes: 1024, maxLineBytes: 1024 });
  assert.deepEqual(await reader.readNew(), []);
  assert.match(reader.lastError ?? '', /does not exist/);
  writeFileSync(path, 'one\n');
  assert.deepEqual(await reader.readNew(), ['one']);
  renameSync(path, join(dir, 'events-old.jsonl'));
  writeFileSync(path, 'two\n');
  assert.deepEqual(await reader.readNew(), ['two'], 'rotation: the new file');
  appendFileSync(path, 'three\n');
  assert.deepEqual(await reader.readNew(), ['three']);
  truncateSync(path, 0);
  appendFileSync(path, 'four\n');
  assert.deepEqual(await reader.readNew(), ['four'], 'truncation: again from the start');
});

test('an over-long line is skipped and counted; a burst past the backlog skips to its last part', async () => {
  const path = join(dir, 'long.jsonl');
  writeFileSync(path, '');
  const reader = new EventsFileReader(path, { backlogBytes: 100, maxLineBytes: 20 });
  await reader.readNew();
  appendFileSync(path, `${'x'.repeat(30)}\nok\n`);
  assert.deepEqual(await reader.readNew(), ['ok']);
  assert.equal(reader.skippedLines, 1);
  appendFileSync(path, 'y'.repeat(25));
  assert.deepEqual(await reader.readNew(), []);
  appendFileSync(path, 'y\nfine\n');
  assert.deepEqual(await reader.readNew(), ['fine'], 'the rest of a long line held back is dropped with it');
  assert.equal(reader.skippedLines, 2);
  appendFileSync(path, `${Array.from({ length: 100 }, (_, i) => `line${i}`).join('\n')}\n`);
  const lines = await reader.readNew();
  assert.ok(lines.length < 20 && lines.at(-1) === 'line99', `only the last backlog's worth: ${lines.length}`);
});

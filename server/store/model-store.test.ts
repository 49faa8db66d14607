import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Level } from 'level';
import { EntityTable, type Row } from './entity-table.ts';
import { ModelStore } from './model-store.ts';

const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'edgeward-model-store-'));
  dirs.push(dir);
  return join(dir, 'ctrl.db');
};
const row = (id: string, name: string): Row => ({ id, name, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', tags: {} }) as Row;
const open = (path: string) => ModelStore.open(path, [new EntityTable<Row>('things')]);

/** What is on disk now, read by a second handle after the store has closed. */
async function onDisk(path: string): Promise<Map<string, unknown>> {
  const db = new Level<string, unknown>(path, { valueEncoding: 'json' });
  await db.open();
  const entries = new Map<string, unknown>();
  for await (const [key, value] of db.iterator()) entries.set(key, value);
  await db.close();
  return entries;
}

test('applies show in memory at once; the rows and applied index reach disk together shortly after, without being awaited', async () => {
  const path = tempDir();
  const store = await open(path);
  await store.applyBatch([{ index: 1 }], (_, tx) => tx.put('things', row('a', 'one')));
  assert.equal(store.table('things').get('a')?.id, 'a');
  assert.equal(store.appliedIndex(), 1);
  await store.flush();
  await store.close();
  const disk = await onDisk(path);
  assert.deepEqual(disk.get('meta!appliedIndex'), 1);
  assert.equal((disk.get('e!things!a') as Row).id, 'a');
});

test('a burst of applies is written as its final state: rows put then deleted are gone, the applied index is the last', async () => {
  const path = tempDir();
  const store = await open(path);
  for (let index = 1; index <= 200; index++) {
    await store.applyBatch([{ index }], (_, tx) => {
      tx.put('things', row(`r${index}`, `n${index}`));
      if (index % 2 === 0) tx.delete('things', `r${index - 1}`);
    });
  }
  // Index-only applies (raft's own entries) advance the stored index too.
  await store.applyBatch([{ index: 201 }], () => undefined);
  await store.close();
  const disk = await onDisk(path);
  assert.equal(disk.get('meta!appliedIndex'), 201);
  const rows = [...disk.keys()].filter((key) => key.startsWith('e!things!'));
  assert.equal(rows.length, 100);
  assert.ok(rows.every((key) => Number(key.slice('e!things!r'.length)) % 2 === 0));
  const reopened = await open(path);
  assert.equal(reopened.appliedIndex(), 201);
  assert.equal(reopened.table('things').size, 100);
  await reopened.close();
});

test('a snapshot replaces pending writes: nothing written before it comes back after it', async () => {
  const path = tempDir();
  const store = await open(path);
  await store.applyBatch([{ index: 1 }], (_, tx) => tx.put('things', row('old', 'old')));
  await store.replaceAll({ tables: { things: [row('new', 'new')] } }, 50);
  await store.close();
  const disk = await onDisk(path);
  assert.equal(disk.get('meta!appliedIndex'), 50);
  assert.deepEqual([...disk.keys()].filter((key) => key.startsWith('e!')), ['e!things!new']);
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Level } from 'level';
import { EntityTable, type Row } from './entity-table.ts';
import { ModelStore } from './model-store.ts';

const tsxLoader = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'edgeward-model-store-'));
  dirs.push(dir);
  return join(dir, 'ctrl.db');
};
const row = (id: string, name: string): Row => ({ id, name, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', tags: {} }) as Row;
/** Row keys of any generation (`e!` before the first install, `e<g>!` after). */
const isRowKey = (key: string) => /^e\d*!/.test(key);
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
  assert.deepEqual([...disk.keys()].filter(isRowKey), ['e1!things!new']);
});

test('an install in slices: readers see the old rows until commit, then the new ones, on disk under one generation', async () => {
  const path = tempDir();
  const store = await open(path);
  await store.applyBatch([{ index: 10, term: 2 }], (_, tx) => ['a', 'b', 'c'].forEach((id) => tx.put('things', row(id, `old-${id}`))));
  const install = await store.beginInstall();
  for (let slice = 0; slice < 3; slice++) {
    await install.add('things', [row(`n${slice}a`, 'new'), row(`n${slice}b`, 'new')]);
    assert.deepEqual(store.table('things').all().map((r) => r.id), ['a', 'b', 'c'], 'the old rows, while the install runs');
    assert.equal(store.appliedIndex(), 10);
  }
  await install.commit(500, 7);
  assert.deepEqual(store.table('things').all().map((r) => r.id), ['n0a', 'n0b', 'n1a', 'n1b', 'n2a', 'n2b']);
  assert.equal(store.appliedIndex(), 500);
  assert.equal(store.appliedTerm(), 7);
  // Writes go on under the new generation.
  await store.applyBatch([{ index: 501, term: 7 }], (_, tx) => tx.put('things', row('later', 'later')));
  await store.close();
  const disk = await onDisk(path);
  assert.deepEqual([...disk.keys()].filter(isRowKey), ['e1!things!later', 'e1!things!n0a', 'e1!things!n0b', 'e1!things!n1a', 'e1!things!n1b', 'e1!things!n2a', 'e1!things!n2b']);
  const reopened = await open(path);
  assert.equal(reopened.appliedIndex(), 501);
  assert.equal(reopened.table('things').size, 7);
  await reopened.close();
});

test('an abandoned install leaves the rows and applied index as they were and nothing of its own on disk', async () => {
  const path = tempDir();
  const store = await open(path);
  await store.applyBatch([{ index: 10, term: 2 }], (_, tx) => tx.put('things', row('a', 'old')));
  const install = await store.beginInstall();
  await install.add('things', [row('n', 'new')]);
  await install.abandon();
  await assert.rejects(install.add('things', [row('m', 'new')]), /over/);
  assert.deepEqual(store.table('things').all().map((r) => r.id), ['a']);
  // The store takes writes again, and a second install after it.
  await store.applyBatch([{ index: 11, term: 2 }], (_, tx) => tx.put('things', row('b', 'old')));
  await store.close();
  const disk = await onDisk(path);
  assert.deepEqual([...disk.keys()].filter(isRowKey), ['e!things!a', 'e!things!b']);
  assert.equal(disk.get('meta!appliedIndex'), 11);
});

test('a controller killed part-way through an install restarts with its old rows and applied index; the partial rows are deleted', async () => {
  const path = tempDir();
  // A child process installs three slices and is killed (SIGKILL) before commit.
  const script = `
    import { ModelStore } from ${JSON.stringify(new URL('./model-store.ts', import.meta.url).href)};
    import { EntityTable } from ${JSON.stringify(new URL('./entity-table.ts', import.meta.url).href)};
    const store = await ModelStore.open(${JSON.stringify(path)}, [new EntityTable('things')]);
    const row = (id) => ({ id, name: id, createdAt: '', updatedAt: '', tags: {} });
    await store.applyBatch([{ index: 10, term: 2 }], (_, tx) => ['a', 'b'].forEach((id) => tx.put('things', row(id))));
    await store.flush();
    const install = await store.beginInstall();
    for (let slice = 0; slice < 3; slice++) await install.add('things', [row('n' + slice)]);
    process.kill(process.pid, 'SIGKILL');
  `;
  const child = spawnSync(process.execPath, ['--import', tsxLoader, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(child.signal, 'SIGKILL', child.stderr);
  const before = await onDisk(path);
  // The slices reached disk as they came (no write waits for the whole snapshot)...
  assert.deepEqual([...before.keys()].filter((key) => key.startsWith('e1!')), ['e1!things!n0', 'e1!things!n1', 'e1!things!n2']);
  // ...and the store is as it was before the install.
  const store = await open(path);
  assert.equal(store.appliedIndex(), 10);
  assert.deepEqual(store.table('things').all().map((r) => r.id), ['a', 'b']);
  await store.close();
  const after = await onDisk(path);
  assert.deepEqual([...after.keys()].filter(isRowKey), ['e!things!a', 'e!things!b']);
});

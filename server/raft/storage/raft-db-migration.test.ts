import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Level } from 'level';
import type { Entry, HardState } from '../core/types.ts';
import { LevelRaftStore } from './level-raft-store.ts';
import { openRaftStore } from './raft-db-migration.ts';
import { WalRaftStore } from './wal-raft-store.ts';
import { readRecord } from './wal-record.ts';
import { tempRaftDb } from './temp-raft-db.ts';

// Small segments keep the tests from writing 16 MiB of zeros each.
const options = { segmentBytes: 1 << 20, now: () => 1_700_000_000_000 };

const tempDb = () => tempRaftDb('raft-migration');

const entry = (index: number, term: number, data: unknown = { type: 'set', key: `k${index}` }): Entry => ({ index, term, type: 'normal', data });
const run = (from: number, to: number, term: number): Entry[] => Array.from({ length: to - from + 1 }, (_, i) => entry(from + i, term));

interface Contents {
  first: number;
  last: number;
  hardState: HardState | undefined;
  entries: Entry[];
}

async function contents(store: LevelRaftStore | WalRaftStore): Promise<Contents> {
  return {
    first: await store.firstIndex(),
    last: await store.lastIndex(),
    hardState: await store.hardState(),
    entries: await store.entries(0, Number.MAX_SAFE_INTEGER),
  };
}

async function levelDb(path: string, fill: (store: LevelRaftStore) => Promise<void>): Promise<Contents> {
  const store = await LevelRaftStore.open(path);
  try {
    await fill(store);
    return await contents(store);
  } finally {
    await store.close();
  }
}

async function openedContents(path: string): Promise<Contents> {
  const store = await openRaftStore(path, options);
  try {
    return await contents(store);
  } finally {
    await store.close();
  }
}

/** The data dir holds raft.db as a WAL and nothing the migration used on the way. */
async function assertOnlyWal(dir: string, path: string): Promise<void> {
  assert.deepEqual(await readdir(dir), ['raft.db']);
  const names = await readdir(path);
  assert.ok(!names.includes('CURRENT'));
  assert.ok(names.every((name) => /^wal-\d{10}\.log$/.test(name)), names.join(', '));
}

describe('openRaftStore', () => {
  test('a LevelDB raft.db with entries, hard state and a compacted position becomes a WAL with the same content', async () => {
    const { dir, path, remove } = await tempDb();
    try {
      const expected = await levelDb(path, async (store) => {
        await store.append([{ index: 1, term: 1, type: 'noop', data: null }, ...run(2, 12, 1)]);
        await store.append([{ index: 10, term: 2, type: 'config', data: { kind: 'add', id: 'ctrl-b', voter: true } }, ...run(11, 14, 2)]);
        await store.compact(4);
        await store.setHardState({ term: 2, vote: 'ctrl-a', commit: 13 });
      });
      assert.equal(expected.first, 5);
      assert.deepEqual(await openedContents(path), expected);
      await assertOnlyWal(dir, path);
      // And it is a plain WAL now: it opens without the migration.
      const wal = await WalRaftStore.open(path, options);
      assert.deepEqual(await contents(wal), expected);
      await wal.close();
    } finally {
      await remove();
    }
  });

  test('a LevelDB log compacted past its end keeps its position', async () => {
    const { path, remove } = await tempDb();
    try {
      await levelDb(path, async (store) => {
        await store.append(run(1, 3, 1));
        await store.compact(20);
      });
      assert.deepEqual(await openedContents(path), { first: 21, last: 20, hardState: undefined, entries: [] });
    } finally {
      await remove();
    }
  });

  test('a first-release data dir ({term, command} entries, a bare term) migrates as LevelRaftStore reads it', async () => {
    const { dir, path, remove } = await tempDb();
    try {
      const legacy = new Level<string, unknown>(path, { valueEncoding: 'json' });
      await legacy.batch([
        { type: 'put', key: 'log!0000000000000001', value: { term: 1, command: { type: 'identity.create', id: 'i1' } } },
        { type: 'put', key: 'log!0000000000000002', value: { term: 1, command: { type: 'identity.delete', id: 'i1' } } },
        { type: 'put', key: 'log!0000000000000003', value: { term: 3, command: { type: 'service.create', id: 's1' } } },
        { type: 'put', key: 'stable!term', value: 3 },
      ]);
      await legacy.close();
      assert.deepEqual(await openedContents(path), {
        first: 1,
        last: 3,
        hardState: { term: 3, vote: null, commit: 0 },
        entries: [
          { index: 1, term: 1, type: 'normal', data: { type: 'identity.create', id: 'i1' } },
          { index: 2, term: 1, type: 'normal', data: { type: 'identity.delete', id: 'i1' } },
          { index: 3, term: 3, type: 'normal', data: { type: 'service.create', id: 's1' } },
        ],
      });
      await assertOnlyWal(dir, path);
    } finally {
      await remove();
    }
  });

  test('a long log is copied in records of about 1 MiB', async () => {
    const { path, remove } = await tempDb();
    try {
      const big = (index: number) => entry(index, 1, { blob: 'x'.repeat(100_000) });
      const expected = await levelDb(path, async (store) => {
        for (let index = 1; index <= 30; index++) await store.append([big(index)]);
      });
      assert.deepEqual(await openedContents(path), expected);
      const lengths: number[] = [];
      for (const name of (await readdir(path)).sort()) {
        const bytes = await readFile(join(path, name));
        for (let offset = 0, result = readRecord(bytes, 0); result.kind === 'record'; offset += result.length, result = readRecord(bytes, offset)) {
          if (result.record.e) lengths.push(result.length);
        }
      }
      assert.ok(lengths.length >= 3, `${lengths.length} entry records`);
      assert.ok(lengths.every((length) => length <= (1 << 20) + 200_000), lengths.join(', '));
    } finally {
      await remove();
    }
  });

  test('a .wal-migration left by a crash mid-migration is discarded and the migration redone', async () => {
    const { dir, path, remove } = await tempDb();
    try {
      const expected = await levelDb(path, async (store) => {
        await store.append(run(1, 5, 2));
        await store.setHardState({ term: 2, vote: 'ctrl-c', commit: 5 });
      });
      // A half-built WAL holding other entries, and a stray file.
      const staging = await WalRaftStore.open(`${path}.wal-migration`, options);
      await staging.append(run(1, 2, 9));
      await staging.close();
      await writeFile(join(`${path}.wal-migration`, 'junk'), 'junk');
      assert.deepEqual(await openedContents(path), expected);
      await assertOnlyWal(dir, path);
    } finally {
      await remove();
    }
  });

  test('a crash between the two renames puts the LevelDB back and migrates again', async () => {
    const { dir, path, remove } = await tempDb();
    try {
      const expected = await levelDb(path, async (store) => {
        await store.append(run(1, 4, 1));
        await store.setHardState({ term: 1, vote: null, commit: 2 });
      });
      await rename(path, `${path}.leveldb-123`);
      await mkdir(`${path}.wal-migration`);
      assert.deepEqual(await openedContents(path), expected);
      await assertOnlyWal(dir, path);
    } finally {
      await remove();
    }
  });

  test('opening a WAL again is a plain open, and a set-aside LevelDB left behind is removed', async () => {
    const { dir, path, remove } = await tempDb();
    try {
      const expected = await levelDb(path, async (store) => {
        await store.append(run(1, 3, 1));
      });
      assert.deepEqual(await openedContents(path), expected);
      const files = await readdir(path);
      const bytes = await Promise.all(files.map((name) => readFile(join(path, name))));
      await mkdir(`${path}.leveldb-99`); // a cleanup the crash interrupted
      assert.deepEqual(await openedContents(path), expected);
      assert.deepEqual(await readdir(path), files);
      assert.deepEqual(await Promise.all(files.map((name) => readFile(join(path, name)))), bytes);
      await assertOnlyWal(dir, path);
    } finally {
      await remove();
    }
  });

  test('a missing raft.db opens as a new, empty WAL', async () => {
    const { dir, path, remove } = await tempDb();
    try {
      assert.deepEqual(await openedContents(path), { first: 1, last: 0, hardState: undefined, entries: [] });
      await assertOnlyWal(dir, path);
    } finally {
      await remove();
    }
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Level } from 'level';
import { entryKey, LevelRaftStore } from './level-raft-store.ts';
import { logStoreContract } from './raft-storage-contract.ts';
import { tempRaftDb } from './temp-raft-db.ts';

const tempDb = () => tempRaftDb('raft-db');

async function rawContents(path: string): Promise<Record<string, unknown>> {
  const db = new Level<string, unknown>(path, { valueEncoding: 'json' });
  try {
    return Object.fromEntries(await db.iterator().all());
  } finally {
    await db.close();
  }
}

logStoreContract('LevelRaftStore', async () => {
  const { path, remove } = await tempDb();
  let current = await LevelRaftStore.open(path);
  return {
    store: current,
    reopen: async () => {
      await current.close();
      return (current = await LevelRaftStore.open(path));
    },
    cleanup: async () => {
      await current.close();
      await remove();
    },
  };
});

describe('LevelRaftStore on disk', () => {
  test('entries, hard state and the compaction point use the documented keys', async () => {
    const { path, remove } = await tempDb();
    try {
      const store = await LevelRaftStore.open(path);
      await store.append([
        { index: 1, term: 1, type: 'noop', data: null },
        { index: 2, term: 1, type: 'normal', data: { type: 'x' } },
        { index: 3, term: 1, type: 'normal', data: { type: 'y' } },
      ]);
      await store.compact(1);
      await store.setHardState({ term: 1, vote: 'ctrl-a', commit: 2 });
      await store.close();
      assert.deepEqual(await rawContents(path), {
        'log!0000000000000002': { index: 2, term: 1, type: 'normal', data: { type: 'x' } },
        'log!0000000000000003': { index: 3, term: 1, type: 'normal', data: { type: 'y' } },
        'stable!compacted': 1,
        'stable!hardState': { term: 1, vote: 'ctrl-a', commit: 2 },
      });
      assert.equal(entryKey(12345), 'log!0000000000012345');
    } finally {
      await remove();
    }
  });

  test('a data dir written by the single-voter log opens as a raft log with its term', async () => {
    const { path, remove } = await tempDb();
    try {
      // Exactly what single-voter-log.ts writes: {term, command} entries and the term as a bare number.
      const legacy = new Level<string, unknown>(path, { valueEncoding: 'json' });
      await legacy.batch([
        { type: 'put', key: 'log!0000000000000001', value: { term: 1, command: { type: 'identity.create', id: 'i1' } } },
        { type: 'put', key: 'log!0000000000000002', value: { term: 1, command: { type: 'identity.delete', id: 'i1' } } },
        { type: 'put', key: 'log!0000000000000003', value: { term: 3, command: { type: 'service.create', id: 's1' } } },
        { type: 'put', key: 'stable!term', value: 3 },
      ]);
      await legacy.close();

      const store = await LevelRaftStore.open(path);
      assert.equal(await store.firstIndex(), 1);
      assert.equal(await store.lastIndex(), 3);
      assert.deepEqual(await store.hardState(), { term: 3, vote: null, commit: 0 });
      assert.deepEqual(await store.entries(2, 3), [
        { index: 2, term: 1, type: 'normal', data: { type: 'identity.delete', id: 'i1' } },
        { index: 3, term: 3, type: 'normal', data: { type: 'service.create', id: 's1' } },
      ]);

      // New writes sit beside the old ones, and the new hard state takes over from the bare term.
      await store.append([{ index: 4, term: 4, type: 'noop', data: null }]);
      await store.setHardState({ term: 4, vote: 'ctrl-a', commit: 4 });
      await store.close();
      const reopened = await LevelRaftStore.open(path);
      assert.deepEqual(await reopened.hardState(), { term: 4, vote: 'ctrl-a', commit: 4 });
      assert.deepEqual((await reopened.entries(1, 4)).map((e) => [e.index, e.term, e.type]), [
        [1, 1, 'normal'],
        [2, 1, 'normal'],
        [3, 3, 'normal'],
        [4, 4, 'noop'],
      ]);
      await reopened.close();
    } finally {
      await remove();
    }
  });

  test('a value that is not a log entry is reported with its key, not returned', async () => {
    const { path, remove } = await tempDb();
    try {
      const raw = new Level<string, unknown>(path, { valueEncoding: 'json' });
      await raw.put('log!0000000000000001', { hello: 'world' });
      await raw.close();
      const store = await LevelRaftStore.open(path);
      await assert.rejects(store.entries(1, 1), /log!0000000000000001 holds \{"hello":"world"\}, not a log entry/);
      await store.close();
    } finally {
      await remove();
    }
  });
});

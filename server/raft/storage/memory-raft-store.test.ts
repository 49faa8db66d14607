import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MemoryRaftStore } from './memory-raft-store.ts';
import { logStoreContract } from './raft-storage-contract.ts';

// A restart of a memory store is its clone: everything written counts as synced, so all of it survives.
logStoreContract('MemoryRaftStore', async () => {
  let current = new MemoryRaftStore();
  return {
    store: current,
    reopen: async () => (current = current.clone()),
    cleanup: async () => undefined,
  };
});

describe('MemoryRaftStore.clone', () => {
  test('a clone is independent of the store it was taken from, both ways', async () => {
    const store = new MemoryRaftStore();
    await store.append([{ index: 1, term: 1, type: 'noop', data: null }, { index: 2, term: 1, type: 'normal', data: 'a' }]);
    await store.setHardState({ term: 1, vote: 'ctrl-a', commit: 1 });
    const clone = store.clone();
    await store.append([{ index: 2, term: 2, type: 'normal', data: 'b' }]);
    await store.setHardState({ term: 2, vote: null, commit: 2 });
    await clone.compact(1);
    assert.deepEqual(await store.entries(1, 2), [{ index: 1, term: 1, type: 'noop', data: null }, { index: 2, term: 2, type: 'normal', data: 'b' }]);
    assert.deepEqual(await clone.entries(1, 2), [{ index: 2, term: 1, type: 'normal', data: 'a' }]);
    assert.deepEqual(await clone.hardState(), { term: 1, vote: 'ctrl-a', commit: 1 });
  });

  test('a clone of a closed store is open, as a restarted node is', async () => {
    const store = new MemoryRaftStore();
    await store.append([{ index: 1, term: 1, type: 'noop', data: null }]);
    await store.close();
    assert.equal(await store.clone().lastIndex(), 1);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MemorySnapshotStore } from './memory-snapshot-store.ts';
import { sampleSnapshot, snapshotStoreContract } from './raft-storage-contract.ts';

snapshotStoreContract('MemorySnapshotStore', async ({ retain }) => {
  let current = new MemorySnapshotStore({ retain });
  return {
    store: current,
    reopen: async () => (current = current.clone()),
    cleanup: async () => undefined,
  };
});

describe('MemorySnapshotStore', () => {
  test('a clone keeps its own snapshots', async () => {
    const store = new MemorySnapshotStore({ retain: 2 });
    await store.save(sampleSnapshot(1, 1));
    const clone = store.clone();
    await store.save(sampleSnapshot(2, 1));
    await store.save(sampleSnapshot(3, 1));
    assert.deepEqual((await clone.list()).map((m) => m.index), [1]);
    assert.deepEqual((await store.list()).map((m) => m.index), [3, 2]);
  });

  test('retain must be a positive integer', () => {
    assert.throws(() => new MemorySnapshotStore({ retain: 0 }), /retain 0 must be an integer of at least 1/);
  });
});

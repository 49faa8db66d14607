// Member addresses are part of a snapshot's configuration: a cluster restarted from snapshots must find itself.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FileSnapshotStore } from './file-snapshot-store.ts';
import { MemorySnapshotStore } from './memory-snapshot-store.ts';

const snapshot = {
  meta: { index: 40, term: 3, configuration: { voters: ['a', 'b'], nonVoters: ['c'], addresses: { a: 'tls:127.0.0.1:6262', b: 'tls:127.0.0.1:6263', c: 'tls:127.0.0.1:6264' } } },
  data: { rows: 1 },
};

test('both snapshot stores keep member addresses', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'edgeward-snap-addr-'));
  try {
    const file = await FileSnapshotStore.open(dir);
    await file.save(snapshot);
    await file.close();
    const reopened = await FileSnapshotStore.open(dir);
    assert.deepEqual((await reopened.latest())?.meta.configuration.addresses, snapshot.meta.configuration.addresses);
    await reopened.close();
    const memory = new MemorySnapshotStore();
    await memory.save(snapshot);
    assert.deepEqual((await memory.latest())?.meta.configuration.addresses, snapshot.meta.configuration.addresses);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The simulated stores keep the same contract as the real ones (when every write completes), and a crash keeps
// exactly the writes that reached the disk: those completed, plus a prefix of those in flight, each whole.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entry } from '../core/types.ts';
import { logStoreContract, snapshotStoreContract } from '../storage/raft-storage-contract.ts';
import { SafetyViolation } from './checkers/safety-violation.ts';
import { SimDisk, SimRaftStore, SimSnapshotStore } from './sim-disk.ts';
import { InjectedDiskFault, SimIoQueue } from './sim-io.ts';

/** A queue whose writes complete as soon as the writer has issued them (for the contract). */
class PromptQueue extends SimIoQueue {
  override issue(outcome: { due: number }, land: () => void): Promise<void> {
    const written = super.issue(outcome, land);
    queueMicrotask(() => this.completeDue(Number.POSITIVE_INFINITY, () => true));
    return written;
  }
}

const noViolations = (violation: SafetyViolation) => assert.fail(violation.message);
const now = () => ({ due: 0 });

logStoreContract('SimRaftStore', async () => {
  const disk = new SimDisk('n1', noViolations);
  return {
    store: new SimRaftStore(disk, new PromptQueue(), now),
    reopen: async () => new SimRaftStore(disk, new PromptQueue(), now),
    cleanup: async () => undefined,
  };
});

snapshotStoreContract('SimSnapshotStore', async ({ retain }) => {
  const disk = new SimDisk('n1', noViolations, retain);
  return {
    store: new SimSnapshotStore(disk, new PromptQueue(), now),
    reopen: async () => new SimSnapshotStore(disk, new PromptQueue(), now),
    cleanup: async () => undefined,
  };
});

const entries = (from: number, to: number, term: number): Entry[] => Array.from({ length: to - from + 1 }, (_, i) => ({ index: from + i, term, type: 'normal', data: { n: from + i } }));

test('a write is not on the disk until it completes, and completes only once due, in issue order', async () => {
  const disk = new SimDisk('n1', noViolations);
  const queue = new SimIoQueue();
  const store = new SimRaftStore(disk, queue, () => ({ due: 30 }));
  let done = false;
  const written = store.persist(entries(1, 3, 1), { term: 1, vote: 'n1', commit: 0 }).then(() => (done = true));
  assert.equal(disk.lastIndex, 0);
  assert.equal(queue.completeDue(29, () => true), 0);
  assert.equal(disk.lastIndex, 0);
  assert.equal(queue.completeDue(30, () => true), 1);
  await written;
  assert.ok(done);
  assert.equal(disk.lastIndex, 3);
  assert.equal(disk.hardState?.vote, 'n1');
});

test('a crash lands a prefix of the writes in flight, each whole, and their writers never hear back', async () => {
  const disk = new SimDisk('n1', noViolations);
  const queue = new SimIoQueue();
  const store = new SimRaftStore(disk, queue, () => ({ due: 0 }));
  const heard: string[] = [];
  void store.persist(entries(1, 2, 1), { term: 1, vote: null, commit: 0 }).then(() => heard.push('first'));
  void store.persist(entries(3, 5, 1), undefined).then(() => heard.push('second'));
  void store.persist(entries(6, 6, 1), { term: 2, vote: 'n2', commit: 0 }).then(() => heard.push('third'));
  assert.equal(queue.crash(2), 1);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(heard, []);
  assert.equal(disk.lastIndex, 5);
  assert.deepEqual(disk.hardState, { term: 1, vote: null, commit: 0 });
  // The dead process's later writes go nowhere.
  void store.persist(entries(6, 6, 3), undefined);
  assert.equal(queue.length, 0);
  assert.equal(disk.lastIndex, 5);
});

test('a full disk fails a write without landing it; an EIO may land it; both reach the writer as injected faults', async () => {
  const disk = new SimDisk('n1', noViolations);
  const queue = new SimIoQueue();
  const full = new SimRaftStore(disk, queue, () => ({ due: 0, failure: { error: new InjectedDiskFault('ENOSPC'), lands: false } }));
  const eio = new SimRaftStore(disk, queue, () => ({ due: 0, failure: { error: new InjectedDiskFault('EIO'), lands: true } }));
  const first = full.persist(entries(1, 1, 1), undefined);
  const second = eio.persist(entries(1, 2, 1), undefined);
  queue.completeDue(0, () => true);
  await assert.rejects(first, /ENOSPC/);
  await assert.rejects(second, (error) => error instanceof InjectedDiskFault && /EIO/.test(error.message));
  assert.equal(disk.lastIndex, 2);
});

test('a term that goes back or a second vote in one term is reported as it lands, even at a crash', () => {
  const seen: string[] = [];
  const disk = new SimDisk('n1', (violation) => seen.push(violation.message));
  disk.setHardState({ term: 3, vote: 'n2', commit: 0 });
  disk.setHardState({ term: 3, vote: 'n3', commit: 0 });
  disk.setHardState({ term: 2, vote: null, commit: 0 });
  assert.deepEqual(seen, ['durable state: n1 voted for n2 and then n3 in term 3', 'durable state: n1\'s term went back from 3 to 2']);
});

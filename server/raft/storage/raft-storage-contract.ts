// The behaviour every LogStore/StableStore and every SnapshotStore must show, registered as node:test cases so each
// implementation's test file runs the same suite against its own harness.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Configuration, Entry, Snapshot } from '../core/types.ts';
import type { LogStore, RaftStore, SnapshotStore } from './raft-storage.ts';

export type { RaftStore };

export interface StoreHarness<S> {
  readonly store: S;
  /** Closes `store` if a restart would, and returns a store over the same durable state. */
  reopen(): Promise<S>;
  /** Closes whatever is still open and removes what the harness created. */
  cleanup(): Promise<void>;
}

export interface SnapshotStoreSetup {
  readonly retain: number;
}

const entry = (index: number, term: number, data: unknown = { type: 'set', key: `k${index}` }): Entry => ({ index, term, type: 'normal', data });
const run = (from: number, to: number, term: number): Entry[] => Array.from({ length: to - from + 1 }, (_, i) => entry(from + i, term));

async function bounds(store: LogStore): Promise<[number, number]> {
  return [await store.firstIndex(), await store.lastIndex()];
}

async function indexesAndTerms(store: LogStore, from = 0, to = Number.MAX_SAFE_INTEGER): Promise<Array<[number, number]>> {
  return (await store.entries(from, to)).map((e) => [e.index, e.term]);
}

export function logStoreContract(name: string, makeStore: () => Promise<StoreHarness<RaftStore>>): void {
  const withStore = (fn: (harness: StoreHarness<RaftStore>) => Promise<void>) => async () => {
    const harness = await makeStore();
    try {
      await fn(harness);
    } finally {
      await harness.cleanup();
    }
  };

  describe(`${name} (LogStore and StableStore contract)`, () => {
    test('a new store is empty: firstIndex 1, lastIndex 0, no entries, no hard state', withStore(async ({ store }) => {
      assert.deepEqual(await bounds(store), [1, 0]);
      assert.deepEqual(await store.entries(0, 100), []);
      assert.equal(await store.hardState(), undefined);
    }));

    test('appended entries read back by inclusive range, clamped to what is held', withStore(async ({ store }) => {
      await store.append(run(1, 5, 1));
      await store.append(run(6, 8, 2));
      assert.deepEqual(await bounds(store), [1, 8]);
      assert.deepEqual(await store.entries(1, 8), [...run(1, 5, 1), ...run(6, 8, 2)]);
      assert.deepEqual(await indexesAndTerms(store, 3, 6), [[3, 1], [4, 1], [5, 1], [6, 2]]);
      assert.deepEqual(await indexesAndTerms(store, 7, 100), [[7, 2], [8, 2]]);
      assert.deepEqual(await store.entries(5, 5), [entry(5, 1)]);
      assert.deepEqual(await store.entries(6, 3), []);
      assert.deepEqual(await store.entries(9, 20), []);
    }));

    test('persist writes entries and the hard state together, and either alone', withStore(async (harness) => {
      await harness.store.persist(run(1, 3, 2), { term: 2, vote: 'n1', commit: 1 });
      await harness.store.persist([], { term: 3, vote: null, commit: 2 });
      await harness.store.persist(run(4, 4, 3), undefined);
      const store = await harness.reopen();
      assert.deepEqual(await bounds(store), [1, 4]);
      assert.deepEqual(await store.hardState(), { term: 3, vote: null, commit: 2 });
      await assert.rejects(store.persist(run(9, 9, 3), { term: 3, vote: null, commit: 2 }), 'a gap is refused');
      assert.deepEqual(await store.hardState(), { term: 3, vote: null, commit: 2 });
    }));

    test('every entry type and its data round-trip', withStore(async ({ store }) => {
      const entries: Entry[] = [
        { index: 1, term: 1, type: 'noop', data: null },
        { index: 2, term: 1, type: 'config', data: { kind: 'add', id: 'ctrl-b', voter: true, context: { address: 'tls:b:6262' } } },
        { index: 3, term: 1, type: 'normal', data: { type: 'identity.create', payload: { name: 'ü ✓', tags: ['a', 'b'], n: 1.5, nested: { ok: false } } } },
        { index: 4, term: 2, type: 'config', data: { kind: 'remove', id: 'ctrl-c' } },
      ];
      await store.append(entries);
      assert.deepEqual(await store.entries(1, 4), entries);
    }));

    test('an append replaces the conflicting suffix from its first index on', withStore(async ({ store }) => {
      await store.append(run(1, 5, 1));
      await store.append(run(3, 4, 2));
      assert.deepEqual(await bounds(store), [1, 4]);
      assert.deepEqual(await indexesAndTerms(store), [[1, 1], [2, 1], [3, 2], [4, 2]]);
      // A longer replacement extends the log past the old end.
      await store.append(run(2, 7, 3));
      assert.deepEqual(await indexesAndTerms(store), [[1, 1], [2, 3], [3, 3], [4, 3], [5, 3], [6, 3], [7, 3]]);
      // Appending right after the last entry deletes nothing.
      await store.append(run(8, 8, 3));
      assert.deepEqual(await bounds(store), [1, 8]);
    }));

    test('an empty append changes nothing', withStore(async ({ store }) => {
      await store.append(run(1, 3, 1));
      await store.append([]);
      assert.deepEqual(await indexesAndTerms(store), [[1, 1], [2, 1], [3, 1]]);
    }));

    test('compact drops entries at or before the index and moves firstIndex past it', withStore(async ({ store }) => {
      await store.append(run(1, 10, 1));
      await store.compact(4);
      assert.deepEqual(await bounds(store), [5, 10]);
      assert.deepEqual((await store.entries(1, 10)).map((e) => e.index), [5, 6, 7, 8, 9, 10]);
      await store.compact(2); // already gone: nothing to do
      assert.deepEqual(await bounds(store), [5, 10]);
      // Compacting everything leaves an empty log that still knows where it ends.
      await store.compact(10);
      assert.deepEqual(await bounds(store), [11, 10]);
      assert.deepEqual(await store.entries(0, 100), []);
      await store.append(run(11, 12, 2));
      assert.deepEqual(await indexesAndTerms(store), [[11, 2], [12, 2]]);
    }));

    test('compact past the last entry (a snapshot ahead of the log) empties it at the snapshot index', withStore(async ({ store }) => {
      await store.append(run(1, 3, 1));
      await store.compact(20);
      assert.deepEqual(await bounds(store), [21, 20]);
      await store.append(run(21, 22, 4));
      assert.deepEqual(await bounds(store), [21, 22]);
    }));

    test('compact of a long log removes every entry it covers', withStore(async ({ store }) => {
      await store.append(run(1, 10_000, 1));
      await store.compact(9_990);
      assert.deepEqual(await bounds(store), [9_991, 10_000]);
      assert.equal((await store.entries(0, 10_000)).length, 10);
    }));

    test('reset deletes every entry, and the log may then resume anywhere', withStore(async ({ store }) => {
      await store.append(run(1, 5, 1));
      await store.compact(2);
      await store.reset();
      assert.deepEqual(await bounds(store), [1, 0]);
      assert.deepEqual(await store.entries(0, 100), []);
      await store.append(run(50, 52, 3));
      assert.deepEqual(await bounds(store), [50, 52]);
      assert.deepEqual(await indexesAndTerms(store), [[50, 3], [51, 3], [52, 3]]);
    }));

    test('hard state round-trips, and a later write replaces it', withStore(async ({ store }) => {
      await store.setHardState({ term: 3, vote: 'ctrl-a', commit: 7 });
      assert.deepEqual(await store.hardState(), { term: 3, vote: 'ctrl-a', commit: 7 });
      await store.setHardState({ term: 4, vote: null, commit: 9 });
      assert.deepEqual(await store.hardState(), { term: 4, vote: null, commit: 9 });
    }));

    test('hard state is a copy: changing the object passed in changes nothing stored', withStore(async ({ store }) => {
      const state = { term: 2, vote: 'ctrl-b' as string | null, commit: 1 };
      await store.setHardState(state);
      state.term = 99;
      assert.deepEqual(await store.hardState(), { term: 2, vote: 'ctrl-b', commit: 1 });
    }));

    test('log, compaction point and hard state survive a reopen', withStore(async (harness) => {
      await harness.store.append(run(1, 6, 1));
      await harness.store.append(run(5, 7, 2));
      await harness.store.compact(2);
      await harness.store.setHardState({ term: 2, vote: 'ctrl-c', commit: 6 });
      const reopened = await harness.reopen();
      assert.deepEqual(await bounds(reopened), [3, 7]);
      assert.deepEqual(await indexesAndTerms(reopened), [[3, 1], [4, 1], [5, 2], [6, 2], [7, 2]]);
      assert.deepEqual(await reopened.hardState(), { term: 2, vote: 'ctrl-c', commit: 6 });
      await reopened.compact(7);
      const again = await harness.reopen();
      assert.deepEqual(await bounds(again), [8, 7]);
      await again.reset();
      assert.deepEqual(await bounds(await harness.reopen()), [1, 0]);
    }));

    test('non-contiguous or malformed entries and compaction indexes are refused with a clear error, leaving the log as it was', withStore(async ({ store }) => {
      await store.append(run(1, 3, 1));
      await assert.rejects(store.append([entry(4, 1), entry(6, 1)]), { message: 'append: entries are not contiguous: index 6 follows index 4' });
      await assert.rejects(store.append([entry(5, 1)]), { message: 'append: entries start at index 5, leaving a gap after lastIndex 3' });
      await assert.rejects(store.append([entry(4, 2), entry(5, 1)]), { message: 'append: term 1 at index 5 is lower than term 2 before it' });
      await assert.rejects(store.append([entry(0, 1)]), { message: 'append: index 0 is not a positive safe integer' });
      await assert.rejects(store.append([entry(1.5, 1)]), /index 1\.5 is not a positive safe integer/);
      await assert.rejects(store.append([{ index: 4, term: 1, type: 'bogus' as Entry['type'], data: null }]), /unknown type "bogus"/);
      await assert.rejects(store.compact(1.5), { message: 'compact: index 1.5 is not a non-negative integer' });
      assert.deepEqual(await bounds(store), [1, 3]);
      assert.deepEqual(await indexesAndTerms(store), [[1, 1], [2, 1], [3, 1]]);
    }));

    test('a malformed hard state is refused', withStore(async ({ store }) => {
      await assert.rejects(store.setHardState({ term: -1, vote: null, commit: 0 }), /term -1/);
      await assert.rejects(store.setHardState({ term: 1, vote: '', commit: 0 }), /vote ""/);
      await assert.rejects(store.setHardState({ term: 1, vote: null, commit: 0.5 }), /commit 0\.5/);
      assert.equal(await store.hardState(), undefined);
    }));

    test('writes issued together apply in order', withStore(async ({ store }) => {
      await Promise.all([store.append(run(1, 5, 1)), store.append(run(4, 6, 2)), store.compact(2), store.setHardState({ term: 2, vote: null, commit: 3 })]);
      assert.deepEqual(await indexesAndTerms(store), [[3, 1], [4, 2], [5, 2], [6, 2]]);
    }));

    test('a closed store refuses further use, and closing twice is harmless', withStore(async ({ store }) => {
      await store.append(run(1, 2, 1));
      await store.close();
      await store.close();
      await assert.rejects(store.append(run(3, 3, 1)), /closed/);
      await assert.rejects(store.lastIndex(), /closed/);
      await assert.rejects(store.hardState(), /closed/);
    }));
  });
}

const configuration = (): Configuration => ({ voters: ['ctrl-a', 'ctrl-b', 'ctrl-c'], nonVoters: ['ctrl-d'] });

export const sampleSnapshot = (index: number, term: number, data: unknown = { identities: { [`id-${index}`]: { name: 'ü', term } } }): Snapshot => ({
  meta: { index, term, configuration: configuration() },
  data,
});

export function snapshotStoreContract(name: string, makeStore: (setup: SnapshotStoreSetup) => Promise<StoreHarness<SnapshotStore>>): void {
  const withStore = (fn: (harness: StoreHarness<SnapshotStore>) => Promise<void>, setup: SnapshotStoreSetup = { retain: 5 }) => async () => {
    const harness = await makeStore(setup);
    try {
      await fn(harness);
    } finally {
      await harness.cleanup();
    }
  };

  describe(`${name} (SnapshotStore contract)`, () => {
    test('a new store has no snapshots', withStore(async ({ store }) => {
      assert.equal(await store.latest(), undefined);
      assert.deepEqual(await store.list(), []);
    }));

    test('a saved snapshot comes back whole from latest() and is listed', withStore(async ({ store }) => {
      const snapshot = sampleSnapshot(10, 2);
      await store.save(snapshot);
      assert.deepEqual(await store.latest(), snapshot);
      assert.deepEqual(await store.list(), [snapshot.meta]);
    }));

    test('latest() is the newest by index, then term, whatever the order of saving', withStore(async ({ store }) => {
      await store.save(sampleSnapshot(20, 3));
      await store.save(sampleSnapshot(10, 2));
      await store.save(sampleSnapshot(20, 4));
      await store.save(sampleSnapshot(15, 9));
      assert.deepEqual(await store.latest(), sampleSnapshot(20, 4));
      assert.deepEqual((await store.list()).map((m) => [m.index, m.term]), [[20, 4], [20, 3], [15, 9], [10, 2]]);
    }));

    test('saving the same index and term again replaces the snapshot', withStore(async ({ store }) => {
      await store.save(sampleSnapshot(10, 2, { v: 1 }));
      await store.save(sampleSnapshot(10, 2, { v: 2 }));
      assert.deepEqual(await store.latest(), sampleSnapshot(10, 2, { v: 2 }));
      assert.equal((await store.list()).length, 1);
    }));

    test('only the newest `retain` snapshots are kept', withStore(async ({ store }) => {
      for (const index of [100, 200, 300, 400, 500]) await store.save(sampleSnapshot(index, 1));
      assert.deepEqual((await store.list()).map((m) => m.index), [500, 400, 300]);
      // An older snapshot saved late is the first to go.
      await store.save(sampleSnapshot(50, 1));
      assert.deepEqual((await store.list()).map((m) => m.index), [500, 400, 300]);
    }, { retain: 3 }));

    test('data is kept as JSON: later changes to the saved objects do not reach it', withStore(async ({ store }) => {
      const data = { counters: [1, 2, 3], when: new Date(0) };
      const snapshot = sampleSnapshot(5, 1, data);
      await store.save(snapshot);
      data.counters.push(4);
      (snapshot.meta.configuration.voters as string[]).push('ctrl-z');
      assert.deepEqual(await store.latest(), {
        meta: { index: 5, term: 1, configuration: configuration() },
        data: { counters: [1, 2, 3], when: '1970-01-01T00:00:00.000Z' },
      });
    }));

    test('scalar and null data round-trip', withStore(async ({ store }) => {
      await store.save(sampleSnapshot(1, 1, null));
      assert.deepEqual(await store.latest(), sampleSnapshot(1, 1, null));
      await store.save(sampleSnapshot(2, 1, 'text'));
      assert.deepEqual(await store.latest(), sampleSnapshot(2, 1, 'text'));
    }));

    test('snapshots survive a reopen', withStore(async (harness) => {
      await harness.store.save(sampleSnapshot(7, 1));
      await harness.store.save(sampleSnapshot(9, 2));
      const reopened = await harness.reopen();
      assert.deepEqual(await reopened.latest(), sampleSnapshot(9, 2));
      assert.deepEqual((await reopened.list()).map((m) => m.index), [9, 7]);
    }));

    test('a snapshot that cannot be stored faithfully is refused', withStore(async ({ store }) => {
      await assert.rejects(store.save({ meta: sampleSnapshot(1, 1).meta, data: undefined }), /data \(undefined\) is not JSON-serialisable/);
      await assert.rejects(store.save({ meta: { index: -1, term: 1, configuration: configuration() }, data: {} }), /index -1/);
      await assert.rejects(
        store.save({ meta: { index: 1, term: 1, configuration: { voters: ['a'] } as unknown as Configuration }, data: {} }),
        /configuration/,
      );
      assert.deepEqual(await store.list(), []);
    }));

    test('a closed store refuses further use', withStore(async ({ store }) => {
      await store.close();
      await assert.rejects(store.save(sampleSnapshot(1, 1)), /closed/);
      await assert.rejects(store.latest(), /closed/);
    }));
  });
}

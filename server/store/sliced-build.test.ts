// The name order and the text index built in the background, a slice at a time (slice-scheduler.ts): interleaved with
// random creates, updates and deletes, each ends exactly as a build in one piece over the final rows; no slice handles
// more rows than its bound; until built neither answers (the caller serves the request another way).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EntityTable } from './entity-table.ts';
import { SortedRows } from './sorted-rows.ts';
import { SubstringSearch } from './substring-search.ts';
import { SlicedSort } from './sliced-sort.ts';
import { seededRandom as random } from '../raft/sim/seeded-random.ts';

interface Named {
  readonly id: string;
  readonly name?: string;
}

/** A scheduler whose steps wait until the test runs them. */
function heldSteps() {
  const steps: (() => void)[] = [];
  return {
    schedule: (step: () => void) => void steps.push(step),
    get waiting() {
      return steps.length;
    },
    runOne() {
      steps.shift()!();
    },
    runAll(limit = 100_000) {
      for (let i = 0; steps.length > 0; i++) {
        assert.ok(i < limit, 'the build never finished');
        steps.shift()!();
      }
    },
  };
}

function order(sorted: SortedRows<Named>, descending: boolean): string[] {
  const ids: string[] = [];
  sorted.each(descending, (row) => void ids.push(row.id));
  return ids;
}

const eachRowOf = (table: EntityTable<Named>) => (visit: (row: Named) => void) => table.eachRow((row) => void visit(row));

for (const seed of [1, 2, 3, 4]) {
  test(`a name order built in slices while rows are created, updated and deleted ends identical to one built afresh (seed ${seed})`, () => {
    const next = random(seed);
    const int = (n: number) => Math.floor(next() * n);
    const name = () => (next() < 0.1 ? undefined : `n-${int(300)}${['', 'é', '😀', 'B'][int(4)]}`);
    const id = () => `id-${String(int(5000)).padStart(5, '0')}`;
    const table = new EntityTable<Named>('named');
    for (let i = 0; i < 3000; i++) table.put({ id: id(), name: name() });
    const steps = heldSteps();
    let keyReads = 0;
    let mostKeyReadsInAStep = 0;
    const key = (row: Named) => (keyReads++, row.name);
    const sorted = new SortedRows<Named>({ key, eachRow: eachRowOf(table), schedule: steps.schedule, sliceRows: 64 });
    table.observe(sorted);
    assert.equal(sorted.ready(), false, 'not built yet: the caller serves the request another way');
    assert.equal(keyReads, 0, 'starting the build reads no key');
    while (steps.waiting > 0) {
      for (let i = int(4); i > 0; i--) {
        if (next() < 0.25) table.delete(id());
        else table.put({ id: id(), name: name() });
      }
      assert.equal(sorted.ready(), false);
      keyReads = 0;
      steps.runOne();
      mostKeyReadsInAStep = Math.max(mostKeyReadsInAStep, keyReads);
    }
    assert.equal(sorted.builds, 1);
    assert.ok(sorted.rowsInLongestSlice <= 64 && sorted.rowsInLongestSlice > 0, `longest slice ${sorted.rowsInLongestSlice} rows`);
    assert.ok(mostKeyReadsInAStep <= 64, `a step read ${mostKeyReadsInAStep} keys`);
    for (let i = 0; i < 20; i++) table.put({ id: id(), name: name() });
    assert.equal(sorted.ready(), true);
    const fresh = new SortedRows<Named>({ key: (row) => row.name, eachRow: eachRowOf(table) });
    assert.deepEqual(order(sorted, false), order(fresh, false));
    assert.deepEqual(order(sorted, true), order(fresh, true));
    assert.equal(sorted.builds, 1, 'the changes were placed, not built afresh');
  });

  test(`a text index built in slices while rows are created, updated and deleted answers as one built afresh (seed ${seed})`, () => {
    const next = random(seed);
    const int = (n: number) => Math.floor(next() * n);
    const name = () => (next() < 0.1 ? undefined : `n-${int(300)}-${['x', 'ab', 'é', '😀'][int(4)]}`);
    const id = () => `id-${String(int(5000)).padStart(5, '0')}`;
    const table = new EntityTable<Named>('named');
    for (let i = 0; i < 3000; i++) table.put({ id: id(), name: name() });
    const steps = heldSteps();
    const options = { key: (row: Named) => row.name, isCurrent: (row: Named) => table.get(row.id) === row, eachRow: eachRowOf(table), segmentEntries: 50 };
    const search = new SubstringSearch<Named>({ ...options, schedule: steps.schedule, sliceRows: 64 });
    table.observe(search);
    assert.equal(search.search('contains', '-1', 1e9), undefined, 'not built yet: the caller scans');
    while (steps.waiting > 0) {
      for (let i = int(4); i > 0; i--) {
        if (next() < 0.25) table.delete(id());
        else table.put({ id: id(), name: name() });
      }
      assert.equal(search.search('contains', '-1', 1e9), undefined);
      steps.runOne();
    }
    assert.ok(search.rowsInLongestSlice <= 64 && search.rowsInLongestSlice > 0, `longest slice ${search.rowsInLongestSlice} rows`);
    const fresh = new SubstringSearch<Named>(options);
    const ids = (rows: readonly Named[] | undefined) => [...new Set(rows!.map((row) => row.id))].sort();
    for (const [match, text] of [['contains', '-1'], ['contains', 'é'], ['startswith', 'n-2'], ['endswith', '😀'], ['contains', '7-ab']] as const) {
      assert.deepEqual(ids(search.search(match, text, 1e9)), ids(fresh.search(match, text, 1e9)), `${match} ${text}`);
    }
  });
}

test('a background build dropped by a reset starts again at the next read and is not overwritten by the old one', () => {
  const table = new EntityTable<Named>('named');
  for (let i = 0; i < 500; i++) table.put({ id: `id-${i}`, name: `n-${(i * 7919) % 500}` });
  const steps = heldSteps();
  const sorted = new SortedRows<Named>({ key: (row) => row.name, eachRow: eachRowOf(table), schedule: steps.schedule, sliceRows: 32 });
  table.observe(sorted);
  assert.equal(sorted.ready(), false);
  steps.runOne();
  table.put({ id: 'id-1', name: 'zzz' });
  table.rebuildIndexes();
  steps.runAll();
  assert.equal(sorted.builds, 0, 'the dropped build ended at its next slice');
  assert.equal(sorted.ready(), false, 'a new build starts');
  steps.runAll();
  assert.equal(sorted.ready(), true);
  assert.equal(order(sorted, true)[0], 'id-1');
});

test('a sliced sort gives what a stable sort gives, whatever the slice, and bounds each slice', () => {
  const next = random(9);
  for (const size of [0, 1, 2, 5, 100, 1000, 4097]) {
    const rows = Array.from({ length: size }, (_, i) => ({ i, key: next() < 0.1 ? undefined : String(Math.floor(next() * 50)) }));
    const expected = [...rows].sort((a, b) => (a.key === b.key ? 0 : a.key === undefined ? 1 : b.key === undefined ? -1 : a.key < b.key ? -1 : 1)).map((row) => row.i);
    for (const sliceRows of [2, 3, 64, 5000]) {
      const sort = new SlicedSort(rows, (row) => row.key, sliceRows);
      let steps = 0;
      while (!sort.step()) assert.ok(++steps < 1_000_000);
      assert.deepEqual(sort.result().rows.map((row) => row.i), expected, `size ${size}, slice ${sliceRows}`);
      assert.ok(sort.rowsInLongestSlice <= sliceRows);
    }
  }
});

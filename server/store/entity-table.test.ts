import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EntityTable, UniqueIndexViolation } from './entity-table.ts';

interface Thing {
  readonly id: string;
  readonly name: string;
  readonly owner?: string;
}

const table = () => new EntityTable<Thing>('things').uniqueIndex('name', (row) => row.name).multiIndex('owner', (row) => row.owner);
const ids = (rows: readonly Thing[]) => rows.map((row) => row.id);

test('all() lists rows in id order whatever order they were put in, and after updates, deletes and re-puts', () => {
  const things = table();
  for (const id of ['m', 'c', 'x', 'a', 'q']) things.put({ id, name: `n-${id}` });
  assert.deepEqual(ids(things.all()), ['a', 'c', 'm', 'q', 'x']);
  things.put({ id: 'c', name: 'renamed' });
  things.delete('m');
  things.put({ id: 'b', name: 'n-b' });
  assert.deepEqual(ids(things.all()), ['a', 'b', 'c', 'q', 'x']);
  assert.equal(things.get('c')!.name, 'renamed');
  // Deleted and put back before anyone listed: listed once.
  things.delete('q');
  things.put({ id: 'q', name: 'n-q2' });
  things.delete('a');
  assert.deepEqual(ids(things.all()), ['b', 'c', 'q', 'x']);
  assert.deepEqual(ids(things.all()), ['b', 'c', 'q', 'x'], 'a second list without changes is the same');
  assert.equal(things.size, 4);
});

test('all() stays in id order across many random inserts and deletes (as a fresh sort would give)', () => {
  const things = table();
  const present = new Set<string>();
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let step = 0; step < 3000; step++) {
    const id = `id${Math.floor(random() * 500)}`;
    if (present.has(id) && random() < 0.5) {
      things.delete(id);
      present.delete(id);
    } else if (!present.has(id)) {
      things.put({ id, name: id });
      present.add(id);
    }
    if (step % 97 === 0) assert.deepEqual(ids(things.all()), [...present].sort());
  }
  assert.deepEqual(ids(things.all()), [...present].sort());
});

test('unique and multi indexes find rows and refuse a clash without changing anything', () => {
  const things = table();
  things.put({ id: '1', name: 'one', owner: 'ann' });
  things.put({ id: '2', name: 'two', owner: 'ann' });
  assert.equal(things.findUnique('name', 'two')!.id, '2');
  assert.deepEqual(ids(things.findMany('owner', 'ann')).sort(), ['1', '2']);
  assert.throws(() => things.put({ id: '3', name: 'one' }), UniqueIndexViolation);
  assert.equal(things.get('3'), undefined);
  assert.deepEqual(ids(things.all()), ['1', '2']);
});

test('the indexes agree with the rows after puts and deletes: no disagreements', () => {
  const things = table();
  for (let i = 0; i < 50; i++) things.put({ id: `t${i}`, name: `n${i}`, owner: i % 3 === 0 ? 'ann' : undefined });
  for (let i = 0; i < 50; i += 4) things.delete(`t${i}`);
  things.put({ id: 't1', name: 'renamed', owner: 'bob' });
  assert.deepEqual(things.indexDisagreements(), []);
});

test('a row changed behind the indexes is reported, and rebuilding the indexes from the rows repairs it', () => {
  const things = table();
  things.put({ id: '1', name: 'one', owner: 'ann' });
  things.put({ id: '2', name: 'two', owner: 'ann' });
  // What a bug mutating a stored row would leave: the indexes still hold its old values.
  Object.assign(things.get('1')!, { name: 'uno', owner: 'bob' });
  assert.deepEqual(things.indexDisagreements(), [
    "things index name: row 1 is not reachable by its value 'uno'",
    "things index name: the value 'one' points at row 1, whose value is 'uno'",
    "things index owner: row 1 is not reachable by its value 'bob'",
    "things index owner: the value 'ann' points at row 1, whose value is 'bob'",
  ]);
  things.rebuildIndexes();
  assert.deepEqual(things.indexDisagreements(), []);
  assert.equal(things.findUnique('name', 'uno')!.id, '1');
  assert.equal(things.findUnique('name', 'one'), undefined);
  assert.deepEqual(ids(things.findMany('owner', 'ann')), ['2']);
  assert.deepEqual(ids(things.all()), ['1', '2']);
});

test('a row missing from the id order is reported and the rebuild lists it again', () => {
  const things = table();
  things.put({ id: '1', name: 'one' });
  things.put({ id: '2', name: 'two' });
  (things as unknown as { order: { delete(id: string): void } }).order.delete('2');
  assert.deepEqual(things.indexDisagreements(), ['things id order: row 2 is missing from lists']);
  things.rebuildIndexes();
  assert.deepEqual(ids(things.all()), ['1', '2']);
  assert.deepEqual(things.indexDisagreements(), []);
});

test('two rows holding one unique value are reported; the rebuild refuses and changes nothing', () => {
  const things = table();
  things.put({ id: '1', name: 'one' });
  things.put({ id: '2', name: 'two' });
  Object.assign(things.get('2')!, { name: 'one' });
  assert.deepEqual(things.indexDisagreements(), [
    "things index name: rows 1 and 2 both hold the unique value 'one'",
    "things index name: the value 'two' points at row 2, whose value is 'one'",
  ]);
  assert.throws(() => things.rebuildIndexes(), UniqueIndexViolation);
  assert.equal(things.findUnique('name', 'two')!.id, '2', 'the refused rebuild left the indexes as they were');
});

test('the check a slice at a time pauses between slices, and changes made between them are not reported as disagreements', () => {
  for (const sliceRows of [1, 2, 3, 7]) {
    const things = table();
    for (let i = 0; i < 20; i++) things.put({ id: `t${String(i).padStart(2, '0')}`, name: `n${i}`, owner: i % 2 === 0 ? 'ann' : 'bob' });
    const found: string[] = [];
    let pauses = 0;
    for (const slice of things.indexCheckSteps(found, sliceRows)) {
      void slice;
      pauses++;
      // What the applies do between slices: puts, renames and deletes, each keeping rows and indexes together.
      things.put({ id: `new${pauses}`, name: `fresh${pauses}`, owner: 'ann' });
      things.put({ id: 't05', name: `renamed${pauses}`, owner: pauses % 2 === 0 ? 'ann' : 'carl' });
      things.delete(`t1${pauses % 10}`);
      things.delete(`new${pauses - 1}`);
    }
    assert.ok(pauses >= 5, `paused ${pauses} times`);
    assert.deepEqual(found, [], `slices of ${sliceRows}`);
    Object.assign(things.get('t00')!, { name: 'behind-the-index' });
    const sliced: string[] = [];
    for (const slice of things.indexCheckSteps(sliced, sliceRows)) void slice;
    assert.deepEqual(sliced, things.indexDisagreements());
    assert.equal(sliced.length, 2);
  }
});

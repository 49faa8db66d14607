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

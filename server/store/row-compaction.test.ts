import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EntityTable } from './entity-table.ts';
import { RowCompactor } from './row-compaction.ts';

interface Person {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly tags: Readonly<Record<string, unknown>>;
  readonly roleAttributes: readonly string[];
}

/** A row as JSON.parse makes it: every string and list its own copy. */
const parsed = (id: string, roles: string[], tags: Record<string, unknown> = {}, at = '2026-11-29T20:00:00.000Z'): Person =>
  JSON.parse(JSON.stringify({ id, name: `name-${id}`, createdAt: at, updatedAt: at.slice(0, 10) + at.slice(10), tags, roles })) as never;

const person = (id: string, roles: string[], tags: Record<string, unknown> = {}): Person => {
  const row = parsed(id, roles, tags) as unknown as Record<string, unknown>;
  row['roleAttributes'] = row['roles'];
  delete row['roles'];
  return row as unknown as Person;
};

test('rows holding the same role attributes share one frozen list, and say what they said before', () => {
  const table = new EntityTable<Person>('people');
  const a = person('a', ['sales', 'emea']);
  const b = person('b', ['sales', 'emea']);
  const c = person('c', ['emea', 'sales']);
  const before = [a, b, c].map((row) => structuredClone(row));
  assert.notEqual(a.roleAttributes, b.roleAttributes);
  for (const row of [a, b, c]) table.put(row);
  assert.deepEqual([table.get('a'), table.get('b'), table.get('c')], before);
  assert.equal(table.get('a')!.roleAttributes, table.get('b')!.roleAttributes);
  // Another order is another list.
  assert.notEqual(table.get('a')!.roleAttributes, table.get('c')!.roleAttributes);
  assert.equal(Object.isFrozen(table.get('a')!.roleAttributes), true);
});

test('an empty tags object is shared and frozen; tags with keys are kept as they came', () => {
  const table = new EntityTable<Person>('people');
  const tagged = person('t', [], { team: 'blue' });
  const tags = tagged.tags;
  table.put(person('a', []));
  table.put(person('b', []));
  table.put(tagged);
  assert.equal(table.get('a')!.tags, table.get('b')!.tags);
  assert.equal(Object.isFrozen(table.get('a')!.tags), true);
  assert.equal(table.get('t')!.tags, tags);
  assert.deepEqual(table.get('t')!.tags, { team: 'blue' });
  assert.equal(table.get('a')!.roleAttributes, table.get('t')!.roleAttributes, 'every empty list is one list');
});

test('a string equal to an earlier field of the same row becomes that string (updatedAt read back equal to createdAt)', () => {
  const compactor = new RowCompactor();
  const row = person('a', ['x']);
  const copy = structuredClone(row);
  compactor.compact(row);
  // One string replaced (updatedAt by createdAt; the name and id differ), one list, one empty object.
  assert.deepEqual(compactor.replaced, { strings: 1, lists: 1, objects: 1 });
  assert.deepEqual(row, copy);
  const updated = person('b', []);
  (updated as { updatedAt: string }).updatedAt = '2026-11-30T08:00:00.000Z';
  compactor.compact(updated);
  assert.equal(compactor.replaced.strings, 1, 'a different updatedAt is its own string');
});

test('the pool holds at most maxLists lists: a list past it is kept as it came, and still reads the same', () => {
  const compactor = new RowCompactor(2);
  const rows = ['x', 'y', 'z'].map((role, i) => person(`r${i}`, [role]));
  const third = rows[2]!.roleAttributes;
  for (const row of rows) compactor.compact(row);
  assert.equal(compactor.pooledLists, 2);
  assert.equal(rows[2]!.roleAttributes, third, 'not pooled once the pool is full');
  const again = person('r3', ['x']);
  compactor.compact(again);
  assert.equal(again.roleAttributes, rows[0]!.roleAttributes, 'a list already pooled is still shared');
});

test('lists that are not short strings, frozen rows and strings holding the pool separator are left alone', () => {
  const compactor = new RowCompactor();
  const hashes = Array.from({ length: 20 }, (_, i) => String(i).repeat(64).slice(0, 64));
  const objects = { id: 'o', items: [{ a: 1 }], long: ['x'.repeat(300)], tricky: ['a\u0000b'], split: ['a', 'b'], hashes };
  const { items, long, tricky } = objects;
  compactor.compact(objects);
  assert.equal(objects.items, items);
  assert.equal(objects.long, long);
  assert.equal(objects.hashes, hashes, 'a list of 1,280 characters is not pooled');
  assert.equal(compactor.pooledLists, 1, 'only ["a", "b"] was pooled');
  assert.equal(objects.tricky, tricky);
  assert.deepEqual(objects.split, ['a', 'b']);
  const frozen = Object.freeze({ id: 'f', roles: ['a', 'b'], tags: {} });
  const frozenRoles = frozen.roles;
  assert.doesNotThrow(() => compactor.compact(frozen));
  assert.equal(frozen.roles, frozenRoles);
});

test('a shared list cannot be changed through one row', () => {
  const table = new EntityTable<Person>('people');
  table.put(person('a', ['ops']));
  table.put(person('b', ['ops']));
  assert.throws(() => (table.get('a')!.roleAttributes as string[]).push('admin'), TypeError);
  assert.deepEqual(table.get('b')!.roleAttributes, ['ops']);
});

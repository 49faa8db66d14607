import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rolesMatch, type RoleSemantic } from '../../common/policy/role-match.ts';
import { EntityTable } from './entity-table.ts';
import { roleAttributeIndex, rowsSelected, type RoleSelector } from './role-selection.ts';

interface Holder {
  readonly id: string;
  readonly roleAttributes: readonly string[];
}

const tableOf = (rows: readonly Holder[]) => {
  const table = new EntityTable<Holder>('holders').multiValueIndex(roleAttributeIndex, (row) => row.roleAttributes);
  for (const row of rows) table.put(row);
  return table;
};
const ids = (rows: readonly Holder[]) => rows.map((row) => row.id);
const scan = (table: EntityTable<Holder>, selectors: readonly RoleSelector[]) =>
  table.all().filter((row) => selectors.some((selector) => rolesMatch(selector.roles, selector.semantic, row)));

test('selects by attribute, by id and with #all, AnyOf and AllOf, each row once, in id order', () => {
  const table = tableOf([
    { id: 'c', roleAttributes: ['web', 'eu'] },
    { id: 'a', roleAttributes: ['web'] },
    { id: 'b', roleAttributes: ['db', 'eu'] },
    { id: 'd', roleAttributes: [] },
  ]);
  assert.deepEqual(ids(rowsSelected(table, [{ roles: ['#web'], semantic: 'AnyOf' }])), ['a', 'c']);
  assert.deepEqual(ids(rowsSelected(table, [{ roles: ['#web', '#eu'], semantic: 'AllOf' }])), ['c']);
  assert.deepEqual(ids(rowsSelected(table, [{ roles: ['#web', '@d'], semantic: 'AnyOf' }])), ['a', 'c', 'd']);
  assert.deepEqual(ids(rowsSelected(table, [{ roles: ['#eu', '@b'], semantic: 'AllOf' }])), ['b']);
  assert.deepEqual(ids(rowsSelected(table, [{ roles: ['#web'], semantic: 'AnyOf' }, { roles: ['#eu'], semantic: 'AnyOf' }])), ['a', 'b', 'c']);
  assert.deepEqual(ids(rowsSelected(table, [{ roles: ['#all'], semantic: 'AllOf' }])), ['a', 'b', 'c', 'd']);
  assert.deepEqual(rowsSelected(table, [{ roles: [], semantic: 'AnyOf' }]), [], 'an empty role list selects nothing');
  assert.deepEqual(rowsSelected(table, []), []);
  assert.deepEqual(rowsSelected(table, [{ roles: ['@gone', '#none'], semantic: 'AnyOf' }]), [], 'a deleted id and an unused attribute select nothing');
});

test('follows puts and deletes: a row that lost its attribute or was deleted is not selected', () => {
  const table = tableOf([
    { id: 'a', roleAttributes: ['web'] },
    { id: 'b', roleAttributes: ['web'] },
  ]);
  table.put({ id: 'a', roleAttributes: ['db'] });
  table.delete('b');
  table.put({ id: 'c', roleAttributes: ['web'] });
  assert.deepEqual(ids(rowsSelected(table, [{ roles: ['#web'], semantic: 'AnyOf' }])), ['c']);
  assert.deepEqual(ids(rowsSelected(table, [{ roles: ['@b'], semantic: 'AnyOf' }])), []);
});

test('gives exactly what matching every row gives, over random tables and role lists (few and most rows selected)', () => {
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const attributes = ['a', 'b', 'c', 'd', 'e', 'f'];
  for (let run = 0; run < 200; run++) {
    const size = 1 + Math.floor(random() * 60);
    const rows: Holder[] = [];
    for (let i = 0; i < size; i++) {
      rows.push({ id: `id${Math.floor(random() * 1000)}`, roleAttributes: attributes.filter(() => random() < 0.4) });
    }
    const table = tableOf(rows);
    const present = table.all();
    const role = () => (random() < 0.25 ? `@${random() < 0.8 && present.length > 0 ? pick(present).id : 'missing'}` : random() < 0.03 ? '#all' : `#${pick(attributes)}`);
    const selectors: RoleSelector[] = [];
    const count = Math.floor(random() * 4);
    for (let i = 0; i < count; i++) {
      const semantic: RoleSemantic = random() < 0.5 ? 'AllOf' : 'AnyOf';
      selectors.push({ roles: Array.from({ length: Math.floor(random() * 4) }, role), semantic });
    }
    assert.deepEqual(ids(rowsSelected(table, selectors)), ids(scan(table, selectors)), `run ${run}: ${JSON.stringify(selectors)}`);
  }
});

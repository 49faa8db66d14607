import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ModelStore } from '../../store/model-store.ts';
import { createModelTables, tables, type Identity } from '../../model/entities.ts';
import type { EntityTable } from '../../store/entity-table.ts';
import { compileFilter } from '../query/filter-compiler.ts';
import { parseFilter } from '../query/filter-parser.ts';
import { runListQuery, type FieldCatalogue } from '../query/list-query.ts';
import { sortItems, type SortKey } from '../query/sort.ts';
import { identityCatalogue, identityIndexes } from './catalogues.ts';
import { IndexBuilding, tableListSource } from './table-list-source.ts';
import { textFieldIndexes } from '../../store/text-field-indexes.ts';
import { seededRandom as random } from '../../raft/sim/seeded-random.ts';

const attributes = ['red', 'green', 'blue', 'amber', 'grey', 'x y'];
const policies = ['default', 'strict', 'open'];
const NAME_PARTS = ['ab', 'ba', 'abc', 'c', 'AB', 'x\u0000y', 'İb', 'ß', 'é-1', '😀', 'ΟΣ'];
const NEEDLES = ['ab', 'b-', '-1', 'c', 'AB', 'Ab', '\u0000', 'x\u0000y', 'i̇b', 'İ', 'ß', '😀', 'é', '1', '-', '', 'bab', 'AB-', 'abab', 'ΟΣa', 'οσa', 'ςab'];

function identityTable(): EntityTable<Identity> {
  return createModelTables().find((table) => table.name === tables.identities) as unknown as EntityTable<Identity>;
}

function generator(seed: number) {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const int = (n: number) => Math.floor(next() * n);
  let serial = 0;
  const identity = (id: string): Identity => {
    const at = new Date(Date.UTC(2026, 0, 1) + int(50) * 86_400_000).toISOString();
    return {
      id,
      // Short names from few letters, so contains and shared prefixes match often; a serial keeps names unique. Some
      // hold what the text index joins names with (\u0000), upper case and letters whose lower case is longer (İ).
      name: `${pick(NAME_PARTS)}-${serial++}${next() < 0.3 ? pick(NAME_PARTS) : ''}`,
      typeId: pick(['User', 'Device']),
      isAdmin: next() < 0.2,
      isDefaultAdmin: false,
      authPolicyId: pick(policies),
      externalId: next() < 0.5 ? null : `ext-${int(1_000_000)}`,
      // Sometimes none, sometimes a repeat: each row is still found once per value it holds.
      roleAttributes: Array.from({ length: int(4) }, () => pick(attributes)),
      disabledAt: next() < 0.1 ? at : null,
      disabledUntil: null,
      createdAt: at,
      updatedAt: at,
      tags: {},
    };
  };
  return { next, pick, int, identity };
}

type Gen = ReturnType<typeof generator>;

function randomCondition(gen: Gen, rows: readonly Identity[]): string {
  const { pick, int, next } = gen;
  const someRow = () => (rows.length > 0 ? pick(rows) : undefined);
  // ZitiQL strings escape only quotes and backslashes (no \u): other characters go in as they are.
  const quoted = (text: string) => `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  const existingName = () => someRow()?.name ?? 'none';
  switch (int(18)) {
    case 0:
      return `name = ${quoted(next() < 0.8 ? existingName() : 'missing')}`;
    case 1:
      return `name in [${Array.from({ length: 1 + int(3) }, () => quoted(existingName())).join(', ')}]`;
    case 2:
      return `anyOf(roleAttributes) = ${quoted(pick(attributes))}`;
    case 3:
      return `anyOf(roleAttributes) in [${quoted(pick(attributes))}, ${quoted(pick(attributes))}]`;
    case 4:
      return `allOf(roleAttributes) = ${quoted(pick(attributes))}`;
    case 5:
      return `noneOf(roleAttributes) = ${quoted(pick(attributes))}`;
    case 6:
      return `authPolicyId = ${quoted(pick(policies))}`;
    case 7:
      return `externalId = ${quoted(someRow()?.externalId ?? 'ext-1')}`;
    case 8:
      return `id = ${quoted(someRow()?.id ?? 'nope')}`;
    case 9:
      return `name contains ${quoted(pick(NEEDLES))}`;
    case 10:
      return `isAdmin = ${next() < 0.5}`;
    case 11:
      return `name != ${quoted(existingName())}`;
    case 12:
      return `count(roleAttributes) >= ${int(3)}`;
    case 14:
      return `name icontains ${quoted(pick(NEEDLES))}`;
    case 15:
      return `name startswith ${quoted(next() < 0.5 ? pick(NEEDLES) : existingName().slice(0, 1 + int(4)))}`;
    case 16:
      return `name endswith ${quoted(next() < 0.5 ? pick(NEEDLES) : existingName().slice(-1 - int(4)))}`;
    case 17:
      return `name ${pick(['contains', 'icontains', 'startswith', 'endswith'])} ${quoted(existingName())}`;
    default:
      return `createdAt < datetime(2026-01-${String(1 + int(28)).padStart(2, '0')}T00:00:00Z)`;
  }
}

function randomFilter(gen: Gen, rows: readonly Identity[], depth = 0): string {
  const { int } = gen;
  const shape = depth > 1 ? 0 : int(6);
  if (shape <= 2) return randomCondition(gen, rows);
  if (shape === 3) return `${randomFilter(gen, rows, depth + 1)} and ${randomFilter(gen, rows, depth + 1)}`;
  if (shape === 4) return `(${randomFilter(gen, rows, depth + 1)} or ${randomFilter(gen, rows, depth + 1)})`;
  return `not (${randomFilter(gen, rows, depth + 1)})`;
}

function randomSort(gen: Gen): string | undefined {
  const { int, pick } = gen;
  const fields = ['name', 'createdAt', 'isAdmin', 'type', 'externalId', 'disabled'];
  // A sort by name alone is read from the name order (sorted-rows.ts): often enough to meet every shape of filter.
  if (int(3) === 0) return `name ${pick(['asc', 'desc'])}`;
  const count = int(3);
  if (count === 0) return undefined;
  return Array.from({ length: count }, () => `${pick(fields)} ${pick(['asc', 'desc'])}`).join(',');
}

/** Today's list path, straightforwardly: every row in id order, filter all, sort all, slice. */
function reference(table: EntityTable<Identity>, filter: string, sort: string | undefined, limit: number, offset: number) {
  const predicate = filter === '' ? () => true : compileFilter(parseFilter(filter).where, identityCatalogue);
  const matches = table.all().filter(predicate);
  const keys: SortKey[] = (sort ?? '')
    .split(',')
    .filter((part) => part !== '')
    .map((part) => {
      const [field, direction] = part.split(' ');
      return { field: field!, direction: direction as 'asc' | 'desc' };
    });
  const ordered = keys.length > 0 ? sortItems(matches, keys, identityCatalogue) : matches;
  return { ids: ordered.slice(offset, offset + limit).map((row) => row.id), totalCount: matches.length };
}

function compareLists(table: EntityTable<Identity>, gen: Gen, queries: number, label: string): void {
  for (let q = 0; q < queries; q++) {
    const rows = table.all();
    // No filter at all, now and then: a sort by name alone then reads the page from its position.
    const filter = gen.next() < 0.1 ? '' : randomFilter(gen, rows);
    const sort = randomSort(gen);
    const limit = 1 + gen.int(30);
    const offset = gen.next() < 0.3 ? 0 : gen.int(gen.next() < 0.2 ? 400 : 60);
    const expected = reference(table, filter, sort, limit, offset);
    const result = runListQuery(tableListSource(table, identityIndexes, identityCatalogue), { filter, sort, limit: String(limit), offset: String(offset) }, identityCatalogue);
    const context = `${label}, query ${q}: filter ${filter}, sort ${sort ?? '(none)'}, limit ${limit}, offset ${offset}`;
    assert.equal(result.meta.pagination.totalCount, expected.totalCount, `totalCount: ${context}`);
    assert.deepEqual(result.data.map((row) => row.id), expected.ids, `page: ${context}`);
  }
}

for (const seed of [1, 2, 3, 4, 5]) {
  test(`lists read from the table's indexes give today's pages and counts for random filters, sorts and pages (seed ${seed}), across creates, updates, deletes and a rebuild`, () => {
    const gen = generator(seed);
    const table = identityTable();
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) {
      const id = `id-${String(gen.int(1_000_000)).padStart(7, '0')}-${i}`;
      ids.push(id);
      table.put(gen.identity(id));
    }
    compareLists(table, gen, 150, 'after creates');

    // Updates change every indexed field (a stale index entry would surface as a wrong page or count), then deletes.
    for (let i = 0; i < 200; i++) {
      const id = gen.pick(ids);
      const current = table.get(id);
      if (!current) continue;
      const changed = gen.identity(id);
      table.put({ ...current, name: changed.name, roleAttributes: changed.roleAttributes, authPolicyId: changed.authPolicyId, externalId: changed.externalId });
    }
    for (let i = 0; i < 80; i++) table.delete(gen.pick(ids));
    compareLists(table, gen, 150, 'after updates and deletes');

    // What a snapshot restore does to a table's indexes.
    table.rebuildIndexes();
    assert.deepEqual(table.indexDisagreements(), []);
    compareLists(table, gen, 60, 'after a rebuild');
  });
}

test('a filter the indexes answer visits only the rows they name; one they cannot answer visits every row', () => {
  const gen = generator(9);
  const table = identityTable();
  for (let i = 0; i < 500; i++) table.put(gen.identity(`id-${String(i).padStart(4, '0')}`));
  const target = table.get('id-0042')!;
  let visited = 0;
  const source = tableListSource(table, identityIndexes, identityCatalogue);
  const counting = { ...source, each: (visit: (row: Identity) => boolean | void) => source.each((row) => (visited++, visit(row))) };

  const byNameEq = runListQuery(counting, { filter: `name = ${JSON.stringify(target.name)} and isAdmin = ${target.isAdmin}` }, identityCatalogue);
  assert.deepEqual(byNameEq.data.map((row) => row.id), ['id-0042']);
  assert.equal(visited, 0);

  const holders = table.all().filter((row) => row.roleAttributes.includes('red')).length;
  const byRole = runListQuery(counting, { filter: 'anyOf(roleAttributes) = "red"', limit: '5' }, identityCatalogue);
  assert.equal(byRole.meta.pagination.totalCount, holders);
  assert.equal(visited, 0);

  // Text matches on the name are read from its text index, a sort by name alone from its order.
  const byText = runListQuery(counting, { filter: 'name contains "ab" or name icontains "BA" or name startswith "c-" or name endswith "-7"', limit: '3' }, identityCatalogue);
  assert.equal(byText.meta.pagination.totalCount, table.all().filter(({ name }) => name.includes('ab') || name.toLowerCase().includes('ba') || name.startsWith('c-') || name.endsWith('-7')).length);
  const byName = runListQuery(counting, { sort: 'name desc', limit: '2', offset: '10' }, identityCatalogue);
  assert.deepEqual(byName.data.map((row) => row.name), table.all().map((row) => row.name).sort().reverse().slice(10, 12));
  assert.equal(visited, 0);

  runListQuery(counting, { filter: 'name != "ab-1"' }, identityCatalogue);
  assert.equal(visited, 500);
});

test('an icontains of three or more characters is answered from the name text index without a lowercased copy of the names; a shorter one builds the copy', () => {
  const table = identityTable();
  const gen = generator(13);
  for (let i = 0; i < 300; i++) table.put({ ...gen.identity(`id-${String(i).padStart(4, '0')}`), name: `Name-${i}` });
  const source = tableListSource(table, identityIndexes, identityCatalogue);
  let visited = 0;
  const counting = { ...source, each: (visit: (row: Identity) => boolean | void) => source.each((row) => (visited++, visit(row))) };
  const text = textFieldIndexes(table, 'name', (row) => row.name);

  const long = runListQuery(counting, { filter: 'name icontains "NAME-12"', limit: '3' }, identityCatalogue);
  assert.equal(long.meta.pagination.totalCount, 11);
  assert.deepEqual(long.data.map((row) => row.name), ['Name-12', 'Name-120', 'Name-121']);
  assert.equal(visited, 0);
  assert.equal(text.lowercaseSearch.held, 0);

  const short = runListQuery(counting, { filter: 'name icontains "E-"', limit: '1' }, identityCatalogue);
  assert.equal(short.meta.pagination.totalCount, 300);
  assert.equal(text.lowercaseSearch.held, 300);
});

test('the role attribute index follows updates and deletes: a row is found by the values it holds now, and only those', () => {
  const table = identityTable();
  const gen = generator(11);
  const row = { ...gen.identity('id-1'), roleAttributes: ['red', 'blue', 'red'] };
  table.put(row);
  assert.deepEqual(table.findHolding('roleAttributes', 'red').map((r) => r.id), ['id-1']);
  table.put({ ...row, roleAttributes: ['green'] });
  assert.deepEqual(table.findHolding('roleAttributes', 'red'), []);
  assert.equal(table.countHolding('roleAttributes', 'green'), 1);
  table.delete('id-1');
  assert.equal(table.countHolding('roleAttributes', 'green'), 0);
  assert.deepEqual(table.indexDisagreements(), []);
});

test('after a snapshot replaces the model, a list by role attribute, name, name text or name order reads the rows of the snapshot, not the old ones', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'edgeward-list-restore-'));
  const store = await ModelStore.open(join(dir, 'ctrl.db'), createModelTables());
  try {
    const gen = generator(21);
    const table = store.table<Identity>(tables.identities);
    const list = (filter: string, sort?: string) => runListQuery(tableListSource(table, identityIndexes, identityCatalogue), { filter, sort }, identityCatalogue);
    const olds = ['old-one', 'old-two', 'zz-old'].map((name, i) => ({ ...gen.identity(`id-old-${i}`), name, roleAttributes: ['red'] }));
    await store.applyBatch([{ index: 1 }], (_, tx) => {
      for (const row of olds) tx.put(tables.identities, row);
    });
    // The name's text index and order are built now, from the old rows, and must follow the restore.
    assert.deepEqual(list('name contains "one"').data.map((row) => row.id), ['id-old-0']);
    assert.deepEqual(list('', 'name desc').data.map((row) => row.id), ['id-old-2', 'id-old-1', 'id-old-0']);

    const fresh = [
      { ...gen.identity('id-new'), name: 'new-one', roleAttributes: ['blue'] },
      { ...gen.identity('id-old-1'), name: 'a-restored-two', roleAttributes: ['blue'] },
    ];
    await store.replaceAll({ tables: { [tables.identities]: fresh } }, 10);

    assert.deepEqual(list('anyOf(roleAttributes) = "red"').data, []);
    assert.deepEqual(list('anyOf(roleAttributes) = "blue"').data.map((row) => row.id), ['id-new', 'id-old-1']);
    assert.deepEqual(list('name in ["old-one", "new-one"]').data.map((row) => row.id), ['id-new']);
    assert.deepEqual(list('name contains "one"').data.map((row) => row.id), ['id-new']);
    assert.deepEqual(list('name icontains "TWO" or name startswith "old"').data.map((row) => row.id), ['id-old-1']);
    assert.deepEqual(list('', 'name desc').data.map((row) => row.id), ['id-new', 'id-old-1']);
    assert.deepEqual(list('', 'name').data.map((row) => row.id), ['id-old-1', 'id-new']);
    assert.deepEqual(table.indexDisagreements(), []);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const seed of [6, 7, 8]) {
  test(`while the name order and text indexes are built in the background, lists answer as after the build, across writes (seed ${seed})`, () => {
    const gen = generator(seed);
    const table = identityTable();
    const ids: string[] = [];
    for (let i = 0; i < 400; i++) {
      const id = `id-${String(gen.int(1_000_000)).padStart(7, '0')}-${i}`;
      ids.push(id);
      table.put(gen.identity(id));
    }
    const steps: (() => void)[] = [];
    const source = tableListSource(table, identityIndexes, identityCatalogue, { schedule: (step) => void steps.push(step) });
    const queries = [
      { filter: '', sort: 'name asc', limit: '25', offset: '30' },
      { filter: '', sort: 'name desc', limit: '10', offset: '0' },
      { filter: 'name contains "b-"', limit: '50', offset: '0' },
      { filter: 'name icontains "ab"', limit: '50', offset: '5' },
      { filter: 'name startswith "ab"', sort: 'name desc', limit: '50', offset: '0' },
    ];
    // The first list by name starts the builds; each step is one bounded slice (the default slice is larger than
    // this table, so the builds hold one or two steps each: writes land between them).
    for (const query of queries) runListQuery(source, query, identityCatalogue);
    assert.ok(steps.length > 0, 'the lists started background builds');
    for (let round = 0; steps.length > 0; round++) {
      assert.ok(round < 10_000);
      const id = gen.pick(ids);
      if (gen.next() < 0.3) table.delete(id);
      else table.put({ ...gen.identity(id) });
      compareLists(table, gen, 5, `during the build, round ${round}`);
      steps.shift()!();
    }
    compareLists(table, gen, 100, 'after the build');
    const indexes = textFieldIndexes(table, 'name', () => undefined);
    assert.ok(indexes.sorted.builds >= 1 && indexes.sorted.ready(), 'the name order was built in the background and is read now');
    assert.equal(indexes.search.ready(), true);
    // With no write in between, a list asked while a build is under way and asked again after it is the same.
    const fresh = identityTable();
    for (const id of ids) fresh.put(gen.identity(id));
    const freshSource = tableListSource(fresh, identityIndexes, identityCatalogue, { schedule: (step) => void steps.push(step) });
    const before = queries.map((query) => runListQuery(freshSource, query, identityCatalogue).data.map((row) => row.id));
    assert.ok(steps.length > 0);
    while (steps.length > 0) steps.shift()!();
    const after = queries.map((query) => runListQuery(freshSource, query, identityCatalogue).data.map((row) => row.id));
    assert.deepEqual(before, after);
  });
}

test('a list that waits for builds is refused (IndexBuilding) rather than visiting every row while its index is built, then answers from it', () => {
  const gen = generator(11);
  const table = identityTable();
  for (let i = 0; i < 500; i++) table.put(gen.identity(`id-${String(i).padStart(4, '0')}`));
  const steps: (() => void)[] = [];
  let visits = 0;
  const counted: FieldCatalogue<Identity> = { ...identityCatalogue, name: { type: 'string', get: (row: Identity) => (visits++, row.name) } };
  const source = () => tableListSource(table, identityIndexes, counted, { schedule: (step) => void steps.push(step), waitForBuilds: true });
  for (const query of [{ sort: 'name desc', limit: '5' }, { filter: 'name contains "b-"', limit: '5' }, { filter: 'name icontains "AB"', limit: '5' }]) {
    visits = 0;
    let refused: IndexBuilding | undefined;
    try {
      runListQuery(source(), query, counted);
    } catch (error) {
      if (!(error instanceof IndexBuilding)) throw error;
      refused = error;
    }
    assert.ok(refused, `${JSON.stringify(query)}: refused while its index is built`);
    assert.equal(visits, 0, 'no row was read for it');
    assert.equal(refused.ready(), false);
    while (steps.length > 0) steps.shift()!();
    assert.equal(refused.ready(), true);
    const answer = runListQuery(source(), query, counted).data.map((row) => row.id);
    const expected = runListQuery(table.all(), query, identityCatalogue).data.map((row) => row.id);
    assert.deepEqual(answer, expected);
  }
  // A filter another index narrows does not wait: its rows are read from that index.
  const result = runListQuery(tableListSource(identityTable(), identityIndexes, counted, { schedule: (step) => void steps.push(step), waitForBuilds: true }), { filter: 'name contains "x" and anyOf(roleAttributes) = "red"' }, counted);
  assert.equal(result.meta.pagination.totalCount, 0);
});

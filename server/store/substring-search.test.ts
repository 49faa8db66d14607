import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EntityTable } from './entity-table.ts';
import { SubstringSearch, type TextMatch } from './substring-search.ts';
import { seededRandom as random } from '../raft/sim/seeded-random.ts';

interface Named {
  readonly id: string;
  readonly name?: string;
}

const PARTS = ['a', 'b', 'ab', 'ba', '\u0000', '-', 'İ', '😀', 'é', 'Z'];

function searchable(table: EntityTable<Named>, segmentEntries: number) {
  const search = new SubstringSearch<Named>({
    key: (row) => row.name,
    isCurrent: (row) => table.get(row.id) === row,
    eachRow: (visit) => table.eachRow((row) => void visit(row)),
    segmentEntries,
  });
  table.observe(search);
  return search;
}

function expected(table: EntityTable<Named>, match: TextMatch, text: string): string[] {
  const holds = (name: string) => (match === 'contains' ? name.includes(text) : match === 'startswith' ? name.startsWith(text) : name.endsWith(text));
  return table.all().filter((row) => row.name !== undefined && holds(row.name)).map((row) => row.id);
}

for (const seed of [1, 2, 3]) {
  test(`a substring search gives exactly the current rows whose text matches, across puts, updates, deletes, drops and a rebuild (seed ${seed})`, () => {
    const next = random(seed);
    const int = (n: number) => Math.floor(next() * n);
    const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
    const name = () => (next() < 0.05 ? undefined : Array.from({ length: 1 + int(4) }, () => pick(PARTS)).join(''));
    const table = new EntityTable<Named>('named');
    const search = searchable(table, 1 + int(40));
    const check = (label: string) => {
      for (let q = 0; q < 40; q++) {
        const match = pick<TextMatch>(['contains', 'startswith', 'endswith']);
        const text = next() < 0.3 ? (table.all()[int(table.size)]?.name ?? 'a').slice(int(3)) : Array.from({ length: 1 + int(2) }, () => pick(PARTS)).join('');
        const found = search.search(match, text, Number.MAX_SAFE_INTEGER);
        if (found === undefined) {
          // Only the empty text and texts holding the separator are left to a scan.
          assert.ok(text === '' || text.includes('\u0000'), `${label}: ${match} ${JSON.stringify(text)} not answered`);
          continue;
        }
        const ids = [...new Set(found.map((row) => row.id))].sort();
        assert.deepEqual(ids, expected(table, match, text), `${label}: ${match} ${JSON.stringify(text)}`);
      }
    };
    for (let i = 0; i < 300; i++) table.put({ id: `id-${i}`, name: name() });
    check('after creates');
    // Enough updates that the garbage outgrows the live texts and the structure is dropped and built again.
    for (let i = 0; i < 9000; i++) {
      const id = `id-${int(400)}`;
      if (next() < 0.1) table.delete(id);
      else table.put({ id, name: name() });
      if (i % 1500 === 0) check(`after ${i} changes`);
    }
    check('after updates and deletes');
    table.rebuildIndexes();
    check('after a rebuild');
    for (let i = 0; i < 50; i++) table.put({ id: `late-${i}`, name: name() });
    check('after puts past the rebuild');
  });
}

test('a substring search stops at maxHits and leaves the list to a scan', () => {
  const table = new EntityTable<Named>('named');
  const search = searchable(table, 4);
  for (let i = 0; i < 20; i++) table.put({ id: `id-${i}`, name: `n-${i}` });
  assert.equal(search.search('contains', 'n-', 19), undefined);
  assert.equal(search.search('contains', 'n-', 20)?.length, 20);
  assert.equal(search.search('contains', '', 100), undefined);
});

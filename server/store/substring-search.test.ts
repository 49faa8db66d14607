import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EntityTable } from './entity-table.ts';
import { SubstringSearch, type SearchMatch } from './substring-search.ts';
import { seededRandom as random } from '../raft/sim/seeded-random.ts';

interface Named {
  readonly id: string;
  readonly name?: string;
}

// Σ lowercases to σ or ς by what follows it; İ to two code units; K (Kelvin) to an ASCII k.
const PARTS = ['a', 'b', 'ab', 'ba', '\u0000', '-', 'İ', '😀', 'é', 'Z', 'ΟΣ', 'σ', 'ς', '\u212a', 'K'];

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

/** The ids a plain scan gives, with filter-compiler.ts's meaning of each match. */
function expected(table: EntityTable<Named>, match: SearchMatch, text: string): string[] {
  const holds = (name: string) =>
    match === 'contains' ? name.includes(text) : match === 'startswith' ? name.startsWith(text) : match === 'endswith' ? name.endsWith(text) : name.toLowerCase().includes(text.toLowerCase());
  return table.all().filter((row) => row.name !== undefined && holds(row.name)).map((row) => row.id);
}

/** Whether search() must answer: every non-empty text without the separator; `icontains` once it has a trigram. */
function answerable(match: SearchMatch, text: string): boolean {
  return text !== '' && !text.includes('\u0000') && (match !== 'icontains' || text.toLowerCase().length >= 3);
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
        const match = pick<SearchMatch>(['contains', 'startswith', 'endswith', 'icontains']);
        const text = next() < 0.3 ? (table.all()[int(table.size)]?.name ?? 'a').slice(int(3)) : Array.from({ length: 1 + int(3) }, () => pick(PARTS)).join('');
        const found = search.search(match, text, Number.MAX_SAFE_INTEGER);
        if (found === undefined) {
          // Only the empty text and texts holding the separator are left to a scan; `icontains` also without a trigram.
          assert.ok(!answerable(match, text), `${label}: ${match} ${JSON.stringify(text)} not answered`);
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

test('a search narrowed by trigram postings gives exactly what a plain scan gives, where common trigrams keep no postings (randomized)', () => {
  const next = random(17);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const table = new EntityTable<Named>('named');
  // Segments of 512: `lis`, `-id` and their like are in every text, so they keep no postings; the digits narrow.
  const search = searchable(table, 512);
  const name = (i: number) => (next() < 0.1 ? `${pick(PARTS)}${pick(PARTS)}-${i}` : `${pick(['list', 'LIST', 'List'])}-id-${int(100_000)}${pick(['', 'ΟΣ', 'é', 'K'])}`);
  for (let i = 0; i < 3000; i++) table.put({ id: `id-${i}`, name: name(i) });
  const needles = ['list', 'LIST-ID', 'st-id-', '-id-4', 'd-12', '123', '9999', 'ist-id-5', 'zzz', 'οσ', 'ΟΣ', 'ος', 'id-1ΟΣ', '\u212a', 'k', '0k', '-1'];
  const check = (label: string) => {
    for (const text of [...needles, ...Array.from({ length: 30 }, () => table.all()[int(table.size)]!.name!.slice(int(6), 6 + int(8)))]) {
      for (const match of ['contains', 'startswith', 'endswith', 'icontains'] as const) {
        const found = search.search(match, text, Number.MAX_SAFE_INTEGER);
        if (found === undefined) {
          assert.ok(!answerable(match, text), `${label}: ${match} ${JSON.stringify(text)} not answered`);
          continue;
        }
        assert.deepEqual([...new Set(found.map((row) => row.id))].sort(), expected(table, match, text).sort(), `${label}: ${match} ${JSON.stringify(text)}`);
      }
    }
  };
  check('built');
  for (let i = 0; i < 2000; i++) {
    const id = `id-${int(3500)}`;
    if (next() < 0.1) table.delete(id);
    else table.put({ id, name: name(i) });
  }
  check('after updates, deletes and puts past the build');
  assert.ok(search.postingsBytes > 0);
});

test('an exact-case search is narrowed by trigrams of its lowercasing without σ or ς: Σ lowercases by what follows it', () => {
  const table = new EntityTable<Named>('named');
  const search = searchable(table, 2);
  // "ΚΟΣΑ" lowercases to "κοσα", "ΚΟΣ" to "κος": the trigram "κος" is not in the row's lowercased text.
  table.put({ id: 'a', name: 'ΚΟΣΑ' });
  table.put({ id: 'b', name: 'ΚΟΣ' });
  table.put({ id: 'c', name: 'other' });
  assert.deepEqual(search.search('contains', 'ΚΟΣ', 10)?.map((row) => row.id).sort(), ['a', 'b']);
  assert.deepEqual(search.search('startswith', 'ΚΟΣ', 10)?.map((row) => row.id).sort(), ['a', 'b']);
  // icontains compares the lowercasings as they are: "κοσα" does not hold "κος".
  assert.deepEqual(search.search('icontains', 'ΚΟΣ', 10)?.map((row) => row.id).sort(), ['b']);
  assert.deepEqual(search.search('icontains', 'κοσ', 10)?.map((row) => row.id).sort(), ['a']);
});

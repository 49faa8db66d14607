import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EntityTable } from './entity-table.ts';
import { SortedRows } from './sorted-rows.ts';
import { seededRandom as random } from '../raft/sim/seeded-random.ts';

interface Named {
  readonly id: string;
  readonly name?: string;
}

/** sort.ts's order for one key: present keys first (reversed when descending), then id; missing keys last, by id. */
function expected(table: EntityTable<Named>, descending: boolean): string[] {
  return table
    .all()
    .slice()
    .sort((a, b) => {
      if (a.name !== b.name) {
        if (a.name === undefined) return 1;
        if (b.name === undefined) return -1;
        const order = a.name < b.name ? -1 : 1;
        return descending ? -order : order;
      }
      return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    })
    .map((row) => row.id);
}

function visited(sorted: SortedRows<Named>, descending: boolean, stopAfter = Infinity): string[] {
  const ids: string[] = [];
  sorted.each(descending, (row) => {
    ids.push(row.id);
    return ids.length < stopAfter;
  });
  return ids;
}

for (const seed of [1, 2, 3]) {
  test(`sorted rows give sort.ts's order by key then id, missing keys last, both ways, across puts, updates, deletes and a rebuild (seed ${seed})`, () => {
    const next = random(seed);
    const int = (n: number) => Math.floor(next() * n);
    // Few distinct keys, so equal keys (kept in id order even descending) are common; some rows have none.
    const name = () => (next() < 0.1 ? undefined : ['b', 'a', 'B', 'é', '😀', 'ab', ''][int(7)]);
    const table = new EntityTable<Named>('named');
    const sorted = new SortedRows<Named>({ key: (row) => row.name, eachRow: (visit) => table.eachRow((row) => void visit(row)) });
    table.observe(sorted);
    const check = (label: string) => {
      assert.deepEqual(visited(sorted, false), expected(table, false), `${label}, ascending`);
      assert.deepEqual(visited(sorted, true), expected(table, true), `${label}, descending`);
      assert.deepEqual(visited(sorted, true, 7), expected(table, true).slice(0, 7), `${label}, stopped`);
    };
    for (let i = 0; i < 200; i++) table.put({ id: `id-${String(int(1000)).padStart(4, '0')}`, name: name() });
    check('after creates');
    for (let round = 0; round < 30; round++) {
      // From one change between reads to more than an eighth of the rows (which sorts afresh).
      const changes = round % 5 === 4 ? 60 : 1 + int(6);
      for (let i = 0; i < changes; i++) {
        const id = `id-${String(int(1000)).padStart(4, '0')}`;
        if (next() < 0.2) table.delete(id);
        else table.put({ id, name: name() });
        // The same row put again (an update that changes nothing the order reads).
        if (next() < 0.1 && table.get(id)) table.put(table.get(id)!);
      }
      check(`after round ${round}`);
    }
    table.rebuildIndexes();
    table.put({ id: 'id-late', name: 'a' });
    check('after a rebuild');
  });
}

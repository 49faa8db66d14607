import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RowOrder, sortKey } from './row-order.ts';

const ids = (rows: readonly { id: string }[]) => rows.map((row) => row.id);

test('rows come in id order through inserts, replacements and deletes, across chunk splits and emptied chunks', () => {
  for (const maxChunk of [2, 3, 8, 512]) {
    const order = new RowOrder<{ id: string; v: number }>(maxChunk);
    const present = new Map<string, number>();
    let seed = 11;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let step = 0; step < 4000; step++) {
      const id = `id${Math.floor(random() * 300)}`;
      const roll = random();
      if (present.has(id) && roll < 0.4) {
        order.delete(id);
        present.delete(id);
      } else {
        order.put({ id, v: step });
        present.set(id, step);
      }
      if (step % 53 === 0 || step === 3999) {
        const rows = order.rows();
        assert.deepEqual(ids(rows), [...present.keys()].sort(), `maxChunk ${maxChunk}, step ${step}`);
        assert.deepEqual(rows.map((row) => row.v), ids(rows).map((rowId) => present.get(rowId)), 'a replaced row is the newest one');
        assert.equal(order.size, present.size);
      }
    }
  }
});

test('changes wait until a read or until 1024 wait, then land in id order; reads at any interval see every change', () => {
  for (const readEvery of [1, 7, 1500, 5000]) {
    const order = new RowOrder<{ id: string; v: number }>(16);
    const present = new Map<string, number>();
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let step = 1; step <= 5000; step++) {
      const id = `k${Math.floor(random() * 3000)}`;
      if (present.has(id) && random() < 0.3) {
        order.delete(id);
        present.delete(id);
      } else {
        order.put({ id, v: step });
        present.set(id, step);
      }
      assert.ok(order.backlog < 1024, `the backlog stays bounded without reads (read every ${readEvery}, step ${step})`);
      if (step % readEvery === 0) {
        const rows = order.rows();
        assert.equal(order.backlog, 0);
        assert.deepEqual(ids(rows), [...present.keys()].sort(), `read every ${readEvery}, step ${step}`);
        assert.deepEqual(rows.map((row) => row.v), ids(rows).map((rowId) => present.get(rowId)));
        assert.equal(order.size, present.size);
      }
    }
  }
  // A put then a delete of the same id before a read leaves nothing; a delete then a put leaves the row.
  const order = new RowOrder<{ id: string }>(4);
  order.put({ id: 'a' });
  order.delete('a');
  order.delete('b');
  order.put({ id: 'b' });
  assert.deepEqual(ids(order.rows()), ['b']);
});

test('deleting an absent id, or from an empty order, changes nothing; the order empties and fills again', () => {
  const order = new RowOrder<{ id: string }>(2);
  order.delete('x');
  for (const id of ['m', 'c', 'x', 'a', 'q']) order.put({ id });
  order.delete('zz');
  order.delete('b');
  assert.deepEqual(ids(order.rows()), ['a', 'c', 'm', 'q', 'x']);
  for (const id of ['a', 'c', 'm', 'q', 'x']) order.delete(id);
  assert.deepEqual(order.rows(), []);
  assert.equal(order.size, 0);
  order.put({ id: 'b' });
  order.put({ id: 'a' });
  assert.deepEqual(ids(order.rows()), ['a', 'b']);
});

test('a chunk size below 2 is refused', () => {
  assert.throws(() => new RowOrder(1), /maxChunk 1 must be an integer of at least 2/);
});

test('the numeric sort key never orders two ids against their string order; ids it ties are told apart by the string', () => {
  // Ids that share their first 7 code units, differ inside them, are prefixes of each other, or hold code units of
  // 127 and above (where the key stops), including surrogate halves: the key may tie but must never invert.
  const ids = [
    '', 'a', 'ab', 'abcdefg', 'abcdefgh', 'abcdefgi', 'abcdefg\u0000', 'abcdef\u007f', 'abcdef\u007fz', 'abcdef\u0080a',
    'abcdef\u0080b', 'abcdef\u00ffa', '\u0080z', '\u0081a', '\u00e9t\u00e9', 'caf\u00e9', 'cafe', '\ud83d\ude00x', '\ud83d\ude01a',
    'A', 'Z', '-', '.', '0', '9', 'zzzzzzzzzz', '\u007f\u007f', 'x'.repeat(40), `${'x'.repeat(39)}y`,
  ];
  let seed = 5;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const alphabet = 'ab\u007f\u0080\u00ff\ud83d';
  for (let i = 0; i < 400; i++) ids.push(Array.from({ length: 1 + Math.floor(random() * 10) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''));
  for (const a of ids) for (const b of ids) if (a < b) assert.ok(sortKey(a) <= sortKey(b), `${JSON.stringify(a)} < ${JSON.stringify(b)}`);
  assert.equal(sortKey('abcdefgh'), sortKey('abcdefgi'), 'ids equal in their first 7 code units tie');
  for (const maxChunk of [2, 5, 256]) {
    const order = new RowOrder<{ id: string }>(maxChunk);
    const shuffled = [...new Set(ids)].sort(() => random() - 0.5);
    for (const id of shuffled) order.put({ id });
    assert.deepEqual(order.rows().map((row) => row.id), [...shuffled].sort(), `maxChunk ${maxChunk}`);
    for (const id of shuffled.slice(0, 150)) order.delete(id);
    assert.deepEqual(order.rows().map((row) => row.id), shuffled.slice(150).sort(), `maxChunk ${maxChunk}, after deletes`);
  }
});

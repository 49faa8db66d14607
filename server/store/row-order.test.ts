import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RowOrder } from './row-order.ts';

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

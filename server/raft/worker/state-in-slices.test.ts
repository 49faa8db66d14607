import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sliceState, StateAssembly } from './state-in-slices.ts';

const rows = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, name: `${prefix}-${i}` }));

test("a model's tables cross in slices of at most the bound and come back equal, in order", () => {
  const data = { appliedIndex: 9, appliedTerm: 2, tables: { identities: rows('i', 5_001), services: rows('s', 3), enrollments: rows('e', 2_000) } };
  const { head, slices } = sliceState(data, 1_000);
  // The head holds no large array: nothing of the model crosses as one message.
  assert.deepEqual(head, { appliedIndex: 9, appliedTerm: 2, tables: { identities: [], services: rows('s', 3), enrollments: [] } });
  assert.equal(slices.length, 6 + 2);
  assert.ok(slices.every((slice) => slice.items.length <= 1_000));
  const assembly = new StateAssembly(structuredClone(head), slices.length);
  for (const slice of slices) {
    assert.equal(assembly.complete, false);
    assembly.add(structuredClone(slice));
  }
  assert.deepEqual(assembly.data(), data);
});

test('an assembly refuses a slice for a path that is not an array, one past the count, and gives no data before the last', () => {
  const assembly = new StateAssembly({ tables: { things: [] }, name: 'x' }, 1);
  assert.throws(() => assembly.data(), /0 of 1 slices/);
  assert.throws(() => assembly.add({ path: ['name'], items: [1] }), /not an array/);
  assert.throws(() => assembly.add({ path: ['__proto__'], items: [1] }), /not an array/);
  assert.throws(() => assembly.add({ path: ['tables', 'constructor'], items: [1] }), /not an array/);
  assembly.add({ path: ['tables', 'things'], items: [1, 2] });
  assert.deepEqual(assembly.data(), { tables: { things: [1, 2] }, name: 'x' });
  assert.throws(() => assembly.add({ path: ['tables', 'things'], items: [3] }), /past the 1 announced/);
});

test('a state without large arrays crosses whole, in no slices', () => {
  const { head, slices } = sliceState({ tables: { things: rows('t', 10) } });
  assert.equal(slices.length, 0);
  assert.deepEqual(new StateAssembly(head, 0).data(), { tables: { things: rows('t', 10) } });
});

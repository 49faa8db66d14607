import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CtrlEdgeModelDelta, EdgeModel } from './control-messages.ts';
import { applyEdgeModelDelta } from './edge-model-delta.ts';

test('a router applies a delta only to a model it holds from fromIndex up to index; a malformed one is refused whole', () => {
  const held: EdgeModel = { services: [{ id: 's1', name: 'one', roleAttributes: [] }], identities: [{ id: 'i1', name: 'old', roleAttributes: [] }] };
  const delta: CtrlEdgeModelDelta = { type: 'ctrl.edgeModelDelta', fromIndex: 5, index: 9, services: { upserted: [{ id: 's0', name: 'zero', roleAttributes: ['a'] }], deleted: ['s1'] } };
  assert.deepEqual(applyEdgeModelDelta(5, held, delta), { kind: 'applied', model: { ...held, services: [{ id: 's0', name: 'zero', roleAttributes: ['a'] }] } }, 'an older controller\'s identities stay as they were');
  assert.equal(applyEdgeModelDelta(7, held, delta).kind, 'applied', 'held between fromIndex and index: the changed rows make it the model at index');
  assert.equal(applyEdgeModelDelta(9, held, delta).kind, 'stale');
  assert.equal(applyEdgeModelDelta(4, held, delta).kind, 'gap');
  const malformed: unknown[] = [
    { ...delta, fromIndex: 9 },
    { ...delta, index: -1 },
    { ...delta, fromIndex: '5' },
    { ...delta, services: { upserted: [{ id: 's2' }], deleted: [] } },
    { ...delta, services: { upserted: [], deleted: [7] } },
    { ...delta, services: { upserted: 'x', deleted: [] } },
    { ...delta, servicePolicies: { upserted: [{ id: 'p', type: 'Own', semantic: 'AnyOf', identityRoles: [], serviceRoles: [] }], deleted: [] } },
    { ...delta, edgeRouters: { upserted: [{ id: 'r', name: 'r', roleAttributes: [] }], deleted: [] } },
    { ...delta, edgeRouters: null },
  ];
  for (const bad of malformed) assert.equal(applyEdgeModelDelta(5, held, bad as CtrlEdgeModelDelta).kind, 'malformed', JSON.stringify(bad));
});

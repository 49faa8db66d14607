import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EdgeModel } from '../../common/control-channel/control-messages.ts';
import { applyEdgeModelDelta } from '../../common/control-channel/edge-model-delta.ts';
import { hostV1ConfigTypeId, interceptV1ConfigTypeId } from '../model/builtin-config-types.ts';
import { seededRandom, type Random } from '../raft/sim/seeded-random.ts';
import { EdgeModelChanges, maxDeltaRows } from './edge-model-delta.ts';
import { edgeModelOf } from './edge-model-snapshot.ts';
import { configRow, edgeRouterRow, EditableRows, policyRow, serviceRow } from './edge-model-test-support.ts';
import type { EntityChange } from '../store/model-store.ts';

const attributes = ['web', 'db', 'hosts', 'edge'];
const someOf = (random: Random, items: readonly string[]) => items.filter(() => random.chance(0.4));

/** One random edit of the rows the edge model is made of (or of a table it is not made of). */
function randomEdit(random: Random, rows: EditableRows): EntityChange {
  const table = random.pick(['services', 'services', 'servicePolicies', 'edgeRouters', 'configs', 'identities']);
  const existing = rows.ids(table);
  if (existing.length > 0 && random.chance(0.25)) return rows.delete(table, random.pick(existing));
  const id = existing.length > 0 && random.chance(0.5) ? random.pick(existing) : `${table}-${random.int(30)}`;
  if (table === 'services') return rows.put(table, serviceRow(id, someOf(random, attributes), someOf(random, rows.ids('configs').concat('missing-config'))));
  if (table === 'servicePolicies') return rows.put(table, policyRow(id, random.chance(0.5) ? 'Bind' : 'Dial', someOf(random, attributes).map((name) => `#${name}`)));
  if (table === 'edgeRouters') return rows.put(table, edgeRouterRow(id, someOf(random, attributes), random.chance(0.2)));
  if (table === 'configs') return rows.put(table, configRow(id, random.chance(0.5) ? hostV1ConfigTypeId : interceptV1ConfigTypeId, random.int(65535)));
  return rows.put(table, { id, name: `identity-${id}`, roleAttributes: [] });
}

test('deltas between pushes, applied by a router to the model it held, give the whole model at every push (40 random runs)', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const random = seededRandom(seed);
    const rows = new EditableRows();
    const changes = new EdgeModelChanges();
    let held = edgeModelOf(rows);
    let deltas = 0;
    for (let push = 0; push < 30; push++) {
      const edits = 1 + random.int(6);
      for (let i = 0; i < edits; i++) changes.note(randomEdit(random, rows));
      const delta = changes.take(rows, held.index, rows.appliedIndex());
      assert.ok(delta, `seed ${seed} push ${push}: a few rows changed make a delta`);
      deltas++;
      const outcome = applyEdgeModelDelta(held.index, held.model, delta);
      assert.equal(outcome.kind, 'applied', `seed ${seed} push ${push}`);
      const model = (outcome as { model: EdgeModel }).model;
      assert.deepEqual(model, edgeModelOf(rows).model, `seed ${seed} push ${push}: the delta gives the whole model`);
      held = { index: delta.index, model };
    }
    assert.equal(deltas, 30);
  }
});

test('a config changed reaches the services holding it; a service deleted is listed as deleted; identities are never in a delta', () => {
  const rows = new EditableRows();
  const changes = new EdgeModelChanges();
  rows.put('configs', configRow('c1', hostV1ConfigTypeId, 80));
  rows.put('services', serviceRow('s1', ['web'], ['c1']));
  rows.put('services', serviceRow('s2', ['db'], []));
  rows.put('services', serviceRow('s3', ['db'], []));
  const from = rows.appliedIndex();
  changes.note(rows.put('configs', configRow('c1', hostV1ConfigTypeId, 8080)));
  changes.note(rows.delete('services', 's3'));
  changes.note(rows.put('identities', { id: 'i1', name: 'someone', roleAttributes: [] }));
  const delta = changes.take(rows, from, rows.appliedIndex())!;
  assert.deepEqual(delta.services?.upserted.map((service) => [service.id, service.configs]), [['s1', { 'host.v1': { protocol: 'tcp', address: '127.0.0.1', port: 8080 } }]]);
  assert.deepEqual(delta.services?.deleted, ['s3']);
  assert.equal(delta.servicePolicies, undefined, 'parts with no change are left out');
  assert.equal(delta.edgeRouters, undefined);
  assert.ok(!JSON.stringify(delta).includes('someone'));
  assert.equal(changes.size, 0, 'taking the delta clears the changes');
});

test('a config type changed, a replaced model, too many rows or no index moved: the whole model goes instead', () => {
  const rows = new EditableRows();
  const changes = new EdgeModelChanges();
  const cases: Array<[string, () => void]> = [
    ['config type', () => changes.note(rows.put('configTypes', { id: 't1', name: 'mine.v1' }))],
    ['replaced', () => changes.replaced()],
    ['too many rows', () => { for (let i = 0; i <= maxDeltaRows; i++) changes.note(rows.put('edgeRouters', edgeRouterRow(`r${i}`, []))); }],
  ];
  for (const [name, make] of cases) {
    const from = rows.appliedIndex();
    make();
    assert.equal(changes.take(rows, from, Math.max(rows.appliedIndex(), from + 1)), undefined, name);
    changes.note(rows.put('services', serviceRow('s1', [])));
    assert.ok(changes.take(rows, rows.appliedIndex() - 1, rows.appliedIndex()), `${name}: the next push is a delta again`);
  }
  changes.note(rows.put('services', serviceRow('s2', [])));
  assert.equal(changes.take(rows, rows.appliedIndex(), rows.appliedIndex()), undefined, 'no index moved');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EdgeRouter } from '../model/router-entities.ts';
import { EdgeModelCache } from './edge-model-cache.ts';
import { hostedServicesOf } from './edge-model-snapshot.ts';

/** A store whose rows and applied index a test moves, counting the whole-table reads. */
function movingStore() {
  const rows: Record<string, unknown[]> = {
    services: [
      { id: 's1', name: 'one', roleAttributes: ['web'], encryptionRequired: false, configs: ['c1'] },
      { id: 's2', name: 'two', roleAttributes: ['db'], encryptionRequired: false, configs: ['c1'] },
    ],
    identities: [],
    configs: [{ id: 'c1', name: 'host', configTypeId: 'NH5p4FpGR', data: { protocol: 'tcp', address: '127.0.0.1', port: 80 } }],
    servicePolicies: [{ id: 'p1', name: 'web', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosts'], serviceRoles: ['#web'], postureCheckRoles: [] }],
    edgeRouters: [
      { id: 'r1', name: 'hosting', roleAttributes: ['hosts'], isTunnelerEnabled: true },
      { id: 'r2', name: 'plain', roleAttributes: [], isTunnelerEnabled: true },
    ],
  };
  const state = { index: 10, reads: 0 };
  const store = {
    table: (name: string) => ({
      all: () => {
        state.reads++;
        return [...(rows[name] ?? [])] as never[];
      },
    }),
    appliedIndex: () => state.index,
  };
  const findRouter = (id: string) => rows.edgeRouters!.find((row) => (row as EdgeRouter).id === id) as EdgeRouter | undefined;
  return { rows, state, store, cache: new EdgeModelCache(store, findRouter) };
}

test('the edge model is read once per applied index and read again once the index moves', () => {
  const { rows, state, cache } = movingStore();
  const first = cache.edgeModel();
  const reads = state.reads;
  assert.equal(cache.edgeModel(), first, 'the same model while nothing was applied');
  assert.equal(state.reads, reads, 'no table read again');
  rows.services!.push({ id: 's3', name: 'three', roleAttributes: [], encryptionRequired: false, configs: [] });
  state.index = 11;
  const second = cache.edgeModel();
  assert.notEqual(second, first);
  assert.equal(second.index, 11);
  assert.deepEqual(second.model.services.map((service) => service.id), ['s1', 's2', 's3']);
});

test('what a router may host is what hostedServicesOf reads from the rows, and follows a policy change', () => {
  const { rows, state, store, cache } = movingStore();
  for (const routerId of ['r1', 'r2', 'gone']) assert.deepEqual([...cache.hostedServices(routerId)], [...hostedServicesOf(store, routerId)], routerId);
  assert.deepEqual([...cache.hostedServices('r1')], [['s1', 'tcp:127.0.0.1:80']]);
  rows.servicePolicies!.push({ id: 'p2', name: 'db', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosts'], serviceRoles: ['#db'], postureCheckRoles: [] });
  state.index = 12;
  assert.deepEqual([...cache.hostedServices('r1')].sort(), [['s1', 'tcp:127.0.0.1:80'], ['s2', 'tcp:127.0.0.1:80']]);
  assert.deepEqual([...cache.hostedServices('r1')], [...hostedServicesOf(store, 'r1')]);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { edgeModelOf, edgeModelTables, hostedServicesOf } from './edge-model-snapshot.ts';

test('the edge model lists services (with configs by type name), policies and routers by id, at the applied index; no identities', () => {
  const rows: Record<string, unknown[]> = {
    services: [
      { id: 's2', name: 'two', roleAttributes: ['b'], encryptionRequired: true, configs: ['c1', 'gone'] },
      { id: 's1', name: 'one', roleAttributes: [], encryptionRequired: false, configs: [] },
    ],
    identities: [{ id: 'i1', name: 'admin', roleAttributes: ['ops'], isAdmin: true }],
    configs: [{ id: 'c1', name: 'web-host', configTypeId: 'NH5p4FpGR', data: { protocol: 'tcp', address: '127.0.0.1', port: 80 } }],
    servicePolicies: [{ id: 'p1', name: 'hosting', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosts'], serviceRoles: ['#b'], postureCheckRoles: [] }],
    edgeRouters: [{ id: 'r1', name: 'router', roleAttributes: ['hosts'], isTunnelerEnabled: true, fingerprint: 'f' }],
  };
  const store = { table: (name: string) => ({ all: () => [...(rows[name] ?? [])] as never[] }), appliedIndex: () => 42 };
  assert.deepEqual(edgeModelOf(store), {
    index: 42,
    model: {
      services: [
        { id: 's1', name: 'one', roleAttributes: [], configs: {} },
        { id: 's2', name: 'two', roleAttributes: ['b'], configs: { 'host.v1': { protocol: 'tcp', address: '127.0.0.1', port: 80 } } },
      ],
      servicePolicies: [{ id: 'p1', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosts'], serviceRoles: ['#b'] }],
      edgeRouters: [{ id: 'r1', name: 'router', roleAttributes: ['hosts'], isTunnelerEnabled: true }],
    },
  });
  assert.deepEqual([...edgeModelTables].sort(), ['configTypes', 'configs', 'edgeRouters', 'servicePolicies', 'services']);
  assert.deepEqual([...hostedServicesOf(store, 'r1')], [['s2', 'tcp:127.0.0.1:80']], 'the controller reads what a router may host from the same rows');
  assert.equal(hostedServicesOf(store, 'r9').size, 0);
});

test('a disabled router is marked so in the edge model (routers refuse its links); an enabled one carries no flag', () => {
  const rows: Record<string, unknown[]> = {
    edgeRouters: [
      { id: 'r2', name: 'off', roleAttributes: [], isTunnelerEnabled: false, disabled: true },
      { id: 'r1', name: 'on', roleAttributes: [], isTunnelerEnabled: false, disabled: false },
    ],
  };
  const store = { table: (name: string) => ({ all: () => [...(rows[name] ?? [])] as never[] }), appliedIndex: () => 1 };
  assert.deepEqual(edgeModelOf(store).model.edgeRouters, [
    { id: 'r1', name: 'on', roleAttributes: [], isTunnelerEnabled: false },
    { id: 'r2', name: 'off', roleAttributes: [], isTunnelerEnabled: false, disabled: true },
  ]);
});

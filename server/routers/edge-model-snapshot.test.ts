import assert from 'node:assert/strict';
import { test } from 'node:test';
import { edgeModelOf, edgeModelTables } from './edge-model-snapshot.ts';

test('the edge model lists services and identities by id with names and role attributes, at the applied index', () => {
  const rows: Record<string, unknown[]> = {
    services: [
      { id: 's2', name: 'two', roleAttributes: ['b'], encryptionRequired: true },
      { id: 's1', name: 'one', roleAttributes: [], encryptionRequired: false },
    ],
    identities: [{ id: 'i1', name: 'admin', roleAttributes: ['ops'], isAdmin: true }],
  };
  const store = { table: (name: string) => ({ all: () => [...(rows[name] ?? [])] as never[] }), appliedIndex: () => 42 };
  assert.deepEqual(edgeModelOf(store), {
    index: 42,
    model: {
      services: [
        { id: 's1', name: 'one', roleAttributes: [] },
        { id: 's2', name: 'two', roleAttributes: ['b'] },
      ],
      identities: [{ id: 'i1', name: 'admin', roleAttributes: ['ops'] }],
    },
  });
  assert.deepEqual([...edgeModelTables].sort(), ['identities', 'services']);
});

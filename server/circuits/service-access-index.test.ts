import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serviceAccessFor, type AccessRows } from '../edge/service-access.ts';
import { ServiceAccessIndex } from './service-access-index.ts';

const policy = (id: string, type: 'Dial' | 'Bind', identityRoles: string[], serviceRoles: string[], postureCheckRoles: string[] = [], semantic: 'AnyOf' | 'AllOf' = 'AnyOf') =>
  ({ id, name: id, type, semantic, identityRoles, serviceRoles, postureCheckRoles }) as never;
const rows: AccessRows = {
  services: [
    { id: 's1', name: 'one', roleAttributes: ['web'] },
    { id: 's2', name: 'two', roleAttributes: ['db', 'web'] },
    { id: 's3', name: 'three', roleAttributes: [] },
  ] as never[],
  policies: [
    policy('p2', 'Dial', ['#ops'], ['#web'], ['#mfa']),
    policy('p1', 'Dial', ['@alice'], ['@s2']),
    policy('p3', 'Bind', ['#all'], ['#db']),
    policy('p4', 'Dial', ['#ops', '#dba'], ['#db', '#web'], [], 'AllOf'),
    policy('p5', 'Dial', ['@carol', '#dba', '#dba'], ['#web']),
    policy('p6', 'Dial', [], ['#web']),
  ],
  postureChecks: [{ id: 'c1', name: 'mfa', typeId: 'MFA', roleAttributes: ['mfa'], timeoutSeconds: -1 }] as never[],
};

test('the index gives every identity and service the same access as serviceAccessFor', () => {
  const index = new ServiceAccessIndex(rows);
  const holders = [
    { id: 'alice', roleAttributes: ['ops'] },
    { id: 'bob', roleAttributes: ['ops', 'dba'] },
    { id: 'carol', roleAttributes: [] },
    { id: 'dave', roleAttributes: ['dba', 'ops'] },
  ];
  for (const holder of holders) {
    const expected = serviceAccessFor(holder, rows);
    for (const serviceId of ['s1', 's2', 's3', 'gone']) assert.deepEqual(index.accessFor(holder, serviceId), expected.get(serviceId), `${holder.id} / ${serviceId}`);
  }
});

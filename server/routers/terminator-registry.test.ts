import assert from 'node:assert/strict';
import { test } from 'node:test';
import { terminatorId, TerminatorRegistry } from './terminator-registry.ts';

test('terminator ids are stable for a router and a service, and differ otherwise', () => {
  assert.equal(terminatorId('r1', 's1'), terminatorId('r1', 's1'));
  assert.notEqual(terminatorId('r1', 's1'), terminatorId('r2', 's1'));
  assert.match(terminatorId('r1', 's1'), /^[A-Za-z0-9_-]{22}$/);
});

test('a connected router registers terminators; a reconnect starts over; a disconnect keeps them for the grace only', () => {
  const registry = new TerminatorRegistry({ controllerId: 'c1', graceMs: 1000 });
  assert.equal(registry.add('r1', [{ serviceId: 's1', address: 'tcp:a:1' }], 0), false, 'not connected: nothing registered');
  registry.connected('r1');
  assert.equal(registry.add('r1', [{ serviceId: 's1', address: 'tcp:a:1' }], 10), true);
  assert.equal(registry.add('r1', [{ serviceId: 's1', address: 'tcp:a:1' }], 20), false, 'the same again changes nothing');
  const [first] = registry.list(30);
  assert.deepEqual(first, {
    id: terminatorId('r1', 's1'), serviceId: 's1', routerId: 'r1', binding: 'tunnel', address: 'tcp:a:1', identity: 'r1', cost: 0, precedence: 'default',
    createdAt: new Date(10).toISOString(), updatedAt: new Date(10).toISOString(), controllerId: 'c1',
  });
  registry.add('r1', [{ serviceId: 's1', address: 'tcp:b:2' }], 40);
  assert.equal(registry.list(50)[0]!.address, 'tcp:b:2');
  assert.equal(registry.list(50)[0]!.createdAt, new Date(10).toISOString(), 'a new address keeps its creation time');
  assert.deepEqual(registry.retain('r1', new Map([['s1', 'tcp:a:1']])), ['s1'], 'the model grants another address');
  registry.add('r1', [{ serviceId: 's1', address: 'tcp:a:1' }, { serviceId: 's2', address: 'tcp:a:2' }], 60);
  assert.equal(registry.remove('r1', ['s2', 'nope']), true);
  registry.disconnected('r1', 100);
  assert.equal(registry.add('r1', [{ serviceId: 's3', address: 'tcp:a:3' }], 200), false, 'a gone router registers nothing');
  assert.equal(registry.list(1099).length, 1, 'within the grace');
  assert.equal(registry.list(1100).length, 0, 'after it');
  assert.deepEqual(registry.routerIds(), [], 'forgotten');
  registry.connected('r2');
  registry.add('r2', [{ serviceId: 's1', address: 'tcp:a:1' }], 0);
  registry.connected('r2');
  assert.equal(registry.list(1).length, 0, 'a new channel registers anew');
  registry.add('r2', [{ serviceId: 's1', address: 'tcp:a:1' }], 0);
  assert.equal(registry.drop('r2'), true);
  assert.equal(registry.list(1).length, 0);
});

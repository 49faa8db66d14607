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

test("a service's terminators are read from an index that follows every add, re-address, removal, model check, SDK bind and grace end", () => {
  const registry = new TerminatorRegistry({ controllerId: 'c1', graceMs: 1000 });
  const ofService = (serviceId: string, now: number) => registry.terminatorsOf(serviceId, now).map((held) => `${held.routerId}:${held.address}`).sort();
  const sdk = (id: string, serviceId: string) => ({ ...registry.list(0)[0]!, id, serviceId, binding: 'edge', origin: 'sdk' as const });
  registry.connected('r1');
  registry.connected('r2');
  registry.add('r1', [{ serviceId: 's1', address: 'tcp:a:1' }, { serviceId: 's2', address: 'tcp:a:2' }], 0);
  registry.add('r2', [{ serviceId: 's1', address: 'tcp:b:1' }], 0);
  assert.deepEqual(ofService('s1', 0), ['r1:tcp:a:1', 'r2:tcp:b:1']);
  registry.add('r1', [{ serviceId: 's1', address: 'tcp:a:9' }], 1);
  assert.deepEqual(ofService('s1', 1), ['r1:tcp:a:9', 'r2:tcp:b:1'], 'a re-addressed terminator replaces the old in the index');
  registry.remove('r2', ['s1']);
  assert.deepEqual(ofService('s1', 1), ['r1:tcp:a:9']);
  assert.deepEqual(registry.retain('r1', new Map([['s1', 'tcp:a:9']])), ['s2']);
  assert.deepEqual(ofService('s2', 1), [], 'what the model no longer grants leaves the index');
  assert.equal(registry.addSdk('r2', sdk('sdk-1', 's3')), true);
  assert.equal(registry.terminatorsOf('s3', 1).length, 1);
  registry.removeSdk('r2', ['sdk-1']);
  assert.deepEqual(registry.terminatorsOf('s3', 1), []);
  registry.disconnected('r1', 10);
  assert.deepEqual(ofService('s1', 1009), ['r1:tcp:a:9'], 'listed through the grace');
  assert.deepEqual(ofService('s1', 1010), [], 'not after it');
  assert.deepEqual(registry.routerTerminators('r1', 1010), [], 'and the router is forgotten');
  registry.connected('r2');
  registry.add('r2', [{ serviceId: 's1', address: 'tcp:b:1' }], 2000);
  registry.connected('r2');
  assert.deepEqual(ofService('s1', 2000), [], 'a new channel starts the index over for that router');
  registry.add('r2', [{ serviceId: 's1', address: 'tcp:b:1' }], 2000);
  registry.drop('r2');
  assert.deepEqual(ofService('s1', 2000), []);
});

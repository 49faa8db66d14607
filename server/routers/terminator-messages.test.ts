import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readTerminatorCreate, readTerminatorRemove } from './terminator-messages.ts';

test('terminator creates are read whole or refused whole, with the first problem', () => {
  assert.deepEqual(readTerminatorCreate({ terminators: [{ serviceId: 's1', address: 'tcp:a:1', extra: true }] }), { ok: true, terminators: [{ serviceId: 's1', address: 'tcp:a:1' }] });
  const reason = (frame: Record<string, unknown>) => {
    const read = readTerminatorCreate(frame);
    return read.ok ? 'ok' : read.reason;
  };
  assert.equal(reason({}), 'terminators must be a list');
  assert.equal(reason({ terminators: [{ serviceId: 's1', address: 'a' }, null] }), 'terminators[1] must be an object');
  assert.equal(reason({ terminators: [{ serviceId: '', address: 'a' }] }), 'terminators[0].serviceId must be a service id');
  assert.equal(reason({ terminators: [{ serviceId: 'x'.repeat(513), address: 'a' }] }), 'terminators[0].serviceId must be a service id');
  assert.equal(reason({ terminators: [{ serviceId: 's', address: 'a'.repeat(1025) }] }), 'terminators[0].address must be a string of 1 to 1024 characters');
  assert.equal(reason({ terminators: Array.from({ length: 1001 }, () => ({ serviceId: 's', address: 'a' })) }), 'at most 1000 terminators per message (got 1001)');
});

test('terminator removes are a bounded list of service ids', () => {
  assert.deepEqual(readTerminatorRemove({ serviceIds: ['s1', 's2'] }), { ok: true, serviceIds: ['s1', 's2'] });
  assert.equal(readTerminatorRemove({ serviceIds: 's1' }).ok, false);
  assert.equal(readTerminatorRemove({ serviceIds: [1] }).ok, false);
  assert.equal(readTerminatorRemove({ serviceIds: Array.from({ length: 1001 }, () => 's') }).ok, false);
});

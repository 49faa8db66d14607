import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clusterMembers, sameMembers } from './cluster-members.ts';

const self = { id: 'c1', address: 'tls:h1:6262' };

test('members are the voters then non-voters with their addresses; unknown addresses are left out', () => {
  const members = clusterMembers({ voters: ['c1', 'c2', 'c4'], nonVoters: ['c3'], addresses: { c1: 'tls:h1:6262', c2: 'tls:h2:6262', c3: 'tls:h3:6262' } }, self);
  assert.deepEqual(members, [
    { id: 'c1', address: 'tls:h1:6262' },
    { id: 'c2', address: 'tls:h2:6262' },
    { id: 'c3', address: 'tls:h3:6262' },
  ]);
});

test('a controller always lists itself, even before any configuration names it', () => {
  assert.deepEqual(clusterMembers({ voters: [], nonVoters: [] }, self), [self]);
  assert.deepEqual(clusterMembers({ voters: ['c1'], nonVoters: [] }, self), [self], 'its own address when the configuration has none');
});

test('sameMembers compares ids and addresses in order', () => {
  assert.equal(sameMembers([self], [{ ...self }]), true);
  assert.equal(sameMembers([self], [{ id: 'c1', address: 'tls:h1:1' }]), false);
  assert.equal(sameMembers([self], []), false);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LeaderTransitions } from './leader-transitions.ts';

test('gaining leadership and every change of the known leader are told apart from repeats', () => {
  const transitions = new LeaderTransitions();
  assert.deepEqual(transitions.next({ isLeader: false, leader: null }), { gained: false, changed: false });
  assert.deepEqual(transitions.next({ isLeader: false, leader: 'c2' }), { gained: false, changed: true }, 'a leader found');
  assert.deepEqual(transitions.next({ isLeader: false, leader: 'c2' }), { gained: false, changed: false }, 'a new term, same leader');
  assert.deepEqual(transitions.next({ isLeader: false, leader: null }), { gained: false, changed: true }, 'leader lost');
  assert.deepEqual(transitions.next({ isLeader: true, leader: 'c1' }), { gained: true, changed: true });
  assert.deepEqual(transitions.next({ isLeader: true, leader: 'c1' }), { gained: false, changed: false });
  assert.deepEqual(transitions.next({ isLeader: false, leader: 'c3' }), { gained: false, changed: true }, 'handed over');
});

test('a controller already leading when first watched has gained leadership once', () => {
  assert.deepEqual(new LeaderTransitions().next({ isLeader: true, leader: 'c1' }), { gained: true, changed: true });
});

// The checkers catch what they are for: each is shown a broken state and must object.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entry } from '../core/types.ts';
import { History, SafetyViolation, checkDurableState, checkElectionSafety, checkLogMatching } from './sim-checkers.ts';
import { seededRandom } from './seeded-random.ts';
import { SimNode } from './sim-node.ts';

const entry = (index: number, term: number, data: unknown = { client: index }): Entry => ({ index, term, type: 'normal', data });

function nodeWith(id: string, entries: Entry[], term = 5, leader = false): SimNode {
  const node = new SimNode(id, 1, { voters: ['a', 'b', 'c'], nonVoters: [] });
  node.durable.entries = entries;
  node.durable.hardState = { term, vote: leader ? id : null, commit: 0 };
  node.start(seededRandom(1), 10, 2, 4);
  if (leader) {
    // Force leadership the way the core allows: a one-voter view elects itself at once.
    (node.core as unknown as { becomeLeader(): void }).becomeLeader();
  }
  return node;
}

test('two applies of different entries at one index break state machine safety', () => {
  const history = new History();
  history.recordApply('a', entry(1, 1, { client: 1 }), 11);
  assert.throws(() => history.recordApply('b', entry(1, 1, { client: 2 }), 12), SafetyViolation);
});

test('two leaders in one term break election safety', () => {
  const history = new History();
  const a = nodeWith('a', [], 3, true);
  const b = nodeWith('b', [], 3, true);
  assert.throws(() => checkElectionSafety([a, b], history), /election safety/);
});

test('logs that agree at a later index but not an earlier one break log matching', () => {
  const a = nodeWith('a', [entry(1, 1), entry(2, 2), entry(3, 3)]);
  const b = nodeWith('b', [entry(1, 1), entry(2, 1), entry(3, 3)]);
  assert.throws(() => checkLogMatching([a, b]), /log matching/);
  const c = nodeWith('c', [entry(1, 1), entry(2, 2), entry(3, 4)]);
  assert.doesNotThrow(() => checkLogMatching([a, c]), 'diverging suffixes are allowed');
});

test('a second vote in the same term, or a term going back, breaks durable state', () => {
  const node = new SimNode('a', 1, { voters: ['a'], nonVoters: [] });
  node.durable.hardState = { term: 4, vote: 'b', commit: 0 };
  checkDurableState(node);
  node.durable.hardState = { term: 4, vote: 'c', commit: 0 };
  assert.throws(() => checkDurableState(node), /voted for b and then c/);
  node.durable.hardState = { term: 3, vote: null, commit: 0 };
  assert.throws(() => checkDurableState(node), /went back/);
});

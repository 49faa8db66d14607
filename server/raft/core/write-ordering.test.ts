// Which of a Ready's messages may leave before the node's own write: a leader's appends of its durable term, never an
// answer or a vote, and never a membership change (the simulator found a follower left alone with one stuck forever).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entry, Message } from './types.ts';
import { mayPrecedeWrite, splitByWrite } from './write-ordering.ts';

const normal: Entry = { index: 5, term: 3, type: 'normal', data: { type: 'set' } };
const config: Entry = { index: 6, term: 3, type: 'config', data: { change: { kind: 'remove', id: 'c' }, configuration: { voters: ['a', 'b'], nonVoters: [] } } };
const append = (entries: Entry[], term = 3): Message => ({ type: 'Append', from: 'a', to: 'b', term, prevIndex: 4, prevTerm: 3, entries, commit: 4 });

test("a leader's appends of its durable term leave before its write; a stale-term append does not", () => {
  assert.equal(mayPrecedeWrite(append([normal]), 3), true);
  assert.equal(mayPrecedeWrite(append([normal], 4), 3), false);
  assert.equal(mayPrecedeWrite({ type: 'Heartbeat', from: 'a', to: 'b', term: 3, commit: 4 }, 3), true);
});

test('an append carrying a membership change waits for the write', () => {
  assert.equal(mayPrecedeWrite(append([config]), 3), false);
  assert.equal(mayPrecedeWrite(append([normal, config]), 3), false);
});

test('answers and votes wait for the write, and the split keeps each side in order', () => {
  const vote: Message = { type: 'VoteResp', from: 'b', to: 'a', term: 3, reject: false };
  const answer: Message = { type: 'AppendResp', from: 'b', to: 'a', term: 3, reject: false, index: 5, rejectHint: 0, hintTerm: 0 };
  assert.equal(mayPrecedeWrite(vote, 3), false);
  assert.equal(mayPrecedeWrite(answer, 3), false);
  const first = append([normal]);
  const second = append([config]);
  const third = { ...append([normal]), to: 'c' } as Message;
  assert.deepEqual(splitByWrite([first, vote, second, third], 3), { early: [first, third], late: [vote, second] });
});

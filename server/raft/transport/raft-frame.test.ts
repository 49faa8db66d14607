import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entry, Message } from '../core/types.ts';
import { raftFrameJson } from './raft-frame.ts';

const entry = (index: number, data: unknown): Entry => ({ index, term: 2, type: 'normal', data });

test('an append with entries encodes to the same value as JSON.stringify, with the entries spliced in', () => {
  const message: Message = {
    type: 'Append', from: 'a', to: 'b', term: 2, prevIndex: 4, prevTerm: 1, commit: 3,
    entries: [entry(5, { type: 'identity.create', name: 'x "quoted" é', tags: { k: [1, null] } }), entry(6, null), { index: 7, term: 2, type: 'noop', data: null }],
  };
  const text = raftFrameJson(message);
  assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify({ type: 'raft', message })));
  // Reused: a second encoding (another follower) gives the same text.
  assert.equal(raftFrameJson(message), text);
});

test('other messages, and appends without entries, are plain JSON', () => {
  const heartbeat: Message = { type: 'Heartbeat', from: 'a', to: 'b', term: 3, commit: 9 };
  const empty: Message = { type: 'Append', from: 'a', to: 'c', term: 3, prevIndex: 9, prevTerm: 3, commit: 9, entries: [] };
  assert.equal(raftFrameJson(heartbeat), JSON.stringify({ type: 'raft', message: heartbeat }));
  assert.equal(raftFrameJson(empty), JSON.stringify({ type: 'raft', message: empty }));
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entry, Message } from '../core/types.ts';
import { FrameDecoder, encodeJsonFrame } from '../../../common/framing/frame-codec.ts';
import { entryJson, holdsEntryJson } from '../core/entry-json.ts';
import { keepReceivedEntryTexts, raftFrameJson } from './raft-frame.ts';

const entry = (index: number, data: unknown): Entry => ({ index, term: 2, type: 'normal', data });

test('an append with entries encodes to the value JSON.stringify gives, with the entries spliced in and their lengths', () => {
  const message: Message = {
    type: 'Append', from: 'a', to: 'b', term: 2, prevIndex: 4, prevTerm: 1, commit: 3,
    entries: [entry(5, { type: 'identity.create', name: 'x "quoted" é', tags: { k: [1, null] } }), entry(6, null), { index: 7, term: 2, type: 'noop', data: null }],
  };
  const text = raftFrameJson(message);
  const lengths = message.entries.map((e) => JSON.stringify({ index: e.index, term: e.term, type: e.type, data: e.data }).length);
  assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify({ type: 'raft', message: { ...message, entryLengths: lengths } })));
  // Reused: a second encoding (another follower) gives the same text.
  assert.equal(raftFrameJson(message), text);
});

test('other messages, and appends without entries, are plain JSON', () => {
  const heartbeat: Message = { type: 'Heartbeat', from: 'a', to: 'b', term: 3, commit: 9 };
  const empty: Message = { type: 'Append', from: 'a', to: 'c', term: 3, prevIndex: 9, prevTerm: 3, commit: 9, entries: [] };
  assert.equal(raftFrameJson(heartbeat), JSON.stringify({ type: 'raft', message: heartbeat }));
  assert.equal(raftFrameJson(empty), JSON.stringify({ type: 'raft', message: empty }));
});

test('a follower keeps the text each received entry arrived in, exactly the text it would have made', () => {
  const sent: Message = {
    type: 'Append', from: 'a', to: 'b', term: 2, prevIndex: 4, prevTerm: 1, commit: 3,
    entries: [
      entry(5, { type: 'identity.create', name: 'x "quoted" é 😀 \u2028', entries: [{ index: 1 }], s: '"entries":[' }),
      entry(6, null),
      entry(7, [1.5, -0, 1e21, '\\']),
    ],
  };
  const decoder = new FrameDecoder(keepReceivedEntryTexts);
  const [frame] = decoder.push(encodeJsonFrame(raftFrameJson(sent))) as [{ message: { entries: Entry[] } }];
  const received = frame.message.entries;
  for (const [i, e] of received.entries()) {
    assert.ok(holdsEntryJson(e), `entry ${e.index} holds its text`);
    assert.equal(entryJson(e), JSON.stringify({ index: e.index, term: e.term, type: e.type, data: e.data }));
    assert.equal(entryJson(e), entryJson(sent.entries[i]!));
  }
});

test('received entries whose lengths are missing or do not line up keep no text and are encoded when needed', () => {
  const message = (lengths: unknown) => ({ type: 'raft', message: { type: 'Append', from: 'a', to: 'b', term: 2, prevIndex: 0, prevTerm: 0, commit: 0, entryLengths: lengths, entries: [entry(1, 'one'), entry(2, { n: 2 })] } });
  const exact = JSON.stringify(message([entryJson(entry(1, 'one')).length, entryJson(entry(2, { n: 2 })).length]));
  const check = (text: string, expectTexts: boolean) => {
    const frame = JSON.parse(text) as { message: { entries: Entry[] } };
    keepReceivedEntryTexts(frame, text);
    for (const e of frame.message.entries) {
      assert.equal(holdsEntryJson(e), expectTexts, text);
      assert.equal(entryJson(e), JSON.stringify({ index: e.index, term: e.term, type: e.type, data: e.data }));
    }
  };
  check(exact, true);
  for (const lengths of [undefined, null, [], [44], [44, 'x'], [43, 15], [45, 15], [44, 14], [0, 59], [-1, 60], [44.5, 15]]) check(JSON.stringify(message(lengths)), false);
  // An older leader sends no lengths at all.
  const plain = JSON.stringify({ type: 'raft', message: { type: 'Append', from: 'a', to: 'b', term: 2, prevIndex: 0, prevTerm: 0, commit: 0, entries: [entry(1, 'one')] } });
  check(plain, false);
  // Other frames pass untouched.
  keepReceivedEntryTexts({ type: 'hb', sentAt: 1 }, '{"type":"hb","sentAt":1}');
  keepReceivedEntryTexts(null, 'null');
  const nullEntry = '{"type":"raft","message":{"type":"Append","entryLengths":[4],"entries":[null]}}';
  keepReceivedEntryTexts(JSON.parse(nullEntry), nullEntry);
});

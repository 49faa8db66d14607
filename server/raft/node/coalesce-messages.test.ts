import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entry, Message } from '../core/types.ts';
import { coalesceMessages } from './coalesce-messages.ts';

const entry = (index: number, term = 2): Entry => ({ index, term, type: 'normal', data: { type: 'x', index } });
const append = (to: string, prevIndex: number, entries: Entry[], commit: number, term = 2): Message => ({ type: 'Append', from: 'a', to, term, prevIndex, prevTerm: 2, entries, commit });
const answer = (to: string, index: number, reject = false, term = 2): Message => ({ type: 'AppendResp', from: 'b', to, term, reject, index, rejectHint: 0, hintTerm: 0 });

test('an append with entries and a commit-only append that continues it become one, with the higher commit', () => {
  const out = coalesceMessages([append('b', 10, [entry(11), entry(12)], 9), append('c', 10, [entry(11), entry(12)], 9), append('b', 12, [], 11), append('c', 12, [], 11)]);
  assert.deepEqual(out, [
    { ...(append('b', 10, [entry(11), entry(12)], 11) as object) },
    { ...(append('c', 10, [entry(11), entry(12)], 11) as object) },
  ]);
});

test('a commit-only append followed by entries from the same place becomes the entries with the higher commit', () => {
  assert.deepEqual(coalesceMessages([append('b', 12, [], 11), append('b', 12, [entry(13)], 10)]), [append('b', 12, [entry(13)], 11)]);
});

test('appends that each carry entries and continue each other become one, up to maxEntries', () => {
  const four = [11, 12, 13, 14].map((index) => append('b', index - 1, [entry(index)], 9 + (index % 2)));
  assert.deepEqual(coalesceMessages(four), [append('b', 10, [entry(11), entry(12), entry(13), entry(14)], 10)]);
  assert.deepEqual(coalesceMessages(four, 3), [append('b', 10, [entry(11), entry(12), entry(13)], 10), append('b', 13, [entry(14)], 9)]);
});

test('appends that do not continue each other, differ in term, or have another message between stay apart', () => {
  const gap = [append('b', 10, [entry(11)], 9), append('b', 12, [], 11)];
  assert.deepEqual(coalesceMessages(gap), gap);
  const overlap = [append('b', 10, [entry(11)], 9), append('b', 10, [entry(11)], 11)];
  assert.deepEqual(coalesceMessages(overlap), overlap);
  const terms = [append('b', 10, [], 9, 2), append('b', 10, [], 9, 3)];
  assert.deepEqual(coalesceMessages(terms), terms);
  const between: Message[] = [append('b', 10, [entry(11)], 9), { type: 'Heartbeat', from: 'a', to: 'b', term: 2, commit: 9 }, append('b', 11, [], 11)];
  assert.deepEqual(coalesceMessages(between), between);
});

test('successful answers in a row to one peer become the later one; rejections are kept', () => {
  assert.deepEqual(coalesceMessages([answer('a', 11), answer('a', 13)]), [answer('a', 13)]);
  const rejected = [answer('a', 11), answer('a', 11, true), answer('a', 12)];
  assert.deepEqual(coalesceMessages(rejected), rejected);
  const backwards = [answer('a', 13), answer('a', 11)];
  assert.deepEqual(coalesceMessages(backwards), backwards);
});

test('each peer still gets its messages in order; a lone message or none passes through', () => {
  const vote: Message = { type: 'VoteResp', from: 'b', to: 'c', term: 2, reject: false };
  const out = coalesceMessages([answer('a', 11), vote, answer('a', 12)]);
  assert.deepEqual(out, [vote, answer('a', 12)]);
  assert.deepEqual(coalesceMessages([vote]), [vote]);
  assert.deepEqual(coalesceMessages([]), []);
});

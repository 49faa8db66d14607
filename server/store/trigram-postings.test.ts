import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTrigramPostings, candidateEntries, MAX_SEGMENT_ENTRIES, searchTrigrams } from './trigram-postings.ts';
import { seededRandom as random } from '../raft/sim/seeded-random.ts';

const PARTS = ['ab', 'AB', 'abc', '-1', 'x', 'İ', 'ΟΣ', 'σ', 'ß', '😀', '\u212a', 'k', 'common-'];

for (const seed of [1, 2]) {
  test(`candidates hold every entry that holds the search string, exact-case or lowercased; postings are ascending and unique (seed ${seed})`, () => {
    const next = random(seed);
    const int = (n: number) => Math.floor(next() * n);
    const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
    const word = (parts: number) => Array.from({ length: parts }, () => pick(PARTS)).join('');
    // Most texts begin with `common-`: its trigrams are dense and keep no postings.
    const keys = Array.from({ length: 1000 }, () => (next() < 0.8 ? 'common-' : '') + word(1 + int(4)));
    const postings = buildTrigramPostings(keys);
    assert.ok(postings.dense.length > 0, 'some trigrams are dense');
    for (let i = 0; i + 1 < postings.offsets.length; i++) {
      const list = postings.entries.subarray(postings.offsets[i]!, postings.offsets[i + 1]!);
      for (let k = 1; k < list.length; k++) assert.ok(list[k - 1]! < list[k]!);
    }
    for (let q = 0; q < 300; q++) {
      const text = next() < 0.5 ? pick(keys).slice(int(4), 4 + int(8)) : word(1 + int(3));
      for (const caseInsensitive of [false, true]) {
        const hashes = searchTrigrams(caseInsensitive, text);
        if (hashes.length === 0) continue;
        const found = candidateEntries(postings, hashes);
        if (found === undefined) continue;
        const candidates = new Set(Array.from(found));
        keys.forEach((key, entry) => {
          const holds = caseInsensitive ? key.toLowerCase().includes(text.toLowerCase()) : key.includes(text);
          if (holds) assert.ok(candidates.has(entry), `${caseInsensitive ? 'icontains' : 'contains'} ${JSON.stringify(text)}: entry ${entry} ${JSON.stringify(key)} missed`);
        });
      }
    }
  });
}

test('a string whose trigrams no text holds has no candidates; one whose trigrams are all dense checks every entry', () => {
  const keys = Array.from({ length: 300 }, (_, i) => `list-id-${i}`);
  const postings = buildTrigramPostings(keys);
  assert.equal(candidateEntries(postings, searchTrigrams(false, 'zzz'))!.length, 0);
  assert.equal(candidateEntries(postings, searchTrigrams(true, 'LIST-ID')), undefined);
  assert.deepEqual(Array.from(candidateEntries(postings, searchTrigrams(false, 'id-299'))!), [299]);
  assert.deepEqual(searchTrigrams(false, 'ab'), []);
  assert.throws(() => buildTrigramPostings(Array.from({ length: MAX_SEGMENT_ENTRIES + 1 }, () => 'a')), /at most/);
});

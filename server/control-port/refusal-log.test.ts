import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RefusalLog, suppressedField } from './refusal-log.ts';

test('one line per source and interval, the next one counting those left out', () => {
  let now = 0;
  const log = new RefusalLog(1000, () => now);
  assert.equal(log.admit('ctrl3'), 0);
  assert.equal(log.admit('ctrl3'), undefined);
  assert.equal(log.admit('ctrl4'), 0, 'sources are counted apart');
  now = 999;
  assert.equal(log.admit('ctrl3'), undefined);
  now = 1000;
  assert.equal(log.admit('ctrl3'), 2);
  assert.deepEqual(suppressedField(2), { suppressed: 2 });
  assert.deepEqual(suppressedField(0), {});
});

test('many distinct sources do not grow the memory past its bound', () => {
  let now = 0;
  const log = new RefusalLog(1000, () => now, 3);
  for (const source of ['a', 'b', 'c', 'd']) assert.equal(log.admit(source), 0);
  assert.equal(log.admit('a'), 0, 'the oldest was forgotten to make room, so it is logged again');
  assert.equal(log.admit('d'), undefined, 'a recent one is still remembered');
  now = 5000;
  assert.equal(log.admit('d'), 1, 'and so is the count of its lines left out');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PemMemo } from './pem-memo.ts';

test('a PEM is worked out once; another PEM gets its own value', () => {
  const memo = new PemMemo<string>(4);
  let computed = 0;
  const upper = (pem: string) => (computed++, pem.toUpperCase());
  assert.equal(memo.get('a', upper), 'A');
  assert.equal(memo.get('a', upper), 'A');
  assert.equal(memo.get('b', upper), 'B');
  assert.equal(computed, 2);
});

test('a failure is not kept: the same bad PEM is judged, and refused, every time', () => {
  const memo = new PemMemo<number>(4);
  let attempts = 0;
  const refuse = () => {
    attempts++;
    throw new Error('not a certificate');
  };
  assert.throws(() => memo.get('bad', refuse), /not a certificate/);
  assert.throws(() => memo.get('bad', refuse), /not a certificate/);
  assert.equal(attempts, 2);
});

test('an undefined value is kept like any other (a certificate without a trust domain)', () => {
  const memo = new PemMemo<string | undefined>(4);
  let computed = 0;
  memo.get('none', () => (computed++, undefined));
  assert.equal(memo.get('none', () => (computed++, 'wrong')), undefined);
  assert.equal(computed, 1);
});

test('bounded: past the limit the oldest PEM is forgotten and worked out again when asked', () => {
  const memo = new PemMemo<string>(2);
  const seen: string[] = [];
  const note = (pem: string) => (seen.push(pem), pem);
  for (const pem of ['a', 'b', 'c', 'b', 'a']) memo.get(pem, note);
  assert.deepEqual(seen, ['a', 'b', 'c', 'a']);
});

test('concurrent first asks share one asynchronous computation; a rejection is not kept', async () => {
  const memo = new PemMemo<string>(4);
  let computed = 0;
  const slow = async (pem: string) => {
    computed++;
    await new Promise((done) => setImmediate(done));
    return `key of ${pem}`;
  };
  assert.deepEqual(await Promise.all([memo.getAsync('k', slow), memo.getAsync('k', slow), memo.getAsync('k', slow)]), ['key of k', 'key of k', 'key of k']);
  assert.equal(await memo.getAsync('k', slow), 'key of k');
  assert.equal(computed, 1);

  let failures = 0;
  const failing = async () => {
    failures++;
    throw new Error('no key');
  };
  await assert.rejects(Promise.all([memo.getAsync('bad', failing), memo.getAsync('bad', failing)]), /no key/);
  await assert.rejects(memo.getAsync('bad', failing), /no key/);
  assert.equal(failures, 2);
});

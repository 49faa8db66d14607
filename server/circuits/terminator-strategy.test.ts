import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseTerminator, type TerminatorCandidate } from './terminator-strategy.ts';

const t = (id: string, precedence: TerminatorCandidate['precedence'], cost: number, pathCost: number): TerminatorCandidate => ({ id, precedence, cost, pathCost });
const never = () => assert.fail('this strategy draws no random number');

/** A seeded source (mulberry32), so a test that counts picks is the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function counts(pool: TerminatorCandidate[], strategy: string, draws: number): Record<string, number> {
  const random = seeded(7);
  const tally: Record<string, number> = {};
  for (let i = 0; i < draws; i++) {
    const id = chooseTerminator(pool, strategy, random)!.id;
    tally[id] = (tally[id] ?? 0) + 1;
  }
  return tally;
}

describe('terminator strategies', () => {
  it('puts required before default, and uses failed only when nothing else is reachable, whatever the cost', () => {
    for (const strategy of ['smartrouting', 'weighted', 'random', 'ha']) {
      const random = seeded(1);
      assert.equal(chooseTerminator([t('a', 'default', 0, 0), t('b', 'required', 60000, 900)], strategy, random)?.id, 'b', strategy);
      assert.equal(chooseTerminator([t('a', 'failed', 0, 0), t('b', 'default', 60000, 900)], strategy, random)?.id, 'b', strategy);
      assert.equal(chooseTerminator([t('a', 'failed', 5, 0), t('b', 'failed', 1, 0)], strategy === 'smartrouting' || strategy === 'ha' ? strategy : 'ha', random)?.id, 'b', strategy);
    }
    assert.equal(chooseTerminator([], 'smartrouting', never), undefined);
  });

  it('smartrouting takes the lowest terminator cost plus path cost; a tie goes to the lower id', () => {
    assert.equal(chooseTerminator([t('a', 'default', 10, 5), t('b', 'default', 0, 12)], 'smartrouting', never)?.id, 'b');
    assert.equal(chooseTerminator([t('a', 'default', 0, 20), t('b', 'default', 10, 5)], 'smartrouting', never)?.id, 'b');
    assert.equal(chooseTerminator([t('b', 'default', 3, 3), t('a', 'default', 5, 1)], 'smartrouting', never)?.id, 'a');
    assert.equal(chooseTerminator([t('a', 'default', 0, 0)], 'no-such-strategy', never)?.id, 'a');
  });

  it('ha keeps the lowest terminator cost even over a slower path; path cost only breaks a tie', () => {
    assert.equal(chooseTerminator([t('active', 'default', 0, 400), t('standby', 'default', 100, 2)], 'ha', never)?.id, 'active');
    assert.equal(chooseTerminator([t('a', 'default', 7, 40), t('b', 'default', 7, 2)], 'ha', never)?.id, 'b');
  });

  it('random picks every terminator of the best precedence about equally, ignoring cost', () => {
    const tally = counts([t('a', 'default', 0, 0), t('b', 'default', 50000, 900), t('c', 'default', 7, 7), t('x', 'failed', 0, 0)], 'random', 3000);
    assert.equal(tally.x, undefined);
    for (const id of ['a', 'b', 'c']) assert.ok(tally[id]! > 850 && tally[id]! < 1150, JSON.stringify(tally));
  });

  it('weighted favours cheaper terminators in proportion to 1 / (1 + cost) but still uses dearer ones', () => {
    // Weights 1/1, 1/2, 1/4 of 1.75: a ≈ 57 %, b ≈ 29 %, c ≈ 14 %.
    const tally = counts([t('a', 'default', 0, 0), t('b', 'default', 1, 0), t('c', 'default', 2, 1)], 'weighted', 4000);
    assert.ok(Math.abs(tally.a! / 4000 - 4 / 7) < 0.04, JSON.stringify(tally));
    assert.ok(Math.abs(tally.b! / 4000 - 2 / 7) < 0.04, JSON.stringify(tally));
    assert.ok(Math.abs(tally.c! / 4000 - 1 / 7) < 0.04, JSON.stringify(tally));
  });

  it('a random source out of range still yields a candidate', () => {
    const pool = [t('a', 'default', 0, 0), t('b', 'default', 0, 0)];
    for (const value of [1, -3, Number.NaN, 17]) {
      assert.ok(chooseTerminator(pool, 'random', () => value));
      assert.ok(chooseTerminator(pool, 'weighted', () => value));
    }
  });
});

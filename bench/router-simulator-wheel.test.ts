import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TimerWheel } from './router-simulator-wheel.ts';

describe('TimerWheel', () => {
  it('makes every item due once per turn, spread evenly over the slots', () => {
    const wheel = new TimerWheel<number>(4);
    for (let i = 0; i < 10; i++) wheel.add(i);
    const turn = Array.from({ length: 4 }, () => wheel.advance());
    assert.deepEqual(turn.map((due) => due.length), [3, 3, 2, 2]);
    assert.deepEqual(turn.flat().sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(wheel.advance(), turn[0]);
  });

  it('forgets a removed item and keeps an item added twice in one slot', () => {
    const wheel = new TimerWheel<string>(2);
    wheel.add('a');
    wheel.add('a');
    wheel.add('b');
    wheel.remove('a');
    assert.equal(wheel.size, 1);
    assert.deepEqual([...wheel.advance(), ...wheel.advance()], ['b']);
  });

  it('refuses a wheel without slots', () => {
    assert.throws(() => new TimerWheel(0), /whole number of slots/);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Backoff, EndpointRotation, controlChannelBackoff } from './backoff.ts';

describe('Backoff', () => {
  it('grows by the factor from the minimum and never passes the maximum', () => {
    const backoff = new Backoff({ minMs: 100, maxMs: 1000, factor: 2, jitter: 0 });
    assert.deepEqual([1, 2, 3, 4, 5, 6].map(() => backoff.next()), [100, 200, 400, 800, 1000, 1000]);
  });

  it('starts again from the minimum after a success', () => {
    const backoff = new Backoff({ minMs: 100, maxMs: 1000, factor: 3, jitter: 0 });
    backoff.next();
    backoff.next();
    backoff.reset();
    assert.equal(backoff.next(), 100);
  });

  it('draws jitter below the computed delay, within the jitter fraction', () => {
    const low = new Backoff({ minMs: 1000, maxMs: 1000, factor: 1, jitter: 0.2 }, () => 0);
    const high = new Backoff({ minMs: 1000, maxMs: 1000, factor: 1, jitter: 0.2 }, () => 1);
    assert.equal(low.next(), 800);
    assert.equal(high.next(), 1000);
  });

  it('keeps the control channel policy bounded to 30 s', () => {
    const backoff = new Backoff(controlChannelBackoff, () => 1);
    let last = 0;
    for (let i = 0; i < 50; i++) last = backoff.next();
    assert.equal(last, 30_000);
  });

  it('refuses a policy whose maximum is below its minimum', () => {
    assert.throws(() => new Backoff({ minMs: 10, maxMs: 5, factor: 2, jitter: 0 }), /invalid backoff policy/);
  });
});

describe('EndpointRotation', () => {
  it('tries the addresses round robin and wraps', () => {
    const rotation = new EndpointRotation(['tls:a:1', 'tls:b:1', 'tls:c:1']);
    assert.equal(rotation.current(), 'tls:a:1');
    assert.deepEqual([rotation.advance(), rotation.advance(), rotation.advance()], ['tls:b:1', 'tls:c:1', 'tls:a:1']);
  });

  it('keeps the current controller when new membership still lists it', () => {
    const rotation = new EndpointRotation(['tls:a:1', 'tls:b:1']);
    rotation.advance();
    rotation.replace(['tls:c:1', 'tls:b:1']);
    assert.equal(rotation.current(), 'tls:b:1');
    assert.equal(rotation.advance(), 'tls:c:1');
  });

  it('moves to the first member when the current controller left, and ignores an empty list', () => {
    const rotation = new EndpointRotation(['tls:a:1']);
    rotation.replace(['tls:b:1', 'tls:c:1']);
    assert.equal(rotation.current(), 'tls:b:1');
    rotation.replace([]);
    assert.deepEqual(rotation.endpoints, ['tls:b:1', 'tls:c:1']);
  });
});

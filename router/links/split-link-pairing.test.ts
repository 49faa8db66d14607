import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SplitLinkPairing, type LinkHalf } from './split-link-pairing.ts';

const half = (connType: 'payload' | 'ack', linkId = 'l1', routerId = 'r1'): LinkHalf<string> => ({ routerId, linkId, connType, connection: `${routerId}/${linkId}/${connType}` });

describe('split link pairing', () => {
  it('pairs a payload and an ack connection of the same link id, in either order', () => {
    for (const [first, second] of [['payload', 'ack'], ['ack', 'payload']] as const) {
      const pairing = new SplitLinkPairing<string>();
      assert.deepEqual(pairing.offer(half(first)), { kind: 'waiting' });
      assert.equal(pairing.has('l1'), true);
      const outcome = pairing.offer(half(second));
      assert.equal(outcome.kind, 'paired');
      assert.equal(outcome.kind === 'paired' && outcome.payload.connection, 'r1/l1/payload');
      assert.equal(outcome.kind === 'paired' && outcome.ack.connection, 'r1/l1/ack');
      assert.equal(pairing.has('l1'), false, 'a paired link id no longer waits');
    }
  });

  it('refuses a second connection of the same kind and keeps the first waiting', () => {
    const pairing = new SplitLinkPairing<string>();
    const first = half('payload');
    pairing.offer(first);
    assert.deepEqual(pairing.offer(half('payload')), { kind: 'refused', reason: 'duplicate payload connection for link id l1' });
    assert.equal(pairing.withdraw(first), true, 'the first one was still waiting');
  });

  it('refuses a partner from another router', () => {
    const pairing = new SplitLinkPairing<string>();
    pairing.offer(half('payload', 'l1', 'r1'));
    const outcome = pairing.offer(half('ack', 'l1', 'r2'));
    assert.deepEqual(outcome, { kind: 'refused', reason: 'the ack connection of link id l1 comes from router "r2", its payload connection from "r1"' });
    assert.equal(pairing.has('l1'), true);
  });

  it('keeps link ids apart, withdraws only the waiting half, and drains', () => {
    const pairing = new SplitLinkPairing<string>();
    const a = half('payload', 'a');
    pairing.offer(a);
    assert.deepEqual(pairing.offer(half('payload', 'b')), { kind: 'waiting' });
    assert.equal(pairing.withdraw(half('payload', 'a')), false, 'an equal but different half is not the waiting one');
    assert.equal(pairing.withdraw(a), true);
    assert.equal(pairing.withdraw(a), false);
    assert.deepEqual(pairing.offer(half('ack', 'a')), { kind: 'waiting' }, 'a withdrawn half is no partner');
    assert.deepEqual(pairing.drain().map((each) => each.connection).sort(), ['r1/a/ack', 'r1/b/payload']);
    assert.equal(pairing.has('a') || pairing.has('b'), false);
  });
});

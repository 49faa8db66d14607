import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connTypesFor, linkHello, parseLinkHello, shapeFor } from './link-hello.ts';

describe('link hello', () => {
  it('a split dialer opens a payload then an ack connection; otherwise one single connection', () => {
    assert.deepEqual(connTypesFor(true), ['payload', 'ack']);
    assert.deepEqual(connTypesFor(false), ['single']);
    assert.equal(shapeFor(true), 'split');
    assert.equal(shapeFor(false), 'single');
  });

  it('reads back what it writes, and a hello without connType as single', () => {
    for (const connType of ['single', 'payload', 'ack'] as const) {
      assert.deepEqual(parseLinkHello(linkHello('r1', 'l1', connType)), { routerId: 'r1', linkId: 'l1', connType });
    }
    assert.deepEqual(parseLinkHello({ type: 'link.hello', routerId: 'r1', linkId: 'l1' }), { routerId: 'r1', linkId: 'l1', connType: 'single' });
  });

  it('rejects what is not a valid hello', () => {
    const invalid: unknown[] = [
      null,
      'link.hello',
      { type: 'link.welcome', routerId: 'r1', linkId: 'l1' },
      { type: 'link.hello', routerId: '', linkId: 'l1' },
      { type: 'link.hello', routerId: 'r1', linkId: 7 },
      { type: 'link.hello', routerId: 'r1', linkId: 'x'.repeat(513) },
      { type: 'link.hello', routerId: 'r1', linkId: 'l1', connType: 'both' },
      { type: 'link.hello', routerId: 'r1', linkId: 'l1', connType: null },
    ];
    for (const frame of invalid) assert.equal(parseLinkHello(frame), undefined, JSON.stringify(frame)?.slice(0, 80));
  });
});

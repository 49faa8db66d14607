import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readCircuitFrame } from './circuit-frames.ts';

const circuitId = 'c1a2b3c4d5e6f7g8';

describe('readCircuitFrame', () => {
  it('accepts each well-formed frame, keeping only its known fields', () => {
    const route = { text: '{}', signature: 'x', signer: 'y' };
    assert.deepEqual(readCircuitFrame({ type: 'c.setup', circuitId, route, hop: 1, extra: true }), { type: 'c.setup', circuitId, route, hop: 1 });
    assert.deepEqual(readCircuitFrame({ type: 'c.setup', circuitId, route, hop: 63 }), { type: 'c.setup', circuitId, route, hop: 63 });
    assert.deepEqual(readCircuitFrame({ type: 'c.ready', circuitId }), { type: 'c.ready', circuitId });
    const proof = { signature: 'c2ln', signer: '-----BEGIN CERTIFICATE-----' };
    assert.deepEqual(readCircuitFrame({ type: 'c.ready', circuitId, received: 5, proof: { ...proof, extra: 1 } }), { type: 'c.ready', circuitId, received: 5, proof });
    assert.deepEqual(readCircuitFrame({ type: 'c.ready', circuitId, proof: { signature: 7 } }), { type: 'c.ready', circuitId }, 'a malformed proof is dropped (and the ready then refused)');
    assert.deepEqual(readCircuitFrame({ type: 'c.fail', circuitId, reason: 'no route', avoid: 'r2' }), { type: 'c.fail', circuitId, reason: 'no route', avoid: 'r2' });
    assert.deepEqual(readCircuitFrame({ type: 'c.fail', circuitId }), { type: 'c.fail', circuitId, reason: 'unknown' });
    assert.deepEqual(readCircuitFrame({ type: 'c.ack', circuitId, bytes: 65536 }), { type: 'c.ack', circuitId, bytes: 65536 });
    assert.deepEqual(readCircuitFrame({ type: 'c.fin', circuitId }), { type: 'c.fin', circuitId });
    assert.deepEqual(readCircuitFrame({ type: 'c.close', circuitId, graceful: true, reason: 'done' }), { type: 'c.close', circuitId, graceful: true, reason: 'done' });
    assert.deepEqual(readCircuitFrame({ type: 'c.close', circuitId, graceful: 'yes' }), { type: 'c.close', circuitId, graceful: false, reason: 'closed' });
    assert.deepEqual(readCircuitFrame({ type: 'c.confirm', circuitId }), { type: 'c.confirm', circuitId });
    assert.deepEqual(readCircuitFrame({ type: 'c.confirmed', circuitId }), { type: 'c.confirmed', circuitId });
  });

  it('cuts long reasons and drops an over-long or non-string avoid', () => {
    const long = 'x'.repeat(5000);
    const fail = readCircuitFrame({ type: 'c.fail', circuitId, reason: long, avoid: 'r'.repeat(513) });
    assert.deepEqual(fail, { type: 'c.fail', circuitId, reason: 'x'.repeat(1024) });
    assert.deepEqual(readCircuitFrame({ type: 'c.fail', circuitId, reason: 'r', avoid: 7 }), { type: 'c.fail', circuitId, reason: 'r' });
    const close = readCircuitFrame({ type: 'c.close', circuitId, graceful: false, reason: long });
    assert.equal(close?.type === 'c.close' && close.reason.length, 1024);
  });

  it('refuses a missing or malformed circuit id', () => {
    for (const bad of [undefined, 42, '', 'short', 'has space in it', 'bad/slash/id', 'x'.repeat(65), 'ümlautümlaut']) {
      assert.equal(readCircuitFrame({ type: 'c.ready', circuitId: bad }), undefined, `circuitId ${String(bad)}`);
    }
    assert.deepEqual(readCircuitFrame({ type: 'c.ready', circuitId: 'a'.repeat(64) }), { type: 'c.ready', circuitId: 'a'.repeat(64) });
  });

  it('refuses a setup whose hop is out of range or not an integer', () => {
    for (const hop of [0, -1, 64, 1000, 1.5, '1', null, undefined, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.equal(readCircuitFrame({ type: 'c.setup', circuitId, route: {}, hop }), undefined, `hop ${String(hop)}`);
    }
  });

  it('refuses an ack whose bytes are not a positive safe integer', () => {
    for (const bytes of [0, -5, 1.5, '10', null, undefined, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1]) {
      assert.equal(readCircuitFrame({ type: 'c.ack', circuitId, bytes }), undefined, `bytes ${String(bytes)}`);
    }
  });

  it('refuses unknown types and values that are not objects', () => {
    assert.equal(readCircuitFrame({ type: 'c.unknown', circuitId }), undefined);
    assert.equal(readCircuitFrame({ type: 'link.hello', circuitId }), undefined);
    assert.equal(readCircuitFrame({ circuitId }), undefined);
    for (const value of [null, undefined, 'c.ready', 7, true, Symbol('x')]) assert.equal(readCircuitFrame(value), undefined);
    assert.equal(readCircuitFrame([circuitId]), undefined);
  });
});

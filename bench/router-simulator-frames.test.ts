import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeFrame } from '../common/framing/frame-codec.ts';
import { ControlFrameReader, hostedServiceIds, linksOf, loopbackSource, metricsOf, nextAddress, retryDelayMs, terminatorCreates } from './router-simulator-frames.ts';

const parsed = new Set(['hb', 'ctrl.welcome']);
const big = { type: 'ctrl.edgeModel', index: 7, model: { services: Array.from({ length: 2000 }, (_, i) => ({ id: `s${i}`, name: `service ${i}` })) } };

function feed(reader: ControlFrameReader, bytes: Buffer, chunk: number) {
  const frames = [];
  for (let at = 0; at < bytes.length; at += chunk) frames.push(...reader.push(bytes.subarray(at, at + chunk)));
  return frames;
}

describe('ControlFrameReader', () => {
  it('parses the types it was asked for and names the others without parsing them, in any chunking', () => {
    const stream = Buffer.concat([encodeFrame({ type: 'hb', sentAt: 12.5 }), encodeFrame(big), encodeFrame({ type: 'ctrl.welcome', controllerId: 'c1', members: [] }), encodeFrame({ type: 'ctrl.routerConnected', router: { id: 'r' } })]);
    for (const chunk of [1, 3, 7, 64, 1000, 16384, stream.length]) {
      const frames = feed(new ControlFrameReader(parsed), stream, chunk);
      assert.deepEqual(frames, [{ type: 'hb', message: { type: 'hb', sentAt: 12.5 } }, { type: 'ctrl.edgeModel' }, { type: 'ctrl.welcome', message: { type: 'ctrl.welcome', controllerId: 'c1', members: [] } }, { type: 'ctrl.routerConnected' }], `chunks of ${chunk}`);
    }
  });

  it('counts the bytes of each type, skipped ones included', () => {
    const reader = new ControlFrameReader(parsed);
    const model = encodeFrame(big);
    feed(reader, Buffer.concat([model, model, encodeFrame({ type: 'hb', sentAt: 1 })]), 4096);
    assert.equal(reader.bytesByType.get('ctrl.edgeModel'), 2 * model.length);
    assert.equal(reader.bytesByType.get('hb'), encodeFrame({ type: 'hb', sentAt: 1 }).length);
  });

  it('parses whole a frame whose type does not come first', () => {
    const frames = new ControlFrameReader(parsed).push(encodeFrame({ controllerId: 'c1', type: 'ctrl.welcome' }));
    assert.deepEqual(frames, [{ type: 'ctrl.welcome', message: { controllerId: 'c1', type: 'ctrl.welcome' } }]);
  });

  it('refuses a frame over the byte limit and one that is not JSON', () => {
    const huge = Buffer.alloc(8);
    huge.writeUInt32BE(0x7fffffff, 0);
    assert.throws(() => new ControlFrameReader(parsed).push(huge), /exceeds/);
    const text = Buffer.from('not json at all');
    const frame = Buffer.alloc(4 + text.length);
    frame.writeUInt32BE(text.length, 0);
    text.copy(frame, 4);
    assert.throws(() => new ControlFrameReader(parsed).push(frame), SyntaxError);
  });
});

describe('what a simulated router says', () => {
  it('hosts consecutive services from its own offset, wrapping around', () => {
    const ids = ['a', 'b', 'c', 'd', 'e'];
    assert.deepEqual(hostedServiceIds(0, ids, 2), ['a', 'b']);
    assert.deepEqual(hostedServiceIds(2, ids, 2), ['e', 'a']);
    assert.deepEqual(hostedServiceIds(1, ids, 9), ['e', 'a', 'b', 'c', 'd']);
    assert.deepEqual(hostedServiceIds(1, ids, 0), []);
  });

  it('sends terminators in messages of at most 1000', () => {
    const ids = Array.from({ length: 2500 }, (_, i) => `s${i}`);
    const messages = terminatorCreates(ids, 'tcp:127.0.0.1:9');
    assert.deepEqual(messages.map((message) => message.terminators.length), [1000, 1000, 500]);
    assert.deepEqual(messages[2]!.terminators.at(-1), { serviceId: 's2499', address: 'tcp:127.0.0.1:9' });
  });

  it('links to the next routers, never itself', () => {
    const ids = ['r0', 'r1', 'r2'];
    assert.deepEqual(linksOf(2, ids, 3).map((link) => link.destRouterId), ['r0', 'r1']);
    assert.deepEqual(linksOf(0, ids, 1), [{ id: 'sim0x0', destRouterId: 'r1', latencyMs: 1 }]);
    assert.deepEqual(linksOf(0, ['r0'], 3), []);
  });

  it('reports the gauges of its channel and links', () => {
    const metrics = metricsOf('r0', linksOf(0, ['r0', 'r1'], 1), 2.34567, 1000, 5);
    assert.deepEqual(metrics, { type: 'router.metrics', routerId: 'r0', timestamp: 1000, gauges: { 'link.count': 1, 'ctrl.connected': 1, 'process.rss_bytes': 5, 'metrics.dropped_messages': 0, 'ctrl.latency_ms': 2.346, 'link.sim0x0.latency_ms': 1 } });
  });

  it('dials from a loopback address of its own', () => {
    assert.equal(loopbackSource(0), '127.100.0.1');
    assert.equal(loopbackSource(249), '127.100.0.250');
    assert.equal(loopbackSource(250), '127.100.1.1');
    assert.equal(new Set(Array.from({ length: 20_000 }, (_, i) => loopbackSource(i))).size, 20_000);
  });

  it('dials the controllers in turn and backs off boundedly', () => {
    assert.equal(nextAddress(['a', 'b'], 'a'), 'b');
    assert.equal(nextAddress(['a', 'b'], 'b'), 'a');
    assert.equal(nextAddress(['a', 'b'], 'gone'), 'a');
    assert.equal(retryDelayMs(1, 1), 1000);
    assert.equal(retryDelayMs(3, 0), 2000);
    assert.equal(retryDelayMs(50, 1), 30_000);
  });
});

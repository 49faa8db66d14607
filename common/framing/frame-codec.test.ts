import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DataFrame, encodeDataFrame, encodeFrame, encodeJsonFrame, FrameDecoder } from './frame-codec.ts';

test('frames survive any chunking of the byte stream', () => {
  const values = [{ type: 'hello', id: 'a' }, { n: 1, text: 'ü✓'.repeat(100) }, [1, 2, 3], 'plain'];
  const stream = Buffer.concat(values.map(encodeFrame));
  for (const size of [1, 2, 3, 7, 64, stream.length]) {
    const decoder = new FrameDecoder();
    const out: unknown[] = [];
    for (let at = 0; at < stream.length; at += size) out.push(...decoder.push(stream.subarray(at, at + size)));
    assert.deepEqual(out, values, `chunks of ${size}`);
  }
});

test('an oversize length or a body that is not JSON is an error', () => {
  const huge = Buffer.alloc(4);
  huge.writeUInt32BE(0xffffffff, 0);
  assert.throws(() => new FrameDecoder().push(huge), /exceeds|limit/);
  const bad = Buffer.concat([Buffer.from([0, 0, 0, 3]), Buffer.from('{{{')]);
  assert.throws(() => new FrameDecoder().push(bad), /not JSON/);
});

test('a lower limit applies to both ends: longer frames are neither encoded nor accepted', () => {
  const text = JSON.stringify({ pad: 'x'.repeat(40) });
  assert.throws(() => encodeJsonFrame(text, 32), /frame of 50 bytes exceeds 32/);
  const frame = encodeJsonFrame(text);
  assert.throws(() => new FrameDecoder(undefined, 32).push(frame), /peer sent a frame of 50 bytes \(limit 32\)/);
  assert.deepEqual(new FrameDecoder(undefined, 50).push(frame), [JSON.parse(text)]);
});

test('with depth and keys-and-items limits, a frame past either is refused before it is parsed, naming where', () => {
  const limits = { maxBytes: 1 << 20, maxDepth: 4, maxMembers: 10 };
  const decode = (value: unknown) => new FrameDecoder(undefined, limits).push(encodeFrame(value));
  assert.deepEqual(decode({ a: { b: [[1]] } }), [{ a: { b: [[1]] } }]);
  assert.throws(() => decode({ a: { b: [[[1]]] } }), /^Error: peer sent a frame that nests deeper than 4 levels of objects and arrays \(at a\.b\.0\.0\)$/);
  assert.deepEqual(decode(Array.from({ length: 10 }, (_, i) => i)).length, 1);
  assert.throws(() => decode({ list: Array.from({ length: 10 }, (_, i) => i) }), /has more than 10 keys and items in all \(at list\.\d+\)$/);
  // Brackets and commas inside strings are text, not structure.
  assert.deepEqual(decode({ s: '[[[[[[,,,,,,,,,,,,{{{{' }), [{ s: '[[[[[[,,,,,,,,,,,,{{{{' }]);
});

test('limits change between frames: a small first frame, then the normal ones', () => {
  const decoder = new FrameDecoder(undefined, { maxBytes: 32, maxDepth: 2, maxMembers: 8 });
  decoder.append(Buffer.concat([encodeFrame({ type: 'hello' }), encodeFrame({ type: 'raft', pad: 'x'.repeat(100), deep: [[[1]]] })]));
  assert.deepEqual(decoder.next(), { type: 'hello' });
  decoder.setLimits({ maxBytes: 1024, maxDepth: 8, maxMembers: 100 });
  assert.deepEqual(decoder.next(), { type: 'raft', pad: 'x'.repeat(100), deep: [[[1]]] });
  assert.equal(decoder.next(), undefined);
  const strict = new FrameDecoder(undefined, { maxBytes: 32, maxDepth: 2, maxMembers: 8 });
  strict.append(encodeFrame({ type: 'raft', pad: 'x'.repeat(100) }));
  assert.throws(() => strict.next(), /frame of \d+ bytes \(limit 32\)/);
});

test("a data frame read across several chunks keeps its bytes in those chunks, uncopied; a JSON frame behind it is whole", () => {
  const data = Buffer.from(Array.from({ length: 40_000 }, (_, index) => index % 251));
  const stream = Buffer.concat([...encodeDataFrame('c1', data), encodeFrame({ type: 'c.ack', circuitId: 'c1', bytes: 7 })]);
  // TLS hands records over in 16 KiB pieces: each a buffer of its own.
  const chunks: Buffer[] = [];
  for (let at = 0; at < stream.length; at += 16_384) chunks.push(Buffer.from(stream.subarray(at, at + 16_384)));
  const decoder = new FrameDecoder(undefined, 1024);
  decoder.maxDataBytes = 64 * 1024;
  const frames = chunks.flatMap((chunk) => decoder.push(chunk));
  assert.equal(frames.length, 2);
  const frame = frames[0] as DataFrame;
  assert.ok(frame instanceof DataFrame);
  assert.equal(frame.circuitId, 'c1');
  assert.equal(frame.length, data.length);
  assert.equal(frame.parts.length, 3, 'the 40,000 bytes span three 16 KiB chunks');
  frame.parts.forEach((part, index) => assert.equal(part.buffer, chunks[index]!.buffer, `part ${index} is a view of chunk ${index}, not a copy`));
  assert.deepEqual(frame.data, data);
  assert.deepEqual(frames[1], { type: 'c.ack', circuitId: 'c1', bytes: 7 });
  // Any chunking, down to single bytes, gives the same frames.
  for (const size of [1, 5, 7, 1000]) {
    const again = new FrameDecoder(undefined, 1024);
    again.maxDataBytes = 64 * 1024;
    const out: unknown[] = [];
    for (let at = 0; at < stream.length; at += size) out.push(...again.push(stream.subarray(at, at + size)));
    assert.equal(out.length, 2, `chunks of ${size}`);
    assert.deepEqual((out[0] as DataFrame).data, data, `chunks of ${size}`);
    assert.deepEqual(out[1], frames[1]);
  }
});

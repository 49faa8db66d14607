import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeFrame, encodeJsonFrame, FrameDecoder } from './frame-codec.ts';

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

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeFrame, FrameDecoder } from './frame-codec.ts';

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

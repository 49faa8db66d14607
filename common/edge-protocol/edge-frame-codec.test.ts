import assert from 'node:assert/strict';
import { createServer, connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { FramedConnection } from '../channel/framed-connection.ts';
import { decodeHeaders, edgeFrameCodec, EdgeFrameReader, edgeFrameLimits, encodeEdgeMessage, helloLimits, versionNegotiationAnswer, type EdgeMessage } from './edge-frame-codec.ts';
import { encodeStringSlice, headerValue, readHeader } from './header-values.ts';

/** A hello as the fact sheet lays it out (§1.2, §1.7), written byte by byte rather than with the encoder. */
function handWrittenHello(): Buffer {
  const token = Buffer.from('api-session-token');
  const body = Buffer.from('ziti-sdk-c[0]@host');
  const entry = Buffer.alloc(8 + token.length);
  entry.writeInt32LE(1002, 0);
  entry.writeUInt32LE(token.length, 4);
  token.copy(entry, 8);
  const prefix = Buffer.from([0x03, 0x06, 0x09, 0x0c, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0]);
  prefix.writeUInt32LE(entry.length, 12);
  prefix.writeUInt32LE(body.length, 16);
  return Buffer.concat([prefix, entry, body]);
}

test('a hello written by hand from the wire layout decodes, even a byte at a time, and encodes back to the same bytes', () => {
  const bytes = handWrittenHello();
  const reader = new EdgeFrameReader(edgeFrameLimits, helloLimits);
  let message: EdgeMessage | undefined;
  for (const byte of bytes) {
    assert.equal(message, undefined);
    reader.append(Buffer.from([byte]));
    message = reader.next();
  }
  assert.ok(message);
  assert.equal(message.contentType, 0);
  assert.equal(message.sequence, -1);
  assert.equal(readHeader.string(message.headers.get(1002)), 'api-session-token');
  assert.equal(message.body.toString(), 'ziti-sdk-c[0]@host');
  assert.deepEqual(encodeEdgeMessage(message), bytes);
  assert.equal(reader.next(), undefined);
});

test('frames back to back in one chunk come out in order; an empty header block and body are fine', () => {
  const messages: EdgeMessage[] = [
    { contentType: 60786, sequence: 7, headers: new Map([[1000, headerValue.uint32(3)], [1001, headerValue.uint32(1)]]), body: Buffer.from('payload') },
    { contentType: 5, sequence: 8, headers: new Map(), body: Buffer.alloc(0) },
    { contentType: 2, sequence: 9, headers: new Map([[1, headerValue.int32(-1)], [2, headerValue.bool(true)]]), body: Buffer.alloc(0) },
  ];
  const reader = new EdgeFrameReader();
  reader.append(Buffer.concat(messages.map(encodeEdgeMessage)));
  const out = [reader.next(), reader.next(), reader.next(), reader.next()];
  assert.equal(out[3], undefined);
  assert.deepEqual(out.slice(0, 3).map((message) => [message!.contentType, message!.sequence, [...message!.headers.keys()], message!.body.toString()]), [
    [60786, 7, [1000, 1001], 'payload'],
    [5, 8, [], ''],
    [2, 9, [1, 2], ''],
  ]);
  assert.equal(readHeader.int32(out[2]!.headers.get(1)), -1);
  assert.equal(readHeader.uint32(out[0]!.headers.get(1000)), 3);
});

test('refused: another magic (with the version named), a hello over the hello limits, a later frame over the frame limits, bad header blocks', () => {
  const refuse = (bytes: Buffer, pattern: RegExp, reader = new EdgeFrameReader(edgeFrameLimits, helloLimits)) => {
    reader.append(bytes);
    assert.throws(() => reader.next(), pattern);
  };
  refuse(Buffer.from('GET / HTTP/1.1\r\n'), /invalid header \(magic 47455420\)/);
  refuse(Buffer.from([0x03, 0x06, 0x09, 0x0d]), /version 0306090d is not spoken/);
  const hello = (headerBytes: number, bodyBytes: number) => {
    const prefix = Buffer.alloc(20);
    Buffer.from([0x03, 0x06, 0x09, 0x0c]).copy(prefix);
    prefix.writeUInt32LE(headerBytes, 12);
    prefix.writeUInt32LE(bodyBytes, 16);
    return prefix;
  };
  refuse(hello(0, 4193), /a body of 4193 bytes exceeds 4192/);
  refuse(hello(16_385, 0), /a header block of 16385 bytes exceeds 16384/);
  refuse(hello(0, 0xffffffff), /exceeds/, new EdgeFrameReader());
  const later = new EdgeFrameReader(edgeFrameLimits, helloLimits);
  later.append(handWrittenHello());
  assert.ok(later.next());
  refuse(hello(0, 2 * 1024 * 1024), /a body of 2097152 bytes exceeds 1048576/, later);

  assert.throws(() => decodeHeaders(Buffer.alloc(3)), /a header block of 3 bytes/);
  const past = Buffer.alloc(12);
  past.writeInt32LE(1000, 0);
  past.writeUInt32LE(9, 4);
  assert.throws(() => decodeHeaders(past), /header 1000 runs past its block/);
  const twice = Buffer.concat([Buffer.from([0xe8, 3, 0, 0, 1, 0, 0, 0, 1]), Buffer.from([0xe8, 3, 0, 0, 1, 0, 0, 0, 2])]);
  assert.throws(() => decodeHeaders(twice), /header 1000 appears twice/);
});

test('header values: fixed widths written, strict widths read as the Go channel reads them; string slices within their caps', () => {
  assert.deepEqual(headerValue.uint16(65535), Buffer.from([0xff, 0xff]));
  assert.deepEqual(headerValue.uint64(1n << 40n), Buffer.from([0, 0, 0, 0, 0, 1, 0, 0]));
  assert.equal(readHeader.uint32(Buffer.from([1, 0, 0])), undefined, 'a uint32 of 3 bytes is absent');
  assert.equal(readHeader.uint16(Buffer.from([1, 0, 0, 0])), undefined);
  assert.equal(readHeader.bool(Buffer.from([2])), false, 'true only when the byte is 1');
  assert.equal(readHeader.uint64(headerValue.uint64(123456789012345n)), 123456789012345n);
  assert.deepEqual(readHeader.stringSlice(encodeStringSlice(['a', 'ünï', ''])), ['a', 'ünï', '']);
  assert.deepEqual(readHeader.stringSlice(Buffer.alloc(0)), []);
  const tooMany = Buffer.alloc(4);
  tooMany.writeUInt32LE(129);
  assert.equal(readHeader.stringSlice(tooMany), undefined);
  assert.equal(readHeader.stringSlice(encodeStringSlice(['x'.repeat(8193)])), undefined);
  assert.equal(readHeader.stringSlice(Buffer.concat([encodeStringSlice(['a']), Buffer.from([0])])), undefined, 'trailing bytes');
  assert.equal(versionNegotiationAnswer().toString('hex'), '0306090a020000000100000002000000');
});

test('on the common framed connection: a listener reads a hello and answers a Result that the dialer reads as the reply', async () => {
  const accepted: Socket[] = [];
  const listener = createServer((socket) => accepted.push(socket));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as { port: number };
  const client = connect(port, '127.0.0.1');
  try {
    await new Promise((resolve) => client.once('connect', resolve));
    const dialer = new FramedConnection(client, { codec: edgeFrameCodec({ listener: false }) });
    for (let i = 0; i < 200 && accepted.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    const edge = new FramedConnection(accepted[0]!, { codec: edgeFrameCodec({ listener: true }) });
    client.write(handWrittenHello());
    const hello = (await edge.next(2000)) as EdgeMessage;
    assert.equal(readHeader.string(hello.headers.get(1002)), 'api-session-token');
    edge.send({ contentType: 2, sequence: -1, headers: new Map([[1, headerValue.int32(hello.sequence)], [2, headerValue.bool(true)]]), body: Buffer.alloc(0) } satisfies EdgeMessage);
    const result = (await dialer.next(2000)) as EdgeMessage;
    assert.equal(result.contentType, 2);
    assert.equal(readHeader.int32(result.headers.get(1)), -1);
    assert.equal(readHeader.bool(result.headers.get(2)), true);
    client.write(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
    await assert.rejects(edge.next(2000), /invalid header/);
    assert.match(edge.closeReason!, /^bad frame: protocol error: invalid header/);
  } finally {
    client.destroy();
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => listener.close(resolve));
  }
});

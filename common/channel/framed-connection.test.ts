import assert from 'node:assert/strict';
import { createServer, connect, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { test } from 'node:test';
import { encodeFrame } from '../framing/frame-codec.ts';
import { jsonFrameCodec } from './channel-codec.ts';
import { FramedConnection, type FramedConnectionOptions } from './framed-connection.ts';

const codec = jsonFrameCodec({ limits: 1024 });

/** A connected pair of TCP sockets on 127.0.0.1; `close` ends both and the server. */
async function socketPair(): Promise<{ client: Socket; server: Socket; close(): Promise<void> }> {
  const accepted: Socket[] = [];
  const listener = createServer((socket) => accepted.push(socket));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as { port: number };
  const client = connect(port, '127.0.0.1');
  await new Promise((resolve) => client.once('connect', resolve));
  const deadline = Date.now() + 2000;
  while (accepted.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  const server = accepted[0]!;
  return {
    client,
    server,
    async close() {
      client.destroy();
      server.destroy();
      await new Promise((resolve) => listener.close(resolve));
    },
  };
}

const until = async (what: string, probe: () => boolean, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

function framed(socket: Socket, options: Partial<FramedConnectionOptions> = {}): FramedConnection {
  return new FramedConnection(socket, { codec, ...options });
}

test('frames arrive in order, those before a listener are kept, and a refused frame closes only after the ones before it', async () => {
  const pair = await socketPair();
  try {
    const server = framed(pair.server);
    const refused: string[] = [];
    const serverReasons: string[] = [];
    server.onClose((reason) => serverReasons.push(reason));
    pair.client.write(Buffer.concat([encodeFrame({ type: 'hello' }), encodeFrame({ n: 1 })]));
    assert.deepEqual(await server.next(2000), { type: 'hello' });
    const frames: unknown[] = [];
    await until('the second frame queued', () => (server as unknown as { queued: unknown[] }).queued.length === 1);
    server.onFrame((frame) => frames.push(frame));
    assert.deepEqual(frames, [{ n: 1 }]);
    const strict = framed(pair.client, { onRefusedFrame: (message) => refused.push(message) });
    strict.onFrame((frame) => (frames as unknown[]).push(frame));
    pair.server.write(Buffer.concat([encodeFrame({ n: 2 }), encodeFrame({ pad: 'x'.repeat(2000) }), encodeFrame({ n: 3 })]));
    await until('the client to close', () => strict.closed);
    assert.deepEqual(frames, [{ n: 1 }, { n: 2 }], 'the frame before the refused one arrived; none after it');
    assert.equal(refused.length, 1);
    assert.match(strict.closeReason!, /^bad frame: /);
    await until('the server to see the close', () => server.closed);
    assert.deepEqual(serverReasons, ['connection closed']);
    await assert.rejects(server.next(100), /connection closed/);
  } finally {
    await pair.close();
  }
});

test('two ends heartbeat each other: each measures round trips and neither sees heartbeat frames; a silent peer is closed with the silence reason', async () => {
  const pair = await socketPair();
  const silentPair = await socketPair();
  try {
    const a = framed(pair.client);
    const b = framed(pair.server);
    const delivered: unknown[] = [];
    a.onFrame((frame) => delivered.push(frame));
    b.onFrame((frame) => delivered.push(frame));
    const roundTrips: number[] = [];
    const queued: number[] = [];
    const timing = { sendIntervalMs: 20, checkIntervalMs: 10, unresponsiveMs: 300 };
    a.startHeartbeat(timing, { roundTrip: (ms) => roundTrips.push(ms), queued: (ms) => queued.push(ms) });
    b.startHeartbeat(timing);
    await until('round trips', () => roundTrips.length >= 3 && queued.length >= 3);
    assert.ok(roundTrips.every((ms) => ms >= 0 && ms < 300));
    assert.deepEqual(delivered, []);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(a.closed || b.closed, false, 'answering keeps both open');

    const lonely = framed(silentPair.client, { reasons: { silent: (silentMs, limitMs) => `quiet ${silentMs > limitMs} ${limitMs}` } });
    lonely.startHeartbeat({ sendIntervalMs: 20, checkIntervalMs: 10, unresponsiveMs: 100 });
    await until('the silent channel closed', () => lonely.closed);
    assert.equal(lonely.closeReason, 'quiet true 100');
  } finally {
    await pair.close();
    await silentPair.close();
  }
});

test('bounded writes: while the socket is backed up at most maxQueuedFrames wait and more are refused; they leave once it drains', async () => {
  const pair = await socketPair();
  try {
    pair.server.pause();
    const big = jsonFrameCodec({ limits: 8 * 1024 * 1024 });
    const sender = new FramedConnection(pair.client, { codec: big, writes: 'bounded', maxQueuedFrames: 3 });
    const payload = 'x'.repeat(1024 * 1024);
    let accepted = 0;
    for (let i = 0; i < 64; i++) if (sender.send({ i, payload })) accepted++;
    assert.ok(accepted < 64, `${accepted} of 64 taken while the reader is paused`);
    assert.ok(sender.droppedFrames > 0);
    const receiver = new FramedConnection(pair.server, { codec: big });
    const got: number[] = [];
    receiver.onFrame((frame) => got.push((frame as { i: number }).i));
    pair.server.resume();
    await until('every accepted frame', () => got.length === accepted, 10_000);
    assert.deepEqual(got, [...got].sort((x, y) => x - y), 'in order');
  } finally {
    await pair.close();
  }
});

test('coalesced writes of one tick arrive as separate frames in order; endAfterFlush delivers the last frame, then ends with its reason', async () => {
  const pair = await socketPair();
  try {
    const sender = framed(pair.client, { writes: 'coalesce' });
    const receiver = framed(pair.server);
    const got: unknown[] = [];
    receiver.onFrame((frame) => got.push(frame));
    const written: number[] = [];
    for (let n = 0; n < 5; n++) sender.send({ n }, () => written.push(n));
    await until('five frames', () => got.length === 5);
    assert.deepEqual(got, [0, 1, 2, 3, 4].map((n) => ({ n })));
    assert.deepEqual(written, [0, 1, 2, 3, 4]);
    for (const writes of ['direct', 'coalesce'] as const) await refuseThenEnd(writes);
  } finally {
    await pair.close();
  }
});

/** endAfterFlush right after a send: the peer reads the frame (also one still coalescing for this tick), then the end. */
async function refuseThenEnd(writes: 'direct' | 'coalesce'): Promise<void> {
  {
    const refusalPair = await socketPair();
    try {
      const refusing = framed(refusalPair.server, { writes });
      const reasons: string[] = [];
      refusing.onClose((reason) => reasons.push(reason));
      const refused = framed(refusalPair.client);
      const last: unknown[] = [];
      refused.onFrame((frame) => last.push(frame));
      refusing.send({ type: 'refused' });
      refusing.endAfterFlush('told to go', 500);
      await until('the refusing end closed', () => refusing.closed && refused.closed, 2000);
      assert.deepEqual(last, [{ type: 'refused' }], `the last frame was written before the end (${writes} writes)`);
      assert.deepEqual(reasons, ['told to go']);
    } finally {
      await refusalPair.close();
    }
  }
}

/** A socket stand-in that records each write the stream layer hands it: one buffer, or a writev's buffers. With
 * `backedUp`, a write is not taken until release() (a socket whose kernel buffer is full). */
class RecordingSocket extends Duplex {
  readonly writes: Buffer[][] = [];
  private held: Array<() => void> = [];
  constructor(private readonly backedUp = false) {
    super({ read() {} });
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.writes.push([chunk]);
    this.taken(callback);
  }
  override _writev(chunks: Array<{ chunk: Buffer }>, callback: (error?: Error | null) => void): void {
    this.writes.push(chunks.map(({ chunk }) => chunk));
    this.taken(callback);
  }
  release(): void {
    for (const callback of this.held.splice(0)) callback();
  }
  private taken(callback: () => void): void {
    if (this.backedUp) this.held.push(callback);
    else callback();
  }
}

test('gather: a frame on an idle connection leaves at once, not at the end of the turn, a data frame\'s parts in one writev', () => {
  const socket = new RecordingSocket();
  const connection = new FramedConnection(socket, { codec, writes: 'gather' });
  connection.send({ n: 1 });
  assert.deepEqual(socket.writes, [[encodeFrame({ n: 1 })]], 'written in the same turn');
  const header = Buffer.from('header');
  const body = Buffer.from('body');
  connection.sendEncoded([header, body]);
  assert.equal(socket.writes.length, 2);
  assert.ok(socket.writes[1]![0] === header && socket.writes[1]![1] === body, 'the parts in one writev, not copied');
  connection.close('done');
});

test('gather: while the socket is backed up, every frame and data part of the turn leaves in one writev, in order, callbacks after', async () => {
  const socket = new RecordingSocket(true);
  const connection = new FramedConnection(socket, { codec, writes: 'gather' });
  const written: string[] = [];
  const header = Buffer.from('header');
  const body = Buffer.from('body');
  connection.send({ n: 0 }, () => written.push('n0'));
  assert.equal(socket.writes.length, 1, 'the first frame left at once and is not taken yet');
  connection.send({ n: 1 });
  connection.sendEncoded([header, body], () => written.push('parts'));
  connection.send({ n: 2 }, () => written.push('n2'));
  assert.equal(socket.writes.length, 1, 'nothing more written while the socket is backed up');
  await new Promise((resolve) => setImmediate(resolve));
  socket.release();
  await until('the turn written', () => socket.writes.length === 2);
  assert.deepEqual(socket.writes[1], [encodeFrame({ n: 1 }), header, body, encodeFrame({ n: 2 })], 'one writev for the rest of the turn');
  assert.ok(socket.writes[1]![1] === header && socket.writes[1]![2] === body, 'the parts are not copied');
  socket.release();
  await until('the write callbacks', () => written.length === 3);
  assert.deepEqual(written, ['n0', 'parts', 'n2']);
  connection.close('done');
});

test('gatherTurns: every frame written in one turn leaves in one writev at its end, in order, callbacks after; the next turn\'s in its own', async () => {
  const socket = new RecordingSocket();
  const connection = new FramedConnection(socket, { codec, gatherTurns: true });
  const written: string[] = [];
  connection.send({ n: 0 }, () => written.push('n0'));
  connection.send({ n: 1 });
  connection.send({ n: 2 }, () => written.push('n2'));
  assert.equal(socket.writes.length, 0, 'held until the end of the turn');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(socket.writes, [[encodeFrame({ n: 0 }), encodeFrame({ n: 1 }), encodeFrame({ n: 2 })]], 'one writev for the turn');
  await until('the write callbacks', () => written.length === 2);
  assert.deepEqual(written, ['n0', 'n2']);
  connection.send({ n: 3 });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(socket.writes[1], [encodeFrame({ n: 3 })], 'a later turn\'s frame in a write of its own');
  connection.close('done');
});

test('gatherTurns: frames written in separate I/O callbacks of one poll (two peers\' reads) leave in one writev', async () => {
  const pairs = [await socketPair(), await socketPair()];
  try {
    const socket = new RecordingSocket();
    const connection = new FramedConnection(socket, { codec, gatherTurns: true });
    let reads = 0;
    for (const pair of pairs) pair.server.on('data', () => connection.send({ read: ++reads }));
    for (const pair of pairs) pair.client.write('a');
    // Both bytes reach the kernel before the loop polls again, so both reads are callbacks of the same poll.
    const until50ms = Date.now() + 50;
    while (Date.now() < until50ms);
    await until('both reads', () => reads === 2);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(socket.writes, [[encodeFrame({ read: 1 }), encodeFrame({ read: 2 })]]);
    connection.close('done');
  } finally {
    for (const pair of pairs) await pair.close();
  }
});

test('gatherTurns: closing the connection writes what the turn gathered before the socket goes', () => {
  const socket = new RecordingSocket();
  const connection = new FramedConnection(socket, { codec, gatherTurns: true });
  connection.send({ refused: 'last words' });
  connection.close('refused');
  assert.deepEqual(socket.writes, [[encodeFrame({ refused: 'last words' })]]);
  assert.ok(socket.destroyed);
});

test('gatherTurns with bounded writes: frames past the queue bound are still refused while the socket is backed up', async () => {
  const socket = new RecordingSocket(true);
  const connection = new FramedConnection(socket, { codec, writes: 'bounded', maxQueuedFrames: 2, gatherTurns: true });
  const big = { pad: 'x'.repeat(900) };
  // Fill past the socket's high-water mark (16 KiB): it is backed up from then on.
  let sent = 0;
  while (!socket.writableNeedDrain) {
    assert.ok(connection.send(big));
    sent++;
  }
  assert.ok(connection.send(big) && connection.send(big), 'two wait here');
  assert.equal(connection.send(big), false, 'the third is refused');
  assert.equal(connection.droppedFrames, 1);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(socket.writes.length, 1, `the turn's ${sent} frames in one writev`);
  assert.equal(socket.writes[0]!.length, sent);
  connection.close('done');
});

test('paced writes: a frame over paceOver goes to the socket one slice at a time, frames sent after it wait behind it, and the peer reads each whole and in order', async () => {
  const socket = new RecordingSocket(true);
  const big = jsonFrameCodec({ limits: 8 * 1024 * 1024 });
  const sender = new FramedConnection(socket, { codec: big, paceOver: 1024 });
  const written: string[] = [];
  sender.send({ type: 'model', pad: 'x'.repeat(10_000) }, () => written.push('model'));
  sender.send({ type: 'after' }, () => written.push('after'));
  assert.equal(socket.writes.length, 1, 'one slice handed on, the rest wait for it to be taken');
  assert.equal(socket.writes[0]![0]!.length, 1024);
  assert.ok(sender.pendingBytes > 9000, 'what waits is counted as unwritten');
  let drained = false;
  void sender.drained().then(() => (drained = true));
  for (let round = 0; round < 40 && socket.writes.length < 12; round++) {
    socket.release();
    await new Promise((resolve) => setImmediate(resolve));
  }
  socket.release();
  await until('every slice written', () => written.length === 2);
  assert.ok(socket.writes.every((write) => write.length === 1 && write[0]!.length <= 1024), 'no write over a slice');
  assert.deepEqual(written, ['model', 'after'], 'callbacks in order, once each frame is written');
  await until('drained() to resolve once nothing waits', () => drained);
  const stream = Buffer.concat(socket.writes.flat());
  const frames = big.newReader();
  frames.append(stream);
  assert.deepEqual([frames.next(), frames.next()].map((frame) => (frame as { type: string }).type), ['model', 'after']);
  assert.equal(frames.next(), undefined);

  // A refusal after a paced frame: written after it, and only then the end.
  const pair = await socketPair();
  try {
    const refusing = new FramedConnection(pair.server, { codec: big, paceOver: 1024 });
    const refused = new FramedConnection(pair.client, { codec: big });
    const got: string[] = [];
    refused.onFrame((frame) => got.push((frame as { type: string }).type));
    refusing.send({ type: 'model', pad: 'y'.repeat(100_000) });
    refusing.send({ type: 'refused' });
    refusing.endAfterFlush('told to go', 2000);
    await until('the refused end closed', () => refused.closed, 3000);
    assert.deepEqual(got, ['model', 'refused']);
  } finally {
    await pair.close();
  }
});

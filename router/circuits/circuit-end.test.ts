// A circuit end over a real loopback connection: how often it acknowledges what its socket has taken.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, it } from 'node:test';
import { ackDelayMs, CircuitEnd, type EndOutput } from './circuit-end.ts';

const chunk = 64 * 1024;

describe('circuit end acknowledgements', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  });

  /** A CircuitEnd on the server side of a loopback connection whose client reads everything; its outputs recorded. */
  async function endOverLoopback(windowBytes: number) {
    const server: Server = createServer({ allowHalfOpen: true, pauseOnConnect: true });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => server.close());
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const port = (server.address() as { port: number }).port;
    const client = connect({ host: '127.0.0.1', port });
    cleanups.push(() => client.destroy());
    let received = 0;
    const chunks: Buffer[] = [];
    client.on('data', (bytes: Buffer) => {
      received += bytes.length;
      chunks.push(bytes);
    });
    const [socket] = await accepted;
    cleanups.push(() => socket.destroy());
    const outputs: EndOutput[] = [];
    const end = new CircuitEnd(socket, (output) => outputs.push(output), windowBytes);
    end.start();
    cleanups.push(() => end.close(false));
    const acks = () => outputs.flatMap((output) => (output.kind === 'ack' ? [output.bytes] : []));
    return { end, acks, socket, received: () => received, bytes: () => Buffer.concat(chunks) };
  }

  async function until(what: string, done: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!done()) {
      assert.ok(performance.now() < deadline, `timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('acknowledges a bulk transfer about once per quarter window, not once per chunk', async () => {
    const windowBytes = 1024 * 1024;
    const { end, acks, received } = await endOverLoopback(windowBytes);
    const total = 8 * 1024 * 1024;
    // One chunk per turn of the event loop, as frames arrive from a link, staying within the window.
    for (let sent = 0; sent < total; sent += chunk) {
      await until('room in the window', () => sent - (acks().at(-1) ?? 0) < windowBytes - chunk);
      end.deliver(Buffer.alloc(chunk, 1));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await until('every byte acknowledged', () => acks().at(-1) === total);
    assert.equal(received(), total);
    const counts = acks();
    // A quarter window is 256 KiB: 32 in 8 MiB, and a few timed ones for a tail under it.
    assert.ok(counts.length <= 40, `${counts.length} acknowledgements for ${total / chunk} chunks`);
    assert.deepEqual([...counts].sort((a, b) => a - b), counts, 'cumulative: never going back');
    assert.equal(new Set(counts).size, counts.length, 'never the same count twice');
  });

  it('acknowledges a few bytes soon after they are written, though they are far under the threshold', async () => {
    const { end, acks, received } = await endOverLoopback(4 * 1024 * 1024);
    end.deliver(Buffer.from('ping'));
    const started = performance.now();
    await until('the acknowledgement of 4 bytes', () => acks().length > 0, 2_000);
    assert.deepEqual(acks(), [4]);
    assert.equal(received(), 4);
    assert.ok(performance.now() - started >= ackDelayMs - 2, 'held back for the ack delay, not sent per write');
    // Nothing new taken: no second acknowledgement.
    await new Promise((resolve) => setTimeout(resolve, 3 * ackDelayMs));
    assert.deepEqual(acks(), [4]);
  });

  it('writes a frame delivered in parts (as a link read it) whole and in order, and acknowledges all of it', async () => {
    const { end, acks, bytes } = await endOverLoopback(4 * 1024 * 1024);
    const first = Buffer.alloc(16_384, 1);
    const second = Buffer.alloc(16_384, 2);
    const third = Buffer.from('tail');
    end.deliver([first, second, third]);
    end.deliver(Buffer.from('next'));
    const total = first.length + second.length + third.length + 4;
    await until('every byte acknowledged', () => acks().at(-1) === total);
    assert.deepEqual(bytes(), Buffer.concat([first, second, third, Buffer.from('next')]));
    assert.equal(end.bytesOut, total);
    assert.equal(end.heldBytes, 0);
  });

  it('writes every multi-part frame delivered in one turn of the event loop with one writev, in order', async () => {
    const { end, acks, bytes, socket } = await endOverLoopback(4 * 1024 * 1024);
    let writevs = 0;
    const original = socket._writev!.bind(socket);
    socket._writev = (chunks, callback) => {
      writevs++;
      original(chunks, callback);
    };
    const frames = [1, 2, 3].map((n) => [Buffer.alloc(16_384, n), Buffer.alloc(100, n + 10)]);
    for (const frame of frames) end.deliver(frame);
    const total = frames.flat().reduce((sum, part) => sum + part.length, 0);
    await until('every byte acknowledged', () => acks().at(-1) === total);
    assert.equal(writevs, 1, 'one system call for the turn, not one per frame');
    assert.deepEqual(bytes(), Buffer.concat(frames.flat()));
  });
});

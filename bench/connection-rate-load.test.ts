import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { test } from 'node:test';
import { startEchoServer } from '../test/support/echo-server.ts';
import { echoOnce, measureConnectionRate } from './connection-rate-load.ts';

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

test('connections through an echo server are counted, each timed from connect to its whole echo', async () => {
  let accepted = 0;
  const echo = await startEchoServer(() => void accepted++);
  try {
    const rate = await measureConnectionRate({ host: '127.0.0.1', port: echo.port, seconds: 1, concurrency: 4, payloadBytes: 200 });
    assert.equal(rate.failed, 0, rate.firstFailure);
    assert.ok(rate.completed >= 20, `${rate.completed} connections in 1 s`);
    // Each loop's connection after the deadline is not counted; every counted one was accepted.
    assert.ok(accepted >= rate.completed && accepted <= rate.completed + 4, `${accepted} accepted, ${rate.completed} counted`);
    assert.ok(rate.perSecond > rate.completed * 0.9 && rate.perSecond < rate.completed * 1.1, `${rate.perSecond}/s for ${rate.completed} in 1 s`);
    assert.ok(rate.setupMs.p50 > 0 && rate.setupMs.p50 <= rate.setupMs.p99 && rate.setupMs.p99 <= rate.setupMs.max);
  } finally {
    await echo.close();
  }
});

test('a path that answers with less than the whole echo, or holds it, counts as failed with the cause', async () => {
  // Echoes half of what it gets, then closes: never a whole echo.
  const halfEcho = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', (chunk: Buffer) => socket.end(chunk.subarray(0, chunk.length >> 1)));
  });
  // Reads and never answers.
  const silent = createServer((socket) => socket.on('error', () => undefined));
  const [halfPort, silentPort] = [await listen(halfEcho), await listen(silent)];
  try {
    const half = await measureConnectionRate({ host: '127.0.0.1', port: halfPort, seconds: 0.5, concurrency: 2 });
    assert.equal(half.completed, 0);
    assert.ok(half.failed >= 2);
    assert.match(half.firstFailure ?? '', /closed after 32 of 64 echoed bytes/);
    assert.deepEqual(half.setupMs, { p50: 0, p99: 0, max: 0 });
    const held = await measureConnectionRate({ host: '127.0.0.1', port: silentPort, seconds: 0.2, concurrency: 1, deadlineMs: 300 });
    assert.equal(held.completed, 0);
    assert.equal(held.failed, 1);
    assert.match(held.firstFailure ?? '', /no whole echo within 300 ms \(0 of 64 bytes\)/);
  } finally {
    halfEcho.close();
    silent.close();
  }
});

test('a refused connection is a failure, not a crash', async () => {
  const closed = createServer();
  const port = await listen(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const rate = await measureConnectionRate({ host: '127.0.0.1', port, seconds: 0.2, concurrency: 2 });
  assert.equal(rate.completed, 0);
  assert.ok(rate.failed >= 2);
  assert.match(rate.firstFailure ?? '', /ECONNREFUSED/);
});

test('echoOnce: true through an echo server, false through a path that never answers whole', async () => {
  const echo = await startEchoServer();
  const silent = createServer((socket) => socket.on('error', () => undefined));
  const silentPort = await listen(silent);
  try {
    assert.equal(await echoOnce(echo.port), true);
    silent.close();
    // Listening no more: refused at once.
    assert.equal(await echoOnce(silentPort), false);
  } finally {
    await echo.close();
  }
});

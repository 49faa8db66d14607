// Slow and idle clients on the HTTPS listeners: a TCP connection that never starts TLS, headers or a body that
// trickle in, and more connections than a bind point takes are all cut off on the configured clocks, while the
// controller goes on answering everyone else.
import assert from 'node:assert/strict';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { after, before, test } from 'node:test';
import { until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';

let controller: ControllerFixture;
let host: string;
let port: number;

const limits = { readTimeout: 1000, requestTimeout: 2000, handshakeTimeout: 1000, maxConnections: 12 };

before(async () => {
  controller = await ControllerFixture.create({
    editConfig: (yaml) =>
      yaml.replace(
        /      readTimeout: 5s\n      writeTimeout: 100s[^\n]*\n      requestTimeout: 30s[^\n]*\n      handshakeTimeout: 10s\n      maxConnections: 4096[^\n]*\n/,
        `      readTimeout: ${limits.readTimeout}ms\n      writeTimeout: 100s\n      requestTimeout: ${limits.requestTimeout}ms\n      handshakeTimeout: ${limits.handshakeTimeout}ms\n      maxConnections: ${limits.maxConnections}\n`,
      ),
  });
  assert.match(controller.configFile, /ctrl\.yml$/);
  const origin = new URL(controller.origin);
  host = origin.hostname;
  port = Number(origin.port);
});
after(async () => controller?.dispose());

/** Resolves with how long the server took to close the socket (ms, from `started`), or rejects past `withinMs`. */
function closedWithin(socket: Socket, withinMs: number, started = performance.now()): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for more than ${withinMs} ms`));
    }, withinMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(performance.now() - started);
    });
    socket.on('error', () => undefined);
  });
}

function tlsSocket(): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host, port, ca: controller.caPem, servername: 'localhost' }, () => resolve(socket));
    socket.once('error', reject);
  });
}

async function versionAnswers(): Promise<boolean> {
  const response = await controller.http.get(`${controller.clientApi}/version`);
  return response.status === 200;
}

test('a TCP connection that never starts its TLS handshake is closed after handshakeTimeout', async () => {
  // Timed from before the connect: the server's clock starts when it accepts, which a busy test process can hear of
  // late, and a late start would make an on-time close look early.
  const connecting = performance.now();
  const socket = netConnect({ host, port });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const ms = await closedWithin(socket, limits.handshakeTimeout + 3000, connecting);
  assert.ok(ms >= limits.handshakeTimeout - 100, `closed after ${ms} ms, before the timeout`);
  assert.ok(await versionAnswers());
});

test('request headers that trickle in are cut off after readTimeout', async () => {
  const socket = await tlsSocket();
  socket.write('GET /edge/client/v1/version HTTP/1.1\r\nHost: localhost\r\n');
  // One more header byte every 200 ms: the connection is never idle, the headers are never complete.
  const trickle = setInterval(() => socket.writable && socket.write('x'), 200);
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  try {
    const ms = await closedWithin(socket, limits.readTimeout + 3000);
    assert.ok(ms >= limits.readTimeout - 100, `closed after ${ms} ms`);
    assert.match(answer, /^HTTP\/1\.1 408/, 'Node answers 408 Request Timeout before closing');
  } finally {
    clearInterval(trickle);
  }
  assert.ok(await versionAnswers());
});

test('a request body that trickles in is cut off after requestTimeout, though each byte comes well within readTimeout', async () => {
  const socket = await tlsSocket();
  socket.write('POST /edge/client/v1/authenticate?method=password HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
  const trickle = setInterval(() => socket.writable && socket.write(' '), 200);
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  try {
    const ms = await closedWithin(socket, limits.requestTimeout + 3000);
    assert.ok(ms >= limits.requestTimeout - 100, `closed after ${ms} ms`);
    assert.match(answer, /^HTTP\/1\.1 408/);
  } finally {
    clearInterval(trickle);
  }
  assert.ok(await versionAnswers());
  // The handler reading that body hears it was cut off: a refusal logged at info, not an unhandled server error.
  const cutOff = /"msg":"request refused".*"code":"COULD_NOT_PARSE_BODY".*cut off/;
  await until('the cut-off body in the log', () => cutOff.test(controller.readLog()), 5000).catch(() => undefined);
  assert.match(controller.readLog(), cutOff);
  assert.doesNotMatch(controller.readLog(), /unhandled error serving request/);
});

test('past maxConnections a bind point closes new connections at once, logs it, and serves again once they go', async () => {
  const held: Socket[] = [];
  // The test client's keep-alive connections would count toward the cap too.
  controller.http.close();
  await new Promise((resolve) => setTimeout(resolve, 200));
  try {
    for (let i = 0; i < limits.maxConnections; i++) {
      const socket = netConnect({ host, port });
      socket.on('error', () => undefined);
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      held.push(socket);
    }
    // Past the cap: accepted by the kernel, then closed by the server straight away (well before any timeout).
    const extra = netConnect({ host, port });
    const ms = await closedWithin(extra, limits.handshakeTimeout - 200);
    assert.ok(ms < limits.handshakeTimeout - 200, `closed after ${ms} ms`);
    assert.ok(held.every((socket) => !socket.destroyed), 'the connections within the cap stay open');
  } finally {
    for (const socket of held) socket.destroy();
  }
  const deadline = Date.now() + 5000;
  while (!(await versionAnswers().catch(() => false))) {
    assert.ok(Date.now() < deadline, 'the listener serves again once the held connections are gone');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The log file is written asynchronously (a write stream): under load the line can land a little after the drop.
  await until('the refusal in the log', () => /web listener refused connections/.test(controller.readLog()), 5000).catch(() => undefined);
  const log = controller.readLog();
  assert.match(log, /web listener refused connections: maxConnections reached/);
  assert.match(log, new RegExp(`"maxConnections":${limits.maxConnections}`));
});

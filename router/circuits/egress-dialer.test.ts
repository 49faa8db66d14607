import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { EgressDialer, parseTerminatorAddress } from './egress-dialer.ts';

describe('parseTerminatorAddress', () => {
  it('reads tcp:host:port, with a name, an IPv4 or a bracketed IPv6 host', () => {
    assert.deepEqual(parseTerminatorAddress('tcp:127.0.0.1:8080'), { host: '127.0.0.1', port: 8080 });
    assert.deepEqual(parseTerminatorAddress('tcp:db.internal:5432'), { host: 'db.internal', port: 5432 });
    assert.deepEqual(parseTerminatorAddress('tcp:[::1]:443'), { host: '::1', port: 443 });
    assert.deepEqual(parseTerminatorAddress('tcp:[fe80::1%eth0]:22'), { host: 'fe80::1%eth0', port: 22 });
    assert.deepEqual(parseTerminatorAddress('tcp:h:1'), { host: 'h', port: 1 });
    assert.deepEqual(parseTerminatorAddress('tcp:h:65535'), { host: 'h', port: 65535 });
  });

  it('refuses bad ports', () => {
    for (const address of ['tcp:h:0', 'tcp:h:65536', 'tcp:h:99999', 'tcp:h:123456', 'tcp:h:', 'tcp:h:-1', 'tcp:h:80x', 'tcp:h', 'tcp:[::1]:0']) {
      assert.equal(parseTerminatorAddress(address), undefined, address);
    }
  });

  it('refuses other protocols, unbracketed IPv6 and garbage', () => {
    for (const address of ['udp:127.0.0.1:53', 'tls:127.0.0.1:443', 'TCP:127.0.0.1:80', '127.0.0.1:80', 'tcp:::1:80', 'tcp::80', 'tcp:[::1]80', '', 'tcp:a b:80x']) {
      assert.equal(parseTerminatorAddress(address), undefined, address);
    }
  });

  // Known bug (reported, not fixed here): the second alternative of the host pattern, `[^:]+`, also takes a
  // bracket, so `tcp:[]:80` reads as host '' (which net.connect dials as localhost) and `tcp:[abc:80` as host 'ab'.
  it('refuses an empty or unbalanced bracketed host', () => {
    for (const address of ['tcp:[]:80', 'tcp:[abc:80', 'tcp:abc]:80']) assert.equal(parseTerminatorAddress(address), undefined, address);
  });
});

describe('EgressDialer', () => {
  let server: Server;
  let port: number;
  const accepted = new Set<Socket>();
  let connections = 0;

  before(async () => {
    server = createServer({ allowHalfOpen: true }, (socket) => {
      connections++;
      accepted.add(socket);
      socket.on('error', () => undefined);
      socket.once('close', () => accepted.delete(socket));
      socket.pipe(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as { port: number }).port;
  });
  after(async () => {
    for (const socket of accepted) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const options = { queueLength: 4, workers: 2, dwellMs: 0, timeoutMs: 2_000 };

  it('dials a local TCP server: a paused, half-open-allowed socket that carries bytes', async () => {
    const dialer = new EgressDialer(options);
    const socket = await dialer.dial(`tcp:127.0.0.1:${port}`);
    try {
      assert.equal(socket.remotePort, port);
      assert.equal(socket.allowHalfOpen, true);
      assert.equal(socket.isPaused(), true);
      const echoed = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString())));
      socket.resume();
      socket.write('ping');
      assert.equal(await echoed, 'ping');
    } finally {
      socket.destroy();
      dialer.stop();
    }
  });

  it('a refused port rejects, naming the address', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const deadPort = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const dialer = new EgressDialer(options);
    const address = `tcp:127.0.0.1:${deadPort}`;
    await assert.rejects(dialer.dial(address), (error: Error) => {
      assert.ok(error.message.includes(address), error.message);
      assert.match(error.message, /ECONNREFUSED/);
      return true;
    });
    dialer.stop();
  });

  it('an address it cannot parse rejects, naming it', async () => {
    const dialer = new EgressDialer(options);
    await assert.rejects(dialer.dial('udp:127.0.0.1:53'), /cannot dial terminator address udp:127.0.0.1:53/);
    dialer.stop();
  });

  it('with one worker and room for one waiting, a third concurrent dial is refused at once', async () => {
    const dwellMs = 150;
    const dialer = new EgressDialer({ queueLength: 1, workers: 1, dwellMs, timeoutMs: 2_000 });
    const address = `tcp:127.0.0.1:${port}`;
    const started = performance.now();
    const first = dialer.dial(address);
    const second = dialer.dial(address);
    assert.equal(dialer.waiting, 1);
    let refusedAfter = Number.NaN;
    await assert.rejects(
      dialer.dial(address).finally(() => (refusedAfter = performance.now() - started)),
      /xgress dial queue is full \(1 waiting, 1 dialing\)/,
    );
    assert.ok(refusedAfter < dwellMs, `refused after ${refusedAfter}ms, not at once`);
    const sockets = await Promise.all([first, second]);
    const elapsed = performance.now() - started;
    for (const socket of sockets) socket.destroy();
    assert.ok(elapsed >= 2 * dwellMs - 2, `two dials through one worker took ${elapsed}ms, under two dwell times`);
    dialer.stop();
  });

  it('the dwell time delays the dial by at least the dwell', async () => {
    const dwellMs = 120;
    const dialer = new EgressDialer({ queueLength: 4, workers: 1, dwellMs, timeoutMs: 2_000 });
    const connectionsBefore = connections;
    const started = performance.now();
    const dial = dialer.dial(`tcp:127.0.0.1:${port}`);
    await new Promise((resolve) => setTimeout(resolve, dwellMs / 2));
    const duringDwell = connections - connectionsBefore;
    const socket = await dial;
    assert.equal(duringDwell, 0, 'nothing dialed during the dwell');
    const elapsed = performance.now() - started;
    socket.destroy();
    assert.ok(elapsed >= dwellMs - 2, `dialed after ${elapsed}ms, dwell ${dwellMs}ms`);
    dialer.stop();
  });

  it('a stopped dialer refuses new dials, and one waiting out its dwell', async () => {
    const dialer = new EgressDialer({ queueLength: 4, workers: 1, dwellMs: 50, timeoutMs: 2_000 });
    const waiting = dialer.dial(`tcp:127.0.0.1:${port}`);
    dialer.stop();
    await assert.rejects(waiting, /router stopping/);
    await assert.rejects(dialer.dial(`tcp:127.0.0.1:${port}`), /router stopping/);
  });
});

// Receivers enforce flow control, over the real link protocol: a router under test (a real LinkManager with a TLS
// link listener, and its Forwarder) and link peers driven by hand from the test (mutual TLS, `link.hello`, circuit
// frames and data frames), which behave as a faulty or hostile router would: a sender that ignores acknowledgements,
// a next hop that stops reading. Also the circuit caps, at a link (c.fail), at a tunnel listener (closed) and at an
// HTTP CONNECT edge listener (429 / 503).
import assert from 'node:assert/strict';
import { randomBytes, X509Certificate } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { after, afterEach, before, describe, it } from 'node:test';
import { routeDigest, RouteSigner, type CircuitRoute } from '../../common/circuits/circuit-route.ts';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { systemClock } from '../../common/time/clock.ts';
import type { ForwarderConfig } from '../config/router-config.ts';
import { FramedSocket } from '../links/framed-socket.ts';
import { LinkManager } from '../links/link-manager.ts';
import type { LinkTlsMaterial } from '../links/link-manager-api.ts';
import { createTestPki, defaultForwarder, linkRouterConfig, sleep, waitFor, type TestPki } from '../links/link-test-support.ts';
import { rawLinkPeer, type RawLinkPeer } from '../links/raw-link-peer.ts';
import { controllerTrustOf } from '../run/controller-identity.ts';
import { windowOverrunReason, windowSlackBytes } from './circuit-end.ts';
import { testCircuitRoute, testServiceId } from './circuit-route-test-support.ts';
import { EdgeConnectListeners } from './edge-connect-listener.ts';
import { Forwarder, type ForwarderTiming } from './forwarder.ts';
import { ReadySigner } from './ready-proof.ts';

const serviceId = testServiceId;
const chunk = FramedSocket.maxDataBytes;

describe('flow control and circuit caps over real links', () => {
  let pki: TestPki;
  let signer: RouteSigner;
  const tlsCache = new Map<string, LinkTlsMaterial>();
  /** Each router's enrolled certificate's SHA-1 fingerprint (a route names its egress's). */
  const fingerprints = new Map<string, string>();
  let cleanups: Array<() => unknown> = [];

  before(async () => {
    pki = await createTestPki();
    const controller = await pki.controllerTls('ctrl1');
    signer = new RouteSigner(controller.keyPem, controller.certPem);
    for (const id of ['r1', 'r2', 'r3']) fingerprints.set(id, new X509Certificate((await tlsFor(id)).certPem).fingerprint.replaceAll(':', '').toLowerCase());
  });
  after(async () => {
    await pki.dispose();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups = [];
  });

  async function tlsFor(routerId: string): Promise<LinkTlsMaterial> {
    if (!tlsCache.has(routerId)) tlsCache.set(routerId, await pki.routerTls(routerId));
    return tlsCache.get(routerId)!;
  }

  /** Router r2: a link listener (heartbeats every 100 ms, silence closes a link after 800 ms) and its forwarder. */
  async function routerUnderTest(options: { config?: Partial<ForwarderConfig>; timing?: Partial<ForwarderTiming>; answer?: (service: string, apiSession: string | undefined) => unknown } = {}) {
    const logger = createMemoryLogger('info');
    const tls = await tlsFor('r2');
    const links = new LinkManager(
      { config: linkRouterConfig({ listener: { groups: ['default'] } }), routerId: 'r2', tls, logger },
      { timing: { heartbeatIntervalMs: 100, unresponsiveTimeoutMs: 800 }, handshakeTimeoutMs: 2_000 },
    );
    await links.start();
    cleanups.push(() => links.stop());
    const hosted = new Map<string, string>();
    const calls: Array<{ service: string; apiSession: string | undefined }> = [];
    const forwarder = new Forwarder({
      routerId: 'r2',
      links,
      caPem: pki.caPem,
      controllerTrust: controllerTrustOf(pki.caPem),
      controllerMembers: () => new Set(['ctrl1']),
      identity: { certPem: tls.certPem, keyPem: tls.keyPem },
      hosted: () => hosted,
      requestCircuit: async (service, _avoid, apiSession) => {
        calls.push({ service, apiSession });
        return options.answer ? options.answer(service, apiSession) : assert.fail('no controller here');
      },
      config: { ...defaultForwarder, ...(options.config ?? {}) },
      ...(options.timing ? { timing: options.timing } : {}),
      clock: systemClock,
      logger,
    });
    forwarder.start();
    cleanups.push(() => forwarder.stop());
    const port = Number(links.listenerInfos()[0]!.advertise.split(':').pop());
    const logged = (msg: string) => logger.lines.filter((line) => line.msg === msg);
    return { links, forwarder, hosted, port, logger, logged, calls };
  }

  async function peer(port: number, routerId: string, linkId: string, split = false): Promise<RawLinkPeer> {
    const raw = await rawLinkPeer(port, await tlsFor(routerId), routerId, linkId, split);
    cleanups.push(() => raw.socket.destroy());
    return raw;
  }

  function route(routers: readonly string[], links: readonly string[], address: string, overrides: Partial<CircuitRoute> = {}): CircuitRoute {
    return testCircuitRoute(routers, links, address, fingerprints.get(routers[routers.length - 1]!)!, overrides);
  }

  async function listen(server: Server): Promise<number> {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return (server.address() as { port: number }).port;
  }

  /** A tunnel listener in front of `forwarder`: each connection, accepted paused, dials `echo` as listener `echo:test`. */
  async function tunnelListener(forwarder: Forwarder): Promise<number> {
    const accepted: Socket[] = [];
    const listener = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (socket) => {
      accepted.push(socket);
      void forwarder.dial('echo', socket, 'echo:test').catch(() => socket.destroy());
    });
    const port = await listen(listener);
    cleanups.push(() => accepted.forEach((socket) => socket.destroy()));
    return port;
  }

  /** A terminator's TCP server; `read: false` accepts connections paused and never reads them. */
  async function terminator(read: boolean) {
    const sockets: Socket[] = [];
    const server = createServer({ allowHalfOpen: true, pauseOnConnect: !read }, (socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
      if (read) socket.pipe(socket);
    });
    const port = await listen(server);
    cleanups.push(() => sockets.forEach((socket) => socket.destroy()));
    return { address: `tcp:127.0.0.1:${port}`, sockets };
  }

  /** r1 sets a circuit up through the raw peer and waits for its answer (c.ready or c.fail). */
  async function setUp(r1: RawLinkPeer, circuit: CircuitRoute): Promise<Record<string, unknown>> {
    r1.send({ type: 'c.setup', circuitId: circuit.circuitId, route: signer.sign(circuit), hop: 1 });
    return r1.frame(`an answer to the setup of ${circuit.circuitId}`, (frame) => (frame.type === 'c.ready' || frame.type === 'c.fail') && frame.circuitId === circuit.circuitId);
  }

  // ---- the receiving end refuses data beyond its window -----------------------------------------------------

  it('a sender that ignores acknowledgements loses its circuit, and the receiving router holds at most one window', async () => {
    const windowBytes = 256 * 1024;
    const r2 = await routerUnderTest({ timing: { windowBytes } });
    const server = await terminator(false);
    r2.hosted.set(serviceId, server.address);
    const r1 = await peer(r2.port, 'r1', 'l12');
    const circuit = route(['r1', 'r2'], ['l12'], server.address);
    assert.equal((await setUp(r1, circuit)).type, 'c.ready');

    // What r2's end holds for the circuit (received, not taken by the terminator's socket), sampled throughout.
    let worst = 0;
    const sampler = setInterval(() => (worst = Math.max(worst, r2.forwarder.stats().bufferedBytes)), 1);
    cleanups.push(() => clearInterval(sampler));
    const floodBytes = 32 * 1024 * 1024;
    const payload = randomBytes(chunk);
    let sent = 0;
    const closedFrame = () => r1.frames.find((frame) => frame.type === 'c.close' && frame.circuitId === circuit.circuitId);
    const started = performance.now();
    while (sent < floodBytes && !closedFrame() && performance.now() - started < 20_000) {
      const outcome = await r1.sendData(circuit.circuitId, payload);
      if (outcome !== 'written') break;
      sent += chunk;
    }
    const close = await r1.frame('c.close for the overrunning circuit', (frame) => frame.type === 'c.close' && frame.circuitId === circuit.circuitId, 10_000);
    clearInterval(sampler);
    worst = Math.max(worst, r2.forwarder.stats().bufferedBytes);

    assert.deepEqual({ graceful: close.graceful, reason: close.reason }, { graceful: false, reason: windowOverrunReason });
    assert.ok(worst <= windowBytes + windowSlackBytes, `r2 held ${worst} bytes for one circuit, over its window (${windowBytes}) plus one frame`);
    assert.ok(sent > windowBytes + windowSlackBytes, `the sender got ${sent} bytes out before the close`);
    assert.ok(sent < floodBytes, 'the circuit was closed before the flood was over');
    const lines = r2.logged('circuit closed: the sender exceeded the flow-control window');
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.circuitId, circuit.circuitId);
    assert.equal(lines[0]!.peerRouterId, 'r1');
    assert.equal(lines[0]!.level, 'warn');
    assert.equal(r2.forwarder.stats().windowOverruns, 1);
    // The terminator's connection is closed (it notices once it reads).
    const upstream = server.sockets[0]!;
    let over = false;
    upstream.once('end', () => (over = true)).once('close', () => (over = true));
    upstream.resume();
    await waitFor('the terminator connection closed', () => over, 5_000);
    await waitFor('the circuit gone from r2', () => r2.forwarder.stats().circuits === 0, 5_000);
    assert.deepEqual(
      r2.links.links().map((link) => link.id),
      ['l12'],
      'the link itself stays up: only the circuit is closed',
    );
  });

  it('an egress that ignores acknowledgements toward a client that does not read loses its circuit at the ingress, which holds at most one window', async () => {
    const windowBytes = 256 * 1024;
    let signed: ReturnType<RouteSigner['sign']> | undefined;
    const r2 = await routerUnderTest({
      timing: { windowBytes },
      answer: () => {
        signed = signer.sign(route(['r2', 'r3'], ['l23'], 'tcp:127.0.0.1:9'));
        return { route: signed };
      },
    });
    const r3 = await peer(r2.port, 'r3', 'l23');
    const port = await tunnelListener(r2.forwarder);
    // The client connects and never reads.
    const client = connect({ host: '127.0.0.1', port });
    client.on('error', () => undefined);
    client.pause();
    cleanups.push(() => client.destroy());

    const setup = await r3.frame('the setup at r3', (frame) => frame.type === 'c.setup');
    const circuitId = String(setup.circuitId);
    const tls = await tlsFor('r3');
    r3.send({ type: 'c.ready', circuitId, proof: new ReadySigner(tls.keyPem, tls.certPem).sign(circuitId, routeDigest(signed!), undefined) });
    await waitFor('the circuit up at r2', () => r2.logged('circuit created').length === 1);

    let worst = 0;
    const sampler = setInterval(() => (worst = Math.max(worst, r2.forwarder.stats().bufferedBytes)), 1);
    cleanups.push(() => clearInterval(sampler));
    const payload = randomBytes(chunk);
    const closed = () => r3.frames.some((frame) => frame.type === 'c.close' && frame.circuitId === circuitId);
    const started = performance.now();
    for (let sent = 0; sent < floodBytes && !closed() && performance.now() - started < 20_000; sent += chunk) {
      if ((await r3.sendData(circuitId, payload)) !== 'written') break;
    }
    const close = await r3.frame('c.close for the overrunning circuit', (frame) => frame.type === 'c.close' && frame.circuitId === circuitId, 10_000);
    clearInterval(sampler);
    assert.equal(close.reason, windowOverrunReason);
    assert.ok(worst <= windowBytes + windowSlackBytes, `the ingress held ${worst} bytes for one circuit, over its window (${windowBytes}) plus one frame`);
    assert.equal(r2.logged('circuit closed: the sender exceeded the flow-control window')[0]?.peerRouterId, 'r3');
    let over = false;
    client.once('close', () => (over = true));
    client.resume();
    await waitFor('the client connection closed', () => over, 10_000);
  });

  // ---- a transit router stops reading a link it cannot forward from -------------------------------------------

  /**
   * r1 → r2 → r3 with r2 under test: r3 stops reading, and r1 sends without regard for any window until its own
   * socket cannot take more (r2 stopped reading l12). `worst()`: the most r2 queued toward r3 meanwhile.
   */
  async function stalledTransit(transit: { highWaterBytes: number; lowWaterBytes: number }, split = false) {
    const r2 = await routerUnderTest({ timing: { transit } });
    const r1 = await peer(r2.port, 'r1', 'l12', split);
    const r3 = await peer(r2.port, 'r3', 'l23');
    const circuit = route(['r1', 'r2', 'r3'], ['l12', 'l23'], 'tcp:127.0.0.1:9');
    r1.send({ type: 'c.setup', circuitId: circuit.circuitId, route: signer.sign(circuit), hop: 1 });
    await r3.frame('the setup passed on to r3', (frame) => frame.type === 'c.setup' && frame.circuitId === circuit.circuitId);
    r3.send({ type: 'c.ready', circuitId: circuit.circuitId });
    await r1.frame('c.ready back at r1', (frame) => frame.type === 'c.ready' && frame.circuitId === circuit.circuitId);

    r3.socket.pause();
    const toward = r2.links.linkById('l23')!;
    let worst = 0;
    const sampler = setInterval(() => (worst = Math.max(worst, toward.pendingBytes)), 1);
    cleanups.push(() => clearInterval(sampler));
    const payload = randomBytes(chunk);
    let sent = 0;
    let outcome: 'written' | 'stalled' | 'closed' = 'written';
    while (sent < floodBytes && outcome === 'written') {
      outcome = await r1.sendData(circuit.circuitId, payload, 1_500);
      // A stalled frame is in r1's socket all the same: it goes once r2 reads again.
      if (outcome !== 'closed') sent += chunk;
    }
    assert.equal(outcome, 'stalled', `r1 sent all ${sent} bytes: r2 never stopped reading its link`);
    return { r1, r2, r3, circuit, payload, sent, worst: () => worst, stopSampling: () => clearInterval(sampler) };
  }

  const floodBytes = 64 * 1024 * 1024;

  for (const shape of ['single', 'split'] as const) {
    it(`a transit router stops reading a link (${shape}) while the next link does not take what it forwards, and reads it again after`, async () => {
      const transit = { highWaterBytes: 1024 * 1024, lowWaterBytes: 256 * 1024 };
      const { r1, r2, r3, circuit, payload, sent, worst: worstQueued, stopSampling } = await stalledTransit(transit, shape === 'split');
      await waitFor('r2 logs the pause', () => r2.logged('link reading paused: forwarded bytes over the high-water mark').length > 0, 2_000);
      // The link stays paused well past its silence timeout (800 ms): this end's pause is not the peer's silence.
      await sleep(1_500);
      stopSampling();
      const worst = worstQueued();
      assert.deepEqual(r2.links.links().map((link) => link.id).sort(), ['l12', 'l23'], 'both links stay up while one is not read');
      assert.ok(worst <= transit.highWaterBytes + 4 * chunk, `r2 queued ${worst} bytes toward r3, over the high-water mark (${transit.highWaterBytes}) plus a few frames`);
      const paused = r2.logged('link reading paused: forwarded bytes over the high-water mark')[0]!;
      assert.equal(paused.linkId, 'l12');
      assert.ok(r2.forwarder.stats().linkReadPauses >= 1);

      // r3 reads again: r2 drains under the low-water mark, reads l12 again, and every byte r1 sent arrives.
      r3.socket.resume();
      let more = 0;
      let again: 'written' | 'stalled' | 'closed' = 'written';
      while (sent + more < floodBytes && again === 'written') {
        again = await r1.sendData(circuit.circuitId, payload, 5_000);
        if (again !== 'closed') more += chunk;
      }
      assert.equal(again, 'written', 'r1 could send again');
      await waitFor('every byte at r3', () => r3.dataBytes.get(circuit.circuitId) === sent + more, 20_000);
      assert.ok(r2.logged('link reading resumed: forwarded bytes under the low-water mark').some((line) => line.linkId === 'l12'));
    });
  }

  it('a link paused for a next hop that never reads is read again once that next link closes, and the circuit over it is closed', async () => {
    const { r1, r2, r3, circuit, payload } = await stalledTransit({ highWaterBytes: 1024 * 1024, lowWaterBytes: 256 * 1024 });
    r3.socket.destroy();
    await r1.frame('c.close for the circuit whose next link closed', (frame) => frame.type === 'c.close' && frame.circuitId === circuit.circuitId);
    // r2 reads l12 again: r1's queued writes drain, and more bytes go (dropped by r2: the circuit is gone).
    assert.equal(await r1.sendData(circuit.circuitId, payload, 5_000), 'written');
    await waitFor('r1 has nothing left queued', () => r1.socket.writableLength === 0, 5_000);
    assert.deepEqual(r2.links.links().map((link) => link.id), ['l12']);
    assert.ok(r2.logged('link reading resumed: forwarded bytes under the low-water mark').some((line) => line.linkId === 'l12'));
  });

  // ---- circuit caps -------------------------------------------------------------------------------------------

  it('forwarder.maxCircuits: a setup arriving over a link at a full router fails with c.fail naming the limit, and fits again once a circuit closes', async () => {
    const r2 = await routerUnderTest({ config: { maxCircuits: 2 } });
    const server = await terminator(true);
    r2.hosted.set(serviceId, server.address);
    const r1 = await peer(r2.port, 'r1', 'l12');
    const first = route(['r1', 'r2'], ['l12'], server.address);
    assert.equal((await setUp(r1, first)).type, 'c.ready');
    assert.equal((await setUp(r1, route(['r1', 'r2'], ['l12'], server.address))).type, 'c.ready');
    const third = await setUp(r1, route(['r1', 'r2'], ['l12'], server.address));
    assert.deepEqual({ type: third.type, reason: third.reason, avoid: third.avoid }, { type: 'c.fail', reason: 'the router is at its circuit limit (forwarder.maxCircuits: 2)', avoid: 'r2' });
    assert.equal(server.sockets.length, 2, 'nothing was dialed for the refused circuit');
    assert.equal(r2.forwarder.stats().limitRefusals, 1);
    assert.ok(r2.logged('circuit setup refused').some((line) => line.reason === 'the router is at its circuit limit (forwarder.maxCircuits: 2)'));

    r1.send({ type: 'c.close', circuitId: first.circuitId, graceful: false, reason: 'done' });
    await waitFor('one circuit left', () => r2.forwarder.stats().circuits === 1);
    assert.equal((await setUp(r1, route(['r1', 'r2'], ['l12'], server.address))).type, 'c.ready');
  });

  it('forwarder.maxCircuits at a tunnel listener: the connection beyond it is closed without asking the controller, and logged', async () => {
    const r2 = await routerUnderTest({ config: { maxCircuits: 2 }, answer: () => ({ route: signer.sign(route(['r2'], [], server.address, { identityId: 'r2' })) }) });
    const server = await terminator(true);
    r2.hosted.set(serviceId, server.address);
    const port = await tunnelListener(r2.forwarder);

    const clients: Socket[] = [];
    const echoed = async (socket: Socket) => {
      const got: Buffer[] = [];
      socket.on('data', (bytes: Buffer) => got.push(bytes));
      socket.write('ping');
      await waitFor('the echo', () => Buffer.concat(got).toString() === 'ping');
    };
    for (let i = 0; i < 2; i++) {
      const socket = connect({ host: '127.0.0.1', port });
      socket.on('error', () => undefined);
      clients.push(socket);
      cleanups.push(() => socket.destroy());
      await echoed(socket);
    }
    const third = connect({ host: '127.0.0.1', port });
    const events: string[] = [];
    const got: Buffer[] = [];
    third.on('data', (bytes: Buffer) => got.push(bytes));
    third.on('error', () => events.push('error'));
    cleanups.push(() => third.destroy());
    let thirdClosed = false;
    third.once('close', () => (thirdClosed = true));
    await waitFor('the third connection closed by the router', () => thirdClosed, 5_000);
    assert.equal(Buffer.concat(got).length, 0, 'the refused connection got nothing');
    assert.equal(r2.calls.length, 2, 'the controller was not asked for the refused connection');
    const refused = r2.logged('circuit refused');
    assert.equal(refused.length, 1);
    assert.deepEqual({ code: refused[0]!.code, limit: refused[0]!.limit, listener: refused[0]!.listener }, { code: 'CIRCUIT_LIMIT', limit: 'forwarder.maxCircuits', listener: 'echo:test' });
  });

  it('HTTP CONNECT: the identity beyond forwarder.maxCircuitsPerIdentity gets 429, others still connect, and a full router answers 503', async () => {
    let server!: Awaited<ReturnType<typeof terminator>>;
    const identities: Record<string, string> = { 'token-alice': 'alice', 'token-bob': 'bob' };
    const r2 = await routerUnderTest({
      config: { maxCircuits: 3, maxCircuitsPerIdentity: 2 },
      answer: (_service, apiSession) => ({ route: signer.sign(route(['r2'], [], server.address, { identityId: identities[apiSession ?? ''] ?? 'nobody' })) }),
    });
    server = await terminator(true);
    r2.hosted.set(serviceId, server.address);
    const tls = await tlsFor('r2');
    const port = await freePort();
    const edge = new EdgeConnectListeners([{ host: '127.0.0.1', port }], { certPem: tls.serverCertPem, keyPem: tls.serverKeyPem }, r2.forwarder, r2.logger);
    await edge.start();
    cleanups.push(() => edge.stop());

    const tunnels: Socket[] = [];
    /** A CONNECT as `token`: the status, the error body of a refusal, and the tunnel of an accepted one. */
    const connectAs = (token: string) =>
      new Promise<{ status: number; body: string; socket?: Socket }>((resolve, reject) => {
        const req = httpsRequest({ host: '127.0.0.1', port, method: 'CONNECT', path: 'echo:80', headers: { 'zt-session': token }, ca: pki.caPem, servername: '127.0.0.1' });
        req.on('connect', (response, socket: Socket, head: Buffer) => {
          if (response.statusCode === 200) {
            tunnels.push(socket);
            cleanups.push(() => socket.destroy());
            return resolve({ status: 200, body: '', socket });
          }
          const parts: Buffer[] = [head];
          socket.on('data', (bytes: Buffer) => parts.push(bytes));
          socket.on('error', () => undefined);
          const timer = setTimeout(() => socket.destroy(), 5_000);
          socket.once('close', () => (clearTimeout(timer), resolve({ status: response.statusCode ?? 0, body: Buffer.concat(parts).toString() })));
        });
        req.on('error', reject);
        req.setTimeout(5_000, () => req.destroy(new Error('CONNECT timed out')));
        req.end();
      });
    const errorOf = (body: string) => (JSON.parse(body) as { error: { code: string; message: string } }).error;
    const echoes = async (socket: Socket) => {
      const got: Buffer[] = [];
      socket.on('data', (bytes: Buffer) => got.push(bytes));
      socket.write('ping');
      await waitFor('the echo through the tunnel', () => Buffer.concat(got).toString() === 'ping');
    };

    for (let i = 0; i < 2; i++) {
      const ok = await connectAs('token-alice');
      assert.equal(ok.status, 200);
      await echoes(ok.socket!);
    }
    const third = await connectAs('token-alice');
    assert.equal(third.status, 429);
    assert.deepEqual(errorOf(third.body), { code: 'IDENTITY_CIRCUIT_LIMIT', message: 'this identity has as many circuits through the router as it may (forwarder.maxCircuitsPerIdentity: 2)' });

    const bob = await connectAs('token-bob');
    assert.equal(bob.status, 200, 'another identity is not held to alice\'s count');
    await echoes(bob.socket!);
    const full = await connectAs('token-bob');
    assert.equal(full.status, 503);
    assert.equal(errorOf(full.body).code, 'CIRCUIT_LIMIT');

    // One of alice's tunnels closes: she may dial again.
    tunnels[0]!.destroy();
    await waitFor('alice has one circuit left', () => r2.forwarder.stats().circuits === 2);
    const again = await connectAs('token-alice');
    assert.equal(again.status, 200);
    const codes = r2.logged('circuit refused').map((line) => [line.code, line.limit]);
    assert.deepEqual(codes, [
      ['IDENTITY_CIRCUIT_LIMIT', 'forwarder.maxCircuitsPerIdentity'],
      ['CIRCUIT_LIMIT', 'forwarder.maxCircuits'],
    ]);
  });
});

/** A port free on 127.0.0.1 just now (the edge listener binds a fixed port). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { connect } from 'node:tls';
import type { RouterInfo } from '../../common/control-channel/control-messages.ts';
import { encodeFrame, FrameDecoder } from '../../common/framing/frame-codec.ts';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { linkTimingFor } from './link-channel.ts';
import { createLinkManager, LinkManager, type LinkManagerTuning } from './link-manager.ts';
import type { LinkTlsMaterial } from './link-manager-api.ts';
import { backoff, countingListener, createTestPki, linkRouterConfig, scriptedLinkListener, silentListener, sleep, waitFor, type TestLinkConfig, type TestPki } from './link-test-support.ts';

const fast: LinkManagerTuning = { timing: { heartbeatIntervalMs: 50, unresponsiveTimeoutMs: 400 }, dialTimeoutMs: 2_000, handshakeTimeoutMs: 2_000 };

describe('link manager over real TLS', () => {
  let pki: TestPki;
  const tlsCache = new Map<string, LinkTlsMaterial>();
  const running: LinkManager[] = [];
  const closers: Array<() => Promise<void>> = [];

  before(async () => {
    pki = await createTestPki();
  });
  after(async () => {
    await Promise.all(running.map((manager) => manager.stop()));
    await Promise.all(closers.map((close) => close()));
    await pki.dispose();
  });

  async function tlsFor(routerId: string, clientName = routerId): Promise<LinkTlsMaterial> {
    const key = `${routerId}/${clientName}`;
    if (!tlsCache.has(key)) tlsCache.set(key, await pki.routerTls(routerId, clientName));
    return tlsCache.get(key)!;
  }

  async function router(id: string, spec: TestLinkConfig, options: { clientName?: string; tuning?: LinkManagerTuning; tlsMaterial?: LinkTlsMaterial } = {}) {
    const logger = createMemoryLogger('debug');
    const manager = new LinkManager(
      { config: linkRouterConfig(spec), routerId: id, tls: options.tlsMaterial ?? (await tlsFor(id, options.clientName)), logger },
      options.tuning ?? fast,
    );
    await manager.start();
    running.push(manager);
    const info = (): RouterInfo => ({ id, name: id, linkListeners: manager.listenerInfos() });
    const logged = (msg: string) => logger.lines.filter((line) => line.msg === msg);
    return { manager, logger, info, logged };
  }

  async function stopped(manager: LinkManager): Promise<void> {
    await manager.stop();
    running.splice(running.indexOf(manager), 1);
  }

  it('forms links only between routers whose dialer and listener share a group (no groups = "default")', async () => {
    const a = await router('router-a', { listener: { groups: ['default'] }, dialer: { groups: ['east'], bind: '127.0.0.1' } });
    const b = await router('router-b', { listener: { groups: ['east'] }, dialer: {} });
    const c = await router('router-c', { listener: { groups: ['west'] }, dialer: {} });
    const all = [a, b, c];
    for (const r of all) r.manager.knownRouters(all.map((other) => other.info()));

    const pairs = (r: typeof a) => r.manager.links().map((link) => `${link.direction}:${link.destRouterId}`).sort();
    await waitFor('the three expected links', () => pairs(a).length === 3 && pairs(b).length === 2 && pairs(c).length === 1);
    await sleep(150); // room for a wrong link to appear
    // a→b (east), b→a (default), c→a (default); a→c (east vs west), b→c and c→b do not share a group.
    assert.deepEqual(pairs(a), ['accepted:router-b', 'accepted:router-c', 'dialed:router-b']);
    assert.deepEqual(pairs(b), ['accepted:router-a', 'dialed:router-a']);
    assert.deepEqual(pairs(c), ['dialed:router-a']);
    const aToB = a.manager.links().find((link) => link.direction === 'dialed')!;
    const sameOnB = b.manager.links().find((link) => link.id === aToB.id)!;
    assert.equal(sameOnB.destRouterId, 'router-a');
    assert.equal(sameOnB.remoteAddr, aToB.localAddr, 'the two ends see each other');
    assert.match(aToB.localAddr, /^127\.0\.0\.1:\d+$/, 'dialed from the dialer bind address');
    assert.equal(aToB.connType, 'split', 'split is the dialer default');
    assert.equal(sameOnB.connType, 'split');
    for (const r of all) await stopped(r.manager);
  });

  it('retries on the unhealthy policy while the router is not connected, then dials at once on the healthy one', async () => {
    const target = await countingListener();
    closers.push(target.close);
    const a = await router('router-a', {
      // One connection per dial, so each dial is one attempt at the counting listener.
      dialer: { split: false, healthyDialBackoff: backoff(400, 1.5, 2_000), unhealthyDialBackoff: backoff(20, 2, 200) },
    });
    const x: RouterInfo = { id: 'router-x', name: 'router-x', linkListeners: [{ binding: 'transport', advertise: `tls:127.0.0.1:${target.port}`, groups: [] }] };
    const failures = () => a.logged('link dial failed');

    a.manager.knownRouters([x]); // connected: dialed at once, then the healthy policy (400 ms)
    await waitFor('the first dial to fail', () => failures().length === 1);
    assert.equal(target.attempts.length, 1);
    assert.equal(failures()[0]!.policy, 'healthy');

    const disconnectedAt = performance.now();
    a.manager.routerDisconnected('router-x');
    assert.equal(a.manager.policyFor('router-x'), 'unhealthy');
    await waitFor('seven unhealthy retries', () => failures().length === 8, 5_000);
    const unhealthy = [target.attempts[1]! - disconnectedAt, ...target.attempts.slice(2, 8).map((at, i) => at - target.attempts[i + 1]!)];
    const expected = [20, 40, 80, 160, 200, 200, 200];
    unhealthy.forEach((gap, i) => {
      const want = expected[i]!;
      // Never early (jitter takes at most 10% off); the upper slack absorbs a loaded test machine.
      assert.ok(gap >= want * 0.9 - 2 && gap <= want + 150, `gap ${i} was ${gap.toFixed(1)}ms, expected ${want}ms (−10% jitter)`);
    });
    // The waits chosen after each unhealthy failure: 40, 80, 160, 200, 200, 200 less at most 10%.
    const chosen = failures().slice(1, 7).map((line) => Number(line.nextRetryMs));
    [40, 80, 160, 200, 200, 200].forEach((want, i) => assert.ok(chosen[i]! >= want * 0.9 && chosen[i]! <= want, `wait ${chosen[i]} for ${want}`));
    assert.ok(failures().slice(1).every((line) => line.policy === 'unhealthy'));

    const connectedAt = performance.now();
    a.manager.routerConnected(x);
    await waitFor('an immediate dial', () => target.attempts.length === 9, 1_000);
    assert.ok(target.attempts[8]! - connectedAt < 100, `dialed ${(target.attempts[8]! - connectedAt).toFixed(1)}ms after routerConnected`);
    await waitFor('two healthy retries', () => target.attempts.length === 11, 5_000);
    const healthy = [target.attempts[9]! - target.attempts[8]!, target.attempts[10]! - target.attempts[9]!];
    [400, 600].forEach((want, i) => {
      assert.ok(healthy[i]! >= want * 0.9 - 2 && healthy[i]! <= want + 150, `healthy gap ${i} was ${healthy[i]!.toFixed(1)}ms, expected ${want}ms`);
    });
    assert.equal(failures().at(-1)!.policy, 'healthy');
    await stopped(a.manager);
    const attemptsAtStop = target.attempts.length;
    await sleep(700);
    assert.equal(target.attempts.length, attemptsAtStop, 'no dial after stop');
  });

  it('a lost link closes and comes back when the listener restarts, even with the control channel down', async () => {
    const a = await router('router-a', { dialer: { healthyDialBackoff: backoff(50, 1.5, 200) } });
    const b = await router('router-b', { listener: { groups: ['default'] } });
    let changes = 0;
    a.manager.onLinksChanged(() => changes++);
    a.manager.onControllerConnected(true);
    a.manager.knownRouters([b.info()]);
    await waitFor('the link', () => a.manager.links().length === 1 && b.manager.links().length === 1);
    const first = a.manager.links()[0]!;
    const port = Number(b.info().linkListeners[0]!.advertise.split(':').at(-1));

    a.manager.onControllerConnected(false);
    await stopped(b.manager);
    await waitFor('the link to close', () => a.manager.links().length === 0);
    const closed = a.logged('link closed').at(-1)!;
    assert.equal(closed.linkId, first.id);
    assert.equal(closed.policy, 'healthy', 'router-b is still connected to the controller as far as router-a knows');
    await waitFor('failed redials while router-b is down', () => a.logged('link dial failed').length >= 2);

    const b2 = await router('router-b', { listener: { groups: ['default'], port } });
    await waitFor('the link to come back', () => a.manager.links().length === 1 && b2.manager.links().length === 1, 3_000);
    assert.notEqual(a.manager.links()[0]!.id, first.id);
    assert.ok(changes >= 3, `onLinksChanged fired ${changes} times (add, remove, add)`);
    await stopped(a.manager);
    await stopped(b2.manager);
  });

  it('measures latency on both ends from heartbeats', async () => {
    const a = await router('router-a', { dialer: {} });
    const b = await router('router-b', { listener: { groups: ['default'] } });
    let changes = 0;
    a.manager.onLinksChanged(() => changes++);
    a.manager.knownRouters([b.info()]);
    await waitFor('latency on both ends', () => a.manager.links()[0]?.latencyMs != null && b.manager.links()[0]?.latencyMs != null);
    await sleep(200); // a few more heartbeats
    for (const end of [a, b]) {
      const latency = end.manager.links()[0]!.latencyMs!;
      assert.ok(latency > 0 && latency < 1_000, `latency ${latency}ms`);
    }
    assert.ok(changes >= 3, 'link added, then latency updates reported');
    await stopped(a.manager);
    await waitFor('router-b to see the link close', () => b.manager.links().length === 0);
    await stopped(b.manager);
  });

  it('probes latency every forwarder.latencyProbeInterval ms (10 s when absent)', async () => {
    const untimed: LinkManagerTuning = { dialTimeoutMs: 2_000, handshakeTimeoutMs: 2_000 };
    const b = await router('router-b', { listener: { groups: ['default'] } }, { tuning: untimed });
    const samplesInASecond = async (forwarder: { latencyProbeInterval?: number }) => {
      const a = await router('router-a', { dialer: {}, forwarder }, { tuning: untimed });
      a.manager.knownRouters([b.info()]);
      await waitFor('the first latency sample', () => a.manager.links()[0]?.latencyMs != null);
      let samples = 0;
      a.manager.onLinksChanged(() => samples++);
      await sleep(1_000);
      await stopped(a.manager);
      return samples;
    };
    const fastProbe = await samplesInASecond({ latencyProbeInterval: 100 });
    assert.ok(fastProbe >= 7 && fastProbe <= 12, `${fastProbe} latency samples in 1 s at a 100 ms probe interval`);
    assert.equal(await samplesInASecond({}), 0, 'the default probes every 10 s: none in the second after the first');
    await stopped(b.manager);
    assert.deepEqual(linkTimingFor(undefined), { heartbeatIntervalMs: 10_000, unresponsiveTimeoutMs: 60_000 });
    assert.deepEqual(linkTimingFor(0), { heartbeatIntervalMs: 10_000, unresponsiveTimeoutMs: 60_000 }, 'OpenZiti files write 0');
    assert.deepEqual(linkTimingFor(30_000), { heartbeatIntervalMs: 30_000, unresponsiveTimeoutMs: 90_000 }, 'silence outlasts three probes');
  });

  it('refuses a dialer whose certificate names another router than its hello', async () => {
    const impostor = await router('router-a', { dialer: { healthyDialBackoff: backoff(100, 1, 100) } }, { clientName: 'router-z' });
    const b = await router('router-b', { listener: { groups: ['default'] } });
    impostor.manager.knownRouters([b.info()]);
    await waitFor('the refusal', () => b.logged('link refused: the client certificate names another router than the hello').length >= 1);
    const refusal = b.logged('link refused: the client certificate names another router than the hello')[0]!;
    assert.equal(refusal.certificateRouterId, 'router-z');
    assert.equal(refusal.helloRouterId, 'router-a');
    await waitFor('the dialer to see it refused', () => impostor.logged('link dial refused').length >= 1);
    assert.equal(b.manager.links().length, 0);
    assert.equal(impostor.manager.links().length, 0);
    await stopped(impostor.manager);
    await stopped(b.manager);
  });

  it('refuses a dialer whose certificate does not chain to the CA', async () => {
    const foreign = await createTestPki();
    closers.push(foreign.dispose);
    const stranger = await foreign.routerTls('router-s');
    const s = await router('router-s', { dialer: {} }, { tlsMaterial: { ...stranger, caPem: pki.caPem } });
    const b = await router('router-b', { listener: { groups: ['default'] } });
    s.manager.knownRouters([b.info()]);
    await waitFor('the TLS refusal', () => b.logged('link TLS handshake failed').length >= 1);
    await waitFor('the dialer to fail', () => s.logged('link dial refused').length + s.logged('link dial failed').length >= 1);
    assert.equal(b.manager.links().length, 0);
    assert.equal(s.manager.links().length, 0);
    await stopped(s.manager);
    await stopped(b.manager);
  });

  it('refuses a listener whose certificate is another router\'s, and one that welcomes as another router than the one dialed', async () => {
    const a = await router('router-a', { dialer: { split: false } });
    const b = await router('router-b', { listener: { groups: ['default'] } });
    a.manager.knownRouters([{ ...b.info(), id: 'router-c', name: 'router-c' }]);
    await waitFor('the refusal', () => a.logged('link dial refused').length >= 1);
    assert.match(String(a.logged('link dial refused')[0]!.error), /the listener's certificate is not router "router-c"'s: the certificate names "router-b", not router "router-c"/);
    await waitFor('router-b to drop the half link', () => b.manager.links().length === 0);
    assert.equal(a.manager.links().length, 0);

    // router-c's own certificate, but a welcome that names router-b: refused on the welcome.
    const liar = await scriptedLinkListener(await tlsFor('router-c'), 'router-b', () => 'welcome');
    closers.push(liar.close);
    a.manager.routerConnected({ id: 'router-c', name: 'router-c', linkListeners: [{ binding: 'transport', advertise: `tls:127.0.0.1:${liar.port}`, groups: [] }] });
    await waitFor('the welcome refusal', () => a.logged('link dial refused').some((line) => /the listener is router "router-b", not "router-c"/.test(String(line.error))));
    assert.equal(a.manager.links().length, 0);
    await stopped(a.manager);
    await stopped(b.manager);
  });

  it('closes a link that stays silent past the timeout', async () => {
    const a = await router('router-a', { listener: { groups: ['default'] } }, { tuning: { timing: { heartbeatIntervalMs: 50, unresponsiveTimeoutMs: 250 } } });
    const peer = await tlsFor('router-x');
    const port = Number(a.info().linkListeners[0]!.advertise.split(':').at(-1));
    const socket = connect({ host: '127.0.0.1', port, cert: peer.certPem, key: peer.keyPem, ca: peer.caPem });
    closers.push(async () => void socket.destroy());
    const decoder = new FrameDecoder();
    const frames: unknown[] = [];
    socket.on('data', (chunk: Buffer) => frames.push(...decoder.push(chunk)));
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
    const helloAt = performance.now(); // the last thing router-a hears from this peer
    socket.write(encodeFrame({ type: 'link.hello', routerId: 'router-x', linkId: 'silent-1' }));
    await waitFor('the link and its welcome', () => a.manager.links().length === 1 && frames.length >= 1);
    assert.deepEqual(frames[0], { type: 'link.welcome', routerId: 'router-a' });
    await waitFor('the silent link to close', () => a.manager.links().length === 0, 2_000);
    const after = performance.now() - helloAt;
    assert.ok(after >= 250 && after < 1_500, `closed ${after.toFixed(0)}ms after the peer's last frame (timeout 250ms)`);
    assert.match(String(a.logged('link closed')[0]!.reason), /unresponsive/);
    assert.ok(frames.some((frame) => (frame as { type?: string }).type === 'hb'), 'router-a sent heartbeats');
    socket.destroy();
    await stopped(a.manager);
  });

  it('runs at most linkDialWorkerCount dials at once with at most linkDialQueueLength waiting; a dial the full queue refuses is a failed dial, retried', async () => {
    const [x, y, z] = [await silentListener(), await silentListener(), await silentListener()];
    closers.push(x.close, y.close, z.close);
    const a = await router(
      'router-a',
      { dialer: { split: false, healthyDialBackoff: backoff(600, 1, 600) }, forwarder: { linkDialWorkerCount: 1, linkDialQueueLength: 1 } },
      { tuning: { ...fast, dialTimeoutMs: 300 } },
    );
    const info = (id: string, port: number): RouterInfo => ({ id, name: id, linkListeners: [{ binding: 'transport', advertise: `tls:127.0.0.1:${port}`, groups: [] }] });
    const knownAt = performance.now();
    a.manager.knownRouters([info('router-x', x.port), info('router-y', y.port), info('router-z', z.port)]);

    // router-x takes the one worker, router-y the one place in the queue, router-z is refused at once.
    const refused = a.logged('link dial refused: the link dial queue is full');
    assert.deepEqual(refused.map((line) => [line.routerId, line.attempt, line.linkDialQueueLength, line.linkDialWorkerCount, line.policy]), [['router-z', 1, 1, 1, 'healthy']]);
    assert.ok(Number(refused[0]!.nextRetryMs) >= 540 && Number(refused[0]!.nextRetryMs) <= 600, 'retried on its backoff');
    await waitFor('the dial to router-x', () => x.attempts.length === 1);
    await sleep(150);
    assert.deepEqual([y.attempts.length, z.attempts.length], [0, 0], 'router-y waits for the worker');

    // router-x's dial times out after 300 ms; only then does router-y's start.
    await waitFor('the dial to router-y', () => y.attempts.length === 1, 2_000);
    // Both times are when the listeners saw the connections, and router-x's can lag its dial's start (when the 300 ms
    // timer started) by some milliseconds on a busy machine: the margin covers that, and without the one worker
    // router-y would be dialled at once.
    assert.ok(y.attempts[0]! - x.attempts[0]! >= 250, `router-y dialed ${(y.attempts[0]! - x.attempts[0]!).toFixed(0)} ms after router-x`);
    assert.equal(a.logged('link dial failed').filter((line) => line.routerId === 'router-x').length, 1);
    // router-z's retry comes when its backoff says (600 ms less jitter), queued behind whatever runs then.
    await waitFor('the retry of router-z', () => z.attempts.length === 1, 3_000);
    assert.ok(z.attempts[0]! - knownAt >= 540, `router-z dialed ${(z.attempts[0]! - knownAt).toFixed(0)} ms after it was refused`);
    await stopped(a.manager);
  });

  it('never dials itself and ignores malformed notifications', async () => {
    const target = await countingListener();
    closers.push(target.close);
    const a = await router('router-a', { dialer: { healthyDialBackoff: backoff(20, 1, 20) } });
    const self: RouterInfo = { id: 'router-a', name: 'router-a', linkListeners: [{ binding: 'transport', advertise: `tls:127.0.0.1:${target.port}`, groups: [] }] };
    a.manager.knownRouters([self]);
    a.manager.routerConnected(self);
    a.manager.knownRouters(null as unknown as RouterInfo[]);
    a.manager.routerConnected({} as RouterInfo);
    a.manager.routerDisconnected(undefined as unknown as string);
    await sleep(150);
    assert.equal(target.attempts.length, 0);
    assert.equal(a.logged('link manager knownRouters failed').length, 0);
    await stopped(a.manager);
  });

  it('is what createLinkManager makes, and fails to start on a listener address in use', async () => {
    const a = await router('router-a', { listener: { groups: ['default'] } });
    const port = Number(a.info().linkListeners[0]!.advertise.split(':').at(-1));
    const clash = createLinkManager({
      config: linkRouterConfig({ listener: { groups: ['default'], port } }),
      routerId: 'router-b',
      tls: await tlsFor('router-b'),
      logger: createMemoryLogger(),
    });
    assert.ok(clash instanceof LinkManager);
    await assert.rejects(clash.start(), /link\.listeners\[0\]: cannot listen on tls:127\.0\.0\.1:\d+: .*EADDRINUSE/);
    await clash.stop();
    // A bind that is not tls: fails the start in the words router validate uses for it (rule link-not-tls).
    const tcp = linkRouterConfig({ listener: { groups: ['default'] } });
    const tcpListener = { ...tcp.link!.listeners[0]!, bind: { protocol: 'tcp' as const, host: '127.0.0.1', port: 0 } };
    const plain = createLinkManager({ config: { ...tcp, link: { ...tcp.link!, listeners: [tcpListener] } }, routerId: 'router-c', tls: await tlsFor('router-c'), logger: createMemoryLogger() });
    await assert.rejects(plain.start(), { message: 'link.listeners[0].bind: protocol "tcp" is not supported for links; use tls:<host>:<port>' });
    await stopped(a.manager);
  });
  it('closes the links of a revoked peer router, stops dialing it and refuses its links; admitted again, it links again', async () => {
    const a = await router('router-a', { listener: { groups: ['default'] } });
    const b = await router('router-b', { dialer: { healthyDialBackoff: backoff(50, 1, 50) } });
    b.manager.routerConnected(a.info());
    await waitFor('a link b → a', () => a.manager.links().some((link) => link.destRouterId === 'router-b'));
    // router-b was deleted: a's model no longer lists it.
    a.manager.refusePeers((id) => (id === 'router-b' ? 'the router is not an edge router of the network (deleted)' : undefined));
    await waitFor('the link closed at a', () => a.manager.links().length === 0);
    assert.equal(a.logger.lines.filter((line) => line.msg === 'link closed: the peer router is revoked').length, 1);
    // b redials on its backoff: refused at a's listener, no link comes up.
    await waitFor('b refused', () => a.logger.lines.some((line) => line.msg === 'link refused' && typeof line.reason === 'string' && line.reason.startsWith('router revoked') && line.routerId === 'router-b'));
    await sleep(200);
    assert.equal(a.manager.links().length, 0, 'no link from a revoked router');
    // b's own model says a is disabled: b stops dialing it.
    b.manager.refusePeers((id) => (id === 'router-a' ? 'the router is disabled' : undefined));
    a.manager.refusePeers(() => undefined);
    await sleep(300);
    assert.equal(a.manager.links().length, 0, 'b does not dial a router its model refuses');
    b.manager.refusePeers(() => undefined);
    await waitFor('the link back once both admit each other', () => a.manager.links().some((link) => link.destRouterId === 'router-b'));
    await stopped(a.manager);
    await stopped(b.manager);
  });
});

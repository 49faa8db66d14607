import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import type { RouterInfo } from '../../common/control-channel/control-messages.ts';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { LinkManager, type LinkManagerTuning } from './link-manager.ts';
import type { LinkTlsMaterial } from './link-manager-api.ts';
import {
  backoff,
  countingRelay,
  createTestPki,
  linkRouterConfig,
  linkTestClient,
  scriptedLinkListener,
  sleep,
  waitFor,
  type TestLinkConfig,
  type TestPki,
} from './link-test-support.ts';

const fast: LinkManagerTuning = { timing: { heartbeatIntervalMs: 50, unresponsiveTimeoutMs: 400 }, dialTimeoutMs: 2_000, handshakeTimeoutMs: 2_000 };

const portOf = (hostPort: string | undefined): number => Number(hostPort?.split(':').at(-1));

describe('split links (link.dialers[].split) over real TLS', () => {
  let pki: TestPki;
  const tlsCache = new Map<string, LinkTlsMaterial>();
  const running: LinkManager[] = [];
  const closers: Array<() => unknown> = [];

  before(async () => {
    pki = await createTestPki();
  });
  after(async () => {
    await Promise.all(running.map((manager) => manager.stop()));
    await Promise.all(closers.map((close) => close()));
    await pki.dispose();
  });

  async function tlsFor(routerId: string): Promise<LinkTlsMaterial> {
    if (!tlsCache.has(routerId)) tlsCache.set(routerId, await pki.routerTls(routerId));
    return tlsCache.get(routerId)!;
  }

  async function router(id: string, spec: TestLinkConfig, tuning: LinkManagerTuning = fast) {
    const logger = createMemoryLogger('debug');
    const manager = new LinkManager({ config: linkRouterConfig(spec), routerId: id, tls: await tlsFor(id), logger }, tuning);
    await manager.start();
    running.push(manager);
    const info = (): RouterInfo => ({ id, name: id, linkListeners: manager.listenerInfos() });
    const logged = (msg: string) => logger.lines.filter((line) => line.msg === msg);
    const listenPort = () => portOf(info().linkListeners[0]?.advertise);
    return { manager, info, logged, listenPort };
  }

  async function stopped(manager: LinkManager): Promise<void> {
    await manager.stop();
    running.splice(running.indexOf(manager), 1);
  }

  /** router-b's info with its link listener advertised at a counting relay in front of it. */
  async function behindRelay(b: Awaited<ReturnType<typeof router>>) {
    const relay = await countingRelay(b.listenPort());
    closers.push(relay.close);
    const listener = b.info().linkListeners[0]!;
    const info: RouterInfo = { ...b.info(), linkListeners: [{ ...listener, advertise: `tls:127.0.0.1:${relay.port}` }] };
    return { relay, info };
  }

  it('split: true makes each link of exactly two TLS connections, a payload and an ack one, listed as split on both ends', async () => {
    const a = await router('router-a', { dialer: { split: true } });
    const b = await router('router-b', { listener: { groups: ['default'] } });
    const { relay, info } = await behindRelay(b);
    a.manager.knownRouters([info]);
    await waitFor('the link on both ends', () => a.manager.links().length === 1 && b.manager.links().length === 1);
    await waitFor('latency on both ends', () => a.manager.links()[0]!.latencyMs !== null && b.manager.links()[0]!.latencyMs !== null);
    await sleep(150); // room for a stray connection to show up

    assert.equal(relay.connections.length, 2, 'two TCP connections reached the listener');
    const dialed = a.manager.links()[0]!;
    const accepted = b.manager.links()[0]!;
    assert.equal(dialed.id, accepted.id);
    assert.equal(dialed.connType, 'split');
    assert.equal(accepted.connType, 'split');
    assert.deepEqual(Object.keys(dialed.addresses).sort(), ['ack', 'payload']);
    assert.deepEqual(Object.keys(accepted.addresses).sort(), ['ack', 'payload']);
    // The two connections through the relay are the link's payload and ack connections.
    const dialedPorts = [portOf(dialed.addresses.payload!.localAddr), portOf(dialed.addresses.ack!.localAddr)].sort();
    assert.deepEqual(relay.connections.map((connection) => connection.clientPort).sort(), dialedPorts);
    assert.equal(dialed.localAddr, dialed.addresses.payload!.localAddr, 'the link is listed by its payload connection');

    assert.equal(a.logged('link dialer ready')[0]!.connType, 'split');
    assert.equal(a.logged('link established')[0]!.connType, 'split');
    assert.equal(b.logged('link established')[0]!.connType, 'split');
    await stopped(a.manager);
    await waitFor('router-b to see the link close', () => b.manager.links().length === 0);
    await stopped(b.manager);
  });

  it('split: false makes each link of one TLS connection, listed as single on both ends', async () => {
    const a = await router('router-a', { dialer: { split: false } });
    const b = await router('router-b', { listener: { groups: ['default'] } });
    const { relay, info } = await behindRelay(b);
    a.manager.knownRouters([info]);
    await waitFor('the link on both ends', () => a.manager.links().length === 1 && b.manager.links().length === 1);
    await waitFor('latency on both ends', () => a.manager.links()[0]!.latencyMs !== null && b.manager.links()[0]!.latencyMs !== null);
    await sleep(150);

    assert.equal(relay.connections.length, 1, 'one TCP connection reached the listener');
    for (const link of [a.manager.links()[0]!, b.manager.links()[0]!]) {
      assert.equal(link.connType, 'single');
      assert.deepEqual(Object.keys(link.addresses), ['single']);
    }
    assert.equal(a.logged('link dialer ready')[0]!.connType, 'single');
    assert.equal(a.logged('link established')[0]!.connType, 'single');
    assert.equal(b.logged('link established')[0]!.connType, 'single');
    await stopped(a.manager);
    await stopped(b.manager);
  });

  it('losing the ack connection closes the whole link on both ends, and it is redialed once, with both connections', async () => {
    const a = await router('router-a', { dialer: { split: true, healthyDialBackoff: backoff(100, 1, 100) } });
    const b = await router('router-b', { listener: { groups: ['default'] } });
    const { relay, info } = await behindRelay(b);
    a.manager.knownRouters([info]);
    await waitFor('the link on both ends', () => a.manager.links().length === 1 && b.manager.links().length === 1);
    const first = a.manager.links()[0]!;
    const ackPort = portOf(first.addresses.ack!.localAddr);
    const ack = relay.connections.find((connection) => connection.clientPort === ackPort)!;
    const payload = relay.connections.find((connection) => connection.clientPort !== ackPort)!;
    assert.ok(ack !== undefined && payload !== undefined);

    ack.cut();
    await waitFor('the payload connection to be closed too', () => !payload.open, 2_000);
    await waitFor('a new link on both ends', () => {
      const [dialed] = a.manager.links();
      const [accepted] = b.manager.links();
      return dialed !== undefined && dialed.id !== first.id && accepted?.id === dialed.id;
    }, 3_000);
    await sleep(300); // room for a second close or a second redial

    const closedOnA = a.logged('link closed');
    assert.equal(closedOnA.length, 1, 'the link closed once on router-a');
    assert.equal(closedOnA[0]!.linkId, first.id);
    assert.match(String(closedOnA[0]!.reason), /^ack connection: /);
    assert.equal(b.logged('link closed').filter((line) => line.linkId === first.id).length, 1, 'and once on router-b');
    assert.equal(a.logged('link established').length, 2, 'one redial');
    assert.equal(relay.connections.length, 4, 'the redial made both connections again');
    assert.equal(relay.connections.filter((connection) => connection.open).length, 2);
    assert.equal(a.manager.links()[0]!.connType, 'split');
    assert.equal(b.manager.links()[0]!.connType, 'split');
    await stopped(a.manager);
    await stopped(b.manager);
  });

  it('closes a payload connection whose ack connection does not arrive within the handshake timeout', async () => {
    const b = await router('router-b', { listener: { groups: ['default'] } }, { ...fast, handshakeTimeoutMs: 300 });
    const lone = await linkTestClient(b.listenPort(), await tlsFor('router-x'));
    closers.push(lone.destroy);
    const helloAt = performance.now();
    lone.send({ type: 'link.hello', routerId: 'router-x', linkId: 'lonely-1', connType: 'payload' });
    await waitFor('the lone payload connection to be closed', () => lone.closedAt !== undefined, 2_000);

    const waited = lone.closedAt! - helloAt;
    assert.ok(waited >= 280 && waited < 1_500, `closed ${waited.toFixed(0)}ms after its hello (timeout 300ms)`);
    assert.deepEqual(lone.frames, [], 'no welcome for half a link');
    assert.equal(b.manager.links().length, 0);
    const refusal = b.logged('link refused: the other connection of a split link did not arrive');
    assert.equal(refusal.length, 1);
    assert.equal(refusal[0]!.linkId, 'lonely-1');
    assert.equal(refusal[0]!.connType, 'payload');
    await stopped(b.manager);
  });

  it('refuses a second payload connection for the same link id; the ack connection then completes the link', async () => {
    const b = await router('router-b', { listener: { groups: ['default'] } });
    const tls = await tlsFor('router-x');
    const payloads = await Promise.all([1, 2].map(() => linkTestClient(b.listenPort(), tls)));
    const ack = await linkTestClient(b.listenPort(), tls);
    for (const client of [...payloads, ack]) closers.push(client.destroy);

    for (const client of payloads) client.send({ type: 'link.hello', routerId: 'router-x', linkId: 'link-d', connType: 'payload' });
    // Whichever hello the listener reads second is the duplicate.
    await waitFor('one payload connection to be refused', () => payloads.some((client) => client.closedAt !== undefined), 1_000);
    await sleep(100);
    const duplicate = payloads.find((client) => client.closedAt !== undefined);
    const payload = payloads.find((client) => client.closedAt === undefined);
    assert.ok(duplicate !== undefined && payload !== undefined, 'exactly one payload connection was refused');
    assert.equal(b.logged('link refused').filter((line) => line.reason === 'duplicate payload connection for link id link-d').length, 1);

    ack.send({ type: 'link.hello', routerId: 'router-x', linkId: 'link-d', connType: 'ack' });
    await waitFor('welcomes on both connections', () => payload.frames.length >= 1 && ack.frames.length >= 1);
    assert.deepEqual(payload.frames[0], { type: 'link.welcome', routerId: 'router-b' });
    assert.deepEqual(ack.frames[0], { type: 'link.welcome', routerId: 'router-b' });
    assert.deepEqual(duplicate.frames, []);
    const links = b.manager.links();
    assert.equal(links.length, 1);
    assert.equal(links[0]!.id, 'link-d');
    assert.equal(links[0]!.destRouterId, 'router-x');
    assert.equal(links[0]!.connType, 'split');
    await stopped(b.manager);
  });

  it('refuses to pair the two connections of a link id when they come from different routers', async () => {
    const b = await router('router-b', { listener: { groups: ['default'] } }, { ...fast, handshakeTimeoutMs: 400 });
    const payload = await linkTestClient(b.listenPort(), await tlsFor('router-x'));
    const ack = await linkTestClient(b.listenPort(), await tlsFor('router-y'));
    closers.push(payload.destroy, ack.destroy);
    payload.send({ type: 'link.hello', routerId: 'router-x', linkId: 'link-m', connType: 'payload' });
    ack.send({ type: 'link.hello', routerId: 'router-y', linkId: 'link-m', connType: 'ack' });
    // The second to arrive is refused at once; the first waits for a partner in vain.
    await waitFor('one connection to be refused', () => payload.closedAt !== undefined || ack.closedAt !== undefined, 1_000);
    const refusals = b.logged('link refused');
    assert.equal(refusals.length, 1);
    assert.match(String(refusals[0]!.reason), /^the .*connection of link id link-m comes from router "router-[xy]", its (payload|ack) connection from "router-[xy]"/);
    await waitFor('the other to time out', () => payload.closedAt !== undefined && ack.closedAt !== undefined, 2_000);
    assert.equal(b.logged('link refused: the other connection of a split link did not arrive').length, 1);
    assert.deepEqual([payload.frames, ack.frames], [[], []]);
    assert.equal(b.manager.links().length, 0);
    await stopped(b.manager);
  });

  it('closes the whole link when only its ack connection goes silent', async () => {
    const b = await router('router-b', { listener: { groups: ['default'] } }, { ...fast, timing: { heartbeatIntervalMs: 50, unresponsiveTimeoutMs: 250 } });
    const tls = await tlsFor('router-x');
    const payload = await linkTestClient(b.listenPort(), tls);
    const ack = await linkTestClient(b.listenPort(), tls);
    closers.push(payload.destroy, ack.destroy);
    payload.send({ type: 'link.hello', routerId: 'router-x', linkId: 'link-s', connType: 'payload' });
    ack.send({ type: 'link.hello', routerId: 'router-x', linkId: 'link-s', connType: 'ack' });
    await waitFor('the link', () => b.manager.links().length === 1);
    // The payload connection keeps talking; the ack connection says nothing after its hello.
    const chatter = setInterval(() => payload.send({ type: 'hb', sentAt: 0 }), 25);
    closers.push(() => clearInterval(chatter));
    await waitFor('the link to close', () => b.manager.links().length === 0, 2_000);
    clearInterval(chatter);
    assert.match(String(b.logged('link closed')[0]!.reason), /^ack connection: unresponsive/);
    await waitFor('both connections to be closed', () => payload.closedAt !== undefined && ack.closedAt !== undefined, 1_000);
    await stopped(b.manager);
  });

  it('accepts a hello without connType as a single link (dialers from before split links)', async () => {
    const b = await router('router-b', { listener: { groups: ['default'] } });
    const old = await linkTestClient(b.listenPort(), await tlsFor('router-x'));
    closers.push(old.destroy);
    old.send({ type: 'link.hello', routerId: 'router-x', linkId: 'old-1' });
    await waitFor('the welcome', () => old.frames.length >= 1);
    assert.deepEqual(old.frames[0], { type: 'link.welcome', routerId: 'router-b' });
    const links = b.manager.links();
    assert.equal(links.length, 1);
    assert.equal(links[0]!.id, 'old-1');
    assert.equal(links[0]!.connType, 'single');
    assert.deepEqual(Object.keys(links[0]!.addresses), ['single']);
    assert.equal(b.logged('link established')[0]!.connType, 'single');
    old.destroy();
    await waitFor('the link to close', () => b.manager.links().length === 0);
    await stopped(b.manager);
  });

  it('a split dial whose ack connection is refused is one failed dial, and its payload connection is closed', async () => {
    const scripted = await scriptedLinkListener(await tlsFor('router-b'), 'router-b', (hello) => (hello.connType === 'ack' ? 'close' : 'welcome'));
    closers.push(scripted.close);
    // A long retry interval: only the first dial happens during the test.
    const a = await router('router-a', { dialer: { split: true, healthyDialBackoff: backoff(10_000, 1, 10_000) } });
    a.manager.knownRouters([{ id: 'router-b', name: 'router-b', linkListeners: [{ binding: 'transport', advertise: `tls:127.0.0.1:${scripted.port}`, groups: [] }] }]);
    await waitFor('the dial to fail', () => a.logged('link dial refused').length + a.logged('link dial failed').length >= 1);
    await waitFor('the payload connection to be closed', () => scripted.openCount() === 0, 2_000);
    await sleep(150);

    const failures = [...a.logged('link dial refused'), ...a.logged('link dial failed')];
    assert.equal(failures.length, 1, 'one failed dial, not one per connection');
    assert.match(String(failures[0]!.error), /^ack connection: /);
    assert.equal(failures[0]!.attempt, 1);
    assert.deepEqual(scripted.hellos.map((hello) => hello.connType).sort(), ['ack', 'payload']);
    assert.equal(new Set(scripted.hellos.map((hello) => hello.linkId)).size, 1, 'both connections carry the same link id');
    assert.equal(a.manager.links().length, 0);
    await stopped(a.manager);
  });
});

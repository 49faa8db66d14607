// The control channel against the fake controller of test/support (a TLS server speaking the contract), in process.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import type { ControllerEndpoint, CtrlWelcome, EdgeModel, RouterHello, RouterInfo, RouterMetrics } from '../../common/control-channel/control-messages.ts';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { systemClock } from '../../common/time/clock.ts';
import { createClientCertificate, signCertificateRequest } from '../../common/pki/client-certificate.ts';
import { createControllerCertificate } from '../../common/pki/controller-certificate.ts';
import { generateKeyPair, privateKeyToPem } from '../../common/pki/key-pair.ts';
import { controllerPaths, initPki, loadIssuer } from '../../common/pki/pki-directory.ts';
import { certificatesOfPem, fingerprintOf } from '../../common/certificates/presented-certificate.ts';
import { ecdsaWithSha256, x509 } from '../../common/pki/x509-runtime.ts';
import { FakeController } from '../../test/support/fake-controller.ts';
import { TcpProxy } from '../../test/support/tcp-proxy.ts';
import { ControlChannel, resolveBind, type ControlChannelHandlers } from './control-channel.ts';
import { EndpointsFileKeeper } from './endpoints-file.ts';
import { MetricsReporter } from './metrics-reporter.ts';

let pkiDir: string;
let tls: { certPem: string; keyPem: string; caPem: string };
const controllers: FakeController[] = [];
const channels: ControlChannel[] = [];

before(async () => {
  pkiDir = mkdtempSync(join(tmpdir(), 'edgeward-ctrl-channel-'));
  const pki = await initPki(pkiDir, { trustDomain: 'edgeward.test' });
  const router = await createClientCertificate(await loadIssuer(pkiDir), { commonName: 'router-1' });
  tls = { certPem: router.chainPem, keyPem: router.keyPem, caPem: pki.bundlePem };
});

after(async () => {
  await Promise.all(channels.map((channel) => channel.stop()));
  await Promise.all(controllers.map((controller) => controller.kill()));
});

async function fake(
  id: string,
  options: { allowedRouters?: Set<string>; answerHeartbeats?: boolean; answerPings?: boolean; certificate?: { chainPem: string; keyPem: string } } = {},
): Promise<FakeController> {
  const controller = await FakeController.start({ id, pkiDir, ...options });
  controllers.push(controller);
  return controller;
}

interface Events {
  welcomes: { welcome: CtrlWelcome; endpoint: string }[];
  downs: string[];
  members: (readonly ControllerEndpoint[])[];
  connected: RouterInfo[];
  disconnected: string[];
  models: { index: number; model: EdgeModel }[];
}

interface Overrides {
  closeUnresponsiveTimeout?: number;
  supportedProtocols?: Record<string, string>;
  bind?: string;
  requestTimeoutMs?: number;
  controllerFingerprints?: string[];
  linkDialerGroups?: string[];
  /** Run after the event is recorded: what the router process does with it. */
  onWelcome?: () => void;
  onMembers?: (members: readonly ControllerEndpoint[]) => void;
}

function channel(endpoints: string[], overrides: Overrides = {}) {
  const events: Events = { welcomes: [], downs: [], members: [], connected: [], disconnected: [], models: [] };
  const logger = createMemoryLogger();
  const handlers: ControlChannelHandlers = {
    onWelcome: (welcome, endpoint) => {
      events.welcomes.push({ welcome, endpoint });
      overrides.onWelcome?.();
    },
    onDown: (reason) => events.downs.push(reason),
    onMembers: (members) => {
      events.members.push(members);
      overrides.onMembers?.(members);
    },
    onRouterConnected: (router) => events.connected.push(router),
    onRouterDisconnected: (id) => events.disconnected.push(id),
    onEdgeModel: (index, model) => events.models.push({ index, model }),
    onRequest: async (body) => (body.op === 'ping' ? { routerId: 'router-1' } : null),
  };
  const created = new ControlChannel({
    routerId: 'router-1',
    version: 'v0.1.0',
    linkListeners: [{ binding: 'transport', advertise: 'tls:127.0.0.1:6000', groups: ['default', 'east'] }],
    ...(overrides.linkDialerGroups === undefined ? {} : { linkDialerGroups: overrides.linkDialerGroups }),
    ...(overrides.supportedProtocols === undefined ? {} : { supportedProtocols: overrides.supportedProtocols }),
    tls,
    ...(overrides.controllerFingerprints === undefined ? {} : { controllerFingerprints: overrides.controllerFingerprints }),
    endpoints,
    ...(overrides.bind === undefined ? {} : { bind: overrides.bind }),
    heartbeats: { sendInterval: 50, checkInterval: 20, closeUnresponsiveTimeout: overrides.closeUnresponsiveTimeout ?? 5000 },
    requestTimeoutMs: overrides.requestTimeoutMs ?? 1000,
    connectTimeoutMs: 2000,
    backoff: { minMs: 20, maxMs: 200, factor: 2, jitter: 0 },
    maxQueuedFrames: 100,
    requestWorkers: 2,
    logger,
    handlers,
  });
  channels.push(created);
  return { channel: created, events, logger };
}

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('router control channel', () => {
  it('says hello with its id, version, link listeners and edge listeners, and is welcomed with the cluster members', async () => {
    const a = await fake('ctrl-a');
    const { channel: ch, events } = channel([a.ctrlAddress], { supportedProtocols: { tls: 'tls://router1.example:3022' } });
    ch.start();
    const hello = await a.waitFor((entry) => entry.message.type === 'router.hello');
    assert.deepEqual(hello.message, {
      type: 'router.hello',
      routerId: 'router-1',
      version: 'v0.1.0',
      linkListeners: [{ binding: 'transport', advertise: 'tls:127.0.0.1:6000', groups: ['default', 'east'] }],
      supportedProtocols: { tls: 'tls://router1.example:3022' },
      routeBatches: true,
    });
    assert.equal(hello.routerId, 'router-1');
    await until(() => ch.connected, 'welcome');
    assert.equal(events.welcomes[0]?.welcome.controllerId, 'ctrl-a');
    assert.deepEqual(events.members, [[a.member]]);
    await ch.stop();
  });

  it('measures heartbeat latency, answers the controller\'s heartbeats and requests, and sends pings', async () => {
    const a = await fake('ctrl-b');
    const { channel: ch, events } = channel([a.ctrlAddress]);
    ch.start();
    await until(() => ch.connected, 'welcome');
    await until(() => ch.latencyMs !== undefined, 'a heartbeat answer');
    assert.ok(ch.latencyMs! >= 0 && ch.latencyMs! < 1000);
    assert.equal(await ch.request({ op: 'ping' }), 'pong');
    a.send('router-1', { type: 'hb', sentAt: 42 });
    a.send('router-1', { type: 'req', rid: 7, body: { op: 'ping' } });
    await a.waitFor((entry) => entry.message.type === 'hbAck' && entry.message.sentAt === 42);
    const response = await a.waitFor((entry) => entry.message.type === 'res' && entry.message.rid === 7);
    assert.deepEqual(response.message, { type: 'res', rid: 7, ok: true, value: { routerId: 'router-1' } });
    a.send('router-1', { type: 'ctrl.routerConnected', router: { id: 'router-2', name: 'r2', linkListeners: [] } });
    a.send('router-1', { type: 'ctrl.routerDisconnected', routerId: 'router-3' });
    a.send('router-1', { type: 'ctrl.edgeModel', index: 9, model: { services: [], identities: [] } });
    await until(() => events.models.length === 1, 'the edge model');
    assert.deepEqual(events.connected.map((router) => router.id), ['router-2']);
    assert.deepEqual(events.disconnected, ['router-3']);
    await ch.stop();
  });

  it('with its dialers\' groups, says routersChanged in its hello and hands each router of a ctrl.routersChanged on, departures first', async () => {
    const a = await fake('ctrl-rc');
    const { channel: ch, events } = channel([a.ctrlAddress], { linkDialerGroups: ['default', 'east'] });
    ch.start();
    const hello = (await a.waitFor((entry) => entry.message.type === 'router.hello')).message as RouterHello;
    assert.equal(hello.routersChanged, true);
    assert.deepEqual(hello.linkDialerGroups, ['default', 'east']);
    await until(() => ch.connected, 'welcome');
    a.send('router-1', {
      type: 'ctrl.routersChanged',
      connected: [{ id: 'router-2', name: 'r2', linkListeners: [] }, { id: 'router-4', name: 'r4', linkListeners: [] }],
      disconnected: ['router-3'],
    });
    await until(() => events.connected.length === 2, 'both arrivals');
    assert.deepEqual(events.connected.map((router) => router.id), ['router-2', 'router-4']);
    assert.deepEqual(events.disconnected, ['router-3']);
    await ch.stop();
  });

  it('logs a refusal and tries again later', async () => {
    const a = await fake('ctrl-c', { allowedRouters: new Set(['someone-else']) });
    const { channel: ch, events, logger } = channel([a.ctrlAddress]);
    ch.start();
    await until(() => a.messages('router.hello').length >= 2, 'a second hello after the refusal');
    assert.equal(events.welcomes.length, 0);
    const refusal = logger.lines.find((line) => line.msg === 'controller refused the router');
    assert.equal(refusal?.reason, 'router router-1 is not enrolled');
    await ch.stop();
  });

  it('fails over to another member when its controller dies, and follows membership changes; names the certificate of the controller welcoming it now', async () => {
    const a = await fake('ctrl-d');
    const b = await fake('ctrl-e');
    a.options.members = [a.member, b.member];
    b.options.members = [a.member, b.member];
    const { channel: ch, events } = channel([a.ctrlAddress]);
    ch.start();
    await until(() => ch.connected, 'welcome from a');
    assert.match(ch.controllerCertificate?.subjectAltName ?? '', /\/controller\/ctrl-d$/);
    assert.deepEqual(ch.endpoints, [a.ctrlAddress, b.ctrlAddress]);
    await a.kill();
    await until(() => events.downs.length === 1, 'the channel to go down');
    if (!ch.connected) assert.equal(ch.controllerCertificate, undefined, 'no certificate while no controller welcomes it');
    await until(() => ch.connected && ch.endpoint === b.ctrlAddress, 'failover to b');
    assert.equal(events.welcomes.at(-1)?.welcome.controllerId, 'ctrl-e');
    assert.match(ch.controllerCertificate?.subjectAltName ?? '', /\/controller\/ctrl-e$/);
    b.send('router-1', { type: 'ctrl.members', members: [b.member] });
    await until(() => ch.endpoints.length === 1, 'membership change');
    assert.deepEqual(ch.endpoints, [b.ctrlAddress]);
    await ch.stop();
  });

  it('closes the channel on a frame nested deeper than the controller-to-router limit, and dials again', async () => {
    const a = await fake('ctrl-deep');
    const { channel: ch, events } = channel([a.ctrlAddress]);
    ch.start();
    await until(() => ch.connected, 'welcome');
    let deep: unknown = [];
    for (let depth = 0; depth < 130; depth += 1) deep = [deep];
    a.send('router-1', { type: 'ctrl.members', members: deep } as unknown as Parameters<FakeController['send']>[1]);
    await until(() => events.downs.length > 0, 'the channel to close');
    assert.match(events.downs[0]!, /bad frame: .*nests deeper than 128 levels/);
    await until(() => a.messages('router.hello').length >= 2, 'a new hello after the close');
    await ch.stop();
  });

  it('closes a channel that stays silent for closeUnresponsiveTimeout', async () => {
    const a = await fake('ctrl-f', { answerHeartbeats: false });
    const { channel: ch, events } = channel([a.ctrlAddress], { closeUnresponsiveTimeout: 300 });
    ch.start();
    await until(() => ch.connected, 'welcome');
    await until(() => events.downs.length > 0, 'the silent channel to close');
    assert.match(events.downs[0]!, /closeUnresponsiveTimeout 300 ms/);
    await ch.stop();
  });

  it('dials the controller from ctrl.bind, an IP or an interface name', async () => {
    const a = await fake('ctrl-g');
    const { channel: ch, logger } = channel([a.ctrlAddress], { bind: '127.0.0.2' });
    ch.start();
    await until(() => ch.connected, 'welcome');
    assert.equal(a.channels.get('router-1')?.remoteAddress, '127.0.0.2', 'the controller sees the bound address');
    assert.equal(logger.lines.find((line) => line.msg === 'dialing controller')?.localAddress, '127.0.0.2');
    await ch.stop();
    assert.equal(resolveBind('lo', '127.0.0.1'), '127.0.0.1', 'an interface name: its address of the controller family');
    assert.equal(resolveBind('no-such-interface', '127.0.0.1'), undefined);
  });

  it('fails a request to a controller that does not answer after defaultRequestTimeout', async () => {
    const a = await fake('ctrl-h', { answerPings: false });
    const { channel: ch } = channel([a.ctrlAddress], { requestTimeoutMs: 300 });
    ch.start();
    await until(() => ch.connected, 'welcome');
    const startedAt = performance.now();
    await assert.rejects(ch.request({ op: 'ping' }), { message: 'controller request ping timed out after 300 ms' });
    const waited = performance.now() - startedAt;
    assert.ok(waited >= 295 && waited < 900, `rejected after ${waited.toFixed(0)} ms`);
    await ch.stop();
  });

  it('rewrites the endpoints file when the controller later announces new members, not only on the welcome', async () => {
    const a = await fake('ctrl-i');
    const b = await fake('ctrl-j');
    a.options.members = [a.member];
    const file = join(pkiDir, 'endpoints-members');
    const keeper = new EndpointsFileKeeper(file, createMemoryLogger());
    const { channel: ch } = channel([a.ctrlAddress], { onMembers: (members) => keeper.update(members) });
    const saved = () => (existsSync(file) ? (parse(readFileSync(file, 'utf8')) as { endpoints: string[]; controllers: { id: string }[] }) : undefined);
    ch.start();
    await until(() => ch.connected, 'welcome');
    await keeper.settled();
    assert.deepEqual(saved()?.endpoints, [a.ctrlAddress], 'written on the welcome');
    a.send('router-1', { type: 'ctrl.members', members: [a.member, b.member] });
    await until(() => saved()?.endpoints.length === 2, 'the file to follow ctrl.members');
    await keeper.settled();
    assert.deepEqual(saved(), {
      endpoints: [a.ctrlAddress, b.ctrlAddress],
      controllers: [
        { id: 'ctrl-i', endpoints: [{ address: a.ctrlAddress }] },
        { id: 'ctrl-j', endpoints: [{ address: b.ctrlAddress }] },
      ],
    });
    assert.equal(statSync(file).mode & 0o777, 0o600);
    await ch.stop();
  });

  it('delivers the metrics queued while the controller was unreachable once it is back, each once old enough', async () => {
    const a = await fake('ctrl-k');
    const proxy = new TcpProxy(Number(a.ctrlAddress.split(':').at(-1)));
    await proxy.start();
    const proxied = `tls:127.0.0.1:${proxy.port}`;
    a.options.members = [{ id: 'ctrl-k', address: proxied }]; // the welcome must not lead the router around the proxy
    let metrics: MetricsReporter | undefined;
    const { channel: ch } = channel([proxied], { onWelcome: () => metrics?.flush() });
    metrics = new MetricsReporter({
      reportIntervalMs: 50,
      messageQueueSize: 100,
      intervalAgeThresholdMs: 150,
      clock: systemClock,
      logger: createMemoryLogger(),
      build: (now) => ({ type: 'router.metrics', routerId: 'router-1', timestamp: now, gauges: { 'ctrl.connected': ch.connected ? 1 : 0 } }),
      send: (message) => ch.send(message),
    });
    ch.start();
    metrics.start();
    await until(() => a.messages('router.metrics').length >= 2, 'metrics while connected');

    proxy.cut();
    await until(() => !ch.connected, 'the channel to go down');
    const downFrom = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const downTo = Date.now();
    const queuedWhileDown = metrics.queued;
    assert.ok(queuedWhileDown >= 8, `${queuedWhileDown} messages waiting`);
    proxy.heal();
    // Sent oldest first: once one built after the outage arrives, every one built during it has.
    await until(() => a.received.some((entry) => entry.message.type === 'router.metrics' && entry.message.timestamp > downTo), 'the messages built during the outage', 5000);
    metrics.stop();
    await ch.stop();
    await proxy.stop();

    const delivered = a.received.filter((entry) => entry.message.type === 'router.metrics');
    const fromOutage = delivered.filter((entry) => (entry.message as RouterMetrics).timestamp > downFrom && (entry.message as RouterMetrics).timestamp < downTo);
    assert.ok(fromOutage.length >= 8, `${fromOutage.length} of the messages built during the outage were delivered`);
    assert.ok(fromOutage.every((entry) => (entry.message as RouterMetrics).gauges['ctrl.connected'] === 0), 'built while down');
    const timestamps = delivered.map((entry) => (entry.message as RouterMetrics).timestamp);
    assert.deepEqual(timestamps, [...timestamps].sort((x, y) => x - y), 'oldest first');
    assert.ok(timestamps.slice(1).every((t, i) => t - timestamps[i]! < 120), 'none lost: one every 50 ms throughout');
    assert.ok(delivered.every((entry) => entry.at - (entry.message as RouterMetrics).timestamp >= 150), 'none before it was 150 ms old');
  });

  it('refuses a server presenting a router certificate of the same CA, says no hello to it and moves on to the next controller', async () => {
    // A router's server certificate, as enrollment issues it: it chains to the CA and names 127.0.0.1.
    const keys = await generateKeyPair();
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=router-9', keys, signingAlgorithm: ecdsaWithSha256 });
    const routerServer = await signCertificateRequest(await loadIssuer(pkiDir), csr.toString('pem'), {
      usage: 'server',
      commonName: 'router-9',
      ipAddresses: ['127.0.0.1'],
      spiffeId: 'spiffe://edgeward.test/router/router-9',
    });
    const impostor = await fake('ctrl-impostor', { certificate: { chainPem: routerServer.chainPem, keyPem: await privateKeyToPem(keys.privateKey) } });
    const genuine = await fake('ctrl-l');
    const { channel: ch, events, logger } = channel([impostor.ctrlAddress, genuine.ctrlAddress]);
    ch.start();
    await until(() => ch.connected, 'welcome from the genuine controller');
    assert.equal(ch.endpoint, genuine.ctrlAddress);
    assert.deepEqual(events.welcomes.map((welcome) => welcome.welcome.controllerId), ['ctrl-l']);
    assert.equal(impostor.messages('router.hello').length, 0, 'the impostor hears no hello');
    const refusal = logger.lines.find((line) => line.msg === "controller refused: its certificate is not a controller's");
    assert.equal(refusal?.endpoint, impostor.ctrlAddress);
    assert.match(String(refusal?.reason), /its certificate is a router's \(spiffe:\/\/edgeward\.test\/router\/router-9\), not a controller's/);
    await ch.stop();
  });

  it('refuses a welcome that names another controller than the certificate does', async () => {
    const other = await createControllerCertificate(await loadIssuer(pkiDir), { id: 'ctrl-other', trustDomain: 'edgeward.test', dnsNames: [], ipAddresses: ['127.0.0.1'] });
    const a = await fake('ctrl-m', { certificate: { chainPem: other.chainPem, keyPem: other.keyPem } });
    const { channel: ch, events, logger } = channel([a.ctrlAddress]);
    ch.start();
    await until(() => logger.lines.some((line) => line.msg === "controller refused: its certificate is not a controller's"), 'the refusal');
    const refusal = logger.lines.find((line) => line.msg === "controller refused: its certificate is not a controller's");
    assert.match(String(refusal?.reason), /the welcome names controller "ctrl-m" but the certificate is controller ctrl-other's/);
    assert.equal(events.welcomes.length, 0);
    assert.equal(ch.connected, false);
    await ch.stop();
  });

  it('with ctrl.controllerFingerprints, accepts only the pinned controller certificates', async () => {
    const unpinned = await fake('ctrl-n');
    const pinned = await fake('ctrl-o');
    const pin = fingerprintOf(certificatesOfPem(readFileSync(controllerPaths(pkiDir, 'ctrl-o').cert, 'utf8'))[0]!);
    const { channel: ch, events, logger } = channel([unpinned.ctrlAddress, pinned.ctrlAddress], { controllerFingerprints: [pin] });
    ch.start();
    await until(() => ch.connected, 'welcome from the pinned controller');
    assert.deepEqual(events.welcomes.map((welcome) => welcome.welcome.controllerId), ['ctrl-o']);
    assert.equal(unpinned.messages('router.hello').length, 0);
    const refusal = logger.lines.find((line) => line.msg === "controller refused: its certificate is not a controller's");
    assert.match(String(refusal?.reason), /is not one of ctrl\.controllerFingerprints/);
    assert.deepEqual(logger.lines.find((line) => line.msg === 'controllers are recognised by their certificate')?.fingerprints, [pin]);
    await ch.stop();
  });

  it('refuses requests while no channel is established', async () => {
    const { channel: ch } = channel(['tls:127.0.0.1:1']);
    await assert.rejects(ch.request({ op: 'ping' }), /no control channel established/);
  });
});

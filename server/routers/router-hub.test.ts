// The hub over real TLS on loopback with short timings: heartbeats and silence, the hello deadline, debounced edge
// models, membership pushes, a router's newer channel replacing its older one, and other controllers' routers.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, type Server } from 'node:tls';
import { after, before, test } from 'node:test';
import type { EdgeModel, LinkListenerInfo, RouterInfo } from '../../common/control-channel/control-messages.ts';
import { encodeFrame, FrameDecoder } from '../../common/framing/frame-codec.ts';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { systemClock } from '../../common/time/clock.ts';
import { fingerprintOfPem } from '../auth/cert/certificate-fingerprint.ts';
import type { CircuitReport } from '../events/circuit-events.ts';
import type { AppliedChanges } from '../model/model-state-machine.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { createClientCertificate } from '../../common/pki/client-certificate.ts';
import { controllerPaths, initPki, issueControllerCertificate, loadIssuer, pkiPaths } from '../../common/pki/pki-directory.ts';
import { RouterHub, type RouterEvent, type RouterHubTiming } from './router-hub.ts';
import { TerminatorRegistry } from './terminator-registry.ts';
import { applyEdgeModelDelta } from '../../common/control-channel/edge-model-delta.ts';
import { edgeModelOf } from './edge-model-snapshot.ts';
import { edgeRouterRow, EditableRows, serviceRow } from './edge-model-test-support.ts';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';

let root: string;
let caPem: string;
let serverTls: { cert: string; key: string };
const credentials = new Map<string, { cert: string; key: string }>();
const at = '2026-01-01T00:00:00.000Z';

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'edgeward-hub-'));
  const dir = join(root, 'pki');
  await initPki(dir, { trustDomain: 'edgeward.test' });
  await issueControllerCertificate(dir, { id: 'c1', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  caPem = readFileSync(pkiPaths(dir).bundle, 'utf8');
  serverTls = { cert: readFileSync(controllerPaths(dir, 'c1').chain, 'utf8'), key: readFileSync(controllerPaths(dir, 'c1').key, 'utf8') };
  const issuer = await loadIssuer(dir);
  for (const id of ['r1', 'r2', 'r3', 'r4']) {
    const issued = await createClientCertificate(issuer, { commonName: id });
    credentials.set(id, { cert: issued.chainPem, key: issued.keyPem });
  }
});
after(() => rmSync(root, { recursive: true, force: true }));

const routerRow = (id: string, changes: Partial<EdgeRouter> = {}): EdgeRouter => ({
  id, createdAt: at, updatedAt: at, tags: {}, name: `name-${id}`, roleAttributes: [], isTunnelerEnabled: false, cost: 0, noTraversal: false, disabled: false, appData: {},
  isVerified: true, fingerprint: fingerprintOfPem(credentials.get(id)!.cert), certPem: null, enrollmentToken: null, enrollmentJwt: null, enrollmentCreatedAt: null, enrollmentExpiresAt: null, ...changes,
});

const timing: RouterHubTiming = { heartbeatIntervalMs: 50, unresponsiveMs: 400, helloTimeoutMs: 300, edgeModelDebounceMs: 100 };

async function startHub(options: { others?: RouterInfo[]; sdkAllowed?: (terminator: TerminatorRecord) => boolean; modelRows?: EditableRows; timing?: Partial<RouterHubTiming>; model?: { index: number; model: EdgeModel } } = {}) {
  const rows = new Map<string, EdgeRouter>(['r1', 'r2', 'r3', 'r4'].map((id) => [id, routerRow(id)]));
  const logger = createMemoryLogger();
  const announced: RouterEvent[] = [];
  const recorded: Array<[string, Readonly<Record<string, unknown>>]> = [];
  const roundTrips: Array<[string, number]> = [];
  let modelIndex = 1;
  // What each router may host (serviceId → address), as the model would say.
  const hosted = new Map<string, Map<string, string>>();
  const terminators = new TerminatorRegistry({ controllerId: 'c1', graceMs: 200 });
  const circuitReports: Array<[string, CircuitReport]> = [];
  const hub = new RouterHub({
    circuitReport: (routerId, report) => circuitReports.push([routerId, report]),
    createCircuit: async (routerId, request) => ({ refused: { code: 'NO_PATH', message: `asked by ${routerId}: ${JSON.stringify(request)}` } }),
    edgeHello: (routerId) => ({ refused: { code: 'INVALID_SESSION', message: `asked by ${routerId}` } }),
    edgeBind: (routerId) => ({ refused: { code: 'INVALID_SESSION', message: `asked by ${routerId}` } }),
    sdkTerminatorAllowed: (terminator) => options.sdkAllowed?.(terminator) ?? true,
    hostedServices: (id) => hosted.get(id) ?? new Map(),
    terminators,
    controllerId: 'c1',
    findRouter: (id) => rows.get(id),
    edgeModel: () => (options.modelRows ? edgeModelOf(options.modelRows) : (options.model ?? { index: modelIndex, model: { services: [] } })),
    ...(options.modelRows ? { modelRows: options.modelRows } : {}),
    otherRouters: async () => options.others ?? [],
    announce: (event) => announced.push(event),
    metrics: { record: (id, gauges) => recorded.push([id, gauges]), connected: () => undefined, disconnected: () => undefined, roundTrip: (id, ms) => roundTrips.push([id, ms]) },
    logger,
    clock: systemClock,
    timing: { ...timing, ...options.timing },
  });
  const server: Server = createServer({ ...serverTls, ca: caPem, requestCert: true, rejectUnauthorized: true }, (socket) => hub.accept(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const close = async () => {
    hub.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { hub, rows, logger, announced, recorded, roundTrips, port, close, bumpModel: () => modelIndex++, hosted, terminators, circuitReports };
}

interface Client {
  frames: any[];
  closed: boolean;
  send(frame: unknown): void;
  next(type: string, ms?: number): Promise<any>;
  count(type: string): number;
  destroy(): void;
}

async function client(
  port: number,
  id: string,
  options: { answerHeartbeats?: boolean; hello?: boolean; deltas?: boolean; dialerGroups?: string[]; listeners?: LinkListenerInfo[]; reads?: boolean } = {},
): Promise<Client> {
  const { cert, key } = credentials.get(id)!;
  const socket = connect({ host: '127.0.0.1', port, cert, key, ca: caPem, servername: 'localhost' });
  const decoder = new FrameDecoder();
  const result: Client = {
    frames: [],
    closed: false,
    send: (frame) => socket.write(encodeFrame(frame)),
    async next(type, ms = 3000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const index = result.frames.findIndex((frame) => frame.type === type);
        if (index >= 0) return result.frames.splice(index, 1)[0];
        if (Date.now() > deadline) throw new Error(`no ${type}; have ${JSON.stringify(result.frames.map((frame) => frame.type))}, closed=${result.closed}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    count: (type) => result.frames.filter((frame) => frame.type === type).length,
    destroy: () => socket.destroy(),
  };
  socket.on('data', (chunk: Buffer) => {
    for (const frame of decoder.push(chunk) as any[]) {
      result.frames.push(frame);
      if (frame.type === 'hb' && options.answerHeartbeats !== false) result.send({ type: 'hbAck', sentAt: frame.sentAt });
    }
  });
  socket.on('close', () => (result.closed = true));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
  const linkListeners = options.listeners ?? [{ binding: 'transport', advertise: `tls:127.0.0.1:40${id.slice(1)}`, groups: ['g'] }];
  if (options.hello !== false) {
    result.send({
      type: 'router.hello',
      routerId: id,
      version: 'v1',
      linkListeners,
      ...(options.deltas ? { edgeModelDeltas: true } : {}),
      ...(options.dialerGroups ? { routersChanged: true, linkDialerGroups: options.dialerGroups } : {}),
    });
  }
  if (options.reads === false) {
    // A router that stops reading but keeps talking: its heartbeats keep it from being closed as silent.
    socket.pause();
    const beats = setInterval(() => result.send({ type: 'hb', sentAt: Date.now() }), 50);
    socket.on('close', () => clearInterval(beats));
  }
  return result;
}

const until = async (what: string, probe: () => boolean, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

test('the controller heartbeats a welcomed router; one that answers stays, one that goes silent is closed', async () => {
  const env = await startHub();
  try {
    const live = await client(env.port, 'r1');
    const silent = await client(env.port, 'r2', { answerHeartbeats: false });
    await live.next('ctrl.welcome');
    await silent.next('ctrl.welcome');
    silent.send({ type: 'hb', sentAt: 5 });
    assert.equal((await silent.next('hbAck')).sentAt, 5);
    // r2 sends nothing more: after unresponsiveMs it is closed.
    await until('the silent channel to close', () => silent.closed);
    const line = env.logger.lines.find((record) => record.msg === 'router disconnected' && record.routerId === 'r2')!;
    assert.match(String(line.reason), /no traffic for 400 ms/);
    assert.ok(live.count('hb') >= 3, 'heartbeats every 50 ms');
    assert.equal(live.closed, false, 'answering heartbeats keeps a channel open');
    assert.equal(env.hub.isConnected('r1'), true);
    assert.equal(env.hub.isConnected('r2'), false);
    assert.deepEqual(env.announced, [
      { event: 'connected', router: { id: 'r1', name: 'name-r1', linkListeners: [{ binding: 'transport', advertise: 'tls:127.0.0.1:401', groups: ['g'] }] } },
      { event: 'connected', router: { id: 'r2', name: 'name-r2', linkListeners: [{ binding: 'transport', advertise: 'tls:127.0.0.1:402', groups: ['g'] }] } },
      { event: 'disconnected', routerId: 'r2' },
    ]);
    assert.equal((await live.next('ctrl.routerDisconnected')).routerId, 'r2');
    live.destroy();
  } finally {
    await env.close();
  }
});

test('the controller measures each router\'s control round trip from its answered heartbeats; an echo not its own is ignored', async () => {
  const env = await startHub();
  try {
    const router = await client(env.port, 'r1', { answerHeartbeats: false });
    await router.next('ctrl.welcome');
    router.send({ type: 'hbAck', sentAt: 'yesterday' });
    router.send({ type: 'hbAck', sentAt: performance.now() + 60_000 });
    router.send({ type: 'hbAck', sentAt: -5 });
    router.send({ type: 'hbAck', sentAt: 1 });
    const beat = await router.next('hb');
    await new Promise((resolve) => setTimeout(resolve, 20));
    router.send({ type: 'hbAck', sentAt: beat.sentAt });
    await until('a round trip measured', () => env.roundTrips.length > 0);
    assert.equal(env.roundTrips.length, 1, 'only the echo of its own heartbeat counts');
    const [routerId, ms] = env.roundTrips[0]!;
    assert.equal(routerId, 'r1');
    assert.ok(ms >= 20 && ms < 2000, `${ms} ms: from the heartbeat sent to its answer`);
    router.destroy();
  } finally {
    await env.close();
  }
});

test('a connection that never says hello is closed after helloTimeoutMs, without a welcome', async () => {
  const env = await startHub();
  try {
    const quiet = await client(env.port, 'r1', { hello: false });
    await until('the hello deadline', () => quiet.closed);
    assert.equal(quiet.count('ctrl.welcome'), 0);
    assert.equal(env.announced.length, 0);
  } finally {
    await env.close();
  }
});

test('model changes within the debounce window make one edge model; members are pushed only when they change', async () => {
  const env = await startHub();
  try {
    const router = await client(env.port, 'r1');
    const welcome = await router.next('ctrl.welcome');
    assert.deepEqual(welcome.members, []);
    assert.equal((await router.next('ctrl.edgeModel')).index, 1);
    const change = (entityType: string): AppliedChanges => ({ index: 9, command: { type: 'raft.noop' }, changes: [{ eventType: 'updated', entityType, id: 'x' }] });
    for (let i = 0; i < 5; i++) {
      env.bumpModel();
      env.hub.modelChanged(change('services'));
    }
    env.hub.modelChanged(change('apiSessions'));
    const pushed = await router.next('ctrl.edgeModel');
    assert.equal(pushed.index, 6, 'read when the window closes');
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal(router.count('ctrl.edgeModel'), 0, 'one push for the burst; api sessions are not part of it');

    const members = [{ id: 'c1', address: 'tls:127.0.0.1:1' }];
    env.hub.setMembers(members);
    env.hub.setMembers([...members]);
    assert.deepEqual((await router.next('ctrl.members')).members, members);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(router.count('ctrl.members'), 0, 'the same members are not pushed again');

    router.send({ type: 'router.metrics', routerId: 'r1', timestamp: 1, gauges: { 'link.count': 1 } });
    router.send({ type: 'router.metrics', routerId: 'r2', timestamp: 1, gauges: { 'link.count': 9 } });
    await until('metrics recorded', () => env.recorded.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(env.recorded, [['r1', { 'link.count': 1 }]], 'metrics naming another router are ignored');
    router.destroy();
  } finally {
    await env.close();
  }
});

test('a router that applies deltas is sent the whole model once, then the changed rows; one that does not, the whole model each time', async () => {
  const rows = new EditableRows();
  rows.put('services', serviceRow('s1', ['web']));
  const env = await startHub({ modelRows: rows });
  try {
    const applying = await client(env.port, 'r1', { deltas: true });
    const older = await client(env.port, 'r2');
    let held = await applying.next('ctrl.edgeModel');
    assert.equal((await older.next('ctrl.edgeModel')).index, held.index);
    const edit = (changes: AppliedChanges['changes']) => env.hub.modelChanged({ index: rows.index, command: { type: 'raft.noop' }, changes });
    edit([rows.put('services', serviceRow('s2', ['db'])), rows.put('edgeRouters', edgeRouterRow('r9', ['edge']))]);
    edit([rows.delete('services', 's1')]);
    const delta = await applying.next('ctrl.edgeModelDelta');
    assert.deepEqual({ fromIndex: delta.fromIndex, index: delta.index }, { fromIndex: held.index, index: rows.index }, 'one delta for the burst, from the model sent at the welcome');
    assert.deepEqual(delta.services, { upserted: [{ id: 's2', name: 'service-s2', roleAttributes: ['db'], configs: {} }], deleted: ['s1'] });
    assert.deepEqual(delta.edgeRouters.upserted.map((router: { id: string }) => router.id), ['r9']);
    const whole = await older.next('ctrl.edgeModel');
    const applied = applyEdgeModelDelta(held.index, held.model, delta);
    assert.deepEqual(applied, { kind: 'applied', model: whole.model }, 'the delta applied gives the whole model the other router was sent');
    held = { index: delta.index, model: whole.model };
    assert.equal(applying.count('ctrl.edgeModel'), 0, 'no whole model went to the router that applies deltas');

    env.hub.modelReplaced();
    assert.equal((await applying.next('ctrl.edgeModel')).index, rows.index, 'a snapshot installed: the whole model, to every router');
    await older.next('ctrl.edgeModel');
    edit([rows.put('services', serviceRow('s3', []))]);
    assert.equal((await applying.next('ctrl.edgeModelDelta')).fromIndex, held.index, 'deltas again after it');
    applying.destroy();
    older.destroy();
  } finally {
    await env.close();
  }
});

test('an identity change pushes no edge model (routers are not sent identities) but its SDK terminators are checked again', async () => {
  let mayHost = true;
  const env = await startHub({ sdkAllowed: () => mayHost });
  try {
    const router = await client(env.port, 'r1');
    await router.next('ctrl.welcome');
    await router.next('ctrl.edgeModel');
    assert.ok(env.terminators.addSdk('r1', { id: 'sdk-t1', serviceId: 's1', routerId: 'r1', binding: 'edge', address: 'hosted:sdk-t1', identity: 'i1', cost: 0, precedence: 'default', createdAt: at, updatedAt: at, controllerId: 'c1', origin: 'sdk', hostIdentityId: 'i1', apiSessionId: 'a1' }));
    mayHost = false;
    env.hub.modelChanged({ index: 9, command: { type: 'raft.noop' }, changes: [{ eventType: 'updated', entityType: 'identities', id: 'i1' }] });
    assert.deepEqual((await router.next('ctrl.sdkTerminatorsRemoved')).terminatorIds, ['sdk-t1'], 'the identity may no longer Bind: its terminator goes');
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal(router.count('ctrl.edgeModel'), 0, 'no edge model for an identity change');
    router.destroy();
  } finally {
    await env.close();
  }
});

test("another router's enrollment or re-enrollment pushes no edge model (it changes no field the model carries); its create does", async () => {
  const env = await startHub();
  try {
    const router = await client(env.port, 'r1');
    await router.next('ctrl.welcome');
    await router.next('ctrl.edgeModel');
    const routerChange = (command: AppliedChanges['command']): AppliedChanges => ({ index: 9, command, changes: [{ eventType: 'updated', entityType: 'edgeRouters', id: 'r2' }] });
    env.hub.modelChanged(routerChange({ type: 'edgeRouter.enroll', id: 'r2', token: 't', at, fingerprint: 'f', certPem: 'c' }));
    env.hub.modelChanged(routerChange({ type: 'edgeRouter.reEnroll', id: 'r2', at, enrollment: { token: 't2', jwt: 'j', createdAt: at, expiresAt: at } }));
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal(router.count('ctrl.edgeModel'), 0, 'no edge model for an enrollment');
    env.bumpModel();
    env.hub.modelChanged({ index: 10, command: { type: 'raft.noop' }, changes: [{ eventType: 'created', entityType: 'edgeRouters', id: 'r3' }] });
    assert.ok(await router.next('ctrl.edgeModel'), 'a new router is in the next model (links to it are allowed)');
    router.destroy();
  } finally {
    await env.close();
  }
});

test('a router connecting again replaces its older channel without announcing a disconnect; a disabled router is closed', async () => {
  const env = await startHub({ others: [{ id: 'far', name: 'far-away', linkListeners: [] }] });
  try {
    const older = await client(env.port, 'r1');
    const welcome = await older.next('ctrl.welcome');
    assert.deepEqual(welcome.routers, [{ id: 'far', name: 'far-away', linkListeners: [] }], 'routers of other controllers are in the welcome');
    const watcher = await client(env.port, 'r2');
    await watcher.next('ctrl.welcome');
    const newer = await client(env.port, 'r1');
    await newer.next('ctrl.welcome');
    await until('the older channel to close', () => older.closed);
    assert.equal(env.hub.isConnected('r1'), true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(watcher.count('ctrl.routerDisconnected'), 0);
    assert.ok(!env.announced.some((event) => event.event === 'disconnected'));
    assert.equal((await watcher.next('ctrl.routerConnected')).router.id, 'r1', 'the reconnect is announced again: its listeners may have changed');

    // Other controllers' routers: their coming and going reaches this controller's routers, unless the router is here.
    env.hub.remoteEvent({ event: 'connected', router: { id: 'r9', name: 'n9', linkListeners: [] } });
    assert.equal((await watcher.next('ctrl.routerConnected')).router.id, 'r9');
    env.hub.remoteEvent({ event: 'disconnected', routerId: 'r1' });
    env.hub.remoteEvent({ event: 'disconnected', routerId: 'r9' });
    assert.equal((await watcher.next('ctrl.routerDisconnected')).routerId, 'r9');
    assert.equal(watcher.frames.filter((frame) => frame.type === 'ctrl.routerDisconnected' && frame.routerId === 'r1').length, 0, 'r1 is connected here');

    env.rows.set('r1', routerRow('r1', { disabled: true }));
    env.hub.modelChanged({ index: 10, command: { type: 'raft.noop' }, changes: [{ eventType: 'updated', entityType: 'edgeRouters', id: 'r1' }] });
    assert.match((await newer.next('ctrl.refused')).reason, /disabled/);
    await until('the disabled router to be closed', () => newer.closed);
    assert.equal((await watcher.next('ctrl.routerDisconnected')).routerId, 'r1');
    watcher.destroy();
  } finally {
    await env.close();
  }
});

test("routers are told other routers' certificate fingerprints from the model, never those another controller sent", async () => {
  const env = await startHub({ others: [{ id: 'far', name: 'far-away', linkListeners: [], fingerprint: 'f'.repeat(40), serverFingerprint: 'e'.repeat(40) }] });
  const fingerprintOf = (id: string) => env.rows.get(id)!.fingerprint!;
  try {
    env.rows.set('r2', routerRow('r2', { serverFingerprint: '2'.repeat(40) }));
    env.rows.set('far', { ...routerRow('r1'), id: 'far', name: 'far-away', fingerprint: 'a'.repeat(40), serverFingerprint: 'b'.repeat(40) });
    const r1 = await client(env.port, 'r1');
    const first = await r1.next('ctrl.welcome');
    assert.deepEqual(first.routers, [{ id: 'far', name: 'far-away', linkListeners: [], fingerprint: 'a'.repeat(40), serverFingerprint: 'b'.repeat(40) }]);
    const r2 = await client(env.port, 'r2');
    const second = await r2.next('ctrl.welcome');
    const r1Info = second.routers.find((router: RouterInfo) => router.id === 'r1');
    assert.equal(r1Info.fingerprint, fingerprintOf('r1'));
    assert.equal('serverFingerprint' in r1Info, false, 'a row without a recorded server certificate gives none');
    const connected = await r1.next('ctrl.routerConnected');
    assert.equal(connected.router.id, 'r2');
    assert.equal(connected.router.fingerprint, fingerprintOf('r2'));
    assert.equal(connected.router.serverFingerprint, '2'.repeat(40));
    env.hub.remoteEvent({ event: 'connected', router: { id: 'r9', name: 'n9', linkListeners: [], fingerprint: 'c'.repeat(40) } });
    const remote = await r1.next('ctrl.routerConnected');
    assert.deepEqual(remote.router, { id: 'r9', name: 'n9', linkListeners: [] }, 'an unknown router comes without fingerprints');
    r1.destroy();
    r2.destroy();
  } finally {
    await env.close();
  }
});

test('a router registers terminators only for services it may host; they go with the model, and a grace after it leaves', async () => {
  const env = await startHub();
  const listed = () => env.terminators.list(Date.now()).map((terminator) => `${terminator.routerId}/${terminator.serviceId}@${terminator.address}`);
  try {
    env.hosted.set('r1', new Map([['s1', 'tcp:127.0.0.1:81'], ['s2', 'tcp:127.0.0.1:82']]));
    const router = await client(env.port, 'r1');
    await router.next('ctrl.welcome');
    router.send({
      type: 'router.terminator.create',
      terminators: [
        { serviceId: 's1', address: 'tcp:127.0.0.1:81' },
        { serviceId: 's2', address: 'tcp:10.0.0.1:22' },
        { serviceId: 's3', address: 'tcp:127.0.0.1:83' },
      ],
    });
    await until('the terminator to be registered', () => listed().length > 0);
    assert.deepEqual(listed(), ['r1/s1@tcp:127.0.0.1:81'], 'not a service it may not Bind, nor another address than its host.v1');
    assert.ok(env.logger.lines.some((line) => String(line.msg).startsWith('router terminators refused') && (line.services as string[]).join() === 's2,s3'));
    assert.deepEqual(env.announced.at(-1), { event: 'terminators', routerId: 'r1' });

    router.send({ type: 'router.terminator.create', terminators: Array.from({ length: 1001 }, (_, i) => ({ serviceId: `s${i}`, address: 'a' })) });
    router.send({ type: 'router.terminator.create', terminators: [{ serviceId: 's2', address: 'tcp:127.0.0.1:82' }] });
    await until('the second terminator', () => listed().length === 2);
    assert.ok(env.logger.lines.some((line) => line.msg === 'router terminator message refused' && /at most 1000/.test(String(line.reason))));
    router.send({ type: 'router.terminator.remove', serviceIds: ['s2'] });
    await until('the removal', () => listed().length === 1);

    // The model no longer lets r1 host s1: its terminator goes without a word from the router.
    env.hosted.set('r1', new Map());
    env.hub.modelChanged({ index: 11, command: { type: 'raft.noop' }, changes: [{ eventType: 'updated', entityType: 'servicePolicies', id: 'p' }] });
    await until('the terminator to go with the debounced model push', () => listed().length === 0);

    env.hosted.set('r1', new Map([['s1', 'tcp:127.0.0.1:81']]));
    router.send({ type: 'router.terminator.create', terminators: [{ serviceId: 's1', address: 'tcp:127.0.0.1:81' }] });
    await until('registered again', () => listed().length === 1);
    router.destroy();
    await until('the channel to close', () => !env.hub.isConnected('r1'));
    assert.equal(listed().length, 1, 'still listed within the grace');
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.deepEqual(listed(), [], 'gone after the grace');
  } finally {
    await env.close();
  }
});

test("a router's circuit report is written only when its path starts at that router: none without a path, none for another ingress", async () => {
  const env = await startHub();
  try {
    const router = await client(env.port, 'r1');
    await router.next('ctrl.welcome');
    const forged = { type: 'router.circuit', event: 'created', circuitId: 'c-forged', serviceId: 's1', clientId: 'some-identity', terminatorId: 't1', links: [] };
    router.send(forged);
    router.send({ ...forged, routers: [] });
    router.send({ ...forged, routers: ['r2', 'r1'] });
    router.send({ ...forged, circuitId: 'c-real', routers: ['r1', 'r2'], links: ['l1'] });
    await until('the genuine report', () => env.circuitReports.length > 0);
    await until('three refusals logged', () => env.logger.lines.filter((line) => line.msg === 'router circuit report refused').length === 3);
    assert.deepEqual(env.circuitReports.map(([routerId, report]) => [routerId, report.circuitId]), [['r1', 'c-real']], 'only the report that names r1 as its ingress');
    const reasons = env.logger.lines.filter((line) => line.msg === 'router circuit report refused').map((line) => [line.routerId, line.reason]);
    assert.deepEqual(reasons, [
      ['r1', 'it names no routers (path)'],
      ['r1', 'it names no routers (path)'],
      ['r1', 'it names another ingress'],
    ]);
    router.destroy();
  } finally {
    await env.close();
  }
});

test('a router disabled or deleted while connected is refused as revoked; at a hello only a known disabled router is', async () => {
  const env = await startHub();
  try {
    const r1 = await client(env.port, 'r1');
    await r1.next('ctrl.welcome');
    const r2 = await client(env.port, 'r2');
    await r2.next('ctrl.welcome');
    env.rows.set('r1', routerRow('r1', { disabled: true }));
    env.hub.modelChanged({ index: 10, command: { type: 'raft.noop' }, changes: [{ eventType: 'updated', entityType: 'edgeRouters', id: 'r1' }] });
    assert.equal((await r1.next('ctrl.refused')).revoked, true, 'disabled: revoked');
    env.rows.delete('r2');
    env.hub.modelChanged({ index: 11, command: { type: 'raft.noop' }, changes: [{ eventType: 'deleted', entityType: 'edgeRouters', id: 'r2' }] });
    assert.equal((await r2.next('ctrl.refused')).revoked, true, 'deleted: revoked');

    const disabled = await client(env.port, 'r1');
    assert.equal((await disabled.next('ctrl.refused')).revoked, true, 'a disabled router saying hello');
    // A row this controller does not have may not be applied here yet: refused, but not told to drop its circuits.
    const unknown = await client(env.port, 'r2');
    const refused = await unknown.next('ctrl.refused');
    assert.match(refused.reason, /no edge router has the id r2/);
    assert.equal(refused.revoked, undefined);
  } finally {
    await env.close();
  }
});

const listening = (id: string, groups: string[]): LinkListenerInfo[] => [{ binding: 'transport', advertise: `tls:127.0.0.1:40${id.slice(1)}`, groups }];
const namedIn = (frames: any[]) => frames.filter((frame) => frame.type === 'ctrl.routersChanged').flatMap((frame) => [...frame.connected.map((router: RouterInfo) => `+${router.id}`), ...frame.disconnected.map((id: string) => `-${id}`)]);

test('routers that say routersChanged hear of arrivals and departures in batches, of just the routers they may link with; older routers get one frame each', async () => {
  const env = await startHub({ timing: { routersChangedIntervalMs: 150 } });
  try {
    // r1: an older router listening on g. r2 dials g and listens on nothing; r3 listens on g and dials nothing;
    // r4 neither dials nor listens.
    const older = await client(env.port, 'r1');
    await older.next('ctrl.welcome');
    const dialer = await client(env.port, 'r2', { dialerGroups: ['g'], listeners: [] });
    assert.deepEqual((await dialer.next('ctrl.welcome')).routers.map((router: RouterInfo) => router.id), ['r1'], 'r2 may dial r1');
    const listener = await client(env.port, 'r3', { dialerGroups: [], listeners: listening('r3', ['g']) });
    assert.deepEqual((await listener.next('ctrl.welcome')).routers.map((router: RouterInfo) => router.id).sort(), ['r1', 'r2'], 'r1 (dials any) and r2 may dial r3');
    const loner = await client(env.port, 'r4', { dialerGroups: [], listeners: [] });
    assert.deepEqual((await loner.next('ctrl.welcome')).routers, [], 'nobody may link with r4');
    // Arrivals so far reach r2 in a batch (r1's may too, if its batch was still pending at r2's welcome: harmless).
    await until('r2 to hear of r3', () => namedIn(dialer.frames).includes('+r3'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(namedIn(dialer.frames).filter((name) => name !== '+r1'), ['+r3'], 'not of r4');
    assert.deepEqual(namedIn(listener.frames).filter((name) => name !== '+r1' && name !== '+r2'), [], 'r3 hears of no one its welcome did not name (not of r4)');
    for (const router of [dialer, listener, loner]) router.frames.length = 0;

    // Three other controllers' routers arrive at once: one listening on g, one on h, one dialing g only.
    env.hub.remoteEvent({ event: 'connected', router: { id: 'x1', name: 'x1', linkListeners: listening('x1', ['g']), linkDialerGroups: [] } });
    env.hub.remoteEvent({ event: 'connected', router: { id: 'x2', name: 'x2', linkListeners: listening('x2', ['h']), linkDialerGroups: [] } });
    env.hub.remoteEvent({ event: 'connected', router: { id: 'x3', name: 'x3', linkListeners: [], linkDialerGroups: ['g'] } });
    const batch = await dialer.next('ctrl.routersChanged');
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.deepEqual([...namedIn([batch]), ...namedIn(dialer.frames)], ['+x1'], 'r2 hears of the routers listening on g, not of x2 (h) or x3 (a dialer)');
    assert.equal(dialer.frames.concat([batch]).filter((frame) => frame.type === 'ctrl.routersChanged').flatMap((frame) => frame.connected).some((router: object) => 'linkDialerGroups' in router), false, 'what controllers alone need stays with them');
    assert.deepEqual(namedIn(listener.frames), ['+x3'], 'r3 hears of x3, which may dial it');
    assert.deepEqual(namedIn(loner.frames), [], 'r4 hears of nobody');
    assert.equal(dialer.count('ctrl.routerConnected') + listener.count('ctrl.routerConnected') + loner.count('ctrl.routerConnected'), 0, 'no single frames to them');
    const heard = older.frames.filter((frame) => frame.type === 'ctrl.routerConnected').map((frame) => frame.router.id);
    assert.deepEqual(heard, ['r2', 'r3', 'r4', 'x1', 'x2', 'x3'], 'the older router is told of every router, one frame each, at once');

    // Departures: x1 leaves and r3 closes; r2 hears of both in one batch, the older router one frame each.
    dialer.frames.length = 0;
    env.hub.remoteEvent({ event: 'disconnected', routerId: 'x1' });
    listener.destroy();
    await until('r3 to be gone', () => !env.hub.isConnected('r3'));
    // The cluster's presence reports a local router's departure too: it goes only where r3's own did.
    env.hub.remoteEvent({ event: 'disconnected', routerId: 'r3' });
    await until('the older router to hear of both', () => older.count('ctrl.routerDisconnected') >= 2);
    const gone = await dialer.next('ctrl.routersChanged');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual([...namedIn([gone]), ...namedIn(dialer.frames)].sort(), ['-r3', '-x1']);
    assert.deepEqual(namedIn(loner.frames), [], 'r4 still hears of nobody');
    for (const router of [older, dialer, loner]) router.destroy();
  } finally {
    await env.close();
  }
});

// A model (about 30 MB) bigger than what loopback socket buffers take, so a router that does not read leaves most of
// it unwritten in the controller.
const bigModelServices = 120_000;
let big: { index: number; model: EdgeModel } | undefined;
const bigModel = () =>
  (big ??= { index: 1, model: { services: Array.from({ length: bigModelServices }, (_, index) => ({ id: `s${index}`, name: `service-${index}-${'x'.repeat(220)}`, roleAttributes: [], configs: {} })) } as unknown as EdgeModel });

test('whole edge models wait for the budget: a router that does not read holds back the next welcome\'s model until its drain time runs out, no longer', async () => {
  const env = await startHub({ model: bigModel(), timing: { unresponsiveMs: 10_000, wholeModelsInFlight: 1, wholeModelDrainMs: 3000 } });
  try {
    const stuck = await client(env.port, 'r1', { reads: false });
    await until('r1 to be welcomed', () => env.hub.isConnected('r1'));
    const waiting = await client(env.port, 'r2');
    await waiting.next('ctrl.welcome');
    const welcomedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(waiting.count('ctrl.edgeModel'), 0, 'the one model in flight is r1\'s, not yet written');
    await waiting.next('ctrl.edgeModel', 10_000);
    assert.ok(Date.now() - welcomedAt >= 2500, `sent once r1's drain time ran out (${Date.now() - welcomedAt} ms)`);
    stuck.destroy();
    waiting.destroy();
  } finally {
    await env.close();
  }
});

test('a router that does not read what it is sent is closed with a warning once its unwritten bytes stay over the bound; others are served', async () => {
  const env = await startHub({ model: bigModel(), timing: { unresponsiveMs: 10_000, slowReaderBytes: 4 * 1024 * 1024, slowReaderMs: 400 } });
  try {
    const stuck = await client(env.port, 'r1', { reads: false });
    await until('r1 to be welcomed', () => env.hub.isConnected('r1'));
    await until('r1 to be closed', () => !env.hub.isConnected('r1'), 5000);
    const warning = env.logger.lines.find((record) => record.msg === 'router channel closed: the router does not read what the controller sends');
    assert.ok(warning, 'a warning names the router');
    assert.equal(warning.level, 'warn');
    assert.equal(warning.routerId, 'r1');
    assert.ok((warning.pendingBytes as number) > 4 * 1024 * 1024);
    const reader = await client(env.port, 'r2');
    await reader.next('ctrl.welcome');
    assert.equal((await reader.next('ctrl.edgeModel', 10_000)).model.services.length, bigModelServices, 'a router that reads gets the whole model');
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(env.hub.isConnected('r2'), true, 'and stays');
    stuck.destroy();
    reader.destroy();
  } finally {
    await env.close();
  }
});

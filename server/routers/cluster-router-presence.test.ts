import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import type { ReportedLink, RouterLinkReport } from '../circuits/circuit-paths.ts';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';
import { ClusterRouterPresence, isRouterPeerRequest, summariesIn, type LocalRouterPresence, type PeerCaller } from './cluster-router-presence.ts';
import type { RouterPresenceEntry } from './presence-protocol.ts';
import type { RouterEvent, RouterSummary } from './router-hub.ts';

const summary = (routerId: string, controllerId: string, connectedAt = '2026-01-01T00:00:00.000Z'): RouterSummary => ({
  routerId, controllerId, version: 'v1', hostname: '', supportedProtocols: {}, connectedAt, name: `name-${routerId}`, linkListeners: [],
});
const terminator = (routerId: string, serviceId: string, controllerId: string, updatedAt = '2026-01-01T00:00:00.000Z'): TerminatorRecord => ({
  id: `${routerId}.${serviceId}`, serviceId, routerId, binding: 'tunnel', address: 'tcp:a:1', identity: routerId, cost: 0, precedence: 'default', createdAt: updatedAt, updatedAt, controllerId,
});

/** One controller's own routers, as the hub and the registry would hold them. */
class FakeLocal implements LocalRouterPresence {
  readonly routers = new Map<string, RouterSummary>();
  readonly held = new Map<string, TerminatorRecord[]>();
  readonly reports = new Map<string, ReportedLink[]>();
  constructor(readonly controllerId: string) {}
  connect(routerId: string, links: ReportedLink[] = []): void {
    this.routers.set(routerId, summary(routerId, this.controllerId));
    this.reports.set(routerId, links);
  }
  leave(routerId: string): void {
    this.routers.delete(routerId);
    this.reports.delete(routerId);
    this.held.delete(routerId);
  }
  summaries = () => [...this.routers.values()];
  entry = (routerId: string): RouterPresenceEntry => ({
    routerId,
    ...(this.routers.has(routerId) ? { router: this.routers.get(routerId)! } : {}),
    terminators: this.held.get(routerId) ?? [],
    links: this.reports.get(routerId) ?? [],
    edgeSessions: [],
  });
  linksIfConnected = (routerId: string) => (this.routers.has(routerId) ? (this.reports.get(routerId) ?? []) : undefined);
  routerIds = () => new Set([...this.routers.keys(), ...this.held.keys()]);
  terminators = () => [...this.held.values()].flat();
  terminatorsOf = (serviceId: string) => this.terminators().filter((held) => held.serviceId === serviceId);
  links = (): RouterLinkReport[] => [...this.reports].map(([routerId, links]) => ({ routerId, links }));
  edgeSessions = () => [];
}

const options = { requestTimeoutMs: 50, cacheMs: 1000, stateTimeoutMs: 1000, heartbeatMs: 1000, silenceMs: 5000, graceMs: 5000 };
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Controllers wired to each other through a fake peer network that can lose requests and fall silent. */
/** A router connects to `node`'s controller holding one terminator of `serviceId`, and the controller hears of it. */
function connectHosting(node: { presence: ClusterRouterPresence; local: FakeLocal }, routerId: string, serviceId: string): void {
  node.local.connect(routerId);
  node.local.held.set(routerId, [terminator(routerId, serviceId, node.local.controllerId)]);
  node.presence.localChanged(routerId);
}

function cluster(ids: string[], clock = new ManualClock()) {
  const nodes = new Map<string, { presence: ClusterRouterPresence; local: FakeLocal; events: RouterEvent[] }>();
  const calls: Array<{ from: string; to: string; type: string; seq?: number }> = [];
  const net = { lose: (_from: string, _to: string, _body: { type?: string }) => false, silent: new Set<string>() };
  const make = (id: string, epoch: string) => {
    const local = new FakeLocal(id);
    const peers: PeerCaller = {
      peers: () => ids.map((peer) => ({ id: peer, connected: true })),
      request: async (to, body) => {
        const typed = body as { type: string; seq?: number };
        calls.push({ from: id, to, type: typed.type, ...(typed.seq !== undefined ? { seq: typed.seq } : {}) });
        if (net.silent.has(to) || net.lose(id, to, typed)) return new Promise(() => undefined);
        const target = nodes.get(to)!.presence;
        if (typed.type === 'routers.delta') {
          target.receiveDelta(id, body);
          return { ok: true };
        }
        if (typed.type === 'routers.state') return target.state();
        throw new Error('unknown cluster request');
      },
    };
    const events: RouterEvent[] = [];
    const presence = new ClusterRouterPresence(id, peers, local, clock, { ...options, epoch });
    presence.setListener({ routerEvent: (event) => events.push(event), edgeSessionsChanged: () => undefined });
    nodes.set(id, { presence, local, events });
    return nodes.get(id)!;
  };
  for (const id of ids) make(id, `${id}-epoch-1`);
  const tick = async () => {
    for (const node of nodes.values()) node.presence.tick();
    await settle();
  };
  return { nodes, node: (id: string) => nodes.get(id)!, calls, net, clock, tick, restart: (id: string, epoch: string) => make(id, epoch) };
}

const view = async (presence: ClusterRouterPresence) => ({
  connected: [...(await presence.connected()).entries()].map(([id, connection]) => `${id}@${connection.controllerId}`).sort(),
  terminators: (await presence.list()).map((held) => held.id),
});

test("a router's arrival, terminators, links and departure on one controller reach the others by deltas of that router only", async () => {
  const c = cluster(['c1', 'c2', 'c3']);
  await c.tick();
  await c.tick();
  const a = c.node('c1');
  a.local.connect('r1', [{ id: 'l1', destRouterId: 'r2', latencyMs: 3 }]);
  a.presence.localChanged('r1');
  a.local.held.set('r1', [terminator('r1', 's1', 'c1'), terminator('r1', 's2', 'c1')]);
  a.presence.localChanged('r1');
  const b = c.node('c2');
  b.local.connect('r2', [{ id: 'l1', destRouterId: 'r1', latencyMs: 5 }]);
  b.presence.localChanged('r2');
  await c.tick();
  for (const id of ['c2', 'c3']) {
    assert.deepEqual(await view(c.node(id).presence), { connected: ['r1@c1', ...(id === 'c2' ? ['r2@c2'] : ['r2@c2'])], terminators: ['r1.s1', 'r1.s2'] }, id);
    assert.deepEqual((await c.node(id).presence.terminatorsOf('s2')).map((held) => held.id), ['r1.s2']);
  }
  assert.deepEqual(c.node('c3').presence.linkGraph().get('r1'), [{ to: 'r2', linkId: 'l1', cost: 6 }], 'both ends, from two controllers, make the link');
  assert.deepEqual(c.node('c3').events.map((event) => event.event), ['connected', 'connected'], 'the other controllers\' routers hear of each');
  const deltas = c.calls.filter((call) => call.type === 'routers.delta' && call.from === 'c1' && call.to === 'c2');
  const states = c.calls.filter((call) => call.type === 'routers.state');
  a.local.held.set('r1', [terminator('r1', 's2', 'c1')]);
  a.presence.localChanged('r1');
  await c.tick();
  assert.deepEqual((await c.node('c2').presence.list()).map((held) => held.id), ['r1.s2'], 'a removed terminator goes');
  a.local.leave('r1');
  a.presence.localChanged('r1');
  await c.tick();
  assert.deepEqual(await view(c.node('c2').presence), { connected: ['r2@c2'], terminators: [] });
  assert.equal(c.node('c3').presence.linkGraph().size, 0, 'its links went with it');
  assert.equal(c.calls.filter((call) => call.type === 'routers.state').length, states.length, 'no whole state asked for again');
  assert.ok(c.calls.filter((call) => call.type === 'routers.delta' && call.from === 'c1' && call.to === 'c2').length > deltas.length);
});

test('a lost delta leaves a gap in the sequence: the receiver asks for the whole state once and matches again', async () => {
  const c = cluster(['c1', 'c2']);
  await c.tick();
  const a = c.node('c1');
  connectHosting(a, 'r1', 's1');
  await c.tick();
  assert.deepEqual((await view(c.node('c2').presence)).terminators, ['r1.s1']);
  const statesBefore = c.calls.filter((call) => call.type === 'routers.state' && call.from === 'c2').length;
  c.net.lose = (_from, _to, body) => body.type === 'routers.delta';
  connectHosting(a, 'r9', 's1');
  await c.tick();
  c.net.lose = () => false;
  assert.deepEqual((await view(c.node('c2').presence)).terminators, ['r1.s1'], 'the lost delta is not there yet');
  a.local.held.set('r1', [terminator('r1', 's1', 'c1'), terminator('r1', 's3', 'c1')]);
  a.presence.localChanged('r1');
  await c.tick();
  assert.equal(c.calls.filter((call) => call.type === 'routers.state' && call.from === 'c2').length, statesBefore + 1, 'one state request for the gap');
  assert.deepEqual(await view(c.node('c2').presence), { connected: ['r1@c1', 'r9@c1'], terminators: ['r1.s1', 'r1.s3', 'r9.s1'] });
});

test('a restarted peer (a new epoch) replaces its mirror whole: what its previous run had is gone', async () => {
  const c = cluster(['c1', 'c2']);
  await c.tick();
  const a = c.node('c1');
  connectHosting(a, 'r1', 's1');
  await c.tick();
  assert.deepEqual((await view(c.node('c2').presence)).connected, ['r1@c1']);
  const again = c.restart('c1', 'c1-epoch-2');
  again.local.connect('r5');
  again.presence.localChanged('r5');
  await c.tick();
  await c.tick();
  assert.deepEqual(await view(c.node('c2').presence), { connected: ['r5@c1'], terminators: [] });
  assert.deepEqual(c.node('c2').events.map((event) => (event.event === 'connected' ? `+${event.router.id}` : `-${(event as { routerId: string }).routerId}`)).sort(), ['+r1', '+r5', '-r1']);
});

test('a peer that goes silent is dropped after silenceMs: its routers no longer count; heartbeats keep a quiet one', async () => {
  const c = cluster(['c1', 'c2']);
  await c.tick();
  c.node('c1').local.connect('r1');
  c.node('c1').presence.localChanged('r1');
  await c.tick();
  for (let i = 0; i < 8; i++) {
    c.clock.advance(1000);
    await c.tick();
  }
  assert.deepEqual((await view(c.node('c2').presence)).connected, ['r1@c1'], 'heartbeats: quiet is not silent');
  c.net.silent.add('c1');
  c.net.lose = (from) => from === 'c1';
  for (let i = 0; i < 6; i++) {
    c.clock.advance(1000);
    await c.tick();
  }
  assert.deepEqual((await view(c.node('c2').presence)).connected, [], 'dropped');
  assert.deepEqual(c.node('c2').events.at(-1), { event: 'disconnected', routerId: 'r1' });
});

test('a member that knows only version 1 is asked for its whole lists, and its answer is its mirror', async () => {
  const clock = new ManualClock();
  const calls: string[] = [];
  const peers: PeerCaller = {
    peers: () => [{ id: 'self', connected: true }, { id: 'old', connected: true }],
    request: async (_to, body) => {
      const type = (body as { type: string }).type;
      calls.push(type);
      if (type === 'routers.connected') return { routers: [summary('r7', 'old')], terminators: [terminator('r7', 's1', 'old'), { id: 'malformed' }], links: [{ routerId: 'r7', links: [] }] };
      throw new Error('unknown cluster request');
    },
  };
  const presence = new ClusterRouterPresence('self', peers, new FakeLocal('self'), clock, { ...options, epoch: 'e' });
  presence.tick();
  await settle();
  presence.tick();
  await settle();
  assert.deepEqual(await view(presence), { connected: ['r7@old'], terminators: ['r7.s1'] });
  assert.ok(calls.includes('routers.state') && calls.includes('routers.connected'));
  assert.ok(!calls.slice(calls.indexOf('routers.connected')).includes('routers.delta'), 'no deltas to a member that cannot read them');
});

test("a router's own controller wins, between two others the newer; reads by service cost that service", async () => {
  const c = cluster(['c1', 'c2', 'c3']);
  await c.tick();
  c.node('c2').local.held.set('r1', [terminator('r1', 's1', 'c2', '2026-01-01T00:00:01.000Z')]);
  c.node('c2').presence.localChanged('r1');
  c.node('c3').local.held.set('r1', [terminator('r1', 's1', 'c3')]);
  c.node('c3').presence.localChanged('r1');
  await c.tick();
  assert.equal((await c.node('c1').presence.terminatorsOf('s1'))[0]!.controllerId, 'c2', 'the newer of two others');
  c.node('c1').local.held.set('r1', [terminator('r1', 's1', 'c1')]);
  assert.equal((await c.node('c1').presence.terminatorsOf('s1'))[0]!.controllerId, 'c1', 'a local one wins');
  assert.deepEqual(await c.node('c1').presence.terminatorsOf('s9'), []);
});

test('a malformed delta, or one of another controller\'s routers, is refused whole and changes nothing', async () => {
  const c = cluster(['c1', 'c2']);
  await c.tick();
  const b = c.node('c2').presence;
  const delta = (routers: unknown[]) => ({ type: 'routers.delta', v: 2, epoch: 'c1-epoch-1', seq: 1, routers });
  assert.throws(() => b.receiveDelta('c1', delta([{ routerId: 'r1', router: summary('r1', 'c3'), terminators: [], links: [], edgeSessions: [] }])), /sending controller/);
  assert.throws(() => b.receiveDelta('c1', delta([{ routerId: 'r1', terminators: [terminator('r2', 's1', 'c1')] }])), /of that router/);
  assert.throws(() => b.receiveDelta('c1', delta(Array.from({ length: 20_001 }, () => ({ routerId: 'r' })))), /at most 20000 routers/);
  assert.throws(() => b.receiveDelta('c1', { ...delta([]), v: 3 }), /version/);
  assert.throws(() => b.receiveDelta('c9', delta([])), /not another member/);
  assert.deepEqual(await view(b), { connected: [], terminators: [] });
});

test('peer requests are recognised by type, and malformed version 1 answers are filtered', () => {
  for (const type of ['routers.connected', 'routers.event', 'routers.delta', 'routers.state']) assert.equal(isRouterPeerRequest({ type }), true);
  assert.equal(isRouterPeerRequest({ type: 'propose' }), false);
  assert.equal(isRouterPeerRequest(null), false);
  assert.deepEqual(summariesIn({ routers: [summary('r1', 'c2'), { routerId: 3 }, null, 'x'] }), [summary('r1', 'c2')]);
  assert.deepEqual(summariesIn('nonsense'), []);
});

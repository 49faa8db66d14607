import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { ClusterRouterPresence, isRouterPeerRequest, summariesIn, type PeerCaller } from './cluster-router-presence.ts';
import type { RouterSummary } from './router-hub.ts';

const summary = (routerId: string, controllerId: string): RouterSummary => ({
  routerId, controllerId, version: 'v1', hostname: '', supportedProtocols: {}, connectedAt: '2026-01-01T00:00:00.000Z', name: `name-${routerId}`, linkListeners: [],
});

function fakePeers(answers: Record<string, (body: unknown) => Promise<unknown>>, connected = Object.keys(answers)) {
  const calls: Array<{ id: string; body: unknown }> = [];
  const peers: PeerCaller = {
    peers: () => [...Object.keys(answers).map((id) => ({ id, connected: connected.includes(id) })), { id: 'self', connected: true }],
    request: (id, body) => {
      calls.push({ id, body });
      return answers[id]!(body);
    },
  };
  return { peers, calls };
}

const options = { requestTimeoutMs: 50, cacheMs: 1000 };

test('connected routers are this controller\'s plus what every other member answers, connected now or not; a silent peer counts as none', async () => {
  const { peers, calls } = fakePeers(
    {
      c2: async () => ({ routers: [summary('r2', 'c2'), summary('r1', 'c2')] }),
      c3: () => new Promise(() => undefined),
      c4: async () => ({ routers: [summary('r4', 'c4')] }),
    },
    ['c2', 'c3'],
  );
  const presence = new ClusterRouterPresence('self', peers, () => [summary('r1', 'self')], () => [], () => [], new ManualClock(), options);
  const started = Date.now();
  const connected = await presence.connected();
  assert.ok(Date.now() - started < 1000, 'bounded by the request timeout');
  assert.deepEqual([...connected.keys()].sort(), ['r1', 'r2', 'r4']);
  assert.equal(connected.get('r1')!.controllerId, 'self', 'a local channel wins');
  assert.deepEqual(calls.map((call) => call.id).sort(), ['c2', 'c3', 'c4'], 'every other member (the request opens a channel), never itself');
  assert.deepEqual(await presence.otherRouters(), [
    { id: 'r2', name: 'name-r2', linkListeners: [] },
    { id: 'r1', name: 'name-r1', linkListeners: [] },
    { id: 'r4', name: 'name-r4', linkListeners: [] },
  ]);
});

test('answers are reused for cacheMs and asked again after, or after invalidate', async () => {
  const clock = new ManualClock();
  let asked = 0;
  const { peers } = fakePeers({ c2: async () => ({ routers: [summary(`r${++asked}`, 'c2')] }) });
  const presence = new ClusterRouterPresence('self', peers, () => [], () => [], () => [], clock, options);
  assert.deepEqual([...(await presence.connected()).keys()], ['r1']);
  clock.advance(999);
  assert.deepEqual([...(await presence.connected()).keys()], ['r1']);
  clock.advance(1);
  assert.deepEqual([...(await presence.connected()).keys()], ['r2']);
  presence.invalidate();
  assert.deepEqual([...(await presence.connected()).keys()], ['r3']);
  const [x, y] = await Promise.all([presence.remote(), presence.remote()]);
  assert.equal(x, y, 'concurrent callers share one round of requests');
});

test('announce tells every other member and never throws', async () => {
  const { peers, calls } = fakePeers({ c2: async () => ({ ok: true }), c3: async () => Promise.reject(new Error('gone')) });
  const presence = new ClusterRouterPresence('self', peers, () => [], () => [], () => [], new ManualClock(), options);
  presence.announce({ event: 'disconnected', routerId: 'r9' });
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(calls, [
    { id: 'c2', body: { type: 'routers.event', event: { event: 'disconnected', routerId: 'r9' } } },
    { id: 'c3', body: { type: 'routers.event', event: { event: 'disconnected', routerId: 'r9' } } },
  ]);
});

test('peer requests are recognised by type, and malformed answers are filtered', () => {
  assert.equal(isRouterPeerRequest({ type: 'routers.connected' }), true);
  assert.equal(isRouterPeerRequest({ type: 'routers.event', event: {} }), true);
  assert.equal(isRouterPeerRequest({ type: 'propose' }), false);
  assert.equal(isRouterPeerRequest(null), false);
  assert.deepEqual(summariesIn({ routers: [summary('r1', 'c2'), { routerId: 3 }, null, 'x'] }), [summary('r1', 'c2')]);
  assert.deepEqual(summariesIn('nonsense'), []);
});

test("terminators are this controller's plus the other controllers' (malformed ones dropped); the router's own controller wins", async () => {
  const terminator = (id: string, controllerId: string, updatedAt = '2026-01-01T00:00:00.000Z') => ({
    id, serviceId: 's1', routerId: 'r1', binding: 'tunnel', address: 'tcp:a:1', identity: 'r1', cost: 0, precedence: 'default' as const, createdAt: updatedAt, updatedAt, controllerId,
  });
  const { peers } = fakePeers({
    c2: async () => ({ routers: [], terminators: [terminator('t1', 'c2'), terminator('t2', 'c2', '2026-01-01T00:00:01.000Z'), { id: 't9' }] }),
    c3: async () => ({ routers: [], terminators: [terminator('t2', 'c3')] }),
    c4: async () => ({ routers: [] }),
  });
  const presence = new ClusterRouterPresence('self', peers, () => [], () => [terminator('t1', 'self')], () => [], new ManualClock(), options);
  assert.deepEqual(
    (await presence.list()).map((item) => `${item.id}@${item.controllerId}`),
    ['t1@self', 't2@c2'],
    'a local terminator wins; between two others, the newer (the router moved there)',
  );
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parsePrometheusText } from '../../alerts/core/metrics/prometheus-text.ts';
import { monitoringMixin } from '../../alerts/mixin/monitoring-mixin.ts';
import type { DaemonStatus } from '../../alerts/daemon/daemon-status.ts';
import { ChartSampler, chartIds } from './chart-points.ts';
import { readControllerMetrics } from './controller-reading.ts';
import type { ControllerReading } from './controller-reading.ts';
import type { Histogram } from './histogram.ts';
import { buildSnapshot } from './snapshot-builder.ts';
import type { ControllerInput, GatherInput } from './snapshot-builder.ts';

const now = Date.UTC(2026, 10, 26, 12, 0, 0);
const checks = [{ id: 'bolt.read', healthy: true }];

function reading(overrides: Partial<ControllerReading> = {}): ControllerReading {
  return { version: 'v0.1.0', readOnly: false, isLeader: false, leaderId: 'ctrl1', term: 4, commitIndex: 40, appliedIndex: 40, lastLogIndex: 40, voters: 3, votersConnected: 3, limiterQueue: 0, limiterWindow: 250, startTimeSeconds: now / 1000 - 3600, peerLatency: {}, routers: {}, ...overrides };
}

function controller(id: string, raftStatus: number | 'down', overrides: Partial<ControllerInput> = {}): ControllerInput {
  const url = `https://127.0.0.1:${1280 + Number(id.slice(-1))}`;
  if (raftStatus === 'down') {
    return { id, url, health: { ok: false, error: 'no answer within 1500 ms', at: now }, raft: { ok: false, error: 'no answer within 1500 ms', at: now }, lastSeenAt: now - 4000, lastVersion: 'v0.1.0', ...overrides };
  }
  const r = reading({ isLeader: raftStatus === 200 });
  return { id, url, health: { ok: true, value: { status: 200, healthy: true, checks }, at: now }, raft: { ok: true, value: { status: raftStatus }, at: now }, metrics: { ok: true, value: r, at: now }, reading: r, lastSeenAt: now, ...overrides };
}

function input(overrides: Partial<GatherInput> = {}): GatherInput {
  return {
    now,
    pollIntervalMs: 1000,
    historyMs: 600_000,
    controllers: [controller('ctrl1', 200), controller('ctrl2', 429), controller('ctrl3', 429)],
    members: {},
    events: [],
    fileLag: {},
    routers: [],
    runbookBaseUrl: 'https://runbooks.example/runbooks.md',
    charts: [],
    ...overrides,
  };
}

function daemon(alerts: DaemonStatus['alerts'], commitLag: DaemonStatus['commitLag'] = []): { ok: true; value: DaemonStatus; at: number } {
  return { ok: true, value: { cluster: 'c', generatedAt: new Date(now).toISOString(), alerts, commitLag, controllers: [] }, at: now };
}

const page = (alertname: string, runbook: string): DaemonStatus['alerts'][number] => ({
  alertname,
  severity: 'critical',
  labels: { alertname, severity: 'critical', cluster: 'c', controller: 'all' },
  annotations: { summary: 'No controller answers 200.', description: 'Cluster c: nobody leads.', runbook_url: runbook },
  startsAt: new Date(now - 5000).toISOString(),
});

describe('the snapshot', () => {
  test('a healthy cluster: one leader, everyone reachable, each controller\'s figures', () => {
    const snapshot = buildSnapshot(input());
    assert.equal(snapshot.cluster.level, 'ok');
    assert.equal(snapshot.cluster.headline, 'ctrl1 leads · 3 of 3 controllers reachable');
    assert.equal(snapshot.cluster.leaderId, 'ctrl1');
    const [first, second] = snapshot.controllers;
    assert.equal(first!.role, 'leader');
    assert.equal(first!.raftStatus, 200);
    assert.equal(second!.role, 'follower');
    assert.equal(first!.uptimeSeconds, 3600);
    assert.deepEqual(first!.rateLimiter, { queue: 0, window: 250 });
    assert.equal(first!.version, 'v0.1.0');
    assert.deepEqual(first!.lag, { entries: 0, source: 'applied index' }, 'without a daemon or event files, the applied indexes give entries');
    assert.equal(snapshot.alerts.status, 'none');
    assert.deepEqual(snapshot.members, { fromLeader: false, rows: [], error: 'not read yet' });
  });

  test('each controller\'s last backup, from its backup gauges; none shown for a controller without them', () => {
    const backedUp = reading({ backup: { lastSuccessSeconds: now / 1000 - 600, lastSizeBytes: 2048, intervalSeconds: 3600 } });
    const off = reading({ backup: { lastSuccessSeconds: 0, intervalSeconds: 0 } });
    const snapshot = buildSnapshot(
      input({
        controllers: [
          controller('ctrl1', 200, { reading: backedUp, metrics: { ok: true, value: backedUp, at: now } }),
          controller('ctrl2', 429, { reading: off, metrics: { ok: true, value: off, at: now } }),
          controller('ctrl3', 429),
        ],
      }),
    );
    assert.deepEqual(snapshot.controllers.map((view) => view.backup), [{ state: 'written', at: now - 600_000, sizeBytes: 2048, intervalSeconds: 3600 }, { state: 'off' }, undefined]);
  });

  test('a frozen leader: shown as unreachable with its error and last version; the new leader leads', () => {
    const snapshot = buildSnapshot(input({ controllers: [controller('ctrl1', 'down'), controller('ctrl2', 200), controller('ctrl3', 429)] }));
    const frozen = snapshot.controllers[0]!;
    assert.deepEqual(frozen, { id: 'ctrl1', url: 'https://127.0.0.1:1281', lastSeenAt: now - 4000, reachable: false, error: 'no answer within 1500 ms', role: 'unknown', version: 'v0.1.0' });
    assert.equal(snapshot.cluster.headline, 'ctrl2 leads · 2 of 3 controllers reachable');
    assert.equal(snapshot.cluster.level, 'warn');
  });

  test('no leader, or two, is critical; so is a read-only controller or a firing page', () => {
    const none = buildSnapshot(input({ controllers: [controller('ctrl1', 'down'), controller('ctrl2', 429), controller('ctrl3', 'down')] }));
    assert.equal(none.cluster.level, 'critical');
    assert.equal(none.cluster.headline, 'No leader · 1 of 3 controllers reachable');
    const two = buildSnapshot(input({ controllers: [controller('ctrl1', 200), controller('ctrl2', 200), controller('ctrl3', 429)] }));
    assert.equal(two.cluster.headline, '2 controllers claim leadership: ctrl1, ctrl2 · 3 of 3 controllers reachable');
    assert.equal(two.cluster.level, 'critical');
    const ro = reading({ readOnly: true });
    const readOnly = buildSnapshot(input({ controllers: [controller('ctrl1', 200), controller('ctrl2', 429, { reading: ro, metrics: { ok: true, value: ro, at: now } }), controller('ctrl3', 429)] }));
    assert.deepEqual(readOnly.cluster.readOnly, ['ctrl2']);
    assert.equal(readOnly.cluster.level, 'critical');
    const paged = buildSnapshot(input({ daemon: daemon([page('EdgewardQuorumLost', 'docs/runbooks.md#edgewardquorumlost')]) }));
    assert.equal(paged.cluster.level, 'critical');
    assert.equal(paged.cluster.headline, 'ctrl1 leads · 3 of 3 controllers reachable · 1 page firing');
  });

  test('a failing health check, a failed raft node and unreadable metrics', () => {
    const failing = controller('ctrl2', 503, { health: { ok: true, value: { status: 503, healthy: false, checks: [{ id: 'raft.node', healthy: false, error: 'the raft node stopped: EIO' }] }, at: now } });
    const noMetrics = controller('ctrl3', 429, { metrics: { ok: false, error: 'HTTP 500', at: now } });
    const snapshot = buildSnapshot(input({ controllers: [controller('ctrl1', 200), failing, noMetrics] }));
    assert.equal(snapshot.controllers[1]!.role, 'failed');
    assert.deepEqual(snapshot.controllers[1]!.health, { healthy: false, status: 503, checks: [{ id: 'raft.node', healthy: false, error: 'the raft node stopped: EIO' }] });
    assert.equal(snapshot.controllers[2]!.metricsError, 'HTTP 500');
    assert.equal(snapshot.controllers[2]!.appliedIndex, 40, 'the last reading that worked is still shown');
    assert.equal(snapshot.cluster.level, 'warn');
  });

  test('commit lag from the daemon first, then the event files, then the applied indexes', () => {
    const behind = reading({ appliedIndex: 31 });
    const controllers = [controller('ctrl1', 200), controller('ctrl2', 429, { reading: behind, metrics: { ok: true, value: behind, at: now } }), controller('ctrl3', 429)];
    const fromDaemon = buildSnapshot(input({ controllers, daemon: daemon([], [{ controller: 'ctrl1', entries: 0, seconds: 0 }, { controller: 'ctrl2', entries: 9, seconds: 4.5 }, { controller: 'ctrl3', entries: null, seconds: 2 }]) }));
    assert.deepEqual(fromDaemon.controllers.map((c) => c.lag), [
      { entries: 0, seconds: 0, source: 'alerts daemon' },
      { entries: 9, seconds: 4.5, source: 'alerts daemon' },
      { seconds: 2, source: 'alerts daemon' },
    ]);
    const fromFiles = buildSnapshot(input({ controllers, daemon: { ok: false, error: 'connect ECONNREFUSED', at: now }, fileLag: { ctrl2: { entries: 7, seconds: 3 } } }));
    assert.deepEqual(fromFiles.controllers[1]!.lag, { entries: 7, seconds: 3, source: 'event files' });
    assert.deepEqual(fromFiles.controllers[0]!.lag, { entries: 0, source: 'applied index' });
    assert.deepEqual(fromFiles.controllers[2]!.lag, { entries: 0, source: 'applied index' });
    assert.deepEqual(buildSnapshot(input({ controllers })).controllers[1]!.lag, { entries: 9, source: 'applied index' });
    // Behind means what the EdgewardCommitLag alert means: at least the mixin's entries, not any lag at all.
    const far = buildSnapshot(input({ controllers, daemon: daemon([], [{ controller: 'ctrl2', entries: monitoringMixin.commitLag.entries, seconds: 9 }, { controller: 'ctrl3', entries: monitoringMixin.commitLag.entries - 1, seconds: 1 }]) }));
    assert.equal(far.controllers[1]!.lag?.behind, true);
    assert.equal(far.controllers[2]!.lag?.behind, undefined);
    assert.equal(fromFiles.alerts.status, 'unreachable');
    assert.equal(fromFiles.cluster.level, 'warn', 'a silent alerts daemon is worth a look');
  });

  test('alerts keep the daemon\'s full runbook URL and turn a relative one or the stock default into the page\'s', () => {
    const snapshot = buildSnapshot(input({ daemon: daemon([page('EdgewardNoControllerHealthy', 'docs/runbooks.md#edgewardnocontrollerhealthy'), page('EdgewardQuorumLost', 'https://wiki.example/rb#q'), page('EdgewardClusterLeaderless', 'http://127.0.0.1:9110/runbooks#edgewardclusterleaderless')]) }));
    assert.deepEqual(
      snapshot.alerts.alerts.map((alert) => [alert.alertname, alert.runbookUrl, alert.startsAt]),
      [
        ['EdgewardNoControllerHealthy', 'https://runbooks.example/runbooks.md#edgewardnocontrollerhealthy', now - 5000],
        ['EdgewardQuorumLost', 'https://wiki.example/rb#q', now - 5000],
        ['EdgewardClusterLeaderless', 'https://runbooks.example/runbooks.md#edgewardclusterleaderless', now - 5000],
      ],
    );
    assert.equal(snapshot.alerts.alerts[0]!.summary, 'No controller answers 200.');
  });

  test('the member list: the latest, or the last good one with the latest error', () => {
    const rows = [{ id: 'ctrl1', address: 'tls:127.0.0.1:6262', voter: true, leader: true, version: 'v0.1.0', connected: true, readOnly: false, preferredLeader: false }];
    const fresh = buildSnapshot(input({ members: { latest: { ok: true, value: { from: 'ctrl1', fromLeader: true, rows }, at: now } } }));
    assert.deepEqual(fresh.members, { from: 'ctrl1', fromLeader: true, at: now, rows });
    const stale = buildSnapshot(input({ members: { latest: { ok: false, error: 'ctrl2: no answer within 1500 ms', at: now }, lastGood: { from: 'ctrl1', fromLeader: true, rows, at: now - 9000 } } }));
    assert.deepEqual(stale.members, { from: 'ctrl1', fromLeader: true, at: now - 9000, rows, error: 'ctrl2: no answer within 1500 ms' });
    const disconnected = buildSnapshot(input({ members: { latest: { ok: true, value: { from: 'ctrl1', fromLeader: true, rows: [...rows, { ...rows[0]!, id: 'ctrl2', leader: false, connected: false }] }, at: now } } }));
    assert.equal(disconnected.cluster.level, 'warn');
  });

  test('routers: from the controllers\' reports and their own health checks', () => {
    const withRouter = reading({ routers: { r1: { ctrlConnected: true, ctrlLatencySeconds: 0.003, linkCount: 1, links: { l1: 0.0004 } }, r2: { ctrlConnected: false, links: {} } } });
    const snapshot = buildSnapshot(
      input({
        controllers: [controller('ctrl1', 200), controller('ctrl2', 429, { reading: withRouter, metrics: { ok: true, value: withRouter, at: now } }), controller('ctrl3', 429)],
        routers: [
          { id: 'r1', name: 'router1', health: { ok: true, value: { healthy: true, controllerPing: true, links: [{ id: 'l1', destRouterId: 'r2', latencySeconds: 0.0005 }] }, at: now } },
          { id: 'r3', health: { ok: false, error: 'connect ECONNREFUSED', at: now } },
        ],
      }),
    );
    assert.deepEqual(snapshot.routers, [
      { id: 'r1', name: 'router1', connected: true, controllers: ['ctrl2'], ctrlLatencySeconds: 0.003, links: [{ id: 'l1', destRouterId: 'r2', latencySeconds: 0.0005 }], healthReachable: true, healthy: true },
      { id: 'r3', controllers: [], links: [], healthReachable: false, error: 'connect ECONNREFUSED' },
      { id: 'r2', connected: false, controllers: [], links: [] },
    ]);
  });

  test('routers: a link is shown by the router at its other end, named as routers[] names it', () => {
    const withRouters = reading({ routers: { r1: { ctrlConnected: true, links: { l1: 0.0004 } }, r2: { ctrlConnected: true, links: { l1: 0.0006 } } } });
    const snapshot = buildSnapshot(
      input({
        controllers: [controller('ctrl1', 200, { reading: withRouters, metrics: { ok: true, value: withRouters, at: now } })],
        routers: [
          { id: 'r1', name: 'router1', health: { ok: true, value: { healthy: true, controllerPing: true, links: [{ id: 'l1', destRouterId: 'r2', latencySeconds: 0.0005 }] }, at: now } },
          { id: 'r2', name: 'router2' },
        ],
      }),
    );
    assert.deepEqual(snapshot.routers.map((router) => [router.id, router.links]), [
      ['r1', [{ id: 'l1', destRouterId: 'r2', destRouterName: 'router2', latencySeconds: 0.0005 }]],
      ['r2', [{ id: 'l1', destRouterId: 'r1', destRouterName: 'router1', latencySeconds: 0.0006 }]],
    ]);
  });

  test('circuits: what the routers forward now, and the controllers\' events and failures summed across the cluster', () => {
    const first = reading({ routers: { r1: { ctrlConnected: true, links: {}, circuits: { count: 2, created: 10, bytesIn: 2048 } } }, circuitEvents: { created: 10, deleted: 8, failed: 1 }, circuitFailures: { NO_PATH: 1, NO_DIAL_POLICY: 0 } });
    const second = reading({ routers: { r2: { ctrlConnected: true, links: {}, circuits: { count: 1 } } }, circuitEvents: { created: 5, failed: 3 }, circuitFailures: { NO_DIAL_POLICY: 2, NO_PATH: 1 } });
    const unreachable = reading({ circuitEvents: { created: 1000 } });
    const snapshot = buildSnapshot(
      input({
        controllers: [
          controller('ctrl1', 200, { reading: first, metrics: { ok: true, value: first, at: now } }),
          controller('ctrl2', 429, { reading: second, metrics: { ok: true, value: second, at: now } }),
          controller('ctrl3', 'down', { reading: unreachable }),
        ],
      }),
    );
    assert.deepEqual(snapshot.circuits, {
      active: 3,
      created: 15,
      deleted: 8,
      failed: 4,
      failuresByCause: [
        { cause: 'NO_DIAL_POLICY', count: 2 },
        { cause: 'NO_PATH', count: 2 },
      ],
    });
    assert.deepEqual(snapshot.routers.find((router) => router.id === 'r1')?.circuits, { count: 2, created: 10, bytesIn: 2048 });
    assert.deepEqual(buildSnapshot(input()).circuits, { active: 0, created: 0, deleted: 0, failed: 0, failuresByCause: [] });
  });

  test('edge connections: each router\'s SDK channels and virtual connections, from the controller holding its channel', () => {
    const holding = reading({ routers: { r1: { ctrlConnected: true, links: {}, edge: { channels: 2, connections: 7 } } } });
    const snapshot = buildSnapshot(input({ controllers: [controller('ctrl1', 200, { reading: holding, metrics: { ok: true, value: holding, at: now } })] }));
    assert.deepEqual(snapshot.routers.find((router) => router.id === 'r1')?.edge, { channels: 2, connections: 7 });
    const silent = reading({ routers: { r2: { ctrlConnected: true, links: {} } } });
    const without = buildSnapshot(input({ controllers: [controller('ctrl1', 200, { reading: silent, metrics: { ok: true, value: silent, at: now } })] }));
    assert.ok(!('edge' in without.routers.find((router) => router.id === 'r2')!), 'a router that does not report them has none');
  });
});

describe('the chart points', () => {
  const exposition = readFileSync(new URL('./testdata/controller-metrics.txt', import.meta.url), 'utf8');

  test('lag, the rate limiter, work timer quantiles and peer latency; an unreachable controller has no value', () => {
    const real = readControllerMetrics(parsePrometheusText(exposition).samples);
    const controllers = [controller('ctrl1', 'down'), controller('ctrl2', 200, { reading: real, metrics: { ok: true, value: real, at: now } }), controller('ctrl3', 429)];
    const snapshot = buildSnapshot(input({ controllers, fileLag: { ctrl1: { entries: 3, seconds: 2 }, ctrl2: { entries: 0, seconds: 0 } } }));
    const sampler = new ChartSampler();
    const first = sampler.point(snapshot, new Map([['ctrl2', real]]));
    assert.equal(first.t, now);
    assert.deepEqual(first.values[chartIds.lagEntries], { ctrl1: 3, ctrl2: 0, ctrl3: 0 });
    assert.deepEqual(first.values[chartIds.limiterQueue], { ctrl2: 0, ctrl3: 0 }, 'ctrl1 does not answer: no value');
    assert.deepEqual(first.values[chartIds.limiterWindow], { ctrl2: 250, ctrl3: 250 });
    assert.equal(first.values[chartIds.workTimer], undefined, 'a first reading has nothing to compare with');
    // A second later, one more command and one more heartbeat on each channel, each of about a millisecond.
    const bump = (h: Histogram): Histogram => ({ buckets: h.buckets.map(([le, count]) => [le, le >= 0.001 ? count + 1 : count] as const), count: h.count + 1, sum: h.sum + 0.001 });
    const more: ControllerReading = { ...real, workTimer: bump(real.workTimer!), peerLatency: Object.fromEntries(Object.entries(real.peerLatency).map(([channel, h]) => [channel, bump(h)])) };
    const second = sampler.point({ ...snapshot, generatedAt: now + 1000 }, new Map([['ctrl2', more]]));
    assert.deepEqual(Object.keys(second.values[chartIds.workTimer] ?? {}).sort(), ['ctrl2 p50', 'ctrl2 p90', 'ctrl2 p99']);
    assert.ok(second.values[chartIds.workTimer]!['ctrl2 p99']! <= 0.001);
    assert.deepEqual(Object.keys(second.values[chartIds.peerLatency] ?? {}).sort(), ['ctrl2 → ctrl1', 'ctrl2 → ctrl3']);
    // A minute on, the same cumulative readings: nothing was observed within the window, so no quantile.
    const later = sampler.point({ ...snapshot, generatedAt: now + 62_000 }, new Map([['ctrl2', more]]));
    assert.equal(later.values[chartIds.workTimer], undefined, 'no command in the last minute: no work timer value');
    assert.equal(later.values[chartIds.peerLatency], undefined);
  });
});

// Recording rules: the series the alerts and the dashboards share, named `level:metric:operations`. `edgeward:`
// series are per controller (labels cluster, controller, and channel_id or peer_id where the metric has one);
// `cluster:` series are per cluster.
import { commitLagEntriesPromQL, monitoringMixin } from '../mixin/monitoring-mixin.ts';
import { byCluster, byController, controllerSeries, inWords, increaseWithNewSeries, nest } from './promql-fragments.ts';
import type { RecordingRule, RecordingTestCase } from './rule-model.ts';
import { controllerTarget, ramp, repeat, series, testCluster } from './testing/test-series.ts';

function histogramQuantile(quantile: number, metric: string, by: string, window: string): string {
  return `histogram_quantile(${quantile}, sum by (${by}, le) (rate(${controllerSeries(`${metric}_bucket`)}[${window}])))`;
}

const { peerFlapping, leadershipChurn, peerLatency } = monitoringMixin;

/** Peer channel closes per peer over the flapping window. */
export const peerDisconnectsSeries = `edgeward:peer_disconnects:increase${peerFlapping.window}`;
/** Elections across the cluster over the churn window. */
export const leadershipGainedSeries = `cluster:edgeward_raft_leadership_gained:increase${leadershipChurn.window}`;
/** A peer channel's p99 heartbeat round trip over the latency quantile window. */
export const peerLatencyP99Series = `edgeward:peer_latency_seconds:p99_${peerLatency.quantileWindow}`;

export const recordingRules: readonly RecordingRule[] = [
  {
    record: 'cluster:edgeward_controller_up:sum',
    expr: `sum by (${byCluster}) (${controllerSeries('up')})`,
    meaning: 'Controllers of the cluster that answer Prometheus scrapes.',
  },
  {
    record: 'cluster:edgeward_raft_is_leader:sum',
    expr: `sum by (${byCluster}) (${controllerSeries('edgeward_raft_is_leader')})`,
    meaning: 'Controllers that say they lead: 1 when healthy, 0 without a leader (briefly 2 while a deposed leader has not yet heard).',
  },
  {
    record: 'cluster:edgeward_raft_quorum_size:max',
    expr: `max by (${byCluster}) (floor(${controllerSeries('edgeward_raft_voters')} / 2) + 1)`,
    meaning: 'The majority of voters a leader needs: floor(voters / 2) + 1.',
  },
  {
    record: 'cluster:edgeward_raft_leader_voters_connected:max',
    expr: [
      `max by (${byCluster}) (`,
      `  ${controllerSeries('edgeward_raft_voters_connected')}`,
      `  and on(${byController}) ${controllerSeries('edgeward_raft_is_leader')} == 1`,
      `)`,
    ].join('\n'),
    meaning: 'Voters connected in the leader\'s view, itself included: the canonical view (followers see only part of the mesh).',
  },
  {
    record: 'cluster:edgeward_raft_voters_connected:max',
    expr: `max by (${byCluster}) (${controllerSeries('edgeward_raft_voters_connected')})`,
    meaning: 'The most voters any controller of the cluster is connected to: the best view while there is no leader.',
  },
  {
    record: 'cluster:edgeward_raft_applied_index:max',
    expr: `max by (${byCluster}) (${controllerSeries('edgeward_raft_applied_index')})`,
    meaning: 'The most advanced applied raft index in the cluster.',
  },
  {
    record: 'edgeward:raft_commit_lag_entries',
    expr: commitLagEntriesPromQL(controllerSeries('edgeward_raft_applied_index')),
    meaning: 'Commit lag in raft entries: the cluster\'s highest applied index minus this controller\'s.',
  },
  {
    record: peerLatencyP99Series,
    expr: histogramQuantile(0.99, 'edgeward_peer_latency_seconds', `${byController}, channel_id`, peerLatency.quantileWindow),
    meaning: `p99 heartbeat round trip per peer channel over ${inWords(peerLatency.quantileWindow)}.`,
  },
  {
    record: 'edgeward:peer_latency_seconds:p50_5m',
    expr: histogramQuantile(0.5, 'edgeward_peer_latency_seconds', `${byController}, channel_id`, '5m'),
    meaning: 'Median heartbeat round trip per peer channel over 5 minutes.',
  },
  {
    record: 'edgeward:raft_rate_limiter_work_timer_seconds:p99_5m',
    expr: histogramQuantile(0.99, 'edgeward_raft_rate_limiter_work_timer_seconds', byController, '5m'),
    meaning: 'p99 time of a raft command through the leader\'s rate limiter, proposal to apply, over 5 minutes (slow writes).',
  },
  {
    record: peerDisconnectsSeries,
    expr: [
      `sum by (${byController}, peer_id) (`,
      `  ${nest(increaseWithNewSeries(controllerSeries('edgeward_peer_disconnects_total'), peerFlapping.window))}`,
      `)`,
    ].join('\n'),
    meaning: `Peer channel closes per peer over ${inWords(peerFlapping.window)}, a peer's first close included.`,
  },
  {
    record: leadershipGainedSeries,
    expr: [
      `sum by (${byCluster}) (`,
      `  ${nest(increaseWithNewSeries(controllerSeries('edgeward_raft_leadership_gained_total'), leadershipChurn.window))}`,
      `)`,
    ].join('\n'),
    meaning: `Leaders elected in the cluster over ${inWords(leadershipChurn.window)} (each election is won on one controller).`,
  },
];

const lagSeries = (controller: 'ctrl1' | 'ctrl2' | 'ctrl3') => `edgeward:raft_commit_lag_entries{cluster="${testCluster}",controller="${controller}"}`;

export const recordingRuleTests: readonly RecordingTestCase[] = [
  {
    name: 'commit lag is each controller\'s distance from the most advanced applied index',
    interval: '15s',
    series: [
      series('edgeward_raft_applied_index', controllerTarget('ctrl1'), ramp(100, 10, 20)),
      series('edgeward_raft_applied_index', controllerTarget('ctrl2'), ramp(95, 10, 20)),
      series('edgeward_raft_applied_index', controllerTarget('ctrl3'), repeat(100, 20)),
    ],
    checks: [
      {
        at: '4m',
        expr: 'edgeward:raft_commit_lag_entries',
        samples: [
          { labels: lagSeries('ctrl1'), value: 0 },
          { labels: lagSeries('ctrl2'), value: 5 },
          { labels: lagSeries('ctrl3'), value: 160 },
        ],
      },
      { at: '4m', expr: 'cluster:edgeward_raft_applied_index:max', samples: [{ labels: `cluster:edgeward_raft_applied_index:max{cluster="${testCluster}"}`, value: 260 }] },
    ],
  },
  {
    name: 'the leader\'s view, the best view and the majority of a three-voter cluster',
    interval: '15s',
    series: [
      ...(['ctrl1', 'ctrl2', 'ctrl3'] as const).flatMap((id) => [
        series('up', controllerTarget(id), repeat(1, 10)),
        series('edgeward_raft_voters', controllerTarget(id), repeat(3, 10)),
        series('edgeward_raft_is_leader', controllerTarget(id), repeat(id === 'ctrl2' ? 1 : 0, 10)),
      ]),
      series('edgeward_raft_voters_connected', controllerTarget('ctrl1'), repeat(3, 10)),
      series('edgeward_raft_voters_connected', controllerTarget('ctrl2'), repeat(2, 10)),
      series('edgeward_raft_voters_connected', controllerTarget('ctrl3'), repeat(2, 10)),
    ],
    checks: [
      { at: '1m', expr: 'cluster:edgeward_controller_up:sum', samples: [{ labels: `cluster:edgeward_controller_up:sum{cluster="${testCluster}"}`, value: 3 }] },
      { at: '1m', expr: 'cluster:edgeward_raft_is_leader:sum', samples: [{ labels: `cluster:edgeward_raft_is_leader:sum{cluster="${testCluster}"}`, value: 1 }] },
      { at: '1m', expr: 'cluster:edgeward_raft_quorum_size:max', samples: [{ labels: `cluster:edgeward_raft_quorum_size:max{cluster="${testCluster}"}`, value: 2 }] },
      { at: '1m', expr: 'cluster:edgeward_raft_leader_voters_connected:max', samples: [{ labels: `cluster:edgeward_raft_leader_voters_connected:max{cluster="${testCluster}"}`, value: 2 }] },
      { at: '1m', expr: 'cluster:edgeward_raft_voters_connected:max', samples: [{ labels: `cluster:edgeward_raft_voters_connected:max{cluster="${testCluster}"}`, value: 3 }] },
    ],
  },
  {
    name: 'peer latency quantiles come from the histogram buckets of each channel',
    interval: '1m',
    series: [
      // 60 heartbeats a minute, all between 0.25 ms and 0.5 ms.
      ...['0.0001', '0.00025'].map((le) => series('edgeward_peer_latency_seconds_bucket', { ...controllerTarget('ctrl1'), channel_id: 'ctrl2', le }, repeat(0, 11))),
      ...['0.0005', '0.001', '+Inf'].map((le) => series('edgeward_peer_latency_seconds_bucket', { ...controllerTarget('ctrl1'), channel_id: 'ctrl2', le }, ramp(0, 60, 11))),
    ],
    checks: [
      {
        at: '10m',
        expr: peerLatencyP99Series,
        samples: [{ labels: `${peerLatencyP99Series}{channel_id="ctrl2",cluster="${testCluster}",controller="ctrl1"}`, value: 0.0004975 }],
      },
      {
        at: '10m',
        expr: 'edgeward:peer_latency_seconds:p50_5m',
        samples: [{ labels: `edgeward:peer_latency_seconds:p50_5m{channel_id="ctrl2",cluster="${testCluster}",controller="ctrl1"}`, value: 0.000375 }],
      },
    ],
  },
  {
    name: 'peer disconnects count a peer\'s first disconnect, which creates its series',
    interval: '1m',
    series: [
      series('up', controllerTarget('ctrl1'), repeat(1, 20)),
      // ctrl3's series appears with its first disconnect at 13m; plain increase() would see 2, not 3.
      series('edgeward_peer_disconnects_total', { ...controllerTarget('ctrl1'), peer_id: 'ctrl3' }, [...repeat('missing', 13), 1, 1, 2, 2, 3, 3, 3]),
      series('edgeward_peer_disconnects_total', { ...controllerTarget('ctrl1'), peer_id: 'ctrl2' }, [...repeat(4, 10), ...repeat(5, 10)]),
    ],
    checks: [
      {
        at: '19m',
        expr: peerDisconnectsSeries,
        samples: [
          { labels: `${peerDisconnectsSeries}{cluster="${testCluster}",controller="ctrl1",peer_id="ctrl2"}`, value: 1 },
          { labels: `${peerDisconnectsSeries}{cluster="${testCluster}",controller="ctrl1",peer_id="ctrl3"}`, value: 3 },
        ],
      },
    ],
  },
  {
    name: 'a Prometheus started less than the window ago counts peer disconnects from its first scrape',
    interval: '1m',
    series: [
      // Prometheus (and so `up`) begins at 5m; the controller already exposed the peer's counter at 0.
      series('up', controllerTarget('ctrl1'), [...repeat('missing', 5), ...repeat(1, 7)]),
      series('edgeward_peer_disconnects_total', { ...controllerTarget('ctrl1'), peer_id: 'ctrl2' }, [...repeat('missing', 5), 0, 0, 1, 2, 3, 3, 3]),
    ],
    checks: [
      {
        at: '11m',
        expr: peerDisconnectsSeries,
        samples: [{ labels: `${peerDisconnectsSeries}{cluster="${testCluster}",controller="ctrl1",peer_id="ctrl2"}`, value: 3 }],
      },
    ],
  },
  {
    name: 'a Prometheus started less than the window ago counts elections from its first scrape',
    interval: '1m',
    series: [
      series('up', controllerTarget('ctrl1'), [...repeat('missing', 5), ...repeat(1, 7)]),
      series('up', controllerTarget('ctrl2'), [...repeat('missing', 5), ...repeat(1, 7)]),
      series('edgeward_raft_leadership_gained_total', controllerTarget('ctrl1'), [...repeat('missing', 5), 0, 1, 1, 2, 2, 3, 3]),
      series('edgeward_raft_leadership_gained_total', controllerTarget('ctrl2'), [...repeat('missing', 5), 0, 0, 0, 1, 1, 1, 1]),
    ],
    checks: [
      {
        at: '11m',
        expr: leadershipGainedSeries,
        samples: [{ labels: `${leadershipGainedSeries}{cluster="${testCluster}"}`, value: 4 }],
      },
    ],
  },
];

// Warnings about each controller's copy of the raft log: a controller that falls behind the others in applying it,
// and a log that keeps growing because snapshots no longer compact it.
import { monitoringMixin } from '../mixin/monitoring-mixin.ts';
import { byCluster, byController, controllerSeries, inWords } from './promql-fragments.ts';
import type { AlertRule } from './rule-model.ts';
import { controllerTarget, down, ramp, repeat, series, testCluster } from './testing/test-series.ts';

const of = (controller: 'ctrl1' | 'ctrl3') => ({ cluster: testCluster, controller });

const { behindFor: lagBehind, sustainedFor: lagFor } = monitoringMixin.commitLag;
export const commitLagHigh: AlertRule = {
  name: 'EdgewardCommitLagHigh',
  expr: [
    'edgeward:raft_commit_lag_entries > 0',
    `and on(${byController})`,
    '(',
    `  max by (${byController}) (${controllerSeries('edgeward_raft_applied_index')})`,
    `  < on(${byCluster}) group_left`,
    `  max by (${byCluster}) (${controllerSeries('edgeward_raft_applied_index')} offset ${lagBehind})`,
    ')',
  ].join('\n'),
  for: lagFor,
  detail: ({ label, value }) =>
    `Controller ${label('controller')} of cluster ${label('cluster')} is ${value} raft entries behind the most advanced controller and has not reached where the cluster was ${inWords(lagBehind)} before, for more than ${lagFor}.`,
  rationale: `Controllers are scraped at different moments, so under load a healthy follower seems behind by up to a scrape interval of writes. A controller that has not even applied what the most advanced one had applied ${inWords(lagBehind)} before is really behind, whatever the write rate; sustained for ${lagFor}.`,
  tests: [
    {
      name: 'EdgewardCommitLagHigh fires when a controller stops applying while the others go on',
      interval: '15s',
      series: [
        series('edgeward_raft_applied_index', controllerTarget('ctrl1'), ramp(100, 10, 40)),
        series('edgeward_raft_applied_index', controllerTarget('ctrl2'), ramp(100, 10, 40)),
        series('edgeward_raft_applied_index', controllerTarget('ctrl3'), [...ramp(100, 10, 9), ...repeat(180, 31)]),
      ],
      checks: [
        { at: '8m', firing: [] },
        { at: '9m', firing: [{ labels: of('ctrl3'), value: '280' }] },
      ],
    },
    {
      name: 'EdgewardCommitLagHigh stays silent for a follower less than a scrape behind, and one catching up after a restart',
      interval: '15s',
      series: [
        series('edgeward_raft_applied_index', controllerTarget('ctrl1'), ramp(100, 10, 40)),
        series('edgeward_raft_applied_index', controllerTarget('ctrl2'), ramp(92, 10, 40)),
        series('edgeward_raft_applied_index', controllerTarget('ctrl3'), [...ramp(100, 10, 8), ...down(2), 150, ...ramp(210, 10, 29)]),
      ],
      checks: [
        { at: '6m', firing: [] },
        { at: '9m', firing: [] },
      ],
    },
  ],
};

const { growthBytes, for: diskFor } = monitoringMixin.raftDiskGrowth;
export const raftDiskGrowth: AlertRule = {
  name: 'EdgewardRaftDiskGrowth',
  expr: [
    // Only a log measured a whole hour ago: a new controller preallocates its first two segments (16 MiB) as it
    // starts, which is not growth, and delta() extrapolates a young series past its real change.
    `max by (${byController}) (delta(${controllerSeries('edgeward_raft_log_bytes')}[1h]) and ${controllerSeries('edgeward_raft_log_bytes')} offset 1h) > ${growthBytes}`,
    `and on(${byController})`,
    `max by (${byController}) (time() - ${controllerSeries('edgeward_raft_snapshot_timestamp_seconds')}) > 3600`,
  ].join('\n'),
  for: diskFor,
  valueFormat: 'humanize1024',
  detail: ({ label, value }) =>
    `The raft log of ${label('controller')} (cluster ${label('cluster')}) grew by ${value}B in the last hour, and it took no snapshot in that hour.`,
  rationale:
    'Snapshots (every 2m once 500 entries are past the last one, by default) compact the log, so a log that grows by more than two 8 MiB segments in an hour without a snapshot is not being compacted. An idle cluster takes no snapshots and does not grow either.',
  tests: [
    {
      name: 'EdgewardRaftDiskGrowth fires when the log grows for an hour without a snapshot',
      interval: '1m',
      series: [
        series('edgeward_raft_log_bytes', controllerTarget('ctrl1'), ramp(8 * 1024 * 1024, 1024 * 1024, 91)),
        series('edgeward_raft_snapshot_timestamp_seconds', controllerTarget('ctrl1'), repeat(0, 91)),
      ],
      checks: [
        { at: '75m', firing: [] },
        { at: '80m', firing: [{ labels: of('ctrl1'), value: '60Mi' }] },
      ],
    },
    {
      name: 'EdgewardRaftDiskGrowth stays silent while snapshots are taken, and for an idle log with an old snapshot',
      interval: '1m',
      series: [
        series('edgeward_raft_log_bytes', controllerTarget('ctrl1'), ramp(8 * 1024 * 1024, 1024 * 1024, 91)),
        series('edgeward_raft_snapshot_timestamp_seconds', controllerTarget('ctrl1'), Array.from({ length: 91 }, (_, minute) => Math.floor(minute / 2) * 120)),
        series('edgeward_raft_log_bytes', controllerTarget('ctrl3'), repeat(24 * 1024 * 1024, 91)),
        series('edgeward_raft_snapshot_timestamp_seconds', controllerTarget('ctrl3'), repeat(60, 91)),
      ],
      checks: [
        { at: '80m', firing: [] },
        { at: '90m', firing: [] },
      ],
    },
    {
      name: 'EdgewardRaftDiskGrowth stays silent for a new controller preallocating its log, before its first snapshot',
      interval: '1m',
      series: [
        // Born at 65m: its first measurement sees the segments half written, the next ones their 16 MiB.
        series('edgeward_raft_log_bytes', controllerTarget('ctrl2'), [...repeat('missing', 65), ...repeat(65536, 5), ...repeat(16 * 1024 * 1024, 36)]),
        series('edgeward_raft_snapshot_timestamp_seconds', controllerTarget('ctrl2'), [...repeat('missing', 65), ...repeat(0, 41)]),
      ],
      checks: [
        { at: '86m', firing: [] },
        { at: '100m', firing: [] },
      ],
    },
  ],
};

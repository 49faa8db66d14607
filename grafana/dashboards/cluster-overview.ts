// The first dashboard an operator opens: who leads, whether a quorum is up, read-only mode, commit lag, leadership
// changes and the alerts, each alert linked to its runbook.
import { MappingType } from '@grafana/grafana-foundation-sdk/dashboard';
import { monitoringMixin } from '../../alerts/mixin/monitoring-mixin.ts';
import { alertQueries } from '../queries/alert-queries.ts';
import { clusterQueries } from '../queries/cluster-queries.ts';
import { alertTiles, firingCountPanel, firingTables } from './alert-panels.ts';
import { buildDashboard, type DashboardOptions } from './dashboard-frame.ts';
import { colors, statPanel, stateTimelinePanel, tablePanel, thresholdSteps, timeSeriesPanel } from './panel-builders.ts';

export const clusterOverviewUid = 'edgeward-cluster-overview';

const { commitLag } = monitoringMixin;

const readOnlyMappings = [
  { type: MappingType.ValueToText, options: { '0': { text: 'read-write', color: colors.ok, index: 0 }, '1': { text: 'read-only', color: colors.critical, index: 1 } } },
] as const;

export function clusterOverview(options: DashboardOptions) {
  return buildDashboard(
    {
      uid: clusterOverviewUid,
      title: 'edgeward / Cluster overview',
      description: 'Leader, members, read-only mode, commit lag, leadership changes and alerts of one edgeward controller cluster.',
      tags: ['cluster'],
      variables: [],
      rows: [
        {
          title: 'Cluster',
          panels: [
            statPanel(
              {
                title: 'Leader',
                description: 'The leader each controller knows (edgeward_raft_leader_info). One name when they agree; none while there is no leader.',
                queries: [clusterQueries.leader],
              },
              { text: 'name' },
            ).noValue('no leader'),
            statPanel({
              title: 'Leaders',
              description: 'Controllers that consider themselves leader: exactly 1 when healthy.',
              queries: [clusterQueries.leaderCount],
              thresholds: thresholdSteps([null, colors.critical], [1, colors.ok], [2, colors.critical]),
            }),
            statPanel(
              {
                title: 'Controllers up',
                description: 'Controllers Prometheus scrapes, and voters in the raft configuration.',
                queries: [clusterQueries.controllersUp, clusterQueries.voters],
              },
              { text: 'value_and_name' },
            ),
            statPanel({
              title: 'Quorum on the leader',
              description: 'Voters the leader is connected to, itself included. Below floor(voters/2)+1 the cluster has lost quorum.',
              queries: [clusterQueries.leaderVotersConnected],
            }).noValue('no leader'),
            statPanel(
              {
                title: 'Read-only controllers',
                description: 'Controllers in read-only mode (a connected member reports another version): writes through them fail.',
                queries: [clusterQueries.readOnlyCount],
                thresholds: thresholdSteps([null, colors.ok], [1, colors.critical]),
              },
              { background: true },
            ),
            firingCountPanel(),
          ],
        },
        {
          title: 'Members',
          panels: [
            stateTimelinePanel({
              title: 'Up, per controller',
              description: 'Whether Prometheus scrapes each controller (up).',
              queries: [clusterQueries.memberUp],
              width: 8,
            }),
            stateTimelinePanel({
              title: 'Knows a leader',
              description: 'Whether each controller knows a leader (edgeward_raft_has_leader).',
              queries: [clusterQueries.memberHasLeader],
              width: 8,
            }),
            stateTimelinePanel({
              title: 'Read-only mode',
              description: 'Whether each controller is read-only (edgeward_cluster_read_only).',
              queries: [clusterQueries.memberReadOnly],
              mappings: [...readOnlyMappings],
              width: 8,
            }),
            timeSeriesPanel(
              {
                title: 'Commit lag',
                description: `Raft entries each controller has applied fewer than the most advanced one. EdgewardCommitLagHigh warns on a controller ${commitLag.behindFor} behind (the alerts daemon also at ${commitLag.entries} entries), held ${commitLag.sustainedFor}.`,
                queries: [clusterQueries.commitLag],
                thresholds: thresholdSteps([null, colors.ok], [commitLag.entries, colors.warning]),
                min: 0,
              },
              { thresholdLines: true },
            ),
            timeSeriesPanel(
              {
                title: 'Leadership changes',
                description: 'Leader changes each controller saw (to another controller or to none), and times each became leader, per rate interval.',
                queries: [clusterQueries.leaderChanges, clusterQueries.leadershipGained],
                min: 0,
              },
              { bars: true },
            ),
            tablePanel({
              title: 'Controllers down',
              description: 'Controllers Prometheus cannot scrape now. Empty while every controller answers.',
              queries: [clusterQueries.membersDown],
              width: 8,
              height: 6,
            }),
            tablePanel({
              title: 'Versions',
              description: 'Each controller\'s software and Node.js version. Members that differ put the cluster in read-only mode.',
              queries: [clusterQueries.versions],
              width: 8,
              height: 6,
            }),
            statPanel({
              title: 'Raft term',
              description: 'The highest raft term: it grows by one or more with every election.',
              queries: [clusterQueries.term],
              width: 4,
              height: 6,
            }),
            stateTimelinePanel({
              title: 'Alerts daemon up',
              description: 'Whether Prometheus scrapes the cluster\'s alerts daemon.',
              queries: [alertQueries.daemonUp],
              width: 4,
            }),
          ],
        },
        {
          title: 'Backups',
          panels: [
            statPanel(
              {
                title: 'Last backup',
                description: `When each controller took its last successful online backup (scheduled by cluster.backup, or agent controller snapshot); "none yet" before the first. EdgewardBackupsStopped warns after ${monitoringMixin.backupsStopped.intervals} intervals without one.`,
                queries: [clusterQueries.backupLastSuccess],
                mappings: [{ type: MappingType.ValueToText, options: { '0': { text: 'none yet', color: colors.neutral, index: 0 } } }],
                thresholds: thresholdSteps([null, colors.neutral]),
                width: 12,
                height: 6,
              },
              { text: 'value_and_name' },
            ),
            timeSeriesPanel({
              title: 'Last backup size',
              description: 'Size of each controller\'s last successful backup file; 0 before the first. It grows with the model.',
              queries: [clusterQueries.backupLastSize],
              min: 0,
              width: 12,
              height: 6,
            }),
          ],
        },
        { title: 'Firing alerts', panels: firingTables(options) },
        { title: 'Alerts and runbooks', panels: alertTiles(options) },
      ],
    },
    options,
  );
}

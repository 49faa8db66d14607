// Raft inside each controller: the leader's rate limiter, the log's indexes, the peer channels and what raft keeps
// on disk.
import { MappingType } from '@grafana/grafana-foundation-sdk/dashboard';
import { raftQueries } from '../queries/raft-queries.ts';
import { controllerVariable } from '../queries/template-variables.ts';
import { buildDashboard, type DashboardOptions } from './dashboard-frame.ts';
import { colors, statPanel, thresholdSteps, timeSeriesPanel } from './panel-builders.ts';

export const raftInternalsUid = 'edgeward-raft-internals';

export function raftInternals(options: DashboardOptions) {
  return buildDashboard(
    {
      uid: raftInternalsUid,
      title: 'edgeward / Raft internals',
      description: 'The raft rate limiter, log indexes, peer channels, write-ahead log and snapshots of each controller.',
      tags: ['raft'],
      variables: [controllerVariable],
      rows: [
        {
          title: 'Rate limiter (leader)',
          panels: [
            timeSeriesPanel({
              title: 'Queue',
              description: 'Commands in the leader\'s rate limiter, running or waiting: about 0 at rest, 0 on followers. Held above 0 it warns.',
              queries: [raftQueries.limiterQueue],
              min: 0,
              width: 8,
            }),
            timeSeriesPanel(
              {
                title: 'Window',
                description: 'How many commands may run at once (5 to 250, starting at 250). It shrinks when commands take longer than cluster.commitTimeout.',
                queries: [raftQueries.limiterWindow],
                thresholds: thresholdSteps([null, colors.warning], [250, colors.ok]),
                min: 0,
                max: 250,
                width: 8,
              },
              { thresholdLines: true },
            ),
            timeSeriesPanel({
              title: 'Commands per second',
              description: 'Commands through the leader\'s rate limiter, from proposal to apply.',
              queries: [raftQueries.commandRate],
              min: 0,
              width: 8,
            }),
            timeSeriesPanel({
              title: 'Work timer',
              description: 'Seconds each command took through the leader\'s limiter, from proposal to apply: median, p90 and p99. Only a leader has this.',
              queries: [raftQueries.workTimerP50, raftQueries.workTimerP90, raftQueries.workTimerP99],
              min: 0,
              width: 24,
            }),
          ],
        },
        {
          title: 'Log',
          panels: [
            timeSeriesPanel({
              title: 'Indexes',
              description: 'Commit, applied and last log index of each controller. Followers trail the leader by little.',
              queries: [raftQueries.commitIndex, raftQueries.appliedIndex, raftQueries.lastLogIndex],
              width: 8,
            }),
            timeSeriesPanel({
              title: 'Entries applied per second',
              description: 'How fast each controller applies the log to its model.',
              queries: [raftQueries.applyRate],
              min: 0,
              width: 8,
            }),
            timeSeriesPanel({
              title: 'Term',
              description: 'Each controller\'s raft term: a step is an election.',
              queries: [raftQueries.term],
              width: 8,
            }),
          ],
        },
        {
          title: 'Peers',
          panels: [
            timeSeriesPanel({
              title: 'Peer latency',
              description: 'Heartbeat round trip on each peer channel (controller → peer): median and p99.',
              queries: [raftQueries.peerLatencyP50, raftQueries.peerLatencyP99],
              min: 0,
            }),
            timeSeriesPanel({
              title: 'Peer queue time',
              description: 'How long a heartbeat waited in the local send queue of each peer channel: median and p99. Growth means a slow or congested channel.',
              queries: [raftQueries.peerQueueTimeP50, raftQueries.peerQueueTimeP99],
              min: 0,
            }),
            timeSeriesPanel(
              {
                title: 'Peer connects and disconnects',
                description: 'Times each peer became connected or disconnected, per rate interval. Repeated disconnects are a flapping channel.',
                queries: [raftQueries.peerConnects, raftQueries.peerDisconnects],
                min: 0,
              },
              { bars: true },
            ),
            timeSeriesPanel({
              title: 'Voters connected',
              description: 'Voters each controller is connected to, itself included, against the voters in its configuration.',
              queries: [raftQueries.votersConnected, raftQueries.voters],
              min: 0,
            }),
          ],
        },
        {
          title: 'Storage',
          panels: [
            timeSeriesPanel({
              title: 'Write-ahead log and snapshots on disk',
              description: 'Bytes under raft.db (preallocated segments: it moves in steps) and under snapshots. Measured at most every 10 s.',
              queries: [raftQueries.walBytes, raftQueries.snapshotsBytes],
              min: 0,
            }),
            timeSeriesPanel({
              title: 'Newest snapshot size',
              description: 'Size of the newest snapshot file; 0 before the first.',
              queries: [raftQueries.snapshotSize],
              min: 0,
              width: 6,
            }),
            timeSeriesPanel({
              title: 'Newest snapshot index',
              description: 'Raft index of the newest snapshot; 0 before the first.',
              queries: [raftQueries.snapshotIndex],
              min: 0,
              width: 6,
            }),
            statPanel(
              {
                title: 'Newest snapshot taken',
                description: 'When each controller wrote its newest snapshot. A log that grows with no new snapshot warns (EdgewardRaftDiskGrowth).',
                queries: [raftQueries.snapshotTime],
                mappings: [{ type: MappingType.ValueToText, options: { '0': { text: 'none yet', color: colors.neutral, index: 0 } } }],
                thresholds: thresholdSteps([null, colors.neutral]),
                width: 24,
                height: 4,
              },
              { text: 'value_and_name' },
            ),
          ],
        },
      ],
    },
    options,
  );
}

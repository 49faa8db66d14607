// The page's charts, named after the shared query catalogue (grafana/queries): the same figure has the same title in
// Grafana and on the status page, and each chart says which catalogue queries it mirrors. The page computes the
// figures itself from the controllers' metrics, the event files and the alerts daemon, so it needs no Prometheus.

import { clusterQueries, raftQueries, routerQueries } from '../../grafana/queries/query-catalogue.ts';
import { chartIds, histogramWindowMs, peerLatencyQuantile, workTimerQuantiles } from '../state/chart-points.ts';
import type { ChartDefinition } from '../state/snapshot.ts';

/** "Command time through the leader's rate limiter, p50" → "Command time through the leader's rate limiter". */
const withoutQuantile = (title: string) => title.replace(/, p\d+$/, '');

export function chartDefinitions(): ChartDefinition[] {
  const window = `${histogramWindowMs / 1000} s`;
  return [
    {
      id: chartIds.lagEntries,
      title: clusterQueries.commitLag.title,
      unit: 'short',
      queries: [clusterQueries.commitLag.id],
      source: 'the alerts daemon, else the event files, else the applied indexes',
    },
    {
      id: chartIds.lagSeconds,
      title: 'Commit lag: seconds behind while another controller is ahead',
      unit: 's',
      queries: [],
      source: 'the alerts daemon (edgeward_alerts_commit_lag_seconds), else the event files',
    },
    { id: chartIds.limiterQueue, title: raftQueries.limiterQueue.title, unit: 'short', queries: [raftQueries.limiterQueue.id], source: 'each controller\'s /metrics' },
    { id: chartIds.limiterWindow, title: raftQueries.limiterWindow.title, unit: 'short', queries: [raftQueries.limiterWindow.id], source: 'each controller\'s /metrics' },
    {
      id: chartIds.workTimer,
      title: `${withoutQuantile(raftQueries.workTimerP50.title)}, ${workTimerQuantiles.map((q) => `p${q * 100}`).join(', ')}`,
      unit: 's',
      queries: [raftQueries.workTimerP50.id, raftQueries.workTimerP90.id, raftQueries.workTimerP99.id],
      source: `the leader's /metrics, over the last ${window}`,
    },
    {
      id: chartIds.peerLatency,
      title: peerLatencyQuantile === 0.99 ? raftQueries.peerLatencyP99.title : raftQueries.peerLatencyP50.title,
      unit: 's',
      queries: [peerLatencyQuantile === 0.99 ? raftQueries.peerLatencyP99.id : raftQueries.peerLatencyP50.id],
      source: `each controller's /metrics, over the last ${window}`,
    },
    { id: chartIds.linkLatency, title: routerQueries.linkLatency.title, unit: 's', queries: [routerQueries.linkLatency.id], source: 'the routers\' reports on the controllers\' /metrics and their health checks' },
  ];
}

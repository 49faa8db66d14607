// What the evaluator reads from one controller's /metrics: raft leadership and quorum, read-only mode, the rate
// limiter, and the cumulative heartbeat round trips per peer channel (the histogram's _sum and _count). A metric the
// controller does not expose is left out, never guessed. Pure.

import type { ControllerMetricName } from '../../../common/telemetry/metric-names.ts';
import type { Sample } from './prometheus-text.ts';

export interface LatencyTotals {
  /** Seconds, summed over every heartbeat so far. */
  readonly sum: number;
  readonly count: number;
}

export interface ControllerMetricsView {
  readonly isLeader?: boolean;
  readonly hasLeader?: boolean;
  readonly readOnly?: boolean;
  readonly voters?: number;
  readonly votersConnected?: number;
  readonly queueSize?: number;
  readonly windowSize?: number;
  /** channel_id → totals. */
  readonly peerLatency: Readonly<Record<string, LatencyTotals>>;
}

const name = (metric: ControllerMetricName) => metric;
const latency = name('edgeward_peer_latency_seconds');

export function controllerMetricsView(samples: readonly Sample[]): ControllerMetricsView {
  const plain = new Map<string, number>();
  const sums = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const sample of samples) {
    if (!Number.isFinite(sample.value)) continue;
    if (sample.name === `${latency}_sum` || sample.name === `${latency}_count`) {
      const channel = sample.labels.channel_id;
      if (channel === undefined) continue;
      (sample.name.endsWith('_sum') ? sums : counts).set(channel, sample.value);
    } else if (!plain.has(sample.name)) {
      plain.set(sample.name, sample.value);
    }
  }
  const value = (metric: ControllerMetricName) => plain.get(metric);
  const flag = (metric: ControllerMetricName) => {
    const found = value(metric);
    return found === undefined ? undefined : found >= 1;
  };
  const peerLatency: Record<string, LatencyTotals> = {};
  for (const [channel, count] of counts) {
    const sum = sums.get(channel);
    if (sum !== undefined) peerLatency[channel] = { sum, count };
  }
  const view: Record<string, unknown> = {
    isLeader: flag('edgeward_raft_is_leader'),
    hasLeader: flag('edgeward_raft_has_leader'),
    readOnly: flag('edgeward_cluster_read_only'),
    voters: value('edgeward_raft_voters'),
    votersConnected: value('edgeward_raft_voters_connected'),
    queueSize: value('edgeward_raft_rate_limiter_queue_size'),
    windowSize: value('edgeward_raft_rate_limiter_window_size'),
  };
  for (const key of Object.keys(view)) if (view[key] === undefined) delete view[key];
  return { ...(view as Omit<ControllerMetricsView, 'peerLatency'>), peerLatency };
}

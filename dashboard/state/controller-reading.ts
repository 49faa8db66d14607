// What the status page reads from one controller's /metrics: the gauges it shows and the histograms it charts, keyed
// by the names of common/telemetry/metric-names.ts and grafana/queries/router-metric-names.ts. Samples in, figures
// out; a metric the controller does not expose is simply absent. Pure.

import type { Sample } from '../../alerts/core/metrics/prometheus-text.ts';
import type { ControllerMetricName } from '../../common/telemetry/metric-names.ts';
import type { RouterMetricName } from '../../grafana/queries/router-metric-names.ts';
import type { BackupReading } from './backup-view.ts';
import type { Histogram } from './histogram.ts';

export interface RouterReading {
  readonly ctrlConnected?: boolean;
  readonly ctrlLatencySeconds?: number;
  readonly linkCount?: number;
  /** link id → its last round trip, seconds. */
  readonly links: Readonly<Record<string, number>>;
  /** The router's circuit gauges, when it reports them. */
  readonly circuits?: CircuitFigures;
  /** Its SDK edge channels and their virtual connections, when it reports them. */
  readonly edge?: EdgeFigures;
}

/** SDK edge channels open on a router's edge listeners, and the virtual connections (dials) they hold. */
export interface EdgeFigures {
  readonly channels?: number;
  readonly connections?: number;
}

/** A router's circuits now, and its counts since it started. */
export interface CircuitFigures {
  readonly count?: number;
  readonly created?: number;
  readonly failed?: number;
  readonly dialFailures?: number;
  readonly bytesIn?: number;
  readonly bytesOut?: number;
}

export interface ControllerReading {
  readonly version?: string;
  readonly readOnly?: boolean;
  readonly isLeader?: boolean;
  /** The leader it follows; null while it knows none; absent when the metrics do not say. */
  readonly leaderId?: string | null;
  readonly term?: number;
  readonly commitIndex?: number;
  readonly appliedIndex?: number;
  readonly lastLogIndex?: number;
  readonly voters?: number;
  readonly votersConnected?: number;
  readonly limiterQueue?: number;
  readonly limiterWindow?: number;
  /** Unix seconds the process started. */
  readonly startTimeSeconds?: number;
  readonly workTimer?: Histogram;
  /** channel id (the peer's id) → heartbeat round trips. */
  readonly peerLatency: Readonly<Record<string, Histogram>>;
  /** router id → what it last reported through this controller. */
  readonly routers: Readonly<Record<string, RouterReading>>;
  /** Circuit failures this controller counted, by cause (edgeward_circuit_failures_total). */
  readonly circuitFailures?: Readonly<Record<string, number>>;
  /** Circuit events this controller wrote, by type (edgeward_circuit_events_total). */
  readonly circuitEvents?: Readonly<Record<string, number>>;
  /** Its last online backup and its schedule; absent from a controller without the backup gauges. */
  readonly backup?: BackupReading;
}

type Name = ControllerMetricName | RouterMetricName;

export function readControllerMetrics(samples: readonly Sample[]): ControllerReading {
  const gauges = new Map<string, Sample[]>();
  for (const sample of samples) {
    let list = gauges.get(sample.name);
    if (!list) gauges.set(sample.name, (list = []));
    list.push(sample);
  }
  const first = (name: Name): Sample | undefined => gauges.get(name)?.[0];
  const value = (name: Name): number | undefined => {
    const sample = first(name);
    return sample !== undefined && Number.isFinite(sample.value) ? sample.value : undefined;
  };
  const flag = (name: Name): boolean | undefined => {
    const found = value(name);
    return found === undefined ? undefined : found === 1;
  };

  const hasLeader = flag('edgeward_raft_has_leader');
  const leaderInfo = gauges.get('edgeward_raft_leader_info')?.find((sample) => sample.value === 1)?.labels.leader_id;
  const leaderId = hasLeader === false ? null : leaderInfo;

  const routers: Record<string, { ctrlConnected?: boolean; ctrlLatencySeconds?: number; linkCount?: number; links: Record<string, number>; circuits?: Record<string, number>; edge?: Record<string, number> }> = {};
  const router = (id: string) => (routers[id] ??= { links: {} });
  for (const sample of gauges.get('edgeward_router_ctrl_connected') ?? []) if (sample.labels.router_id) router(sample.labels.router_id).ctrlConnected = sample.value === 1;
  for (const sample of gauges.get('edgeward_router_ctrl_latency_seconds') ?? []) if (sample.labels.router_id && Number.isFinite(sample.value)) router(sample.labels.router_id).ctrlLatencySeconds = sample.value;
  for (const sample of gauges.get('edgeward_router_link_count') ?? []) if (sample.labels.router_id && Number.isFinite(sample.value)) router(sample.labels.router_id).linkCount = sample.value;
  for (const sample of gauges.get('edgeward_router_link_latency_seconds') ?? []) {
    const { router_id: routerId, link_id: linkId } = sample.labels;
    if (routerId && linkId && Number.isFinite(sample.value)) router(routerId).links[linkId] = sample.value;
  }

  const circuitGauges: ReadonlyArray<[Name, keyof CircuitFigures]> = [
    ['edgeward_router_circuit_count', 'count'],
    ['edgeward_router_circuit_created', 'created'],
    ['edgeward_router_circuit_failed', 'failed'],
    ['edgeward_router_circuit_dial_failures', 'dialFailures'],
    ['edgeward_router_circuit_bytes_in', 'bytesIn'],
    ['edgeward_router_circuit_bytes_out', 'bytesOut'],
  ];
  for (const [name, key] of circuitGauges) {
    for (const sample of gauges.get(name) ?? []) {
      if (!sample.labels.router_id || !Number.isFinite(sample.value)) continue;
      const entry = router(sample.labels.router_id);
      (entry.circuits ??= {})[key] = sample.value;
    }
  }
  const edgeGauges: ReadonlyArray<[Name, keyof EdgeFigures]> = [
    ['edgeward_router_edge_channel_count', 'channels'],
    ['edgeward_router_edge_connection_count', 'connections'],
  ];
  for (const [name, key] of edgeGauges) {
    for (const sample of gauges.get(name) ?? []) {
      if (!sample.labels.router_id || !Number.isFinite(sample.value)) continue;
      (router(sample.labels.router_id).edge ??= {})[key] = sample.value;
    }
  }
  const byLabel = (name: Name, label: string): Record<string, number> => {
    const totals: Record<string, number> = {};
    for (const sample of gauges.get(name) ?? []) {
      const key = sample.labels[label];
      if (key && Number.isFinite(sample.value)) totals[key] = (totals[key] ?? 0) + sample.value;
    }
    return totals;
  };

  return strip({
    version: first('edgeward_build_info')?.labels.version,
    readOnly: flag('edgeward_cluster_read_only'),
    isLeader: flag('edgeward_raft_is_leader'),
    leaderId,
    term: value('edgeward_raft_term'),
    commitIndex: value('edgeward_raft_commit_index'),
    appliedIndex: value('edgeward_raft_applied_index'),
    lastLogIndex: value('edgeward_raft_last_log_index'),
    voters: value('edgeward_raft_voters'),
    votersConnected: value('edgeward_raft_voters_connected'),
    limiterQueue: value('edgeward_raft_rate_limiter_queue_size'),
    limiterWindow: value('edgeward_raft_rate_limiter_window_size'),
    startTimeSeconds: value('edgeward_process_start_time_seconds'),
    workTimer: histograms(samples, 'edgeward_raft_rate_limiter_work_timer_seconds', () => '').get(''),
    peerLatency: Object.fromEntries(histograms(samples, 'edgeward_peer_latency_seconds', (labels) => labels.channel_id)),
    routers,
    circuitFailures: byLabel('edgeward_circuit_failures_total', 'cause'),
    circuitEvents: byLabel('edgeward_circuit_events_total', 'event_type'),
    backup: backupReading(value),
  });
}

/** The backup gauges, when the controller has them (both the last success and the interval). */
function backupReading(value: (name: Name) => number | undefined): BackupReading | undefined {
  const lastSuccessSeconds = value('edgeward_backup_last_success_timestamp_seconds');
  const intervalSeconds = value('edgeward_backup_interval_seconds');
  if (lastSuccessSeconds === undefined || intervalSeconds === undefined) return undefined;
  const lastSizeBytes = value('edgeward_backup_last_size_bytes');
  return { lastSuccessSeconds, intervalSeconds, ...(lastSizeBytes === undefined ? {} : { lastSizeBytes }) };
}

/** The histograms of one family, grouped by `keyOf` (undefined: skipped); `_bucket`s sorted by `le`. */
export function histograms(samples: readonly Sample[], family: string, keyOf: (labels: Readonly<Record<string, string>>) => string | undefined): Map<string, Histogram> {
  const parts = new Map<string, { buckets: [number, number][]; count?: number; sum?: number }>();
  const part = (key: string) => {
    let found = parts.get(key);
    if (!found) parts.set(key, (found = { buckets: [] }));
    return found;
  };
  for (const sample of samples) {
    if (!sample.name.startsWith(family)) continue;
    const suffix = sample.name.slice(family.length);
    if (suffix !== '_bucket' && suffix !== '_sum' && suffix !== '_count') continue;
    const key = keyOf(sample.labels);
    if (key === undefined) continue;
    if (suffix === '_bucket') {
      const le = sample.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(sample.labels.le);
      if (!Number.isNaN(le) && Number.isFinite(sample.value)) part(key).buckets.push([le, sample.value]);
    } else if (suffix === '_sum') part(key).sum = sample.value;
    else part(key).count = sample.value;
  }
  const result = new Map<string, Histogram>();
  for (const [key, found] of parts) {
    if (found.buckets.length === 0) continue;
    const buckets = found.buckets.sort((a, b) => a[0] - b[0]);
    result.set(key, { buckets, count: found.count ?? buckets.at(-1)![1], sum: found.sum ?? 0 });
  }
  return result;
}

/** Drops the keys whose value is undefined, so the reading is plain JSON with no `undefined` holes. */
function strip<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}

// The monitoring mixin's config, in the manner of the etcd and Kubernetes mixins' `_config`: every window and
// threshold an alert is decided by, written once. The Prometheus rules (alerts/rules/), the alerts daemon's defaults
// (alerts/config/alerts-config-schema.ts), the Grafana dashboards (grafana/) and the status page read them from
// here, so an alert both the daemon and Prometheus raise fires on the same numbers from either.
// `dual-source-alerts.test.ts` reads the numbers back from the generated rules and the daemon's parsed defaults and
// fails when they differ. Durations are Go/Prometheus durations (`30s`, `1m`, `1h`); docs/alerting-rules.md and
// docs/alerts.md document each value and why.
import { parseGoDuration } from '../../common/config/go-duration.ts';
import { scrapeNames } from '../prometheus/scrape-names.ts';

export const monitoringMixin = {
  /** The jobs and target labels every rule and dashboard query selects and groups by. */
  selectors: scrapeNames,
  /** A controller that knows no leader pages after this: `cluster.warnWhenLeaderlessFor`'s default. */
  leaderless: { for: '1m' },
  /** No controller answering 200 on its raft health check (none leads) pages after this; it outlasts a failover. */
  noControllerHealthy: { for: '1m' },
  /** Prometheus pages on a read-only controller after this: a rolling upgrade passes through read-only mode. */
  readOnly: { for: '5m' },
  /** Fewer than a majority of voters connected pages after this. */
  quorumLost: { for: '1m' },
  /** `count` closes of one peer channel within `window` warn. */
  peerFlapping: { count: 3, window: '10m' },
  /** `count` elections across the cluster within `window` warn (a rolling restart of three elects at most three). */
  leadershipChurn: { count: 4, window: '15m' },
  /** A rate limiter queue that no look in this long found empty warns. */
  rateLimiterQueue: { sustainedFor: '10m' },
  /** A rate limiter window that has not grown for `for` warns (Prometheus: below `shrinkRatio` of its `window` maximum). */
  rateLimiterWindow: { for: '2m', shrinkRatio: 0.85, window: '10m' },
  /** Heartbeat round trips at least `factor` times their baseline and `floor` above it, for `sustainedFor`, warn. */
  peerLatency: { factor: 3, floor: '10ms', sustainedFor: '5m', quantileWindow: '5m' },
  /** A controller `behindFor` behind the most advanced one (or `entries` raft entries), for `sustainedFor`, warns. */
  commitLag: { entries: 100, behindFor: '1m', sustainedFor: '5m' },
  // Prometheus alone raises the rest: the daemon cannot see them.
  /** A raft log that grew by more than `growthBytes` in an hour without a snapshot, for `for`, warns. */
  raftDiskGrowth: { growthBytes: '16 * 1024 * 1024', for: '15m' },
  /** An edgeward target Prometheus has not scraped for this long warns. */
  scrapeTargetDown: { for: '3m' },
  /** The alerts daemon failing every delivery for this long warns. */
  alertDeliveryFailing: { for: '10m' },
  /** `burst` circuits the overlay failed to carry within `window`, for `for`, warn. */
  circuitDialFailures: { burst: 10, window: '5m', for: '2m' },
  /** Every SDK-hosted terminator of a service that had one within `lookback` gone, for `for`, warns. */
  sdkTerminatorsGone: { lookback: '1h', for: '3m' },
  /** `burst` or more OIDC refreshes and token exchanges refused across the cluster within `window`, for `for`, warns:
   * clients that cannot renew their sessions (a signing key gone before its tokens expired, revocations, clocks). */
  oidcRefreshFailures: { burst: 30, window: '5m', for: '2m' },
  /** A controller whose schedule is on (and that has been up that long) with no successful backup for `intervals`
   * times `cluster.backup.interval`, for `for`, warns: a missed backup or two is not yet an alert, three are. */
  backupsStopped: { intervals: 2.5, for: '5m' },
  /** Scheduled backups that failed within `window` with none succeeding in it, for `for`, warn. */
  backupsFailing: { window: '1h', for: '5m' },
} as const;

export type MonitoringMixin = typeof monitoringMixin;

/** A mixin duration in milliseconds; throws on a value that is not a duration (a broken mixin, not bad input). */
export function durationMs(text: string): number {
  const ms = parseGoDuration(text);
  if (ms === undefined) throw new Error(`monitoring mixin: "${text}" is not a duration`);
  return ms;
}

/** A mixin duration in seconds, as PromQL compares a `_seconds` series. */
export function durationSeconds(text: string): number {
  return durationMs(text) / 1000;
}

/** A duration in milliseconds as Prometheus writes it (`5m`, `1h30m`, `90s`, `250ms`). */
export function promDuration(ms: number): string {
  const units: readonly [string, number][] = [['h', 3_600_000], ['m', 60_000], ['s', 1000], ['ms', 1]];
  if (ms === 0) return '0s';
  let rest = ms;
  let text = '';
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    if (count > 0) text += `${count}${unit}`;
    rest -= count * size;
  }
  return text;
}

/**
 * Commit lag in raft entries, as PromQL over `appliedIndex` (the selected `edgeward_raft_applied_index` series): the
 * cluster's highest applied index minus each controller's. The recording rule `edgeward:raft_commit_lag_entries` and
 * the dashboards' commit lag panel are this one expression; the daemon and the status page compute the same from the
 * event files (alerts/core/metrics/commit-lag-figures.ts).
 */
export function commitLagEntriesPromQL(appliedIndex: string): string {
  const { cluster, controller } = scrapeNames.labels;
  return `max by (${cluster}) (${appliedIndex}) - on (${cluster}) group_right () max by (${cluster}, ${controller}) (${appliedIndex})`;
}

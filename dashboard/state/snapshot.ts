// What the status page shows, as plain JSON: one snapshot of the cluster gathered by the page's server
// (page-server/cluster-gatherer.ts), and the chart history beside it. The browser gets the snapshot in the first HTML, then
// a new one on every gather through the one subscription (/api/stream). Times are milliseconds since the epoch.

import type { BackupView } from './backup-view.ts';
import type { CircuitFigures, EdgeFigures } from './controller-reading.ts';

export type { BackupView } from './backup-view.ts';

export type Role = 'leader' | 'follower' | 'failed' | 'unknown';
export type Level = 'ok' | 'warn' | 'critical';

export interface HealthCheckView {
  readonly id: string;
  readonly healthy: boolean;
  readonly error?: string;
}

export type LagSource = 'alerts daemon' | 'event files' | 'applied index';

export interface CommitLagView {
  /** Raft entries behind the most advanced controller; absent while unknown. */
  readonly entries?: number;
  /** Seconds behind (the age of its newest event while another controller is ahead); absent while unknown. */
  readonly seconds?: number;
  readonly source: LagSource;
  /** Set when `entries` is at or past the EdgewardCommitLag alert's threshold (the monitoring mixin's). */
  readonly behind?: true;
}

export interface ControllerView {
  readonly id: string;
  readonly url: string;
  /** It answered its last health poll. */
  readonly reachable: boolean;
  /** Why it is unreachable, or why a part of it could not be read. */
  readonly error?: string;
  /** Last time it answered a health poll. */
  readonly lastSeenAt?: number;
  /** `/health-checks`: overall and per check. */
  readonly health?: { readonly healthy: boolean; readonly status: number; readonly checks: readonly HealthCheckView[] };
  /** HTTP status of `/health-checks/controller/raft`: 200 leader, 429 follower, 503 failed. */
  readonly raftStatus?: number;
  readonly role: Role;
  readonly version?: string;
  readonly readOnly?: boolean;
  readonly uptimeSeconds?: number;
  readonly term?: number;
  readonly commitIndex?: number;
  readonly appliedIndex?: number;
  readonly lastLogIndex?: number;
  /** The leader this controller follows (from its metrics); null while it knows none. */
  readonly leaderId?: string | null;
  readonly voters?: number;
  readonly votersConnected?: number;
  readonly rateLimiter?: { readonly queue: number; readonly window: number };
  /** Its /metrics could not be read or parsed (the figures above are then older, or absent). */
  readonly metricsError?: string;
  readonly lag?: CommitLagView;
  /** Its last online backup (from its backup gauges); absent when its metrics do not have them. */
  readonly backup?: BackupView;
}

export interface MemberRowView {
  readonly id: string;
  readonly address: string;
  readonly voter: boolean;
  readonly leader: boolean;
  readonly version: string;
  readonly connected: boolean;
  readonly readOnly: boolean;
  readonly preferredLeader: boolean;
}

export interface MembersView {
  /** The controller whose view this is. */
  readonly from?: string;
  /** True when that controller is the leader (the canonical view). */
  readonly fromLeader: boolean;
  readonly at?: number;
  readonly rows: readonly MemberRowView[];
  /** Why no list (or only an older one) could be read. */
  readonly error?: string;
}

export interface ClusterEventView {
  readonly at: number;
  /** The controller that wrote it. */
  readonly controller: string;
  readonly eventType: string;
  /** The peers, leader or index the event names, in a few words. */
  readonly detail: string;
}

export interface AlertView {
  readonly alertname: string;
  /** `critical` pages, `warning` warns. */
  readonly severity: string;
  readonly summary: string;
  readonly description: string;
  readonly runbookUrl: string;
  readonly startsAt: number;
  readonly labels: Readonly<Record<string, string>>;
}

export interface AlertsView {
  /** `none`: no alerts daemon is configured; `unreachable`: it did not answer. */
  readonly status: 'none' | 'ok' | 'unreachable';
  readonly error?: string;
  readonly alerts: readonly AlertView[];
  readonly at?: number;
}

export interface RouterLinkView {
  readonly id: string;
  /** The router at the other end: from the router's health check, else the other router reporting this link. */
  readonly destRouterId?: string;
  /** That router's name (`routers[].name`), when the page knows it. */
  readonly destRouterName?: string;
  readonly latencySeconds?: number;
}

export interface RouterView {
  readonly id: string;
  readonly name?: string;
  /** Connected to a controller: its health check's controllerPing, or else a controller reporting it connected. */
  readonly connected?: boolean;
  /** The controllers whose /metrics show its control channel up. */
  readonly controllers: readonly string[];
  readonly ctrlLatencySeconds?: number;
  readonly links: readonly RouterLinkView[];
  /** Its circuits now and since it started, as it last reported them. */
  readonly circuits?: CircuitFigures;
  /** Its SDK edge channels and their virtual connections now, as it last reported them. */
  readonly edge?: EdgeFigures;
  /** Its own health-checks API, when configured: answered, and healthy. */
  readonly healthReachable?: boolean;
  readonly healthy?: boolean;
  readonly error?: string;
}

/** The data plane across the cluster: sums over the reachable controllers (each counts what it saw since it started). */
export interface CircuitsView {
  /** Circuits the routers forward now (each router counts the ones it is on). */
  readonly active: number;
  readonly created: number;
  readonly deleted: number;
  readonly failed: number;
  /** Failures by cause, the non-zero ones, most first. */
  readonly failuresByCause: ReadonlyArray<{ readonly cause: string; readonly count: number }>;
}

export interface ClusterSummary {
  readonly level: Level;
  /** One line: "ctrl2 leads; 3 of 3 controllers reachable". */
  readonly headline: string;
  readonly leaderId?: string;
  /** Controllers answering 200 on /health-checks/controller/raft. */
  readonly leaders: readonly string[];
  readonly reachable: number;
  readonly total: number;
  readonly readOnly: readonly string[];
  readonly pagesFiring: number;
  readonly warningsFiring: number;
}

export type ChartUnit = 's' | 'short';

export interface ChartDefinition {
  readonly id: string;
  readonly title: string;
  readonly unit: ChartUnit;
  /** The query catalogue entries (grafana/queries) the chart shows, computed here from the raw metrics. */
  readonly queries: readonly string[];
  /** Where the figures come from, in a few words. */
  readonly source: string;
}

/** One gather's chart values: chart id → series name → value. */
export interface HistoryPoint {
  readonly t: number;
  readonly values: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

export interface Snapshot {
  readonly generatedAt: number;
  readonly pollIntervalMs: number;
  readonly historyMs: number;
  readonly cluster: ClusterSummary;
  readonly controllers: readonly ControllerView[];
  readonly members: MembersView;
  readonly events: readonly ClusterEventView[];
  readonly alerts: AlertsView;
  readonly routers: readonly RouterView[];
  readonly circuits: CircuitsView;
  readonly charts: readonly ChartDefinition[];
}

/** `/api/state`: the latest snapshot with the whole chart history. */
export interface StateBody {
  readonly snapshot: Snapshot;
  readonly history: readonly HistoryPoint[];
}

/** One message of `/api/stream`: the first carries the whole history (`reset`), the rest the newest point only. */
export interface StreamMessage {
  readonly snapshot: Snapshot;
  readonly reset: boolean;
  readonly points: readonly HistoryPoint[];
}

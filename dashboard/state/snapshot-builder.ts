// From what one gather fetched (each controller's health, raft health and metrics; the member list; the events read;
// the alerts daemon's status; each router's health) to the snapshot the page shows: who leads, who is reachable, the
// commit lag from the best source there is, the alerts with their runbook links, the routers, and one line and one
// colour for the whole cluster. Pure: everything, the time included, comes in as data.

import type { DaemonStatus } from '../../alerts/daemon/daemon-status.ts';
import { defaultRunbookBase, runbookUrl } from '../../alerts/catalogue/alert-catalogue.ts';
import { monitoringMixin } from '../../alerts/mixin/monitoring-mixin.ts';
import { withLinkEnds } from './link-ends.ts';
import type { LagFigures } from './commit-lag.ts';
import { backupView } from './backup-view.ts';
import type { ControllerReading } from './controller-reading.ts';
import type {
  AlertView,
  AlertsView,
  ChartDefinition,
  ClusterEventView,
  ClusterSummary,
  CommitLagView,
  ControllerView,
  HealthCheckView,
  Level,
  MemberRowView,
  MembersView,
  Role,
  CircuitsView,
  RouterLinkView,
  RouterView,
  Snapshot,
} from './snapshot.ts';

/** A fetch's outcome: the value and when, or why not. */
export type Fetched<T> = { readonly ok: true; readonly value: T; readonly at: number } | { readonly ok: false; readonly error: string; readonly at: number };

export interface ControllerInput {
  readonly id: string;
  readonly url: string;
  /** `/health-checks`: the HTTP status and the checks (undefined before the first poll). */
  readonly health?: Fetched<{ readonly status: number; readonly healthy: boolean; readonly checks: readonly HealthCheckView[] }>;
  /** `/health-checks/controller/raft`: the HTTP status. */
  readonly raft?: Fetched<{ readonly status: number }>;
  /** The last `/metrics` attempt; `reading` is the newest one that worked. */
  readonly metrics?: Fetched<ControllerReading>;
  readonly reading?: ControllerReading;
  readonly lastSeenAt?: number;
  /** The last version seen, kept while the controller is unreachable. */
  readonly lastVersion?: string;
}

export interface MembersInput {
  readonly latest?: Fetched<{ readonly from: string; readonly fromLeader: boolean; readonly rows: readonly MemberRowView[] }>;
  /** The newest list that was read, shown (with the latest error) when the latest attempt failed. */
  readonly lastGood?: { readonly from: string; readonly fromLeader: boolean; readonly rows: readonly MemberRowView[]; readonly at: number };
  /** Why no list is being fetched (no leader, no credentials). */
  readonly unavailable?: string;
}

export interface RouterInput {
  readonly id: string;
  readonly name?: string;
  readonly health?: Fetched<{ readonly healthy: boolean; readonly controllerPing?: boolean; readonly links: readonly RouterLinkView[] }>;
}

export interface GatherInput {
  readonly now: number;
  readonly pollIntervalMs: number;
  readonly historyMs: number;
  readonly controllers: readonly ControllerInput[];
  readonly members: MembersInput;
  /** Newest first, already capped. */
  readonly events: readonly ClusterEventView[];
  /** Commit lag computed from the event files, for controllers that have one. */
  readonly fileLag: Readonly<Record<string, LagFigures>>;
  /** Undefined: no alerts daemon configured. */
  readonly daemon?: Fetched<DaemonStatus>;
  readonly routers: readonly RouterInput[];
  readonly runbookBaseUrl: string;
  readonly charts: readonly ChartDefinition[];
}

export function buildSnapshot(input: GatherInput): Snapshot {
  const controllers = input.controllers.map((controller) => controllerView(controller, input.now));
  const withLag = attachCommitLag(controllers, input);
  const alerts = alertsView(input.daemon, input.runbookBaseUrl);
  return {
    generatedAt: input.now,
    pollIntervalMs: input.pollIntervalMs,
    historyMs: input.historyMs,
    cluster: clusterSummary(withLag, alerts, membersView(input.members)),
    controllers: withLag,
    members: membersView(input.members),
    events: input.events,
    alerts,
    routers: withLinkEnds(routerViews(input.routers, input.controllers)),
    circuits: circuitsView(input.controllers, routerViews(input.routers, input.controllers)),
    charts: input.charts,
  };
}

function roleOf(raftStatus: number | undefined): Role {
  if (raftStatus === 200) return 'leader';
  if (raftStatus === 429) return 'follower';
  if (raftStatus === 503) return 'failed';
  return 'unknown';
}

function controllerView(input: ControllerInput, now: number): ControllerView {
  const health = input.health;
  const raft = input.raft;
  const reachable = (health?.ok ?? false) || (raft?.ok ?? false);
  const base = { id: input.id, url: input.url, ...(input.lastSeenAt === undefined ? {} : { lastSeenAt: input.lastSeenAt }) };
  if (!reachable) {
    const error = health && !health.ok ? health.error : raft && !raft.ok ? raft.error : 'not polled yet';
    return { ...base, reachable: false, error, role: 'unknown', ...(input.lastVersion === undefined ? {} : { version: input.lastVersion }) };
  }
  const reading = input.reading;
  const metricsError = input.metrics && !input.metrics.ok ? input.metrics.error : undefined;
  const partError = health && !health.ok ? `health checks: ${health.error}` : raft && !raft.ok ? `raft health: ${raft.error}` : undefined;
  const raftStatus = raft?.ok ? raft.value.status : undefined;
  const view: ControllerView = {
    ...base,
    reachable: true,
    ...(partError === undefined ? {} : { error: partError }),
    ...(health?.ok ? { health: { healthy: health.value.healthy, status: health.value.status, checks: health.value.checks } } : {}),
    ...(raftStatus === undefined ? {} : { raftStatus }),
    role: roleOf(raftStatus),
    ...(metricsError === undefined ? {} : { metricsError }),
  };
  if (!reading) return input.lastVersion === undefined ? view : { ...view, version: input.lastVersion };
  return {
    ...view,
    ...defined({
      version: reading.version ?? input.lastVersion,
      readOnly: reading.readOnly,
      uptimeSeconds: reading.startTimeSeconds === undefined ? undefined : Math.max(0, now / 1000 - reading.startTimeSeconds),
      term: reading.term,
      commitIndex: reading.commitIndex,
      appliedIndex: reading.appliedIndex,
      lastLogIndex: reading.lastLogIndex,
      leaderId: reading.leaderId,
      voters: reading.voters,
      votersConnected: reading.votersConnected,
      rateLimiter: reading.limiterQueue === undefined || reading.limiterWindow === undefined ? undefined : { queue: reading.limiterQueue, window: reading.limiterWindow },
      backup: reading.backup === undefined ? undefined : backupView(reading.backup, now),
    }),
  };
}

/** The alerts daemon's figures when it answers; else those of the event files; else the applied indexes (entries only). */
function attachCommitLag(controllers: readonly ControllerView[], input: GatherInput): ControllerView[] {
  const daemonLag = new Map<string, { entries: number | null; seconds: number }>();
  if (input.daemon?.ok) for (const lag of input.daemon.value.commitLag) daemonLag.set(lag.controller, lag);
  const applied = controllers.filter((controller) => controller.reachable && controller.appliedIndex !== undefined).map((controller) => controller.appliedIndex!);
  const highestApplied = applied.length > 0 ? Math.max(...applied) : undefined;
  return controllers.map((controller) => {
    let lag: CommitLagView | undefined;
    const fromDaemon = daemonLag.get(controller.id);
    const fromFiles = input.fileLag[controller.id];
    if (fromDaemon) lag = { ...(fromDaemon.entries === null ? {} : { entries: fromDaemon.entries }), seconds: fromDaemon.seconds, source: 'alerts daemon' };
    else if (fromFiles) lag = { ...(fromFiles.entries === undefined ? {} : { entries: fromFiles.entries }), seconds: fromFiles.seconds, source: 'event files' };
    else if (controller.reachable && controller.appliedIndex !== undefined && highestApplied !== undefined) lag = { entries: highestApplied - controller.appliedIndex, source: 'applied index' };
    if (lag?.entries !== undefined && lag.entries >= monitoringMixin.commitLag.entries) lag = { ...lag, behind: true };
    return lag === undefined ? controller : { ...controller, lag };
  });
}

function alertsView(daemon: Fetched<DaemonStatus> | undefined, runbookBase: string): AlertsView {
  if (daemon === undefined) return { status: 'none', alerts: [] };
  if (!daemon.ok) return { status: 'unreachable', error: daemon.error, alerts: [], at: daemon.at };
  const alerts = daemon.value.alerts.map((alert): AlertView => {
    const given = alert.annotations.runbook_url;
    return {
      alertname: alert.alertname,
      severity: alert.severity,
      summary: alert.annotations.summary,
      description: alert.annotations.description,
      // The daemon's own link when it is a full URL; a relative one means nothing in the browser, so the page's, and
      // so does the stock default (the status page's runbooks at its default address, which this page serves itself
      // wherever the browser reaches it).
      runbookUrl: /^https?:\/\//.test(given) && !given.startsWith(`${defaultRunbookBase}#`) ? given : runbookUrl(alert.alertname, runbookBase),
      startsAt: Date.parse(alert.startsAt) || 0,
      labels: alert.labels,
    };
  });
  return { status: 'ok', alerts, at: daemon.at };
}

function membersView(input: MembersInput): MembersView {
  const latest = input.latest;
  if (latest?.ok) return { from: latest.value.from, fromLeader: latest.value.fromLeader, at: latest.at, rows: latest.value.rows };
  const error = latest && !latest.ok ? latest.error : input.unavailable;
  const last = input.lastGood;
  if (last) return { from: last.from, fromLeader: last.fromLeader, at: last.at, rows: last.rows, ...(error === undefined ? {} : { error }) };
  return { fromLeader: false, rows: [], error: error ?? 'not read yet' };
}

function routerViews(routers: readonly RouterInput[], controllers: readonly ControllerInput[]): RouterView[] {
  const ids = [...routers.map((router) => router.id)];
  for (const controller of controllers) {
    if (!controller.reading || !(controller.health?.ok || controller.raft?.ok)) continue;
    for (const id of Object.keys(controller.reading.routers)) if (!ids.includes(id)) ids.push(id);
  }
  return ids.map((id): RouterView => {
    const configured = routers.find((router) => router.id === id);
    const reports = controllers
      .filter((controller) => controller.reading?.routers[id] !== undefined && (controller.health?.ok || controller.raft?.ok))
      .map((controller) => ({ controller: controller.id, report: controller.reading!.routers[id]! }));
    const connectedTo = reports.filter(({ report }) => report.ctrlConnected === true);
    const report = (connectedTo[0] ?? reports[0])?.report;
    const links = new Map<string, RouterLinkView>();
    for (const [linkId, latency] of Object.entries(report?.links ?? {})) links.set(linkId, { id: linkId, latencySeconds: latency });
    const health = configured?.health;
    if (health?.ok) {
      for (const link of health.value.links) links.set(link.id, { ...links.get(link.id), ...link });
    }
    const connected = health?.ok && health.value.controllerPing !== undefined ? health.value.controllerPing : reports.length > 0 ? connectedTo.length > 0 : undefined;
    return {
      id,
      ...(configured?.name === undefined ? {} : { name: configured.name }),
      ...(connected === undefined ? {} : { connected }),
      controllers: connectedTo.map(({ controller }) => controller),
      ...(report?.ctrlLatencySeconds === undefined ? {} : { ctrlLatencySeconds: report.ctrlLatencySeconds }),
      links: [...links.values()].sort((a, b) => a.id.localeCompare(b.id)),
      ...(report?.circuits === undefined ? {} : { circuits: report.circuits }),
      ...(report?.edge === undefined ? {} : { edge: report.edge }),
      ...(health === undefined ? {} : { healthReachable: health.ok }),
      ...(health?.ok ? { healthy: health.value.healthy } : {}),
      ...(health && !health.ok ? { error: health.error } : {}),
    };
  });
}

function circuitsView(controllers: readonly ControllerInput[], routers: readonly RouterView[]): CircuitsView {
  const readings = controllers.filter((controller) => controller.reading && (controller.health?.ok || controller.raft?.ok)).map((controller) => controller.reading!);
  const sum = (pick: (reading: (typeof readings)[number]) => Readonly<Record<string, number>>, key: string) => readings.reduce((total, reading) => total + (pick(reading)[key] ?? 0), 0);
  const causes = new Map<string, number>();
  for (const reading of readings) for (const [cause, count] of Object.entries(reading.circuitFailures ?? {})) causes.set(cause, (causes.get(cause) ?? 0) + count);
  return {
    active: routers.reduce((total, router) => total + (router.circuits?.count ?? 0), 0),
    created: sum((reading) => reading.circuitEvents ?? {}, 'created'),
    deleted: sum((reading) => reading.circuitEvents ?? {}, 'deleted'),
    failed: sum((reading) => reading.circuitEvents ?? {}, 'failed'),
    failuresByCause: [...causes]
      .filter(([, count]) => count > 0)
      .map(([cause, count]) => ({ cause, count }))
      .sort((a, b) => b.count - a.count || a.cause.localeCompare(b.cause)),
  };
}

function clusterSummary(controllers: readonly ControllerView[], alerts: AlertsView, members: MembersView): ClusterSummary {
  const reachable = controllers.filter((controller) => controller.reachable);
  const leaders = reachable.filter((controller) => controller.role === 'leader').map((controller) => controller.id);
  const readOnly = reachable.filter((controller) => controller.readOnly === true).map((controller) => controller.id);
  const pagesFiring = alerts.alerts.filter((alert) => alert.severity === 'critical').length;
  const warningsFiring = alerts.alerts.length - pagesFiring;
  const unhealthy = reachable.some((controller) => controller.health !== undefined && !controller.health.healthy);
  const disconnected = members.rows.some((row) => row.voter && !row.connected);
  const total = controllers.length;

  let level: Level = 'ok';
  if (leaders.length !== 1 || readOnly.length > 0 || pagesFiring > 0) level = 'critical';
  else if (reachable.length < total || warningsFiring > 0 || unhealthy || disconnected || alerts.status === 'unreachable') level = 'warn';

  const lead = leaders.length === 1 ? `${leaders[0]} leads` : leaders.length === 0 ? 'No leader' : `${leaders.length} controllers claim leadership: ${leaders.join(', ')}`;
  const parts = [lead, `${reachable.length} of ${total} controllers reachable`];
  if (readOnly.length > 0) parts.push(`read-only: ${readOnly.join(', ')}`);
  if (pagesFiring > 0) parts.push(`${pagesFiring} page${pagesFiring === 1 ? '' : 's'} firing`);
  else if (warningsFiring > 0) parts.push(`${warningsFiring} warning${warningsFiring === 1 ? '' : 's'} firing`);
  return {
    level,
    headline: parts.join(' · '),
    ...(leaders.length === 1 ? { leaderId: leaders[0]! } : {}),
    leaders,
    reachable: reachable.length,
    total,
    readOnly,
    pagesFiring,
    warningsFiring,
  };
}

function defined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}

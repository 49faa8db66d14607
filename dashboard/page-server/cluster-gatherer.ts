// The one module that gathers the cluster's state for the status page. Every poll interval it asks each controller
// for /health-checks, /health-checks/controller/raft and /metrics, the leader for its member list
// (/fabric/v1/cluster/list-members), the alerts daemon for /api/v1/status and each configured router for its
// /health-checks, and reads what was appended to the controllers' event files; it then builds one snapshot
// (state/snapshot-builder.ts), adds a chart point to the history (the last `history`, capped), serializes both once,
// and hands the result to its subscribers (the /api/stream connections). Requests to one source never overlap: a
// source that has not answered its last request (a frozen controller) is not asked again until that request's
// deadline, and the snapshot is built without waiting for it, showing the source as it last answered or as
// unreachable. Nothing is fetched when the page asks: /api/state serves the latest serialized snapshot.

import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import { parsePrometheusText } from '../../alerts/core/metrics/prometheus-text.ts';
import type { DaemonStatus } from '../../alerts/daemon/daemon-status.ts';
import type { DashboardConfig } from '../config/dashboard-config.ts';
import { readDaemonStatusBody, readHealthBody, readMembersBody, readRouterHealthBody } from '../state/answer-bodies.ts';
import { ChartHistory } from '../state/chart-history.ts';
import { ChartSampler } from '../state/chart-points.ts';
import { CommitLagTracker } from '../state/commit-lag.ts';
import { readControllerMetrics } from '../state/controller-reading.ts';
import type { ControllerReading } from '../state/controller-reading.ts';
import { parseEventLine } from '../state/event-lines.ts';
import { buildSnapshot } from '../state/snapshot-builder.ts';
import type { ControllerInput, Fetched, MembersInput, RouterInput } from '../state/snapshot-builder.ts';
import type { ClusterEventView, HealthCheckView, HistoryPoint, MemberRowView, RouterLinkView, Snapshot } from '../state/snapshot.ts';
import type { AdminAccess } from './admin-access.ts';
import { chartDefinitions } from './chart-definitions.ts';
import { EventsFileReader } from './events-file-reader.ts';
import { describeError } from './http-client.ts';
import type { HttpClient } from './http-client.ts';

/** The most history points kept, whatever the interval (10 minutes at 100 ms would be 6000). */
export const maxHistoryPoints = 1200;
/** Share of the poll interval a gather waits for answers before it builds the snapshot without the slow ones. */
export const answerBudgetShare = 0.75;

const maxHealthBytes = 256 * 1024;
const maxMetricsBytes = 32 * 1024 * 1024;
const maxListBytes = 4 * 1024 * 1024;

export interface GathererDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly http: HttpClient;
  readonly admin: AdminAccess;
}

/** What one gather produced, serialized and encoded once for every reader (a series name like "ctrl1 → ctrl2" makes
 * the text non-ASCII, and encoding a few hundred kilobytes of it on every request would cost more than the rest). */
export interface Gathered {
  readonly snapshot: Snapshot;
  readonly point: HistoryPoint;
  /** `/api/state`'s body, UTF-8. */
  readonly stateBody: Buffer;
  /** The `/api/stream` event of this gather (its point only), UTF-8, ready to write. */
  readonly streamEvent: Buffer;
}

interface ControllerState {
  readonly id: string;
  readonly url: string;
  busy: boolean;
  health?: Fetched<{ status: number; healthy: boolean; checks: HealthCheckView[] }>;
  raft?: Fetched<{ status: number }>;
  metrics?: Fetched<ControllerReading>;
  reading?: ControllerReading;
  lastSeenAt?: number;
  lastVersion?: string;
  /** The outcome last logged, so that a change is logged once. */
  logged?: string;
  readonly events?: EventsFileReader;
}

interface RouterState {
  readonly id: string;
  readonly name?: string;
  readonly healthUrl: string;
  busy: boolean;
  health?: Fetched<{ healthy: boolean; controllerPing?: boolean; links: RouterLinkView[] }>;
}

export class ClusterGatherer {
  private readonly controllers: ControllerState[];
  private readonly routers: RouterState[];
  private readonly charts = chartDefinitions();
  private readonly history: ChartHistory;
  private readonly sampler = new ChartSampler();
  private readonly lag: CommitLagTracker;
  private readonly pointJson = new WeakMap<HistoryPoint, string>();
  private readonly listeners = new Set<(gathered: Gathered) => void>();
  private events: ClusterEventView[] = [];
  private members: MembersInput = {};
  private membersBusy = false;
  private daemon: Fetched<DaemonStatus> | undefined;
  private daemonBusy = false;
  private daemonLogged: string | undefined;
  private current: Gathered | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  /** Event lines that were not JSON or lacked a field, skipped. */
  malformedEventLines = 0;

  constructor(
    private readonly config: DashboardConfig,
    private readonly deps: GathererDeps,
  ) {
    const reader = (path: string) => new EventsFileReader(path, { backlogBytes: config.events.backlogBytes, maxLineBytes: config.events.maxLineBytes });
    this.controllers = config.controllers.map((source) => ({ id: source.id, url: source.url, busy: false, ...(source.eventsFile === undefined ? {} : { events: reader(source.eventsFile) }) }));
    this.routers = config.routers.map((router) => ({ id: router.id, ...(router.name === undefined ? {} : { name: router.name }), healthUrl: router.healthUrl, busy: false }));
    this.history = new ChartHistory(config.history, maxHistoryPoints);
    this.lag = new CommitLagTracker(config.controllers.filter((source) => source.eventsFile !== undefined).map((source) => source.id));
  }

  /** Gathers once (so that the first page has data), then every poll interval until stop(). */
  async start(): Promise<void> {
    await this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    this.listeners.clear();
  }

  /** The latest gather; undefined only before start() resolved. */
  latest(): Gathered | undefined {
    return this.current;
  }

  /** The `/api/stream` message a new subscriber gets first: the snapshot and the whole history. */
  resetMessageJson(): string | undefined {
    const current = this.current;
    if (!current) return undefined;
    return `{"snapshot":${JSON.stringify(current.snapshot)},"reset":true,"points":[${this.historyJson()}]}`;
  }

  subscribe(listener: (gathered: Gathered) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    const started = this.deps.clock.now();
    this.running = this.gather().catch((error: Error) => this.deps.logger.error('gathering the cluster state failed', { error: error.message }));
    await this.running;
    this.running = undefined;
    if (this.stopped) return;
    const wait = Math.max(0, started + this.config.pollInterval - this.deps.clock.now());
    this.timer = setTimeout(() => void this.tick(), wait);
  }

  private async gather(): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const controller of this.controllers) if (!controller.busy) waits.push(this.pollController(controller));
    if (!this.membersBusy) waits.push(this.pollMembers());
    if (this.config.alertsDaemon && !this.daemonBusy) waits.push(this.pollDaemon(this.config.alertsDaemon.url));
    for (const router of this.routers) if (!router.busy) waits.push(this.pollRouter(router));
    await this.readEventFiles();
    let budget: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(waits), new Promise<void>((resolve) => (budget = setTimeout(resolve, this.config.pollInterval * answerBudgetShare)))]);
    clearTimeout(budget);
    this.publish();
  }

  private publish(): void {
    const now = this.deps.clock.now();
    const snapshot = buildSnapshot({
      now,
      pollIntervalMs: this.config.pollInterval,
      historyMs: this.config.history,
      controllers: this.controllers.map((controller): ControllerInput => ({
        id: controller.id,
        url: controller.url,
        ...(controller.health ? { health: controller.health } : {}),
        ...(controller.raft ? { raft: controller.raft } : {}),
        ...(controller.metrics ? { metrics: controller.metrics } : {}),
        ...(controller.reading ? { reading: controller.reading } : {}),
        ...(controller.lastSeenAt === undefined ? {} : { lastSeenAt: controller.lastSeenAt }),
        ...(controller.lastVersion === undefined ? {} : { lastVersion: controller.lastVersion }),
      })),
      members: this.members,
      events: this.events,
      fileLag: this.lag.lag(now),
      ...(this.daemon ? { daemon: this.daemon } : {}),
      routers: this.routers.map((router): RouterInput => ({ id: router.id, ...(router.name === undefined ? {} : { name: router.name }), ...(router.health ? { health: router.health } : {}) })),
      runbookBaseUrl: this.config.runbookBaseUrl,
      charts: this.charts,
    });
    const readings = new Map<string, ControllerReading>();
    for (const controller of this.controllers) if (controller.reading && controller.metrics?.ok) readings.set(controller.id, controller.reading);
    const point = this.sampler.point(snapshot, readings);
    this.history.add(point);
    const pointJson = JSON.stringify(point);
    this.pointJson.set(point, pointJson);
    const snapshotJson = JSON.stringify(snapshot);
    const gathered: Gathered = {
      snapshot,
      point,
      stateBody: Buffer.from(`{"snapshot":${snapshotJson},"history":[${this.historyJson()}]}`, 'utf8'),
      streamEvent: Buffer.from(`event: snapshot\ndata: {"snapshot":${snapshotJson},"reset":false,"points":[${pointJson}]}\n\n`, 'utf8'),
    };
    this.current = gathered;
    for (const listener of this.listeners) {
      try {
        listener(gathered);
      } catch (error) {
        this.deps.logger.warn('a subscriber failed', { error: (error as Error).message });
      }
    }
  }

  private historyJson(): string {
    return this.history
      .points()
      .map((point) => this.pointJson.get(point) ?? JSON.stringify(point))
      .join(',');
  }

  private async pollController(controller: ControllerState): Promise<void> {
    controller.busy = true;
    const timeoutMs = this.config.timeouts.request;
    const get = (path: string, maxBytes: number) => this.deps.http.request(`${controller.url}${path}`, { timeoutMs, maxBytes });
    try {
      await Promise.all([
        get('/health-checks', maxHealthBytes).then(
          (answer) => {
            const at = this.deps.clock.now();
            const body = readHealthBody(answer.json);
            controller.health = body.ok ? { ok: true, value: { status: answer.status, ...body.value }, at } : { ok: false, error: `HTTP ${answer.status}: ${body.error}`, at };
            controller.lastSeenAt = at;
          },
          (error: unknown) => (controller.health = { ok: false, error: describeError(error), at: this.deps.clock.now() }),
        ),
        get('/health-checks/controller/raft', maxHealthBytes).then(
          (answer) => (controller.raft = { ok: true, value: { status: answer.status }, at: this.deps.clock.now() }),
          (error: unknown) => (controller.raft = { ok: false, error: describeError(error), at: this.deps.clock.now() }),
        ),
        get('/metrics', maxMetricsBytes).then(
          (answer) => {
            const at = this.deps.clock.now();
            if (answer.status !== 200) {
              controller.metrics = { ok: false, error: `HTTP ${answer.status}`, at };
              return;
            }
            // A malformed line is skipped by the parser; the rest of the exposition still counts.
            const reading = readControllerMetrics(parsePrometheusText(answer.text).samples);
            controller.metrics = { ok: true, value: reading, at };
            controller.reading = reading;
            if (reading.version !== undefined) controller.lastVersion = reading.version;
          },
          (error: unknown) => (controller.metrics = { ok: false, error: describeError(error), at: this.deps.clock.now() }),
        ),
      ]);
    } finally {
      controller.busy = false;
      this.noteController(controller);
    }
  }

  private noteController(controller: ControllerState): void {
    const reachable = controller.health?.ok || controller.raft?.ok;
    const outcome = reachable ? `reachable ${controller.raft?.ok ? controller.raft.value.status : '?'}` : 'unreachable';
    if (outcome === controller.logged) return;
    const first = controller.logged === undefined;
    controller.logged = outcome;
    if (first && reachable) return;
    const error = !reachable && controller.health && !controller.health.ok ? controller.health.error : undefined;
    this.deps.logger.info('controller poll changed', { controller: controller.id, url: controller.url, outcome, ...(error ? { error } : {}) });
  }

  /** The member list from the leader (or, with no leader, from a controller that answers). */
  private async pollMembers(): Promise<void> {
    const reachable = this.controllers.filter((controller) => controller.health?.ok || controller.raft?.ok);
    const leaders = reachable.filter((controller) => controller.raft?.ok && controller.raft.value.status === 200);
    const source = leaders.length === 1 ? leaders[0]! : reachable[0];
    if (!source) {
      this.members = { ...this.members, latest: { ok: false, error: 'no controller answers', at: this.deps.clock.now() } };
      return;
    }
    this.membersBusy = true;
    const at = () => this.deps.clock.now();
    const fromLeader = leaders.length === 1;
    try {
      const origins = [source.url, ...reachable.filter((controller) => controller !== source).map((controller) => controller.url)];
      const token = await this.deps.admin.token(origins);
      if (!token.ok) {
        this.members = { ...this.members, latest: { ok: false, error: `the member list needs an administrator's session: ${token.error}`, at: at() } };
        return;
      }
      const answer = await this.deps.http.request(`${source.url}/fabric/v1/cluster/list-members`, { headers: token.headers, timeoutMs: this.config.timeouts.request, maxBytes: maxListBytes });
      if (answer.status === 401 || answer.status === 403) {
        this.deps.admin.refused(token.token);
        this.members = { ...this.members, latest: { ok: false, error: `${source.id} refused the session (HTTP ${answer.status}); logging in again`, at: at() } };
        return;
      }
      const rows = answer.status === 200 ? readMembersBody(answer.json) : { ok: false as const, error: `HTTP ${answer.status}` };
      if (!rows.ok) {
        this.members = { ...this.members, latest: { ok: false, error: `${source.id}: ${rows.error}`, at: at() } };
        return;
      }
      const list: { from: string; fromLeader: boolean; rows: MemberRowView[] } = { from: source.id, fromLeader, rows: rows.value };
      this.members = { latest: { ok: true, value: list, at: at() }, lastGood: { ...list, at: at() } };
    } catch (error) {
      this.members = { ...this.members, latest: { ok: false, error: `${source.id}: ${describeError(error)}`, at: at() } };
    } finally {
      this.membersBusy = false;
    }
  }

  private async pollDaemon(url: string): Promise<void> {
    this.daemonBusy = true;
    try {
      const answer = await this.deps.http.request(`${url}/api/v1/status`, { timeoutMs: this.config.timeouts.request, maxBytes: maxListBytes });
      const body = answer.status === 200 ? readDaemonStatusBody(answer.json) : { ok: false as const, error: `HTTP ${answer.status} from /api/v1/status` };
      this.daemon = body.ok ? { ok: true, value: body.value, at: this.deps.clock.now() } : { ok: false, error: body.error, at: this.deps.clock.now() };
    } catch (error) {
      this.daemon = { ok: false, error: describeError(error), at: this.deps.clock.now() };
    } finally {
      this.daemonBusy = false;
      const outcome = this.daemon?.ok ? 'ok' : `failed: ${this.daemon && !this.daemon.ok ? this.daemon.error : ''}`;
      if (outcome !== this.daemonLogged && !(this.daemonLogged === undefined && outcome === 'ok')) this.deps.logger.info('alerts daemon poll changed', { url, outcome });
      this.daemonLogged = outcome;
    }
  }

  private async pollRouter(router: RouterState): Promise<void> {
    router.busy = true;
    try {
      const answer = await this.deps.http.request(router.healthUrl, { timeoutMs: this.config.timeouts.request, maxBytes: maxHealthBytes });
      const body = readRouterHealthBody(answer.json);
      router.health = body.ok ? { ok: true, value: body.value, at: this.deps.clock.now() } : { ok: false, error: `HTTP ${answer.status}: ${body.error}`, at: this.deps.clock.now() };
    } catch (error) {
      router.health = { ok: false, error: describeError(error), at: this.deps.clock.now() };
    } finally {
      router.busy = false;
    }
  }

  private async readEventFiles(): Promise<void> {
    let added = false;
    await Promise.all(
      this.controllers.map(async (controller) => {
        if (!controller.events) return;
        let lines: string[];
        try {
          lines = await controller.events.readNew();
        } catch (error) {
          this.deps.logger.warn('reading an event file failed', { controller: controller.id, path: controller.events.path, error: (error as Error).message });
          return;
        }
        for (const line of lines) {
          const parsed = parseEventLine(line, controller.id);
          if (parsed.kind === 'cluster') {
            this.events.push(parsed.event);
            added = true;
          } else if (parsed.kind === 'entity-change') {
            this.lag.note(controller.id, parsed.raftIndex, parsed.at);
          } else if (parsed.kind === 'malformed') {
            this.malformedEventLines++;
          }
        }
      }),
    );
    if (added) this.events = this.events.sort((a, b) => b.at - a.at).slice(0, this.config.events.shown);
  }
}

// The controller's metrics, instrumented with the OpenTelemetry API and exposed for Prometheus at /metrics with the
// `edgeward_` prefix (common/telemetry/metric-names.ts is the list tools rely on). Modules record through small
// callbacks the composition root hands them (controller.ts); only this module and prometheus-exposition.ts know
// about readers and the exporter. Scrape callbacks read counters and cached values only: raft's status once per
// scrape, the data directory's sizes from data-dir-usage.ts's cache, the runtime's own numbers.
//
// Counters that alert rules take increase() of start at 0 where that is natural, so a rule works from the first
// scrape: authentications for every method and result, MFA code failures, leadership gained and leader changes,
// and peer connects and disconnects for every member of the configuration. Request counters do not: their routes,
// methods and statuses appear as they are served.
import type { Attributes, Counter, Histogram, Meter, MeterProvider as ApiMeterProvider } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { controllerResource } from './controller-resource.ts';
import { DataDirUsageCache } from './data-dir-usage.ts';
import { HttpRequestCounts } from './http-request-counts.ts';
import { HttpRequestDurations } from './http-request-durations.ts';
import { LeaderTransitions, type LeaderState } from './leader-transitions.ts';
import { hrTimeNow, PrometheusExposition } from './prometheus-exposition.ts';
import { RuntimeMetrics } from './runtime-metrics.ts';
import { seriesGauge, type GaugeSeries } from './series-gauge.ts';

/** Raft as this controller sees it, read once per scrape. */
export interface RaftView {
  readonly term: number;
  readonly commitIndex: number;
  readonly lastLogIndex: number;
  readonly leader: string | null;
  readonly voters: number;
  /** Voters this controller is connected to, itself included. */
  readonly votersConnected: number;
}

export interface ControllerMetricsSources {
  readonly controllerId: string;
  /** The software version (the string compared for read-only mode). */
  readonly version: string;
  readonly rateLimiter?: () => { queueSize: number; windowSize: number };
  readonly appliedIndex: () => number;
  readonly apiSessionCount: () => number;
  readonly isLeader: () => boolean;
  /** Undefined until the raft node is open. */
  readonly raft?: () => RaftView | undefined;
  readonly readOnly?: () => boolean;
  /** `cluster.dataDir`: the raft log and snapshots under it are measured (data-dir-usage.ts). */
  readonly dataDir?: string;
}

/** Where the instruments live and what /metrics reads, when the process provides them (process-telemetry.ts). */
export interface MetricsPipeline {
  readonly meterProvider: ApiMeterProvider;
  readonly exposition: PrometheusExposition;
}

export type AuthenticationMethod = 'password' | 'cert' | 'ext-jwt';
export type AuthenticationResult = 'success' | 'failure' | 'throttled';

const authenticationMethods: readonly AuthenticationMethod[] = ['password', 'cert', 'ext-jwt'];
const authenticationResults: readonly AuthenticationResult[] = ['success', 'failure', 'throttled'];

const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const peerBuckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The causes a circuit failure is counted under (anything else: OTHER), so the series exist from the start. */
export const circuitFailureCauses: readonly string[] = [
  'INVALID_SESSION',
  'SERVICE_NOT_FOUND',
  'NO_DIAL_POLICY',
  'INVALID_POSTURE',
  'NOT_TUNNELER',
  'NO_TERMINATORS',
  'NO_PATH',
  'INVALID_REQUEST',
  'NO_EDGE_ROUTER_POLICY',
  'NO_SERVICE_EDGE_ROUTER_POLICY',
  'SETUP_FAILED',
  'OTHER',
];

export class ControllerMetrics {
  readonly meter: Meter;
  /** Leader-side command execution times (`raft.rate_limiter.work_timer`). */
  readonly workTimer: Histogram;
  /** Heartbeat round trip per peer channel (`peer.latency:<channel-id>`). */
  readonly peerLatency: Histogram;
  /** Time a heartbeat waited in the local send queue per peer channel (`peer.queue_time:<channel-id>`). */
  readonly peerQueueTime: Histogram;
  private readonly httpDurations: HttpRequestDurations;
  private readonly removeDurations: () => void;
  private readonly authentications: Counter;
  private readonly mfaCodeFailures: Counter;
  private readonly circuitEvents: Counter;
  private readonly circuitFailures: Counter;
  private readonly circuitFailureLabels = new Map<string, Attributes>();
  private readonly leadershipGained: Counter;
  private readonly leaderChanges: Counter;
  private readonly peerConnects: Counter;
  private readonly peerDisconnects: Counter;
  private readonly exposition: PrometheusExposition;
  /** Set when this controller made its own provider and reader, which it then shuts down. */
  private readonly owned: MeterProvider | undefined;
  private readonly runtime: RuntimeMetrics;
  private readonly seriesGauges = new Set<string>();
  private readonly removeSources: (() => void)[] = [];
  private readonly requestCounts = new HttpRequestCounts();
  private readonly authenticationLabels = new Map<string, Attributes>();
  private readonly peerLabels = new Map<string, Attributes>();
  private readonly leaderTransitions = new LeaderTransitions();
  private readonly dataDirUsage: DataDirUsageCache | undefined;

  constructor(sources: ControllerMetricsSources, pipeline?: MetricsPipeline) {
    if (pipeline) {
      this.exposition = pipeline.exposition;
      this.meter = pipeline.meterProvider.getMeter('edgeward-controller');
    } else {
      this.exposition = new PrometheusExposition();
      this.owned = new MeterProvider({ readers: [this.exposition.reader], resource: controllerResource({ id: sources.controllerId, version: sources.version }) });
      this.meter = this.owned.getMeter('edgeward-controller');
    }
    const meter = this.meter;

    // ---- the spec's five -----------------------------------------------------------------------------------------
    meter
      .createObservableGauge('raft.rate_limiter.queue_size', { description: 'Raft commands in the leader\'s rate limiter, running and queued; about 0 at rest, 0 on followers' })
      .addCallback((result) => result.observe(sources.rateLimiter?.().queueSize ?? 0));
    meter
      .createObservableGauge('raft.rate_limiter.window_size', { description: 'Commands the rate limiter lets run at once: its adaptive window, 5 to 250' })
      .addCallback((result) => result.observe(sources.rateLimiter?.().windowSize ?? 250));
    this.workTimer = meter.createHistogram('raft.rate_limiter.work_timer.seconds', {
      description: 'Time from proposal to apply of each raft command through the leader\'s rate limiter, in seconds',
      advice: { explicitBucketBoundaries: latencyBuckets },
    });
    this.peerLatency = meter.createHistogram('peer.latency.seconds', { description: 'Heartbeat round trip on each peer channel, in seconds', advice: { explicitBucketBoundaries: peerBuckets } });
    this.peerQueueTime = meter.createHistogram('peer.queue_time.seconds', {
      description: 'Time a heartbeat waited in the local send queue of each peer channel, in seconds',
      advice: { explicitBucketBoundaries: peerBuckets },
    });

    // ---- raft as this controller sees it ----------------------------------------------------------------------------
    meter
      .createObservableGauge('raft.applied_index', { description: 'Index of the last raft entry applied to the model on this controller' })
      .addCallback((result) => result.observe(sources.appliedIndex()));
    meter
      .createObservableGauge('raft.is_leader', { description: '1 while this controller is the raft leader, else 0' })
      .addCallback((result) => result.observe(sources.isLeader() ? 1 : 0));
    const term = meter.createObservableGauge('raft.term', { description: 'Current raft term on this controller' });
    const commitIndex = meter.createObservableGauge('raft.commit_index', { description: 'Index of the last raft entry this controller knows to be committed' });
    const lastLogIndex = meter.createObservableGauge('raft.last_log_index', { description: 'Index of the last entry in this controller\'s raft log' });
    const hasLeader = meter.createObservableGauge('raft.has_leader', { description: '1 while this controller knows a leader, 0 while it has none' });
    const voters = meter.createObservableGauge('raft.voters', { description: 'Voters in this controller\'s copy of the cluster configuration' });
    const votersConnected = meter.createObservableGauge('raft.voters_connected', {
      description: 'Voters this controller is connected to, itself included; on the leader, the quorum it can reach',
    });
    meter.addBatchObservableCallback(
      (result) => {
        const view = sources.raft?.();
        if (!view) return;
        result.observe(term, view.term);
        result.observe(commitIndex, view.commitIndex);
        result.observe(lastLogIndex, view.lastLogIndex);
        result.observe(hasLeader, view.leader === null ? 0 : 1);
        result.observe(voters, view.voters);
        result.observe(votersConnected, view.votersConnected);
      },
      [term, commitIndex, lastLogIndex, hasLeader, voters, votersConnected],
    );
    // The leader's id comes and goes: a transient series, or the old leader's would stay at 1 beside the new one's.
    const leaderInfo = new Map<string, Attributes>();
    this.exposition.transientMeter
      .createObservableGauge('raft.leader_info', { description: '1, labelled with the leader\'s id, while this controller knows a leader; absent otherwise' })
      .addCallback((result) => {
        const leader = sources.raft?.()?.leader;
        if (leader === null || leader === undefined) return;
        let attributes = leaderInfo.get(leader);
        if (!attributes) leaderInfo.set(leader, (attributes = { leader_id: leader }));
        result.observe(1, attributes);
      });
    this.leadershipGained = meter.createCounter('raft.leadership_gained', { description: 'Times this controller became the raft leader' });
    this.leaderChanges = meter.createCounter('raft.leader_changes', { description: 'Times the leader this controller knows changed, to another controller or to none' });
    this.leadershipGained.add(0);
    this.leaderChanges.add(0);
    meter
      .createObservableGauge('cluster.read_only', { description: '1 while this controller is read-only (a connected member reports another version), else 0' })
      .addCallback((result) => result.observe(sources.readOnly?.() ? 1 : 0));

    // ---- snapshots and the raft data on disk -----------------------------------------------------------------------
    const usage = sources.dataDir === undefined ? undefined : new DataDirUsageCache(sources.dataDir);
    this.dataDirUsage = usage;
    const snapshotIndex = meter.createObservableGauge('raft.snapshot_index', { description: 'Raft index of the newest snapshot on disk; 0 before the first (measured at most every 10 s)' });
    const snapshotSize = meter.createObservableGauge('raft.snapshot_size_bytes', { description: 'Size of the newest snapshot file, in bytes; 0 before the first' });
    const snapshotTime = meter.createObservableGauge('raft.snapshot_timestamp_seconds', { description: 'Unix time the newest snapshot file was written, in seconds; 0 before the first' });
    const logBytes = meter.createObservableGauge('raft.log_bytes', { description: 'Bytes under <cluster.dataDir>/raft.db, the raft write-ahead log (measured at most every 10 s)' });
    const snapshotsBytes = meter.createObservableGauge('raft.snapshots_bytes', { description: 'Bytes under <cluster.dataDir>/snapshots, every snapshot kept (measured at most every 10 s)' });
    meter.addBatchObservableCallback(
      (result) => {
        if (!usage) return;
        const current = usage.current();
        result.observe(snapshotIndex, current.newestSnapshot?.index ?? 0);
        result.observe(snapshotSize, current.newestSnapshot?.bytes ?? 0);
        result.observe(snapshotTime, current.newestSnapshot?.writtenAtSeconds ?? 0);
        result.observe(logBytes, current.raftLogBytes);
        result.observe(snapshotsBytes, current.snapshotsBytes);
      },
      [snapshotIndex, snapshotSize, snapshotTime, logBytes, snapshotsBytes],
    );

    // ---- peers -------------------------------------------------------------------------------------------------
    this.peerConnects = meter.createCounter('peer.connects', { description: 'Times a peer controller became connected (its first channel opened), per peer id' });
    this.peerDisconnects = meter.createCounter('peer.disconnects', { description: 'Times a peer controller became disconnected (its last channel closed), per peer id' });

    // ---- build -------------------------------------------------------------------------------------------------
    const buildLabels = { version: sources.version, node_version: process.version };
    meter
      .createObservableGauge('build_info', { description: 'Always 1; version is the software version (compared for read-only mode), node_version the Node.js runtime\'s' })
      .addCallback((result) => result.observe(1, buildLabels));

    // ---- the edge APIs -----------------------------------------------------------------------------------------
    this.httpDurations = new HttpRequestDurations(
      { name: 'http.request.duration.seconds', description: 'Edge API request durations by API and status class, in seconds', boundaries: latencyBuckets },
      hrTimeNow(),
    );
    this.removeDurations = this.exposition.addSource((now) => this.httpDurations.collect(now));
    meter
      .createObservableCounter('http.requests', { description: 'Requests answered, by API, route template (unmatched: no route), method and status code' })
      .addCallback((result) => {
        for (const series of this.requestCounts.series()) result.observe(series.value, series.attributes);
      });
    this.authentications = meter.createCounter('authentications', {
      description: 'Primary authentications by method (password, cert, ext-jwt) and result (success, failure, throttled: answered 429)',
    });
    for (const method of authenticationMethods) for (const result of authenticationResults) this.authentications.add(0, this.authenticationAttributes(method, result));
    this.mfaCodeFailures = meter.createCounter('mfa.code_failures', { description: 'Wrong TOTP or recovery codes given, at login and on the enrollment routes' });
    this.mfaCodeFailures.add(0);
    this.circuitEvents = meter.createCounter('circuit.events', {
      description: 'Circuit events this controller wrote: created (an ingress router reported it up), pathUpdated (moved to a new path), deleted, failed (refused here, or a router could not set it up)',
    });
    for (const type of ['created', 'pathUpdated', 'deleted', 'failed']) this.circuitEvents.add(0, { event_type: type });
    this.circuitFailures = meter.createCounter('circuit.failures', { description: 'Circuits that failed, by cause (the refusal code, or SETUP_FAILED)' });
    for (const cause of circuitFailureCauses) this.circuitFailures.add(0, this.circuitFailureAttributes(cause));
    meter
      .createObservableGauge('api_sessions', { description: 'API sessions held in the model, including expired ones not yet swept' })
      .addCallback((result) => result.observe(sources.apiSessionCount()));

    this.runtime = new RuntimeMetrics(meter);
  }

  /** Measures the data directory now, in the background (once the raft log and snapshots are open), so the first scrape has real sizes. */
  measureDataDir(): void {
    void this.dataDirUsage?.refresh();
  }

  /** One answered request: its API (edge-client, …, root), route template (undefined: no route matched), method, status and duration. */
  recordRequest(api: string, route: string | undefined, method: string, status: number, seconds: number): void {
    this.httpDurations.record(api, status, seconds);
    this.requestCounts.add(api, route, method, status);
  }

  authentication(method: AuthenticationMethod, result: AuthenticationResult): void {
    this.authentications.add(1, this.authenticationAttributes(method, result));
  }

  mfaCodeFailure(): void {
    this.mfaCodeFailures.add(1);
  }

  /** One circuit event written; a failed one counts by its cause too. */
  circuitEvent(type: 'created' | 'pathUpdated' | 'deleted' | 'failed', cause?: string): void {
    this.circuitEvents.add(1, { event_type: type });
    if (type === 'failed') this.circuitFailures.add(1, this.circuitFailureAttributes(circuitFailureCauses.includes(cause ?? '') ? cause! : 'OTHER'));
  }

  private circuitFailureAttributes(cause: string): Attributes {
    let attributes = this.circuitFailureLabels.get(cause);
    if (!attributes) this.circuitFailureLabels.set(cause, (attributes = { cause }));
    return attributes;
  }

  /** A member of the configuration (not this controller): its connect and disconnect counters start at 0. */
  peerMember(id: string): void {
    const attributes = this.peerAttributes(id);
    this.peerConnects.add(0, attributes);
    this.peerDisconnects.add(0, attributes);
  }

  peerConnected(id: string): void {
    this.peerConnects.add(1, this.peerAttributes(id));
  }

  peerDisconnected(id: string): void {
    this.peerDisconnects.add(1, this.peerAttributes(id));
  }

  /** The raft role or leader changed (or this is the state when first watched). */
  leaderState(state: LeaderState): void {
    const { gained, changed } = this.leaderTransitions.next(state);
    if (gained) this.leadershipGained.add(1);
    if (changed) this.leaderChanges.add(1);
  }

  /**
   * A gauge of metrics routers report over their control channels (e.g. `router.link.count`), registered once per
   * name; `observe` gives every router's current series, each with a `router_id` attribute. A series no longer
   * observed leaves the exposition.
   */
  routerGauge(name: string, observe: () => Iterable<GaugeSeries>): void {
    this.addSeriesGauge(name, `Router metric ${name.slice('router.'.length) || name}, as each router last reported it`, observe);
  }

  /** A gauge whose series come and go, observed at each collection (registered once per name). */
  transientGauge(name: string, description: string, observe: () => Iterable<GaugeSeries>): void {
    this.addSeriesGauge(name, description, observe);
  }

  private addSeriesGauge(name: string, description: string, observe: () => Iterable<GaugeSeries>): void {
    if (this.seriesGauges.has(name)) return;
    this.seriesGauges.add(name);
    this.removeSources.push(this.exposition.addSource((now) => seriesGauge(name, description, observe, now)));
  }

  /** The Prometheus text of every metric, collected now. */
  text(): Promise<string> {
    return this.exposition.text();
  }

  async close(): Promise<void> {
    this.runtime.close();
    this.removeDurations();
    for (const remove of this.removeSources.splice(0)) remove();
    if (this.owned) {
      await this.owned.shutdown();
      await this.exposition.shutdown();
    }
  }

  private authenticationAttributes(method: AuthenticationMethod, result: AuthenticationResult): Attributes {
    const key = `${method}|${result}`;
    let attributes = this.authenticationLabels.get(key);
    if (!attributes) this.authenticationLabels.set(key, (attributes = { method, result }));
    return attributes;
  }

  private peerAttributes(id: string): Attributes {
    let attributes = this.peerLabels.get(id);
    if (!attributes) this.peerLabels.set(id, (attributes = { peer_id: id }));
    return attributes;
  }
}

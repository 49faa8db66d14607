// The controller's metrics, instrumented with the OpenTelemetry API and exposed for Prometheus at /metrics with
// the `edgeward_` prefix. Callers record through the API; only this module knows about the exporter.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { Attributes, Histogram, Meter } from '@opentelemetry/api';

/**
 * Router metrics are read with delta temporality, so a gauge series that is no longer observed (its router went
 * away) leaves the exposition instead of repeating its last value forever as cumulative storage would.
 */
class RouterMetricsReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.DELTA });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface ControllerMetricsSources {
  readonly controllerId: string;
  readonly rateLimiter?: () => { queueSize: number; windowSize: number };
  readonly appliedIndex: () => number;
  readonly apiSessionCount: () => number;
  readonly isLeader: () => boolean;
}

export class ControllerMetrics {
  readonly meter: Meter;
  readonly httpDuration: Histogram;
  /** Leader-side command execution times (`raft.rate_limiter.work_timer`). */
  readonly workTimer: Histogram;
  /** Heartbeat round trip per peer channel (`peer.latency:<channel-id>`). */
  readonly peerLatency: Histogram;
  /** Time a heartbeat waited in the local send queue per peer channel (`peer.queue_time:<channel-id>`). */
  readonly peerQueueTime: Histogram;
  private readonly exporter: PrometheusExporter;
  private readonly provider: MeterProvider;
  private readonly routerProvider: MeterProvider;
  private readonly routerMeter: Meter;
  private readonly routerGauges = new Set<string>();

  constructor(sources: ControllerMetricsSources) {
    const routerReader = new RouterMetricsReader();
    this.routerProvider = new MeterProvider({ readers: [routerReader] });
    this.routerMeter = this.routerProvider.getMeter('edgeward-routers');
    this.exporter = new PrometheusExporter({ preventServerStart: true, prefix: 'edgeward', withoutScopeInfo: true, metricProducers: [{ collect: () => routerReader.collect() }] });
    this.provider = new MeterProvider({
      readers: [this.exporter],
      resource: resourceFromAttributes({ 'service.name': 'edgeward-controller', 'service.instance.id': sources.controllerId }),
    });
    this.meter = this.provider.getMeter('edgeward-controller');
    this.httpDuration = this.meter.createHistogram('http.request.duration.seconds', {
      description: 'Edge API request durations by API and status class',
      advice: { explicitBucketBoundaries: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] },
    });
    this.workTimer = this.meter.createHistogram('raft.rate_limiter.work_timer.seconds', {
      description: 'Execution time of raft commands through the leader-side rate limiter',
      advice: { explicitBucketBoundaries: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] },
    });
    this.meter
      .createObservableGauge('raft.rate_limiter.queue_size', { description: 'Raft commands in the rate limiter (running and queued); about 0 at rest' })
      .addCallback((result) => result.observe(sources.rateLimiter?.().queueSize ?? 0));
    this.meter
      .createObservableGauge('raft.rate_limiter.window_size', { description: 'Adaptive concurrency window of the rate limiter (5 to 250)' })
      .addCallback((result) => result.observe(sources.rateLimiter?.().windowSize ?? 250));
    const peerBuckets = { advice: { explicitBucketBoundaries: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] } };
    this.peerLatency = this.meter.createHistogram('peer.latency.seconds', { description: 'Heartbeat round trip on a peer channel', ...peerBuckets });
    this.peerQueueTime = this.meter.createHistogram('peer.queue_time.seconds', { description: 'Time a heartbeat spent in the send queue of a peer channel', ...peerBuckets });
    this.meter
      .createObservableGauge('raft.applied_index', { description: 'Index of the last raft entry applied to the model on this controller' })
      .addCallback((result) => result.observe(sources.appliedIndex()));
    this.meter
      .createObservableGauge('api_sessions', { description: 'API sessions currently held in the model' })
      .addCallback((result) => result.observe(sources.apiSessionCount()));
    this.meter
      .createObservableGauge('raft.is_leader', { description: '1 when this controller is the raft leader' })
      .addCallback((result) => result.observe(sources.isLeader() ? 1 : 0));
  }

  /**
   * A gauge of metrics routers report over their control channels (e.g. `router.link.count`), registered once per
   * name; `observe` gives every router's current series, each with a `router_id` attribute.
   */
  routerGauge(name: string, observe: () => Iterable<{ value: number; attributes: Attributes }>): void {
    if (this.routerGauges.has(name)) return;
    this.routerGauges.add(name);
    this.routerMeter
      .createObservableGauge(name, { description: `Router metric ${name.slice('router.'.length) || name}, as each router last reported it` })
      .addCallback((result) => {
        for (const series of observe()) result.observe(series.value, series.attributes);
      });
  }

  serve(request: IncomingMessage, response: ServerResponse): void {
    this.exporter.getMetricsRequestHandler(request, response);
  }

  async close(): Promise<void> {
    await this.provider.shutdown();
    await this.routerProvider.shutdown();
  }
}

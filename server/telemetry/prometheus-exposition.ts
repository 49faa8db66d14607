// The text of a controller's /metrics: one Prometheus reader (the exporter, its own HTTP server never started) for
// the meter provider the controller's instruments live in, plus a second, private provider read with delta
// temporality for gauges whose series come and go (a router's, the leader's id): a series not observed by the last
// callback leaves the exposition instead of repeating its last value forever, as cumulative storage would. Metrics
// kept outside the SDK (hot-path aggregations, see http-request-durations.ts) join the text through `addSource`.
import type { HrTime, Meter } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { AggregationTemporality, MeterProvider, MetricReader, type MetricData } from '@opentelemetry/sdk-metrics';

const prefix = 'edgeward';

/** Text format 0.0.4, as Prometheus and the reference controller serve it. */
export const expositionContentType = 'text/plain; version=0.0.4; charset=utf-8';

class DeltaReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.DELTA });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** The wall clock as OpenTelemetry's [seconds, nanoseconds]. */
export function hrTimeNow(): HrTime {
  const ms = Date.now();
  return [Math.floor(ms / 1000), (ms % 1000) * 1e6];
}

/** A metric aggregated outside the SDK, as of `now`. */
export type MetricSource = (now: HrTime) => MetricData;

export class PrometheusExposition {
  /** Give this to the meter provider the controller's instruments come from (NodeSDK's, or the controller's own). */
  readonly reader: PrometheusExporter;
  /** For gauges whose series come and go. */
  readonly transientMeter: Meter;
  private readonly transientProvider: MeterProvider;
  private readonly serializer = new PrometheusSerializer(prefix, false, undefined, false, true);
  private readonly sources = new Set<MetricSource>();

  constructor() {
    const transient = new DeltaReader();
    this.transientProvider = new MeterProvider({ readers: [transient] });
    this.transientMeter = this.transientProvider.getMeter('edgeward-transient');
    const collect = async () => {
      const result = await transient.collect();
      const now = hrTimeNow();
      const metrics = [...this.sources].map((source) => source(now));
      if (metrics.length > 0) result.resourceMetrics.scopeMetrics.push({ scope: { name: 'edgeward-aggregated' }, metrics });
      return result;
    };
    this.reader = new PrometheusExporter({ preventServerStart: true, prefix, withoutScopeInfo: true, metricProducers: [{ collect }] });
  }

  /** Adds a metric read at every collection; the returned function removes it. */
  addSource(source: MetricSource): () => void {
    this.sources.add(source);
    return () => void this.sources.delete(source);
  }

  /** Collects every instrument now (running the observable callbacks) and renders the Prometheus text. */
  async text(): Promise<string> {
    const { resourceMetrics } = await this.reader.collect();
    return this.serializer.serialize(resourceMetrics);
  }

  /** Stops the private provider; the reader is shut down with the provider it was given to. */
  async shutdown(): Promise<void> {
    await this.transientProvider.shutdown();
  }
}

// The OpenTelemetry SDK of a `controller run` process, wired through NodeSDK (@opentelemetry/sdk-node).
//
// Design:
// - NodeSDK owns the process's providers. Its MeterProvider holds the controller's instruments and has exactly one
//   reader, the Prometheus reader behind /metrics (prometheus-exposition.ts); its TracerProvider exists only while
//   traces are on, with one batch processor feeding an OTLP/HTTP (JSON) exporter. The controller is handed both
//   (ControllerTelemetry) rather than reaching for the API's process-global providers, so controllers started
//   in-process, several to a test process, each build their own meter provider, keep their own /metrics and trace
//   nothing unless a test hands them a tracer provider.
// - Nothing is left to NodeSDK's OTEL_* defaults, which would push metrics, logs and traces to localhost:4318:
//   the metric readers, span processors (none while traces are off: no exporter exists, nothing is dialled), log
//   processors (none), resource (no detectors), sampler, span limits and propagator are all given here
//   (nodeSdkConfiguration, which a test inspects).
// - Traces are on when `telemetry.otlp.endpoint` is set in ctrl.yml (spans go to <endpoint>/v1/traces), else when
//   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as is) or OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces) is. Then the
//   exporter also honours the standard OTEL_EXPORTER_OTLP_* headers, timeout and compression variables.
//   OTEL_SDK_DISABLED=true (which NodeSDK obeys by registering nothing) keeps NodeSDK out entirely: no traces, and
//   the controller builds its own meter provider for /metrics, which stays on.
// - Spans are parented explicitly (controller-tracing.ts keeps its own AsyncLocalStorage), so the context manager
//   NodeSDK registers is not what carries them; it costs nothing while unused.
import { metrics, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { Resource } from '@opentelemetry/resources';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler } from '@opentelemetry/sdk-trace-base';
import type { TelemetryConfig } from '../config/controller-config.ts';
import { otlpEndpointProblem, tracesUrl } from '../config/otlp-endpoint.ts';
import type { ControllerTelemetry } from './controller-telemetry.ts';
import { controllerResource } from './controller-resource.ts';
import { PrometheusExposition } from './prometheus-exposition.ts';

export interface TracesPlan {
  /** Where spans are POSTed. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Unset: the exporter's own (OTEL_EXPORTER_OTLP_TRACES_TIMEOUT or OTEL_EXPORTER_OTLP_TIMEOUT, else 10 s). */
  readonly timeoutMs?: number;
  /** Where the endpoint came from, for the log. */
  readonly source: 'telemetry.otlp.endpoint' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_EXPORTER_OTLP_ENDPOINT';
}

export interface TelemetryPlan {
  readonly serviceName: string;
  /** Undefined: traces are off. */
  readonly traces: TracesPlan | undefined;
  /** OTEL_SDK_DISABLED=true: no NodeSDK at all. */
  readonly sdkDisabled: boolean;
  /** Variables that are set but unusable (not an http(s) URL), for the log. */
  readonly warnings: readonly string[];
}

/** Spans wait at most this long in the batch before they leave (the SDK's default is 5 s). */
const exportDelayMs = 1000;

/** What to run from ctrl.yml's `telemetry` and the environment. Pure. */
export function telemetryPlan(config: TelemetryConfig, env: NodeJS.ProcessEnv): TelemetryPlan {
  const warnings: string[] = [];
  const sdkDisabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  const fromEnv = (name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_EXPORTER_OTLP_ENDPOINT'): string | undefined => {
    const value = env[name]?.trim();
    if (!value) return undefined;
    const problem = otlpEndpointProblem(value);
    if (problem === undefined) return value;
    warnings.push(`${name} ${problem}; it is ignored`);
    return undefined;
  };
  let traces: TracesPlan | undefined;
  if (config.otlp) {
    traces = { url: tracesUrl(config.otlp.endpoint), headers: config.otlp.headers, timeoutMs: config.otlp.timeout, source: 'telemetry.otlp.endpoint' };
  } else {
    const signal = fromEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
    const base = signal === undefined ? fromEnv('OTEL_EXPORTER_OTLP_ENDPOINT') : undefined;
    if (signal !== undefined) traces = { url: signal, headers: {}, source: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' };
    else if (base !== undefined) traces = { url: tracesUrl(base), headers: {}, source: 'OTEL_EXPORTER_OTLP_ENDPOINT' };
  }
  return { serviceName: config.serviceName, traces: sdkDisabled ? undefined : traces, sdkDisabled, warnings };
}

/** Everything NodeSDK is given: nothing is left to its OTEL_* defaults. */
export function nodeSdkConfiguration(plan: TelemetryPlan, resource: Resource, exposition: PrometheusExposition): Partial<NodeSDKConfiguration> {
  const traces = plan.traces;
  return {
    resource,
    autoDetectResources: false,
    instrumentations: [],
    metricReaders: [exposition.reader],
    logRecordProcessors: [],
    spanProcessors:
      traces === undefined
        ? []
        : [
            new BatchSpanProcessor(
              new OTLPTraceExporter({ url: traces.url, headers: { ...traces.headers }, ...(traces.timeoutMs === undefined ? {} : { timeoutMillis: traces.timeoutMs }) }),
              { scheduledDelayMillis: exportDelayMs, maxQueueSize: 2048, maxExportBatchSize: 512, exportTimeoutMillis: traces.timeoutMs ?? 10_000 },
            ),
          ],
    // A client's sampling decision (its traceparent) is kept; requests without one are all traced.
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanLimits: { attributeValueLengthLimit: 1024, attributeCountLimit: 64, linkCountLimit: 16, eventCountLimit: 64, attributePerEventCountLimit: 16, attributePerLinkCountLimit: 16 },
    // The controller carries trace context itself (traceparent.ts); no global propagator is needed.
    textMapPropagator: null,
  };
}

export interface ProcessTelemetry {
  /** What the controller reports through. */
  readonly controller: ControllerTelemetry;
  /** Flushes the spans still batched and stops the providers. */
  shutdown(): Promise<void>;
}

export function startProcessTelemetry(plan: TelemetryPlan, identity: { readonly id: string; readonly version: string }): ProcessTelemetry {
  if (plan.sdkDisabled) return { controller: {}, shutdown: async () => undefined };
  const exposition = new PrometheusExposition();
  const sdk = new NodeSDK(nodeSdkConfiguration(plan, controllerResource({ ...identity, serviceName: plan.serviceName }), exposition));
  sdk.start();
  return {
    controller: {
      // The providers NodeSDK just registered: this process runs one controller.
      metrics: { meterProvider: metrics.getMeterProvider(), exposition },
      ...(plan.traces ? { tracerProvider: trace.getTracerProvider() } : {}),
    },
    async shutdown() {
      await sdk.shutdown();
      await exposition.shutdown();
    },
  };
}

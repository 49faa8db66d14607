// What a controller is given to report through: the process path (process-telemetry.ts, NodeSDK) passes the
// providers it owns; a controller started in-process without them builds its own meter provider and traces nothing.
import type { TracerProvider } from '@opentelemetry/api';
import type { MetricsPipeline } from './controller-metrics.ts';

export interface ControllerTelemetry {
  /** Where the instruments are made and what /metrics reads; unset, the controller makes and owns its own. */
  readonly metrics?: MetricsPipeline;
  /** Spans go here; unset, tracing is off and no span is ever made. */
  readonly tracerProvider?: TracerProvider;
}

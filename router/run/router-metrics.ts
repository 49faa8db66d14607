// One interval's `router.metrics` message: gauges named as the contract says (`link.count`, `ctrl.latency_ms`,
// `link.<id>.latency_ms`) plus the process's own. Pure: every value is a parameter.

import type { RouterMetrics } from '../../common/control-channel/control-messages.ts';
import type { LinkInfo } from '../links/link-manager-api.ts';

export interface MetricsSample {
  readonly routerId: string;
  /** Unix ms at the end of the interval. */
  readonly now: number;
  readonly links: readonly LinkInfo[];
  /** Last control-channel round trip, ms; undefined before the first heartbeat answer. */
  readonly ctrlLatencyMs: number | undefined;
  readonly ctrlConnected: boolean;
  readonly heapUsedBytes: number;
  readonly rssBytes: number;
  /** Metrics messages dropped so far because the queue was full. */
  readonly metricsDropped: number;
  /** The forwarder's figures (absent: no circuits section in the message). */
  readonly circuits?: CircuitFigures;
  /** SDK channels open on the edge listeners and the virtual connections they hold (absent: not reported). */
  readonly edge?: { readonly channels: number; readonly connections: number };
}

/** Circuits now, and counts since the router started. */
export interface CircuitFigures {
  readonly circuits: number;
  readonly created: number;
  readonly failed: number;
  readonly dialFailures: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  /** Flow control (forwarder.ts); absent: not reported. */
  readonly windowOverruns?: number;
  readonly limitRefusals?: number;
  readonly linkReadPauses?: number;
  readonly bufferedBytes?: number;
}

export function buildRouterMetrics(sample: MetricsSample): RouterMetrics {
  const gauges: Record<string, number> = {
    'link.count': sample.links.length,
    'ctrl.connected': sample.ctrlConnected ? 1 : 0,
    'process.heap_used_bytes': sample.heapUsedBytes,
    'process.rss_bytes': sample.rssBytes,
    'metrics.dropped_messages': sample.metricsDropped,
  };
  if (sample.ctrlLatencyMs !== undefined) gauges['ctrl.latency_ms'] = round3(sample.ctrlLatencyMs);
  for (const link of sample.links) {
    if (link.latencyMs !== null) gauges[`link.${link.id}.latency_ms`] = round3(link.latencyMs);
    if (link.bytesSent !== undefined) gauges[`link.${link.id}.bytes_sent`] = link.bytesSent;
    if (link.bytesReceived !== undefined) gauges[`link.${link.id}.bytes_received`] = link.bytesReceived;
  }
  const circuits = sample.circuits;
  if (circuits) {
    gauges['circuit.count'] = circuits.circuits;
    gauges['circuit.created'] = circuits.created;
    gauges['circuit.failed'] = circuits.failed;
    gauges['circuit.dial_failures'] = circuits.dialFailures;
    gauges['circuit.bytes_in'] = circuits.bytesIn;
    gauges['circuit.bytes_out'] = circuits.bytesOut;
    if (circuits.windowOverruns !== undefined) gauges['circuit.window_overruns'] = circuits.windowOverruns;
    if (circuits.limitRefusals !== undefined) gauges['circuit.limit_refusals'] = circuits.limitRefusals;
    if (circuits.linkReadPauses !== undefined) gauges['circuit.link_read_pauses'] = circuits.linkReadPauses;
    if (circuits.bufferedBytes !== undefined) gauges['circuit.buffered_bytes'] = circuits.bufferedBytes;
  }
  if (sample.edge) {
    gauges['edge.channel.count'] = sample.edge.channels;
    gauges['edge.connection.count'] = sample.edge.connections;
  }
  return { type: 'router.metrics', routerId: sample.routerId, timestamp: sample.now, gauges };
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

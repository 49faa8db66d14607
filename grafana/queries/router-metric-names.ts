// The gauges each router reports in its `router.metrics` message (router/run/router-metrics.ts), as the controller
// it is connected to exposes them: `edgeward_router_` and the reported name with dots as underscores and `_ms`
// turned into `_seconds` (docs/operator-guide.md, "Metrics"). They are not in common/telemetry/metric-names.ts,
// whose names a controller exposes by itself; the live dashboard test checks these against a router's report.
import type { MetricContract } from '../../common/telemetry/metric-names.ts';

export const routerMetrics = {
  /** `link.count`: links the router holds. */
  edgeward_router_link_count: { type: 'gauge', labels: ['router_id'] },
  /** `ctrl.connected`: 1 while the router's control channel is up (a report can only arrive over it). */
  edgeward_router_ctrl_connected: { type: 'gauge', labels: ['router_id'] },
  /** `ctrl.latency_ms`: the control channel's last heartbeat round trip, as seconds. */
  edgeward_router_ctrl_latency_seconds: { type: 'gauge', labels: ['router_id'] },
  /** `link.<id>.latency_ms`: each link's last round trip, as seconds. */
  edgeward_router_link_latency_seconds: { type: 'gauge', labels: ['router_id', 'link_id'] },
  /** `process.heap_used_bytes` and `process.rss_bytes`: the router process's memory. */
  edgeward_router_process_heap_used_bytes: { type: 'gauge', labels: ['router_id'] },
  edgeward_router_process_rss_bytes: { type: 'gauge', labels: ['router_id'] },
  /** `metrics.dropped_messages`: metrics messages the router dropped because its queue was full. */
  edgeward_router_metrics_dropped_messages: { type: 'gauge', labels: ['router_id'] },
  /** `link.<id>.bytes_sent` / `bytes_received`: bytes on each link's connections since it came up. */
  edgeward_router_link_bytes_sent: { type: 'gauge', labels: ['router_id', 'link_id'] },
  edgeward_router_link_bytes_received: { type: 'gauge', labels: ['router_id', 'link_id'] },
  /** `circuit.count`: circuits the router forwards now. */
  edgeward_router_circuit_count: { type: 'gauge', labels: ['router_id'] },
  /** `circuit.created`, `circuit.failed`, `circuit.dial_failures`, `circuit.bytes_in`, `circuit.bytes_out`: counts since the router started. */
  edgeward_router_circuit_created: { type: 'gauge', labels: ['router_id'] },
  edgeward_router_circuit_failed: { type: 'gauge', labels: ['router_id'] },
  edgeward_router_circuit_dial_failures: { type: 'gauge', labels: ['router_id'] },
  edgeward_router_circuit_bytes_in: { type: 'gauge', labels: ['router_id'] },
  edgeward_router_circuit_bytes_out: { type: 'gauge', labels: ['router_id'] },
  /** `circuit.window_overruns`, `circuit.limit_refusals`, `circuit.link_read_pauses`: counts since the router started;
   * `circuit.buffered_bytes`: bytes its circuit ends hold now (flow control, docs/router-run.md). */
  edgeward_router_circuit_window_overruns: { type: 'gauge', labels: ['router_id'] },
  edgeward_router_circuit_limit_refusals: { type: 'gauge', labels: ['router_id'] },
  edgeward_router_circuit_link_read_pauses: { type: 'gauge', labels: ['router_id'] },
  edgeward_router_circuit_buffered_bytes: { type: 'gauge', labels: ['router_id'] },
  /** `edge.channel.count`: SDK edge channels open on the router's edge listeners; `edge.connection.count`: the virtual connections they hold. */
  edgeward_router_edge_channel_count: { type: 'gauge', labels: ['router_id'] },
  edgeward_router_edge_connection_count: { type: 'gauge', labels: ['router_id'] },
} as const satisfies Record<string, MetricContract>;

export type RouterMetricName = keyof typeof routerMetrics;

// Circuit events (`circuit`, also subscribed as `fabric.circuits`), in the real controller's shape: `created` when
// the ingress router reports a circuit up, `pathUpdated` when it moved a live circuit to a new path after a link of
// the old one was lost, `deleted` when it ends (with its duration and bytes), `failed` when the controller refused
// one or a router could not set it up (with `failure_cause`). Written by the controller that holds the ingress
// router's control channel (or that refused the request). Durations are in nanoseconds, as OpenZiti writes them.
// Pure: a report in, an event out.

export const circuitEventTypes = ['created', 'pathUpdated', 'deleted', 'failed'] as const;
export type CircuitEventType = (typeof circuitEventTypes)[number];

/** What a router or the controller knows of one circuit at one moment (already checked and bounded). */
export interface CircuitReport {
  readonly event: 'created' | 'pathUpdated' | 'deleted' | 'failed';
  /** Absent for a request refused before it had an id. */
  readonly circuitId?: string;
  readonly serviceId?: string;
  /** The identity that dialed (the ingress router's own id for a tunnel listener). */
  readonly clientId?: string;
  readonly terminatorId?: string;
  readonly routers?: readonly string[];
  readonly links?: readonly string[];
  /** ms from the connection's arrival to the circuit being up. */
  readonly creationMs?: number;
  /** ms the circuit lived (deleted). */
  readonly durationMs?: number;
  readonly bytesIn?: number;
  readonly bytesOut?: number;
  /** failed: the refusal code or setup failure, e.g. `NO_DIAL_POLICY`, `SETUP_FAILED`. */
  readonly failureCause?: string;
  readonly reason?: string;
}

export interface CircuitEventContext {
  readonly controllerId: string;
  readonly now: () => number;
}

const nanos = (ms: number | undefined) => (ms === undefined ? 0 : Math.round(ms * 1_000_000));

export function circuitEvent(report: CircuitReport, context: CircuitEventContext): Record<string, unknown> {
  const routers = report.routers ?? [];
  const links = report.links ?? [];
  return {
    namespace: 'circuit',
    event_src_id: context.controllerId,
    timestamp: new Date(context.now()).toISOString(),
    event_type: report.event,
    circuit_id: report.circuitId ?? '',
    client_id: report.clientId ?? '',
    service_id: report.serviceId ?? '',
    terminator_id: report.terminatorId ?? '',
    instance_id: '',
    creation_timespan: nanos(report.creationMs),
    path: { nodes: [...routers], links: [...links], ingress_id: routers[0] ?? '', egress_id: routers.at(-1) ?? '' },
    link_count: links.length,
    ...(report.event === 'deleted' ? { duration: nanos(report.durationMs), bytes_in: report.bytesIn ?? 0, bytes_out: report.bytesOut ?? 0 } : {}),
    ...(report.event === 'failed' ? { failure_cause: report.failureCause ?? 'UNKNOWN', reason: report.reason ?? '' } : {}),
    tags: null,
  };
}

/** A router's `router.circuit` message as a report, or undefined when it is malformed (ids bounded, numbers finite). */
export function readCircuitReport(frame: unknown): CircuitReport | undefined {
  if (typeof frame !== 'object' || frame === null) return undefined;
  const value = frame as Record<string, unknown>;
  if (value.event !== 'created' && value.event !== 'pathUpdated' && value.event !== 'deleted' && value.event !== 'failed') return undefined;
  const id = (key: string) => (typeof value[key] === 'string' && (value[key] as string).length > 0 && (value[key] as string).length <= 512 ? (value[key] as string) : undefined);
  const ids = (key: string) => (Array.isArray(value[key]) && (value[key] as unknown[]).length <= 64 && (value[key] as unknown[]).every((item) => typeof item === 'string' && item.length <= 512) ? (value[key] as string[]) : undefined);
  const count = (key: string) => (typeof value[key] === 'number' && Number.isFinite(value[key]) && (value[key] as number) >= 0 ? (value[key] as number) : undefined);
  const text = (key: string) => (typeof value[key] === 'string' ? (value[key] as string).slice(0, 1024) : undefined);
  const report: Record<string, unknown> = { event: value.event };
  for (const key of ['circuitId', 'serviceId', 'clientId', 'terminatorId']) if (id(key) !== undefined) report[key] = id(key);
  for (const key of ['routers', 'links']) if (ids(key) !== undefined) report[key] = ids(key);
  for (const key of ['creationMs', 'durationMs', 'bytesIn', 'bytesOut']) if (count(key) !== undefined) report[key] = count(key);
  for (const key of ['failureCause', 'reason']) if (text(key) !== undefined) report[key] = text(key);
  return report as unknown as CircuitReport;
}

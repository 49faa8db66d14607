// How a router's reported gauge becomes a controller metric: `router.` before the name, a per-link name
// (`link.<linkId>.<rest>`) folded into one metric with a `link_id` attribute, milliseconds (`_ms`) turned into
// seconds, and only characters Prometheus and OpenTelemetry both accept. The exposition adds `edgeward_` and maps
// dots to underscores: `link.count` → `edgeward_router_link_count{router_id}`, `ctrl.latency_ms` →
// `edgeward_router_ctrl_latency_seconds{router_id}`, `link.L1.latency_ms` →
// `edgeward_router_link_latency_seconds{router_id,link_id="L1"}`.

export interface RouterSeries {
  /** The OpenTelemetry instrument name, e.g. `router.link.count`. */
  readonly metric: string;
  readonly value: number;
  /** Besides router_id. */
  readonly attributes: Readonly<Record<string, string>>;
}

const maxNameLength = 200;

export function routerSeries(name: string, value: unknown): RouterSeries | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  if (typeof name !== 'string' || name === '' || name.length > maxNameLength) return undefined;
  let base = name;
  const attributes: Record<string, string> = {};
  const perLink = /^link\.([^.]+)\.(.+)$/.exec(name);
  if (perLink && perLink[1] !== 'count') {
    attributes.link_id = perLink[1]!;
    base = `link.${perLink[2]}`;
  }
  let scaled = value;
  const ms = /^(.*?)[._]ms$/.exec(base);
  if (ms) {
    base = `${ms[1]}.seconds`;
    scaled = value / 1000;
  }
  const cleaned = base
    .toLowerCase()
    .replace(/[^a-z0-9_.]+/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^[._]+|[._]+$/g, '');
  if (cleaned === '') return undefined;
  return { metric: `router.${cleaned}`, value: scaled, attributes };
}

// The latest value of every router metric series, for the controller's /metrics: a report updates the series it
// carries; a series no longer reported is dropped after `staleMs`, and all of a router's series `retainMs` after its
// control channel closed (unless it came back). Pure: the time of every call is a parameter.
import { routerSeries } from './router-metric-series.ts';

export interface StoredSeries {
  readonly value: number;
  readonly attributes: Readonly<Record<string, string>>;
}

export interface RouterMetricsStoreOptions {
  /** How long a disconnected router's series stay. */
  readonly retainMs: number;
  /** How long a series the router stopped reporting stays. */
  readonly staleMs: number;
  /** A bound on series per router, so one router cannot grow the controller's memory without limit. */
  readonly maxSeriesPerRouter: number;
}

interface Entry {
  readonly metric: string;
  value: number;
  readonly attributes: Readonly<Record<string, string>>;
  reportedAt: number;
}

export class RouterMetricsStore {
  /** router id → series key → entry */
  private readonly routers = new Map<string, Map<string, Entry>>();
  private readonly disconnectedAt = new Map<string, number>();

  constructor(private readonly options: RouterMetricsStoreOptions) {}

  /** Records one report; returns the metric names it holds (the caller makes sure each has an instrument). */
  record(routerId: string, gauges: Readonly<Record<string, unknown>>, now: number): string[] {
    this.disconnectedAt.delete(routerId);
    let series = this.routers.get(routerId);
    if (!series) this.routers.set(routerId, (series = new Map()));
    const metrics = new Set<string>();
    for (const [name, raw] of Object.entries(gauges)) {
      const converted = routerSeries(name, raw);
      if (!converted) continue;
      const key = `${converted.metric}|${JSON.stringify(converted.attributes)}`;
      const entry = series.get(key);
      if (entry) {
        entry.value = converted.value;
        entry.reportedAt = now;
      } else {
        if (series.size >= this.options.maxSeriesPerRouter) continue;
        series.set(key, { metric: converted.metric, value: converted.value, attributes: { router_id: routerId, ...converted.attributes }, reportedAt: now });
      }
      metrics.add(converted.metric);
    }
    return [...metrics];
  }

  connected(routerId: string): void {
    this.disconnectedAt.delete(routerId);
  }

  disconnected(routerId: string, now: number): void {
    if (this.routers.has(routerId)) this.disconnectedAt.set(routerId, now);
  }

  /** Drops what has gone stale by `now`. */
  sweep(now: number): void {
    for (const [routerId, at] of this.disconnectedAt) {
      if (now - at >= this.options.retainMs) {
        this.routers.delete(routerId);
        this.disconnectedAt.delete(routerId);
      }
    }
    for (const [routerId, series] of this.routers) {
      for (const [key, entry] of series) if (now - entry.reportedAt >= this.options.staleMs) series.delete(key);
      if (series.size === 0) {
        this.routers.delete(routerId);
        this.disconnectedAt.delete(routerId);
      }
    }
  }

  /** Every router's current series of one metric. */
  series(metric: string): StoredSeries[] {
    const found: StoredSeries[] = [];
    for (const series of this.routers.values()) for (const entry of series.values()) if (entry.metric === metric) found.push({ value: entry.value, attributes: entry.attributes });
    return found;
  }

  routerIds(): string[] {
    return [...this.routers.keys()];
  }
}

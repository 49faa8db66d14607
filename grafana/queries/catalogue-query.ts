// One named PromQL query of the catalogue that the Grafana dashboards draw and the status page can show. The
// expression keeps Grafana's template variables ($cluster, $controller, $router, $__rate_interval); a caller other
// than Grafana fills them in with expandTemplateVariables().
import type { AlertsDaemonMetricName, ControllerMetricName } from '../../common/telemetry/metric-names.ts';
import type { RouterMetricName } from './router-metric-names.ts';

/** A metric a query reads: a contract name (a histogram by its base name), Prometheus's own `up` and `ALERTS`,
 * or a gauge the routers report through the controllers. */
export type QueryMetric = ControllerMetricName | AlertsDaemonMetricName | RouterMetricName | 'up' | 'ALERTS';

/** Grafana unit ids, which the status page can format with as well. */
export type QueryUnit = 's' | 'bytes' | 'Bps' | 'ops' | 'reqps' | 'short' | 'percentunit' | 'none' | 'dateTimeFromNow';

/** When a query returns series. Anything but `always` names the condition, so that a check against a live
 * Prometheus knows which queries it must bring about, and an empty panel outside it is expected. */
export const seriesConditions = {
  always: 'a running cluster that has served some logins and writes',
  routers: 'routers connected to the controllers and reporting metrics',
  'router-links': 'routers with links between them, reporting their latency',
  'controller-down': 'a controller Prometheus cannot scrape (stopped, frozen or unreachable)',
  'alert-firing': 'an alert of the generated Prometheus rules firing',
  'daemon-alert-firing': 'an alert the alerts daemon raised and holds firing',
} as const;

export type SeriesCondition = keyof typeof seriesConditions;

export interface QueryDefinition {
  /** What the query shows, in a few words. */
  readonly title: string;
  readonly expr: string;
  /** Grafana legend format (`{{controller}}`); also how a caller labels each series. */
  readonly legend: string;
  readonly unit: QueryUnit;
  readonly metrics: readonly QueryMetric[];
  readonly seriesWhen: SeriesCondition;
  /** One value per series at the end of the range (tables), rather than a range. */
  readonly instant?: boolean;
}

export interface CatalogueQuery extends QueryDefinition {
  /** `<group>.<name>`, stable: the status page refers to queries by it. */
  readonly id: string;
}

/** Names a group's queries `<group>.<key>`, keeping the keys for named imports (`clusterQueries.leader`). */
export function defineQueries<K extends string>(group: string, definitions: Record<K, QueryDefinition>): Record<K, CatalogueQuery> {
  const named = {} as Record<K, CatalogueQuery>;
  for (const key of Object.keys(definitions) as K[]) named[key] = Object.freeze({ id: `${group}.${key}`, ...definitions[key] });
  return Object.freeze(named);
}

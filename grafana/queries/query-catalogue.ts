// Every named query, in one list: what the dashboards draw, and what the status page may share by id.
import { alertQueries, perAlertQueries } from './alert-queries.ts';
import { apiQueries } from './api-queries.ts';
import type { CatalogueQuery } from './catalogue-query.ts';
import { clusterQueries } from './cluster-queries.ts';
import { raftQueries } from './raft-queries.ts';
import { routerQueries } from './router-queries.ts';
import { runtimeQueries } from './runtime-queries.ts';

export { alertFiringQueries, alertQueries, perAlertQueries } from './alert-queries.ts';
export { apiQueries } from './api-queries.ts';
export { seriesConditions, type CatalogueQuery, type QueryMetric, type QueryUnit, type SeriesCondition } from './catalogue-query.ts';
export { clusterQueries } from './cluster-queries.ts';
export { raftQueries } from './raft-queries.ts';
export { routerQueries } from './router-queries.ts';
export { runtimeQueries } from './runtime-queries.ts';
export { expandTemplateVariables } from './template-variables.ts';

export const queryCatalogue: readonly CatalogueQuery[] = [
  ...Object.values(clusterQueries),
  ...Object.values(alertQueries),
  ...perAlertQueries,
  ...Object.values(raftQueries),
  ...Object.values(apiQueries),
  ...Object.values(routerQueries),
  ...Object.values(runtimeQueries),
];

export function catalogueQuery(id: string): CatalogueQuery {
  const found = queryCatalogue.find((query) => query.id === id);
  if (!found) throw new Error(`no query ${id} in the catalogue`);
  return found;
}

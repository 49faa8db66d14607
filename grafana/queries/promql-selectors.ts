// The label selectors the catalogue's queries share: which scrape job, and which template variables narrow it.
// Every query of a dashboard narrows by the same variables, so a panel never shows another cluster's series.

import { scrapeNames } from '../../alerts/prometheus/scrape-names.ts';

export const controllerJob = scrapeNames.jobs.controller;
export const alertsDaemonJob = scrapeNames.jobs.alertsDaemon;

/** The window of every rate(), increase() and deriv(): Grafana sizes it from the step and the scrape interval. */
export const rateWindow = '[$__rate_interval]';

const selector = (matchers: readonly string[], extra: string) => `{${[...matchers, ...(extra ? [extra] : [])].join(', ')}}`;

/** Every controller of the selected cluster (cluster-wide views: leader, members, alerts). */
export function clusterControllers(extra = ''): string {
  return selector([`job="${controllerJob}"`, 'cluster=~"$cluster"'], extra);
}

/** The controllers picked in `$controller` of the selected cluster. */
export function selectedControllers(extra = ''): string {
  return selector([`job="${controllerJob}"`, 'cluster=~"$cluster"', 'controller=~"$controller"'], extra);
}

/** Router gauges of the routers picked in `$router`, from every controller of the cluster. */
export function selectedRouters(extra = ''): string {
  return selector([`job="${controllerJob}"`, 'cluster=~"$cluster"', 'router_id=~"$router"'], extra);
}

/** The alerts daemon of the selected cluster. */
export function clusterAlertsDaemon(extra = ''): string {
  return selector([`job="${alertsDaemonJob}"`, 'cluster=~"$cluster"'], extra);
}

/** A quantile of a histogram over the rate window, kept apart by `by` (besides `le`). */
export function histogramQuantile(quantile: number, histogram: string, by: readonly string[], selectorText: string): string {
  return `histogram_quantile(${quantile}, sum by (${[...by, 'le'].join(', ')}) (rate(${histogram}_bucket${selectorText}${rateWindow})))`;
}

// Pieces of PromQL the rules share: selectors bound to edgeward's scrape jobs, the per-controller and per-cluster
// groupings, and an increase that also counts a counter's first increments.
import { scrapeNames } from '../prometheus/scrape-names.ts';

const { labels, jobs } = scrapeNames;

/** The grouping of a per-controller series: `cluster, controller`. */
export const byController = `${labels.cluster}, ${labels.controller}`;
export const byCluster = labels.cluster;

/** `metric{job="edgeward-controller"}`, with more matchers when given. */
export function controllerSeries(metric: string, ...matchers: string[]): string {
  return `${metric}{${[`job="${jobs.controller}"`, ...matchers].join(',')}}`;
}

/** `metric{job="edgeward-alerts"}`. */
export function alertsDaemonSeries(metric: string): string {
  return `${metric}{job="${jobs.alertsDaemon}"}`;
}

/** `up` of the targets of edgeward's own jobs. */
export function edgewardTargetsUp(): string {
  return `up{job=~"${scrapeNames.edgewardJobs.join('|')}"}`;
}

/**
 * How much a counter grew over the last `window`, counting the increments of a series born inside the window.
 *
 * `increase()` starts from a series' first sample, so a counter that appears on its first increment (an
 * OpenTelemetry counter with a new label set: a peer's first disconnect, a controller's first leadership) loses
 * that increment, and two real flaps read as one. A series that did not exist `window` ago, on a target that was
 * already up then, was born inside the window: all of its value is growth. Where Prometheus has no history from
 * `window` ago (it just started), nothing is known about a series' birth and plain `increase()` is used.
 */
export function increaseWithNewSeries(series: string, window: string): string {
  return [
    `(increase(${series}[${window}]) and ${series} offset ${window})`,
    `or`,
    `(`,
    `  (${series} unless ${series} offset ${window})`,
    `  and on(job, instance) (up offset ${window} == 1)`,
    `)`,
    `or`,
    `(`,
    `  increase(${series}[${window}])`,
    `  unless ${series} offset ${window}`,
    `  unless on(job, instance) (up offset ${window} == 1)`,
    `)`,
  ].join('\n');
}

/** Indents every line after the first, to nest one expression inside another. */
export function nest(expr: string, spaces = 2): string {
  return expr.split('\n').join(`\n${' '.repeat(spaces)}`);
}

/** A mixin duration as the rules' descriptions say it: `15m` → `15 minutes`, `1h` → `1 hour`, `30s` → `30 seconds`. */
export function inWords(duration: string): string {
  const match = /^(\d+)(h|m|s)$/.exec(duration);
  if (!match) return duration;
  const count = Number(match[1]);
  const unit = { h: 'hour', m: 'minute', s: 'second' }[match[2] as 'h' | 'm' | 's'];
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

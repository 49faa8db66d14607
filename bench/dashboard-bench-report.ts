// Pure helpers for the status page's benchmark: the figures of one run in, its marked section of RESULTS.md out.

import type { WrkFigures } from './wrk-output.ts';

/** The target for the page's data endpoint. */
export const p99TargetMs = 50;

export interface EndpointRound {
  /** wrk connections: clients asking at once. */
  readonly connections: number;
  readonly page: WrkFigures;
  readonly bare: WrkFigures;
}

export interface PaintSample {
  readonly firstPaintMs: number;
  readonly firstContentfulPaintMs: number;
  /** Navigation start to the first byte of the HTML. */
  readonly responseStartMs: number;
  readonly domContentLoadedMs: number;
}

export interface DashboardBenchRun {
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly wrk: string; readonly chromium: string; readonly loadAverage: number };
  /** Identities in the model when measured, and how long creating them took. */
  readonly identities: { readonly count: number; readonly seconds: number; readonly connections: number };
  /** `next build`, when the run built the page. */
  readonly buildSeconds?: number;
  readonly body: { readonly bytes: number; readonly historyPoints: number; readonly pollIntervalMs: number };
  readonly load: { readonly connections: readonly number[]; readonly threads: number; readonly seconds: number };
  readonly rounds: readonly EndpointRound[];
  readonly paints: readonly PaintSample[];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The round with the median page p99, and the medians of both p99s and their ratio. */
export function endpointSummary(rounds: readonly EndpointRound[]): { pageP99: number; bareP99: number; ratio: number; pageP50: number; bareP50: number } {
  const pageP99 = median(rounds.map((round) => round.page.p99Ms));
  const bareP99 = median(rounds.map((round) => round.bare.p99Ms));
  return {
    pageP99,
    bareP99,
    ratio: bareP99 > 0 ? pageP99 / bareP99 : Number.POSITIVE_INFINITY,
    pageP50: median(rounds.map((round) => round.page.p50Ms)),
    bareP50: median(rounds.map((round) => round.bare.p50Ms)),
  };
}

const ms = (value: number) => value.toFixed(2);
const rps = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));

export function dashboardBenchSection(run: DashboardBenchRun): string {
  const loads = [...new Set(run.rounds.map((round) => round.connections))].sort((a, b) => a - b);
  const busiest = loads.at(-1) ?? 0;
  const summaryOf = (connections: number) => endpointSummary(run.rounds.filter((round) => round.connections === connections));
  const row = (round: number, connections: number, what: string, figures: WrkFigures) =>
    `| ${round} | ${connections} | ${what} | ${rps(figures.requestsPerSecond)} | ${ms(figures.p50Ms)} | ${ms(figures.p99Ms)} | ${ms(figures.maxMs)} | ${figures.httpErrors} | ${figures.socketErrors} |`;
  const paint = (pick: (sample: PaintSample) => number) => median(run.paints.map(pick));
  const verdict = summaryOf(busiest).pageP99 <= p99TargetMs ? 'met' : 'not met';
  const roundOf = (index: number) => Math.floor(index / loads.length) + 1;
  return [
    `Date: ${run.date}`,
    `Machine: ${run.machine.cpus} CPUs (${run.machine.cpuModel}), Node ${run.machine.node}, ${run.machine.wrk}, ${run.machine.chromium}; load average ${run.machine.loadAverage.toFixed(2)} at start.`,
    `Cluster: three controller processes (bench/dashboard-bench.ts, test/support/controller-fixture.ts configs, entity changes written by every controller), ${run.identities.count.toLocaleString('en-US')} identities created through the leader's`,
    `management API beforehand (\`POST /edge/management/v1/identities\`, wrk with ${run.identities.connections} connections, ${run.identities.seconds.toFixed(0)} s).`,
    `The page: \`./edgeward dashboard run\` in its own process, polling the three controllers every ${run.body.pollIntervalMs} ms (health checks, raft health, /metrics, the leader's member list, the event files),`,
    `measured once its history was full: ${run.body.historyPoints} points in \`GET /api/state\`, ${(run.body.bytes / 1024).toFixed(0)} KiB per answer.`,
    `Baseline: a bare node:http server (bench/bare-json-server.ts, its own process) answering every GET with those same bytes and headers.`,
    `Load: wrk, ${run.load.threads} threads, ${run.load.connections.join(' and ')} connection(s) (one browser asking, then several at once, each asking again as soon as answered), ${run.load.seconds} s per measurement, the page and the baseline in turn; everything on this one machine, unpinned.`,
    ...(run.buildSeconds === undefined ? [] : [`Build: \`next build\` of the page took ${run.buildSeconds.toFixed(1)} s in this run.`]),
    '',
    '| Round | Connections | Server | Requests/s | p50 (ms) | p99 (ms) | max (ms) | Non-2xx | Socket errors |',
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|',
    ...run.rounds.flatMap((round, index) => [row(roundOf(index), round.connections, 'status page `/api/state`', round.page), row(roundOf(index), round.connections, 'bare node:http, same bytes', round.bare)]),
    '',
    ...loads.map((connections) => {
      const summary = summaryOf(connections);
      return `${connections} connection(s), median p99: status page **${ms(summary.pageP99)} ms**, bare server ${ms(summary.bareP99)} ms; ratio **${summary.ratio.toFixed(2)}** (median p50 ${ms(summary.pageP50)} ms vs ${ms(summary.bareP50)} ms).`;
    }),
    `Target p99 ≤ ${p99TargetMs} ms, judged at ${busiest} connections: **${verdict}**.`,
    '',
    `First paint in Chromium (Debian's, headless, playwright-core; a new browser context each time, so no cache; the page's first HTML`,
    `carries the latest snapshot): Performance API \`paint\` entries and navigation timing, ${run.paints.length} loads.`,
    '',
    '| | Median (ms) | Loads (ms) |',
    '|---|---:|---|',
    `| first byte of the HTML (responseStart) | ${paint((sample) => sample.responseStartMs).toFixed(0)} | ${run.paints.map((sample) => sample.responseStartMs.toFixed(0)).join(', ')} |`,
    `| first paint | ${paint((sample) => sample.firstPaintMs).toFixed(0)} | ${run.paints.map((sample) => sample.firstPaintMs.toFixed(0)).join(', ')} |`,
    `| first contentful paint | ${paint((sample) => sample.firstContentfulPaintMs).toFixed(0)} | ${run.paints.map((sample) => sample.firstContentfulPaintMs.toFixed(0)).join(', ')} |`,
    `| DOMContentLoaded | ${paint((sample) => sample.domContentLoadedMs).toFixed(0)} | ${run.paints.map((sample) => sample.domContentLoadedMs.toFixed(0)).join(', ')} |`,
  ].join('\n');
}

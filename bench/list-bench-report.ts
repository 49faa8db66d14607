// The list benchmark's report (bench/list-bench.ts): per query, p50/p99 over every round and each round's p99, the
// controller's CPU per request, the ratio of its p50 to the baseline query's p50 in the same rounds, and the issue's
// 50 ms p99 target for filtered identity lists. Pure: figures in, markdown out.
import { percentile, replaceSection } from './raft-bench-report.ts';

/** The issue's target for a filtered identity list at 1M identities. */
export const listTargetP99Ms = 50;

export interface QueryRound {
  readonly round: number;
  /** Each request's wall time, in the order sent. */
  readonly ms: readonly number[];
  /** The controller's CPU seconds over the round's requests of this query. */
  readonly cpuSeconds: number;
  readonly failed: number;
}

export interface QueryFigures {
  /** What the table calls it: `GET /identities?filter=…`. */
  readonly request: string;
  /** The baseline is the constant-cost request the others are compared against. */
  readonly baseline: boolean;
  /** Filtered identity lists are the ones the 50 ms target applies to. */
  readonly targeted: boolean;
  /** The list's totalCount (what the filter matched), or undefined for a detail read. */
  readonly totalCount?: number;
  readonly rounds: readonly QueryRound[];
}

/** A list's first request at the full model, while a detail read is sent back to back beside it (the ticker): how long
 * the controller held its event loop while the list's index was built (in the request before; in slices after it). */
export interface FirstBuild {
  readonly request: string;
  /** The first request's wall time. */
  readonly firstMs: number;
  /** The slowest ticker read that overlapped the first request. */
  readonly longestDuringMs: number;
  /** The slowest ticker read after the first request answered, over the window (the background build's time). */
  readonly longestAfterMs: number;
  /** The ticker reads' p50 over the whole window. */
  readonly tickerP50Ms: number;
  readonly windowSeconds: number;
  /** The same request once the window is over. */
  readonly secondMs: number;
}

export interface ListRun {
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly loadAverage: number; readonly loadAverageAtEnd: number };
  readonly commit: string;
  readonly identities: number;
  /** Writing the backup, restoring it, and the controller's start. */
  readonly loadSeconds: { readonly backup: number; readonly restore: number; readonly start: number };
  readonly rssBytes?: number;
  /** The controller's V8 heap in use (its `edgeward_nodejs_heap_used_bytes`, live objects and garbage not yet
   * collected) after the lists, and RSS and heap right after its start: RSS alone keeps pages V8 freed. */
  readonly heapUsedBytes?: number;
  readonly afterStart?: { readonly rssBytes?: number; readonly heapUsedBytes?: number };
  readonly requestsPerRound: number;
  readonly queries: readonly QueryFigures[];
  readonly firstBuilds?: readonly FirstBuild[];
}

export interface QuerySummary {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly roundP99Ms: number[];
  readonly cpuMsPerRequest: number;
  readonly requests: number;
  readonly failed: number;
}

export function querySummary(query: QueryFigures): QuerySummary {
  const all = query.rounds.flatMap((round) => round.ms).sort((a, b) => a - b);
  const requests = query.rounds.reduce((sum, round) => sum + round.ms.length, 0);
  const cpu = query.rounds.reduce((sum, round) => sum + round.cpuSeconds, 0);
  return {
    p50Ms: percentile(all, 0.5),
    p99Ms: percentile(all, 0.99),
    roundP99Ms: query.rounds.map((round) => percentile([...round.ms].sort((a, b) => a - b), 0.99)),
    cpuMsPerRequest: requests === 0 ? 0 : (cpu * 1000) / requests,
    requests,
    failed: query.rounds.reduce((sum, round) => sum + round.failed, 0),
  };
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));

export function listSummary(run: ListRun): string {
  const baseline = run.queries.find((query) => query.baseline);
  const baselineP50 = baseline ? querySummary(baseline).p50Ms : undefined;
  const lines = [
    `Run ${run.date} at commit ${run.commit}: ${run.machine.cpus} CPUs (${run.machine.cpuModel}), Node ${run.machine.node}, load average ${run.machine.loadAverage.toFixed(2)} at the start and ${run.machine.loadAverageAtEnd.toFixed(2)} at the end.`,
    `One controller over HTTPS holding ${run.identities.toLocaleString('en-US')} identities, loaded by \`controller restore\` of a backup written by the bench (backup ${run.loadSeconds.backup.toFixed(1)} s, restore ${run.loadSeconds.restore.toFixed(1)} s, start ${run.loadSeconds.start.toFixed(1)} s)${memoryText(run)}.`,
    `Rounds alternate the queries, ${run.requestsPerRound} requests of each per round, one at a time; CPU is the controller's over each query's requests. Baseline: ${baseline ? `\`${baseline.request}\`` : 'none'}.`,
    '',
    '| request | matches | p50 ms | p99 ms | p99 by round | CPU ms/request | p50 / baseline p50 | target p99 ≤ 50 ms |',
    '|---|---:|---:|---:|---|---:|---:|---|',
  ];
  for (const query of run.queries) {
    const summary = querySummary(query);
    const ratio = baselineP50 && baselineP50 > 0 ? `${(summary.p50Ms / baselineP50).toFixed(1)}x` : '–';
    const verdict = query.targeted ? (summary.failed === 0 && summary.p99Ms <= listTargetP99Ms ? 'met' : 'not met') : '–';
    const failed = summary.failed > 0 ? ` (${summary.failed} failed)` : '';
    lines.push(
      `| \`${query.request}\`${query.baseline ? ' (baseline)' : ''}${failed} | ${query.totalCount === undefined ? '–' : query.totalCount.toLocaleString('en-US')} | ${ms(summary.p50Ms)} | ${ms(summary.p99Ms)} | ${summary.roundP99Ms.map(ms).join(', ')} | ${ms(summary.cpuMsPerRequest)} | ${ratio} | ${verdict} |`,
    );
  }
  if (run.firstBuilds && run.firstBuilds.length > 0) {
    lines.push(
      '',
      'First requests, before the rounds: each list asked once at the full model while a detail read is sent back to back beside it (the ticker; its slowest read is the longest the controller held its event loop), then the window left for a background build, then the list again.',
      '',
      '| request | first ms | slowest ticker read during it, ms | slowest ticker read after it, ms (window) | ticker p50 ms | again after the window, ms |',
      '|---|---:|---:|---:|---:|---:|',
    );
    for (const first of run.firstBuilds) {
      lines.push(`| \`${first.request}\` | ${ms(first.firstMs)} | ${ms(first.longestDuringMs)} | ${ms(first.longestAfterMs)} (${first.windowSeconds} s) | ${ms(first.tickerP50Ms)} | ${ms(first.secondMs)} |`);
    }
  }
  return lines.join('\n');
}

export const listSectionHeading = '## Lists: filtered identity lists at 1M identities (`bench/run.sh lists`)';

export function renderListSection(previous: string | undefined, run: ListRun, notes: string): string {
  return replaceSection(previous ?? '# Benchmark results\n', 'list', listSectionHeading, `${listSummary(run)}${notes === '' ? '' : `\n\n${notes}`}`);
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/** The controller's memory as read: RSS and V8 heap used after its start and after the lists, each when known. */
function memoryText(run: ListRun): string {
  const at = (label: string, rss: number | undefined, heap: number | undefined) => {
    const parts = [rss === undefined ? undefined : `RSS ${mib(rss)}`, heap === undefined ? undefined : `V8 heap used ${mib(heap)}`].filter((part) => part !== undefined);
    return parts.length === 0 ? undefined : `${parts.join(', ')} ${label}`;
  };
  const both = [at('after the start', run.afterStart?.rssBytes, run.afterStart?.heapUsedBytes), at('after the lists', run.rssBytes, run.heapUsedBytes)].filter((part) => part !== undefined);
  return both.length === 0 ? '' : `; controller ${both.join('; ')}`;
}

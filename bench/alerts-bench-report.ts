// Pure helpers for the alerts daemon's benchmark: the figures of one run in, its marked section of RESULTS.md out.

import { percentile } from './raft-bench-report.ts';

/** The daemon's matcher should run at least at this share of `grep -F -f`'s speed. */
export const speedTarget = 0.5;
/** From a line appended to Alertmanager having accepted the alert, at the 99th percentile. */
export const latencyTargetMs = 1000;

export interface MatchingRound {
  readonly grepSeconds: number;
  readonly daemonSeconds: number;
}

export interface AlertsBenchRun {
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly grep: string; readonly alertmanager: string; readonly loadAverage: number };
  readonly file: { readonly bytes: number; readonly lines: number; readonly matchingLines: number; readonly patterns: number };
  readonly rounds: readonly MatchingRound[];
  /** Line appended → alert accepted, one per line, in ms. */
  readonly latenciesMs: readonly number[];
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** The daemon's speed over grep's in each round: grep's time over the daemon's. */
export const speedRatio = (round: MatchingRound) => round.grepSeconds / round.daemonSeconds;

export function latencySummary(latenciesMs: readonly number[]): { p50: number; p99: number; max: number } {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? 0 };
}

export function alertsBenchSection(run: AlertsBenchRun): string {
  const mb = run.file.bytes / (1024 * 1024);
  const ratio = median(run.rounds.map(speedRatio));
  const latency = latencySummary(run.latenciesMs);
  const verdict = (met: boolean) => (met ? 'met' : 'not met');
  return [
    `Date: ${run.date}`,
    `Machine: ${run.machine.cpus} CPUs (${run.machine.cpuModel}), Node ${run.machine.node}, ${run.machine.grep}, ${run.machine.alertmanager}; load average ${run.machine.loadAverage.toFixed(2)} at start.`,
    `Matching: a generated controller log of ${mb.toFixed(0)} MiB (${run.file.lines} JSON lines in the controller's shape, ${run.file.matchingLines} of them`,
    `matching one of the daemon's ${run.file.patterns} substrings), in the page cache. grep: \`grep -F -c -f <the daemon's substrings> <file>\`. The daemon:`,
    'its file follower reading 1 MiB chunks into its line scanner (one native `Buffer.indexOf` pass per substring, then only the',
    'matching lines parsed and checked against the rules), counting lines as it goes. Rounds alternate grep and the daemon; both',
    'found the same matching lines in every round.',
    '',
    '| Round | grep (s) | grep (MiB/s) | daemon (s) | daemon (MiB/s) | daemon / grep speed |',
    '|---:|---:|---:|---:|---:|---:|',
    ...run.rounds.map(
      (round, index) =>
        `| ${index + 1} | ${round.grepSeconds.toFixed(2)} | ${(mb / round.grepSeconds).toFixed(0)} | ${round.daemonSeconds.toFixed(2)} | ${(mb / round.daemonSeconds).toFixed(0)} | ${speedRatio(round).toFixed(2)} |`,
    ),
    '',
    `Median speed ratio: **${ratio.toFixed(2)}**. Target ≥ ${speedTarget}× grep: **${verdict(ratio >= speedTarget)}**.`,
    '',
    `Delivery: \`./edgeward alerts run\` in its own process with a real Alertmanager (Debian's, on loopback, a receiver that sends`,
    `nowhere). ${run.latenciesMs.length} lines appended to a followed log one at a time, alternately entering and leaving read-only mode, each`,
    'timed from just before the append until `GET /api/v2/alerts` (polled every 5 ms) shows the page firing, or gone once resolved.',
    '',
    `| Lines | p50 (ms) | p99 (ms) | max (ms) |`,
    '|---:|---:|---:|---:|',
    `| ${run.latenciesMs.length} | ${latency.p50.toFixed(1)} | ${latency.p99.toFixed(1)} | ${latency.max.toFixed(1)} |`,
    '',
    `Target p99 ≤ ${latencyTargetMs} ms: **${verdict(latency.p99 <= latencyTargetMs)}**.`,
  ].join('\n');
}

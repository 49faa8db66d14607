// Renders bench/RESULTS.md from one run: the run's table (replaced each time) and a history section that keeps
// every earlier run's one-line summary and appends this one. Pure: figures and the previous file in, text out.
import type { WrkFigures } from './wrk-output.ts';

/** Authenticated requests should keep at least this share of the bare route's throughput at 64 connections. */
export const ratioTarget = 0.7;

export interface LoadResult {
  /** What was loaded, as shown in the table. */
  readonly label: string;
  readonly connections: number;
  readonly figures: WrkFigures;
  /** CPU time (user + system, all threads) the server process used per completed request; absent without /proc. */
  readonly serverCpuUsPerRequest?: number;
}

export interface BenchRun {
  /** ISO 8601, UTC. */
  readonly date: string;
  /** `loadAverage`: the 1-minute load average when the run started; other work on the machine skews the figures. */
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly os: string; readonly loadAverage: number };
  readonly wrkVersion: string;
  readonly threads: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly bare: LoadResult;
  readonly session: LoadResult;
  readonly login: LoadResult;
}

const historyHeading = '## History';

export const ratioOf = (run: BenchRun) => run.session.figures.requestsPerSecond / run.bare.figures.requestsPerSecond;

const rps = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));
const ms = (value: number) => value.toFixed(2);

export function historyLine(run: BenchRun): string {
  return `- ${run.date}: a ${rps(run.bare.figures.requestsPerSecond)} rps, b ${rps(run.session.figures.requestsPerSecond)} rps, b/a ${ratioOf(run).toFixed(2)}, c ${rps(run.login.figures.requestsPerSecond)} rps (${run.machine.cpus} CPUs, Node ${run.machine.node}, ${run.seconds} s)`;
}

/** The run's own section: what was measured, the table and the ratio verdict. Also what is printed to stdout. */
export function runSummary(run: BenchRun): string {
  const ratio = ratioOf(run);
  const row = (name: string, load: LoadResult) => {
    const f = load.figures;
    const cpu = load.serverCpuUsPerRequest === undefined ? 'n/a' : load.serverCpuUsPerRequest.toFixed(0);
    return `| ${name} | ${load.label} | ${load.connections} | ${rps(f.requestsPerSecond)} | ${ms(f.p50Ms)} | ${ms(f.p99Ms)} | ${f.httpErrors} | ${f.socketErrors} | ${cpu} |`;
  };
  return [
    `Date: ${run.date}`,
    `Machine: ${run.machine.cpus} CPUs (${run.machine.cpuModel}), ${run.machine.os}, Node ${run.machine.node}, ${run.wrkVersion}; load average ${run.machine.loadAverage.toFixed(2)} at start`,
    `Load: wrk, ${run.threads} threads, ${run.seconds} s per measurement after a ${run.warmupSeconds} s warm-up; server and wrk on the same machine.`,
    '',
    '| | Load | Connections | Requests/s | p50 (ms) | p99 (ms) | Non-2xx | Socket errors | Server CPU (µs/request) |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    row('a', run.bare),
    row('b', run.session),
    row('c', run.login),
    '',
    `Ratio b/a: **${ratio.toFixed(2)}**. Target: ≥ ${ratioTarget} at 64 connections: **${ratio >= ratioTarget ? 'met' : 'not met'}**.`,
    ...cpuRatioLine(run),
  ].join('\n');
}

/** Server CPU per request, a over b: where b/a would settle if the server process alone bounded throughput. */
function cpuRatioLine(run: BenchRun): string[] {
  const a = run.bare.serverCpuUsPerRequest;
  const b = run.session.serverCpuUsPerRequest;
  if (a === undefined || b === undefined || b === 0) return [];
  return [`Server CPU per request a/b: ${(a / b).toFixed(2)} (${a.toFixed(0)} µs vs ${b.toFixed(0)} µs), less sensitive than requests/s to other load on the machine.`];
}

/** The history lines of an earlier RESULTS.md, oldest first; none when there is no earlier file. */
export function previousHistory(previous: string | undefined): string[] {
  if (previous === undefined) return [];
  const start = previous.indexOf(`\n${historyHeading}\n`);
  if (start === -1) return [];
  return previous
    .slice(start + historyHeading.length + 2)
    .split('\n')
    .filter((line) => line.startsWith('- '));
}

export function renderResults(run: BenchRun, previous: string | undefined): string {
  return [
    '# Benchmark results',
    '',
    'Written by `bench/run.sh` (or `node --import tsx bench/run.ts`; `BENCH_SECONDS` sets the measured seconds).',
    'Each server runs in its own process over HTTPS with a P-256 certificate from our PKI:',
    '(a) a bare Koa 3 route `GET /bare`, the baseline; (b) a real controller answering the authenticated',
    '`GET /edge/client/v1/current-api-session` (`zt-session` header); (c) password logins,',
    '`POST /edge/client/v1/authenticate?method=password`, bound by scrypt, each creating an API session (a raft command).',
    '"Non-2xx" is what wrk counts as a status error (400 and above); socket errors are connect/read/write errors and timeouts.',
    'Server CPU is the server process\'s user + system time (all threads, so scrypt too) over the measured run, per request.',
    '',
    '## Last run',
    '',
    runSummary(run),
    '',
    historyHeading,
    '',
    ...previousHistory(previous),
    historyLine(run),
    '',
  ].join('\n');
}

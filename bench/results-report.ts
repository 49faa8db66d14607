// Renders bench/RESULTS.md from one HTTP run: the run's table (replaced each time), the other marked sections
// (`<!-- <name>:start -->` … `<!-- <name>:end -->`: the other benchmarks' and notes written by hand, kept as they
// were) and a history section that keeps every earlier run's one-line summary and appends this one. Pure: figures
// and the previous file in, text out.
import { markedSections } from './raft-bench-report.ts';
import type { WrkFigures } from './wrk-output.ts';

/** Authenticated requests should keep at least this share of the bare route's throughput at 64 connections. */
/** b/a′ (the same response bytes and headers) at 64 connections, the read-path issue's target. */
export const ratioTarget = 0.8;

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
  /** (b)'s warm-up: as long as the bare server ran before (a′). */
  readonly steadyWarmupSeconds: number;
  /** How the server and wrk were placed on CPUs, as shown. */
  readonly pinning: string;
  /** (a): the bare Koa route with its own small body. */
  readonly bare: LoadResult;
  /** (a′) then (b), alternating, one pair per round (at least one). */
  readonly rounds: readonly HttpRound[];
  /** (c) */
  readonly login: LoadResult;
}

/** One round: (a′), the bare Koa server answering with (b)'s captured body and headers, then (b). */
export interface HttpRound {
  readonly bareSession: LoadResult;
  readonly session: LoadResult;
}

const historyHeading = '## History';

/** A round's b/a′ in requests per second. */
const roundRatio = (round: HttpRound) => round.session.figures.requestsPerSecond / round.bareSession.figures.requestsPerSecond;

/** The round whose b/a′ is the median (the lower of the middle two for an even count): the table shows it. */
export function medianRound(run: BenchRun): HttpRound {
  const sorted = [...run.rounds].sort((x, y) => roundRatio(x) - roundRatio(y));
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  if (!median) throw new Error('an HTTP run has at least one round');
  return median;
}

/** b over a baseline's requests per second: (a) by default (the median round's b); `bareSession` for (a′), the
 * issue's ratio, the median over the rounds. */
export const ratioOf = (run: BenchRun, baseline: 'bare' | 'bareSession' = 'bare') =>
  baseline === 'bareSession' ? roundRatio(medianRound(run)) : medianRound(run).session.figures.requestsPerSecond / run.bare.figures.requestsPerSecond;

const rps = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));
const ms = (value: number) => value.toFixed(2);
const verdict = (ratio: number) => (ratio >= ratioTarget ? 'met' : 'not met');

export function historyLine(run: BenchRun): string {
  const r = (load: LoadResult) => rps(load.figures.requestsPerSecond);
  const { bareSession, session } = medianRound(run);
  return `- ${run.date}: a ${r(run.bare)} rps, a′ ${r(bareSession)} rps, b ${r(session)} rps, b/a ${ratioOf(run).toFixed(2)}, b/a′ ${ratioOf(run, 'bareSession').toFixed(2)}, c ${r(run.login)} rps (${run.machine.cpus} CPUs, Node ${run.machine.node}, ${run.seconds} s, ${run.pinning === 'none' ? 'unpinned' : 'pinned'})`;
}

/** The run's own section: what was measured, the table and the ratio verdicts. Also what is printed to stdout. */
export function runSummary(run: BenchRun): string {
  const ratio = ratioOf(run);
  const sameResponseRatio = ratioOf(run, 'bareSession');
  const median = medianRound(run);
  const row = (name: string, load: LoadResult) => {
    const f = load.figures;
    const cpu = load.serverCpuUsPerRequest === undefined ? 'n/a' : load.serverCpuUsPerRequest.toFixed(0);
    const bytes = f.requests > 0 ? (f.bytes / f.requests).toFixed(0) : 'n/a';
    return `| ${name} | ${load.label} | ${load.connections} | ${rps(f.requestsPerSecond)} | ${ms(f.p50Ms)} | ${ms(f.p99Ms)} | ${f.httpErrors} | ${f.socketErrors} | ${bytes} | ${cpu} |`;
  };
  return [
    `Date: ${run.date}`,
    `Machine: ${run.machine.cpus} CPUs (${run.machine.cpuModel}), ${run.machine.os}, Node ${run.machine.node}, ${run.wrkVersion}; load average ${run.machine.loadAverage.toFixed(2)} at start`,
    `Load: wrk, ${run.threads} threads, ${run.seconds} s per measurement after a ${run.warmupSeconds} s warm-up (${run.steadyWarmupSeconds} s before the first (b): the controller runs its load as long as the bare server ran (a) and (a′)'s warm-up before the first (a′), so both are measured warm); server and wrk on the same machine; CPU pinning: ${run.pinning}.`,
    `(a′) and (b) alternate in ${run.rounds.length} round${run.rounds.length === 1 ? '' : 's'}, the server not under load paused; the table shows the round with the median b/a′, every round is listed below it.`,
    '',
    '| | Load | Connections | Requests/s | p50 (ms) | p99 (ms) | Non-2xx | Socket errors | Bytes/response | Server CPU (µs/request) |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    row('a', run.bare),
    row('a′', median.bareSession),
    row('b', median.session),
    row('c', run.login),
    '',
    ...byRoundLines(run),
    `Ratio b/a: **${ratio.toFixed(2)}** (the bare route's smaller response: for reference).`,
    `Ratio b/a′ (same response bytes and headers, median over the rounds): **${sameResponseRatio.toFixed(2)}**. Target (the issue's): ≥ ${ratioTarget} at 64 connections: **${verdict(sameResponseRatio)}**.`,
    ...cpuRatioLine(run.bare, median),
  ].join('\n');
}

/** Every round's (a′) and (b): requests/s, b/a′, and server CPU per request. */
function byRoundLines(run: BenchRun): string[] {
  const cpu = (load: LoadResult) => (load.serverCpuUsPerRequest === undefined ? 'n/a' : `${load.serverCpuUsPerRequest.toFixed(0)} µs`);
  const rounds = run.rounds.map(
    (round, i) =>
      `round ${i + 1}: a′ ${rps(round.bareSession.figures.requestsPerSecond)}/s, b ${rps(round.session.figures.requestsPerSecond)}/s, b/a′ ${roundRatio(round).toFixed(2)}; CPU a′ ${cpu(round.bareSession)}, b ${cpu(round.session)}`,
  );
  return [`By round: ${rounds.join('; ')}.`, ''];
}

/** Server CPU per request, each baseline over b (the median round's): where b/a and b/a′ would settle if the server
 * process alone bounded throughput. */
function cpuRatioLine(bare: LoadResult, median: HttpRound): string[] {
  const b = median.session.serverCpuUsPerRequest;
  if (b === undefined || b === 0) return [];
  const parts = (['a', 'a′'] as const).flatMap((name) => {
    const baseline = (name === 'a' ? bare : median.bareSession).serverCpuUsPerRequest;
    return baseline === undefined ? [] : [`${name}/b ${(baseline / b).toFixed(2)} (${baseline.toFixed(0)} µs vs ${b.toFixed(0)} µs)`];
  });
  if (parts.length === 0) return [];
  return [`Server CPU per request ${parts.join(', ')}; less sensitive than requests/s to other load on the machine.`];
}

/** `document` without its marked sections (which belong to other benchmarks). */
function withoutMarkedSections(document: string): string {
  return markedSections(document).reduce((rest, section) => rest.replace(section, ''), document);
}

/** The history lines of an earlier RESULTS.md, oldest first; none when there is no earlier file. Only the history
 * section counts: lines in another benchmark's marked section or under a later heading are not history. */
export function previousHistory(previous: string | undefined): string[] {
  if (previous === undefined) return [];
  const document = withoutMarkedSections(previous);
  const start = document.indexOf(`\n${historyHeading}\n`);
  if (start === -1) return [];
  const lines = document.slice(start + historyHeading.length + 2).split('\n');
  const end = lines.findIndex((line) => line.startsWith('#'));
  return (end === -1 ? lines : lines.slice(0, end)).filter((line) => line.startsWith('- '));
}

/** The whole file: this run, then the other benchmarks' marked sections carried over from the previous file
 * unchanged, then the history. */
export function renderResults(run: BenchRun, previous: string | undefined): string {
  const otherSections = previous === undefined ? [] : markedSections(previous);
  return [
    '# Benchmark results',
    '',
    'Written by `bench/run.sh`, which runs the HTTP benchmark (`bench/run.ts`; `BENCH_SECONDS` sets the measured seconds),',
    'then the raft benchmark (`bench/raft-bench.ts`), the three-node cluster against etcd (`bench/cluster-vs-etcd.ts`) and a',
    'login flood against a three-node cluster (`bench/login-flood.ts`), the alerts daemon against grep and a real Alertmanager',
    '(`bench/alerts-matching.ts`), the status page\'s data endpoint and first paint (`bench/dashboard-bench.ts`) and the overlay',
    '(router to router, and an SDK dial through `edgeward tunnel run`, plain and encrypted) against a direct connection,',
    'socat and a stunnel pair (`bench/overlay-bench.ts`), an OIDC login storm against legacy cert logins (`bench/oidc-login-storm.ts`), online',
    'snapshots of 100k identities (`bench/snapshot-bench.ts`), the controller\'s model memory up to 1M identities',
    '(`bench/controller-memory-bench.ts`) and circuit setup at rate (`bench/circuit-rate-bench.ts`); `bench/run.sh scale`',
    'runs the 10x-Large model (`bench/scale-bench.ts`) and 5,000 simulated routers (`bench/router-sim-bench.ts`), which',
    '`bench/run.sh scale-routers` runs alone; each keeps its own marked section below;',
    '`bench/run.sh http`, `bench/run.sh raft`, `bench/run.sh cluster`, `bench/run.sh login-flood`, `bench/run.sh alerts`,',
    '`bench/run.sh dashboard`, `bench/run.sh overlay`, `bench/run.sh oidc-login-storm`, `bench/run.sh snapshot`, `bench/run.sh memory` or `bench/run.sh circuits` runs one.',
    'For HTTP, each server runs in its own process over HTTPS with a P-256 certificate from our PKI:',
    '(a) a bare Koa 3 route `GET /bare` (28-byte body), the baseline; (a′) the same bare Koa server answering',
    '`GET /bare-session` with the same body and `server`, `expires-at` and `expiration-seconds` headers as (b), captured from',
    'the controller before measuring; (b) a real controller answering the authenticated',
    '`GET /edge/client/v1/current-api-session` (`zt-session` header); (c) password logins,',
    '`POST /edge/client/v1/authenticate?method=password`, bound by scrypt, each creating an API session (a raft command).',
    '"Non-2xx" is what wrk counts as a status error (400 and above); socket errors are connect/read/write errors and timeouts.',
    'Bytes/response is what wrk read (headers and body, after TLS) per request.',
    'Server CPU is the server process\'s user + system time (all threads, so scrypt too) over the measured run, per request.',
    '',
    '## Last run',
    '',
    runSummary(run),
    '',
    ...otherSections.flatMap((section) => [section, '']),
    historyHeading,
    '',
    ...previousHistory(previous),
    historyLine(run),
    '',
  ].join('\n');
}

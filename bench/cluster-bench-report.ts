// Pure helpers for bench/cluster-vs-etcd.ts: the figures of one run in, the comparison (ratios, medians, the
// issue's targets and their verdicts) and the text of its marked RESULTS.md section out.
import { replaceSection } from './raft-bench-report.ts';
import type { WrkFigures } from './wrk-output.ts';

export type System = 'edgeward' | 'etcd';
export const systems: readonly System[] = ['edgeward', 'etcd'];

/** edgeward's writes/s should be at least this multiple of etcd's at each connection count. */
export const throughputTarget = 1.0;
/** edgeward's p99 latency should be at most this multiple of etcd's at each connection count. */
export const tailTarget = 1.0;

export interface WriteLoad {
  readonly system: System;
  readonly connections: number;
  /** Which round of the run (from 1): each round measures both systems back to back at each connection count. */
  readonly round: number;
  readonly figures: WrkFigures;
  /** Writes of the measured run found afterwards on the leader (identities or keys with the run's prefix). */
  readonly stored: number;
  /** CPU time (user + system, all threads) over the measured run per successful write: the three members
   * together, and the leader alone; and the leader's busiest thread (edgeward's JavaScript thread, where HTTP and
   * raft take turns; for etcd, whichever thread the Go scheduler ran most on). Absent where /proc could not be read. */
  readonly cpu?: { readonly clusterUsPerWrite: number; readonly leaderUsPerWrite: number; readonly leaderBusiestThreadUsPerWrite?: number };
}

export interface FailoverTrial {
  readonly system: System;
  /** The member killed (the leader). */
  readonly killed: string;
  /** From SIGKILL to the end of the first successful write; Infinity when none came within the limit. */
  readonly ms: number;
  /** The member that answered that write. */
  readonly via?: string;
}

export interface ClusterBenchRun {
  /** ISO 8601, UTC. */
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly os: string; readonly loadAverage: number };
  readonly wrkVersion: string;
  readonly etcdVersion: string;
  readonly threads: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  /** As read back from the controllers' config. */
  readonly edgewardTimeouts: { readonly electionTimeoutMs: number; readonly heartbeatTimeoutMs: number; readonly commitTimeoutMs: number };
  /** The controllers ran with `cluster.raftThread: true` (absent: false, the default). */
  readonly raftThread?: boolean;
  /** As passed to etcd. */
  readonly etcdTimeouts: { readonly heartbeatIntervalMs: number; readonly electionTimeoutMs: number };
  readonly pollMs: number;
  readonly failoverLimitMs: number;
  /** Rounds of write loads: both systems at every connection count in each, which goes first alternating. */
  readonly rounds: number;
  readonly loads: readonly WriteLoad[];
  readonly failovers: readonly FailoverTrial[];
}

/** Successful (2xx) writes per second: wrk's requests less its status errors, over the run's duration. */
export function writesPerSecond(figures: WrkFigures): number {
  return (figures.requests - figures.httpErrors) / figures.durationSeconds;
}

/** A problem with a load's stored count, or undefined: fewer writes stored than answered 2xx means lost or
 * colliding writes. More is expected (writes still in flight when wrk stopped, or timed out but applied). */
export function storedProblem(load: WriteLoad): string | undefined {
  const succeeded = load.figures.requests - load.figures.httpErrors;
  if (load.stored >= succeeded) return undefined;
  return `${load.system} at ${load.connections} connections: ${succeeded} writes answered 2xx but only ${load.stored} are stored`;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A system's loads at one connection count: every round's, and the one with the median writes/s, which the table
 * shows (the lower middle one when the count is even). */
export interface SystemLoads {
  readonly loads: readonly WriteLoad[];
  readonly median: WriteLoad;
}

export interface ThroughputComparison {
  readonly connections: number;
  readonly edgeward: SystemLoads;
  readonly etcd: SystemLoads;
  /** edgeward's median writes/s over etcd's. */
  readonly ratio: number;
  /** edgeward over etcd within each round (measured back to back), in round order. */
  readonly roundRatios: readonly number[];
  readonly met: boolean;
  /** edgeward's median p99 over etcd's, each system's median over its rounds. */
  readonly tailRatio: number;
  /** edgeward's p99 over etcd's within each round, in round order. */
  readonly roundTailRatios: readonly number[];
  readonly tailMet: boolean;
}

function systemLoads(loads: readonly WriteLoad[]): SystemLoads | undefined {
  if (loads.length === 0) return undefined;
  const byRate = [...loads].sort((a, b) => writesPerSecond(a.figures) - writesPerSecond(b.figures));
  return { loads: [...loads].sort((a, b) => a.round - b.round), median: byRate[Math.floor((byRate.length - 1) / 2)]! };
}

export function throughputComparisons(loads: readonly WriteLoad[]): ThroughputComparison[] {
  const connectionCounts = [...new Set(loads.map((load) => load.connections))].sort((a, b) => a - b);
  return connectionCounts.flatMap((connections) => {
    const of = (system: System) => systemLoads(loads.filter((load) => load.system === system && load.connections === connections));
    const edgeward = of('edgeward');
    const etcd = of('etcd');
    if (!edgeward || !etcd) return [];
    const ratio = median(edgeward.loads.map((load) => writesPerSecond(load.figures))) / median(etcd.loads.map((load) => writesPerSecond(load.figures)));
    const byRound = (of: (load: WriteLoad) => number) =>
      edgeward.loads.flatMap((load) => {
        const pair = etcd.loads.find((other) => other.round === load.round);
        return pair ? [of(load) / of(pair)] : [];
      });
    const roundRatios = byRound((load) => writesPerSecond(load.figures));
    const tailRatio = median(edgeward.loads.map((load) => load.figures.p99Ms)) / median(etcd.loads.map((load) => load.figures.p99Ms));
    const roundTailRatios = byRound((load) => load.figures.p99Ms);
    return [{ connections, edgeward, etcd, ratio, roundRatios, met: ratio >= throughputTarget, tailRatio, roundTailRatios, tailMet: tailRatio <= tailTarget }];
  });
}

export interface FailoverComparison {
  readonly edgeward: { readonly median: number; readonly max: number; readonly trials: readonly FailoverTrial[] };
  readonly etcd: { readonly median: number; readonly max: number; readonly trials: readonly FailoverTrial[] };
  /** edgeward's median at most etcd's (a trial without a write within the limit counts as infinitely long). */
  readonly met: boolean;
}

export function failoverComparison(trials: readonly FailoverTrial[]): FailoverComparison {
  const of = (system: System) => {
    const own = trials.filter((trial) => trial.system === system);
    const times = own.map((trial) => trial.ms);
    return { median: median(times), max: times.length === 0 ? Number.NaN : Math.max(...times), trials: own };
  };
  const edgeward = of('edgeward');
  const etcd = of('etcd');
  return { edgeward, etcd, met: edgeward.median <= etcd.median };
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const rate = (value: number) => fixed(value, 0);
const ms = (value: number) => fixed(value, 2);
const failoverMs = (value: number, limitMs: number) => (value === Number.POSITIVE_INFINITY ? `> ${limitMs}` : fixed(value, 0));
const verdict = (met: boolean) => (met ? 'met' : 'not met');

export const clusterSectionHeading = '## Three-node clusters: edgeward vs etcd';

/** The section's body, which is also what the benchmark prints. */
export function clusterSummary(run: ClusterBenchRun): string {
  const comparisons = throughputComparisons(run.loads);
  const failover = failoverComparison(run.failovers);
  const e = run.edgewardTimeouts;
  const t = run.etcdTimeouts;
  const loadRow = (own: SystemLoads) => {
    const load = own.median;
    const f = load.figures;
    const rounds = own.loads.map((each) => rate(writesPerSecond(each.figures))).join(', ');
    const tails = own.loads.map((each) => fixed(each.figures.p99Ms, 1)).join(', ');
    const cpu = (of: (each: NonNullable<WriteLoad['cpu']>) => number | undefined) => {
      const values = own.loads.flatMap((each) => {
        const value = each.cpu ? of(each.cpu) : undefined;
        return value === undefined ? [] : [value];
      });
      return values.length === 0 ? 'n/a' : `${rate(median(values))} (${values.map(rate).join(', ')})`;
    };
    return `| ${load.connections} | ${load.system} | ${rate(writesPerSecond(f))} | ${ms(f.p50Ms)} | ${ms(f.p99Ms)} | ${f.httpErrors} | ${f.socketErrors} | ${load.stored} | ${rounds} | ${tails} | ${cpu((c) => c.clusterUsPerWrite)} | ${cpu((c) => c.leaderUsPerWrite)} | ${cpu((c) => c.leaderBusiestThreadUsPerWrite)} |`;
  };
  const failoverRow = (system: System) => {
    const own = failover[system];
    const trials = own.trials.map((trial) => `${failoverMs(trial.ms, run.failoverLimitMs)} (${trial.killed} killed${trial.via ? `, via ${trial.via}` : ''})`).join('; ');
    return `| ${system} | ${failoverMs(own.median, run.failoverLimitMs)} | ${failoverMs(own.max, run.failoverLimitMs)} | ${trials} |`;
  };
  const failoverRatio = failover.edgeward.median / failover.etcd.median;
  return [
    `Date: ${run.date}`,
    `Machine: ${run.machine.cpus} CPUs (${run.machine.cpuModel}), ${run.machine.os}, Node ${run.machine.node}, ${run.wrkVersion}, etcd ${run.etcdVersion}; load average ${run.machine.loadAverage.toFixed(2)} at start.`,
    'Everything on this one machine, on loopback, unpinned: both clusters stay up throughout (the one not under load idles), and wrk runs beside them.',
    `edgeward: three controller processes formed with \`cluster.add\`, TLS (P-256) on the HTTP API and the peer channel; raft electionTimeout ${e.electionTimeoutMs} ms, heartbeatTimeout ${e.heartbeatTimeoutMs} ms (the defaults), commitTimeout ${e.commitTimeoutMs} ms; ${run.raftThread ? 'raft, its log and the peer channels on their own thread (`cluster.raftThread: true`)' : 'raft on the controller\'s thread (`cluster.raftThread: false`, the default)'}.`,
    `etcd: three members of Debian's etcd-server, durable defaults: fsync on, --heartbeat-interval=${t.heartbeatIntervalMs} --election-timeout=${t.electionTimeoutMs} (the defaults), pre-vote off (3.4's default); data dirs in a temp dir; plain HTTP for clients (the JSON gateway) and peers, so etcd pays no TLS.`,
    `Writes: wrk, ${run.threads} threads, ${run.seconds} s per measurement after a ${run.warmupSeconds} s warm-up, against the leader, each request writing something new,`,
    `in ${run.rounds} ${run.rounds === 1 ? 'round' : 'rounds'}: each measures both systems back to back at each connection count, the two taking turns to go first, so that a`,
    'slow spell on this shared machine hits both; a row shows the round with the median writes/s, and the ratio is of the medians:',
    'edgeward `POST /edge/management/v1/identities` (`zt-session`, a unique name, answered 201 once the leader has applied it);',
    'etcd `POST /v3/kv/put` (a unique key, a 128-byte value). Writes/s counts 2xx answers only; non-2xx is wrk\'s status errors (400 and up);',
    'socket errors are connect/read/write errors and timeouts; "stored" is the measured run\'s writes found on the leader afterwards.',
    'CPU per write: user + system time of every thread of the three members (and of the leader alone) over the measured run,',
    'per successful write: the median over the rounds, then each round. The leader\'s busiest thread is the one thread of the leader',
    'that used the most: for edgeward its JavaScript thread, which HTTP and raft share, so its share of one CPU bounds the leader;',
    'for etcd whichever OS thread the Go scheduler ran most on (goroutines move between threads, so etcd\'s work is spread over several).',
    '',
    '| Connections | System | Writes/s | p50 (ms) | p99 (ms) | Non-2xx | Socket errors | Stored | Writes/s by round | p99 (ms) by round | CPU/write, cluster (µs) | CPU/write, leader (µs) | CPU/write, leader\'s busiest thread (µs) |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---|---|---|---|---|',
    ...comparisons.flatMap((comparison) => [loadRow(comparison.edgeward), loadRow(comparison.etcd)]),
    '',
    ...comparisons.map(
      (comparison) =>
        `Writes/s edgeward/etcd at ${comparison.connections} connections: **${comparison.ratio.toFixed(2)}** (by round: ${comparison.roundRatios.map((ratio) => ratio.toFixed(2)).join(', ')}). Target (the issue's): ≥ ${throughputTarget.toFixed(1)}×: **${verdict(comparison.met)}**.`,
    ),
    ...comparisons.map(
      (comparison) =>
        `p99 edgeward/etcd at ${comparison.connections} connections (medians over the rounds): **${comparison.tailRatio.toFixed(2)}** (by round: ${comparison.roundTailRatios.map((ratio) => ratio.toFixed(2)).join(', ')}). Target (the issue's): ≤ ${tailTarget.toFixed(1)}×: **${verdict(comparison.tailMet)}**.`,
    ),
    '',
    `Failover, ${failover.edgeward.trials.length} trials each, alternating: SIGKILL of the leader, then a fresh write through each survivor every ${run.pollMs} ms,`,
    'none waiting for an earlier one; the time runs from the kill to the end of the first successful write (edgeward: 201 through',
    `either survivor, forwarded by a follower or taken by the new leader; etcd: 200), at most ${run.failoverLimitMs} ms. The killed member is`,
    'restarted, and the cluster healthy again, before the next trial. Election timeouts match (1000 ms on both); an edgeward',
    'follower also campaigns within two heartbeat intervals once every connection to its leader has closed (docs/raft.md, "Leader lost"),',
    'which a SIGKILL causes at once; etcd waits for its election timeout.',
    '',
    '| System | Median (ms) | Max (ms) | Trials (ms) |',
    '|---|---:|---:|---|',
    failoverRow('edgeward'),
    failoverRow('etcd'),
    '',
    `Failover median edgeward/etcd: **${Number.isFinite(failoverRatio) ? failoverRatio.toFixed(2) : 'n/a'}**. Target (the issue's): edgeward's median ≤ etcd's: **${verdict(failover.met)}**.`,
  ].join('\n');
}

/** RESULTS.md with this run's marked section replaced (or appended), everything else kept. */
export function renderClusterSection(previous: string | undefined, run: ClusterBenchRun): string {
  return replaceSection(previous ?? '# Benchmark results\n', 'cluster', clusterSectionHeading, clusterSummary(run));
}

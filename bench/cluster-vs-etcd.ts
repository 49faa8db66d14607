// edgeward's three-node cluster against a three-node etcd cluster, side by side in one run on loopback:
// replicated writes/s and latency over HTTP through the leader at 16 and 64 connections (wrk, a unique write per
// request), then failover (SIGKILL the leader, time to the next successful write through a survivor), alternating
// between the two, five trials each. Writes its marked section of bench/RESULTS.md (kept by the other benchmarks)
// and prints the same. Everything is bounded by a watchdog; every controller and etcd member is stopped and the
// temp dir removed on success, failure, timeout or a signal.
// Env: BENCH_SECONDS (measured seconds per load, default 10); BENCH_CLUSTER_ROUNDS (rounds of write loads, 1 to 9,
// default 3); BENCH_RAFT_THREAD=1 runs the controllers with `cluster.raftThread: true` (docs/raft.md).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, tmpdir, type } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchLifecycle } from './bench-lifecycle.ts';
import { clusterSummary, renderClusterSection, storedProblem, writesPerSecond, type ClusterBenchRun, type FailoverTrial, type WriteLoad } from './cluster-bench-report.ts';
import { timeFailover, type ClusterUnderTest } from './cluster-under-test.ts';
import { EdgewardCluster } from './edgeward-cluster.ts';
import { withRaftThread } from '../test/support/cluster-helpers.ts';
import { EtcdCluster, etcdVersion } from './etcd-cluster.ts';
import { etcdTimeouts } from './etcd-member.ts';
import { busiestThreadSeconds, processCpuSeconds, threadCpuSeconds } from './process-cpu.ts';
import { runWrk } from './wrk-runner.ts';
import { positiveInteger, progress, wrkVersion, readPreviousResults } from './bench-env.ts';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const resultsFile = join(benchDir, 'RESULTS.md');
const writeScript = join(benchDir, 'wrk', 'unique-writes.lua');

const seconds = positiveInteger('BENCH_SECONDS', 10);
const warmupSeconds = 2;
const threads = 2;
const connectionCounts = [16, 64];
const rounds = positiveInteger('BENCH_CLUSTER_ROUNDS', 3, 9, 'rounds');
/** BENCH_RAFT_THREAD=1: the controllers run with cluster.raftThread: true. */
const raftThread = process.env.BENCH_RAFT_THREAD === '1';
const trials = 5;
const pollMs = 20;
const failoverLimitMs = 20_000;
const recoveryLimitMs = 60_000;
/** Start-up of both clusters, the loads (each: warm-up, measurement, wrk's margins, the stored count), the
 * failover trials (each: the limit and the recovery) and stopping everything. bench/run.sh repeats this sum. */
const budgetMs = (240 + rounds * connectionCounts.length * 2 * (warmupSeconds + seconds + 35) + trials * 2 * (failoverLimitMs + recoveryLimitMs) / 1000 + 60) * 1000;

/** A run-unique prefix for the names one wrk run writes. */
let prefixSequence = 0;
const namePrefix = (what: string) => `bench-${what}-${process.pid}-${Date.now().toString(36)}-${prefixSequence++}`;

/** Warm-up (figures dropped), then the measured run against the leader; then how many of the measured run's writes
 * the leader holds. */
async function measure(cluster: ClusterUnderTest, connections: number, round: number): Promise<WriteLoad> {
  const leader = await cluster.leader(30_000);
  const target = await cluster.loadTarget(leader);
  const label = `round ${round}: ${cluster.system} at ${connections} connections`;
  const load = (prefix: string, duration: number) =>
    runWrk({ url: target.url, connections, threads, seconds: duration, method: 'POST', headers: target.headers, script: writeScript, env: { WRK_WRITE_KIND: target.kind, WRK_NAME_PREFIX: prefix } });
  progress(`${label}: warm-up ${warmupSeconds} s against ${cluster.memberNames[leader]}`);
  await load(namePrefix(`${cluster.system}-warm`), warmupSeconds);
  progress(`${label}: measuring ${seconds} s`);
  const prefix = namePrefix(`${cluster.system}-c${connections}`);
  const pids = cluster.pids();
  const cpuBefore = pids.map(processCpuSeconds);
  const leaderThreadsBefore = threadCpuSeconds(pids[leader]);
  const figures = await load(prefix, seconds);
  const cpuAfter = pids.map(processCpuSeconds);
  const leaderThreadsAfter = threadCpuSeconds(pids[leader]);
  const stored = await cluster.storedCount(leader, prefix);
  const writes = figures.requests - figures.httpErrors;
  const busiest = leaderThreadsBefore && leaderThreadsAfter && writes > 0 ? (busiestThreadSeconds(leaderThreadsBefore, leaderThreadsAfter) * 1e6) / writes : undefined;
  const perWrite = cpuPerWrite(cpuBefore, cpuAfter, leader, writes);
  const cpu = perWrite && busiest !== undefined ? { ...perWrite, leaderBusiestThreadUsPerWrite: busiest } : perWrite;
  const result: WriteLoad = { system: cluster.system, connections, round, figures, stored, ...(cpu ? { cpu } : {}) };
  const cpuText = cpu ? `, CPU per write ${cpu.clusterUsPerWrite.toFixed(0)} µs (leader ${cpu.leaderUsPerWrite.toFixed(0)} µs${cpu.leaderBusiestThreadUsPerWrite === undefined ? '' : `, its busiest thread ${cpu.leaderBusiestThreadUsPerWrite.toFixed(0)} µs`})` : '';
  progress(`${label}: ${writesPerSecond(figures).toFixed(0)} writes/s, p50 ${figures.p50Ms.toFixed(2)} ms, p99 ${figures.p99Ms.toFixed(2)} ms, ${figures.httpErrors} non-2xx, ${figures.socketErrors} socket errors, ${stored} stored${cpuText}`);
  const problem = storedProblem(result);
  if (problem) throw new Error(problem);
  return result;
}

/** CPU time (user + system, every thread) the members used over the measured run, per successful write: all three
 * together and the leader alone; undefined where /proc could not be read for one of them. */
function cpuPerWrite(before: readonly (number | undefined)[], after: readonly (number | undefined)[], leader: number, writes: number): WriteLoad['cpu'] {
  if (writes <= 0 || before.length === 0) return undefined;
  const used = before.map((start, member) => (start === undefined || after[member] === undefined ? undefined : after[member]! - start));
  if (used.some((seconds) => seconds === undefined)) return undefined;
  const total = used.reduce<number>((sum, seconds) => sum + seconds!, 0);
  return { clusterUsPerWrite: (total * 1e6) / writes, leaderUsPerWrite: (used[leader]! * 1e6) / writes };
}

async function failoverTrial(cluster: ClusterUnderTest, trial: number): Promise<FailoverTrial> {
  const result = await timeFailover(cluster, namePrefix(`${cluster.system}-failover${trial}`), pollMs, failoverLimitMs);
  progress(`${cluster.system} failover ${trial}: ${result.killed} killed; ${Number.isFinite(result.ms) ? `first write after ${result.ms.toFixed(0)} ms via ${result.via}` : `no write within ${failoverLimitMs} ms`}`);
  progress(`${cluster.system}: restarting ${result.killed} and waiting for the cluster to be healthy`);
  await cluster.restart(result.killedMember);
  await cluster.waitHealthy(recoveryLimitMs);
  const { killedMember: _, ...trialResult } = result;
  return trialResult;
}

async function main(cleanups: (() => Promise<void> | void)[]): Promise<ClusterBenchRun> {
  const wrk = wrkVersion();
  const etcd = etcdVersion();
  const loadAverage = loadavg()[0] ?? 0;
  const root = mkdtempSync(join(tmpdir(), 'edgeward-cluster-bench-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));

  const etcdCluster = await EtcdCluster.start(root, (cluster) => cleanups.push(() => cluster.stop()), progress);
  const edgeward = await EdgewardCluster.start(root, (stop) => cleanups.push(stop), progress, raftThread ? { editConfig: withRaftThread } : {});
  cleanups.push(() => edgeward.stop());
  const edgewardTimeouts = await edgeward.timeouts();
  progress(`both clusters are up: edgeward leader ${edgeward.memberNames[await edgeward.leader(30_000)]}, etcd leader ${etcdCluster.memberNames[await etcdCluster.leader(30_000)]}`);

  const loads: WriteLoad[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const [i, connections] of connectionCounts.entries()) {
      // Who goes first alternates, so neither always meets the machine just after the other's load.
      const order = (round + i) % 2 === 1 ? [edgeward, etcdCluster] : [etcdCluster, edgeward];
      for (const cluster of order) loads.push(await measure(cluster, connections, round));
    }
  }

  const failovers: FailoverTrial[] = [];
  for (let trial = 1; trial <= trials; trial++) {
    for (const cluster of [edgeward, etcdCluster]) failovers.push(await failoverTrial(cluster, trial));
  }

  return {
    date: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU', node: process.version, os: `${type()} ${release()}`, loadAverage },
    wrkVersion: wrk,
    etcdVersion: etcd,
    threads,
    seconds,
    warmupSeconds,
    edgewardTimeouts,
    raftThread,
    etcdTimeouts,
    pollMs,
    failoverLimitMs,
    rounds,
    loads,
    failovers,
  };
}

const { cleanups, runCleanups, abort, markFinishing } = benchLifecycle(budgetMs, progress);

try {
  const run = await main(cleanups);
  markFinishing();
  progress('stopping both clusters');
  await runCleanups();
  const previous = readPreviousResults(resultsFile);
  writeFileSync(resultsFile, renderClusterSection(previous, run));
  process.stdout.write(`${clusterSummary(run)}\n\nWritten to ${resultsFile} (cluster section)\n`);
  process.exit(0);
} catch (error) {
  await abort(`failed: ${(error as Error).stack ?? String(error)}`, 1);
}

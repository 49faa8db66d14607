import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  clusterSummary,
  failoverComparison,
  median,
  renderClusterSection,
  storedProblem,
  throughputComparisons,
  writesPerSecond,
  type ClusterBenchRun,
  type FailoverTrial,
  type System,
  type WriteLoad,
} from './cluster-bench-report.ts';
import type { WrkFigures } from './wrk-output.ts';

const figures = (requests: number, httpErrors = 0): WrkFigures => ({
  requests,
  durationSeconds: 10,
  requestsPerSecond: requests / 10,
  p50Ms: 2,
  p90Ms: 4,
  p99Ms: 9.5,
  maxMs: 20,
  bytes: requests * 300,
  httpErrors,
  socketErrors: 0,
});
const load = (system: System, connections: number, requests: number, httpErrors = 0, round = 1): WriteLoad => ({ system, connections, round, figures: figures(requests, httpErrors), stored: requests - httpErrors });
const trial = (system: System, ms: number): FailoverTrial => ({ system, killed: system === 'etcd' ? 'etcd1' : 'ctrl1', ms, via: system === 'etcd' ? 'etcd2' : 'ctrl2' });

const run: ClusterBenchRun = {
  date: '2026-11-22T01:00:00Z',
  machine: { cpus: 2, cpuModel: 'AMD EPYC', node: 'v20.20.2', os: 'Linux 6.1', loadAverage: 0.5 },
  wrkVersion: 'wrk 4.1.0',
  etcdVersion: '3.4.23',
  threads: 2,
  seconds: 10,
  warmupSeconds: 2,
  edgewardTimeouts: { electionTimeoutMs: 1000, heartbeatTimeoutMs: 200, commitTimeoutMs: 5000 },
  etcdTimeouts: { heartbeatIntervalMs: 100, electionTimeoutMs: 1000 },
  pollMs: 20,
  failoverLimitMs: 20_000,
  rounds: 1,
  loads: [load('edgeward', 16, 12_000), load('etcd', 16, 10_000), load('edgeward', 64, 15_000, 3_000), load('etcd', 64, 20_000)],
  failovers: [1400, 1500, 1300, 1600, 1450].flatMap((ms, i) => [trial('edgeward', ms), trial('etcd', [1200, 1700, 1900, 1250, 1500][i]!)]),
};

test('writes per second count 2xx answers only', () => {
  assert.equal(writesPerSecond(figures(10_000)), 1000);
  assert.equal(writesPerSecond(figures(10_000, 4_000)), 600);
});

test('medians of odd and even counts', () => {
  assert.equal(median([5, 1, 3]), 3);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
  assert.equal(median([1, Number.POSITIVE_INFINITY, 2]), 2);
});

test('throughput is compared per connection count against the 1.0× target', () => {
  const [at16, at64] = throughputComparisons(run.loads);
  assert.equal(at16?.connections, 16);
  assert.equal(at16?.ratio, 1.2);
  assert.equal(at16?.met, true);
  assert.equal(at64?.connections, 64);
  assert.equal(at64?.ratio, 0.6, 'non-2xx answers do not count as writes');
  assert.equal(at64?.met, false);
  assert.deepEqual(throughputComparisons([load('edgeward', 16, 1)]), [], 'a connection count without both systems is left out');
});

test('over several rounds, the ratio is of the medians, each round is also compared, and the median round is shown', () => {
  const loads = [
    load('edgeward', 16, 9_000, 0, 1),
    load('etcd', 16, 10_000, 0, 1),
    load('edgeward', 16, 30_000, 0, 2),
    load('etcd', 16, 12_000, 0, 2),
    load('edgeward', 16, 11_000, 0, 3),
    load('etcd', 16, 5_000, 0, 3),
  ];
  const [at16] = throughputComparisons(loads);
  assert.equal(at16?.edgeward.median.round, 3, 'edgeward: 900, 3000, 1100 writes/s; the median is round 3');
  assert.equal(at16?.etcd.median.round, 1, 'etcd: 1000, 1200, 500; the median is round 1');
  assert.equal(at16?.ratio, 1.1);
  assert.deepEqual(at16?.roundRatios, [0.9, 2.5, 2.2]);
  assert.equal(at16?.met, true);
  const even = throughputComparisons(loads.filter((each) => each.round !== 2));
  assert.equal(even[0]?.edgeward.median.round, 1, 'with an even count the table shows the lower middle round');
  assert.equal(even[0]?.ratio, 1000 / 750, 'and the ratio uses the mean of the two middle ones');
  const text = clusterSummary({ ...run, rounds: 3, loads });
  assert.match(text, /in 3 rounds: each measures both systems back to back/);
  assert.match(text, /\| 16 \| edgeward \| 1100 \| 2\.00 \| 9\.50 \| 0 \| 0 \| 11000 \| 900, 3000, 1100 \|/);
  assert.match(text, /at 16 connections: \*\*1\.10\*\* \(by round: 0\.90, 2\.50, 2\.20\)\. Target/);
});

test('failover compares medians, and a trial without a write counts as infinitely long', () => {
  const comparison = failoverComparison(run.failovers);
  assert.equal(comparison.edgeward.median, 1450);
  assert.equal(comparison.edgeward.max, 1600);
  assert.equal(comparison.etcd.median, 1500);
  assert.equal(comparison.etcd.max, 1900);
  assert.equal(comparison.met, true);
  const slow = failoverComparison([trial('edgeward', Number.POSITIVE_INFINITY), trial('edgeward', Number.POSITIVE_INFINITY), trial('edgeward', 10), trial('etcd', 1000)]);
  assert.equal(slow.met, false);
});

test('fewer stored writes than 2xx answers is a problem; more is not', () => {
  assert.equal(storedProblem(load('etcd', 16, 100)), undefined);
  assert.equal(storedProblem({ ...load('etcd', 16, 100), stored: 120 }), undefined);
  assert.match(storedProblem({ ...load('edgeward', 64, 100, 10), stored: 80 }) ?? '', /90 writes answered 2xx but only 80 are stored/);
});

test('the summary states the timeouts, the table, the ratios and honest verdicts', () => {
  const text = clusterSummary(run);
  assert.match(text, /electionTimeout 1000 ms, heartbeatTimeout 200 ms/);
  assert.match(text, /raft on the controller's thread \(`cluster.raftThread: false`, the default\)/);
  assert.match(clusterSummary({ ...run, raftThread: true }), /raft, its log and the peer channels on their own thread \(`cluster.raftThread: true`\)/);
  assert.match(text, /--heartbeat-interval=100 --election-timeout=1000/);
  assert.match(text, /fsync on/);
  assert.match(text, /plain HTTP/);
  assert.match(text, /Machine: 2 CPUs \(AMD EPYC\)/);
  assert.match(text, /\| 16 \| edgeward \| 1200 \| 2\.00 \| 9\.50 \| 0 \| 0 \| 12000 \| 1200 \| 9\.5 \| n\/a \| n\/a \|/);
  assert.match(text, /\| 64 \| edgeward \| 1200 \| 2\.00 \| 9\.50 \| 3000 \| 0 \| 12000 \| 1200 \| 9\.5 \| n\/a \| n\/a \|/);
  assert.match(text, /p99 edgeward\/etcd at 16 connections \(medians over the rounds\): \*\*1\.00\*\* \(by round: 1\.00\)\. Target \(the issue's\): ≤ 1\.0×: \*\*met\*\*/);
  assert.match(text, /in 1 round: each measures/);
  assert.match(text, /at 16 connections: \*\*1\.20\*\* \(by round: 1\.20\)\. Target \(the issue's\): ≥ 1\.0×: \*\*met\*\*/);
  assert.match(text, /at 64 connections: \*\*0\.60\*\* \(by round: 0\.60\)\. Target \(the issue's\): ≥ 1\.0×: \*\*not met\*\*/);
  assert.match(text, /\| edgeward \| 1450 \| 1600 \| 1400 \(ctrl1 killed, via ctrl2\);/);
  assert.match(text, /Failover median edgeward\/etcd: \*\*0\.97\*\*\. Target \(the issue's\): edgeward's median ≤ etcd's: \*\*met\*\*/);
  const timedOut = clusterSummary({ ...run, failovers: [trial('edgeward', Number.POSITIVE_INFINITY), trial('etcd', 1000)] });
  assert.match(timedOut, /\| edgeward \| > 20000 \| > 20000 \| > 20000 \(ctrl1 killed, via ctrl2\) \|/);
  assert.match(timedOut, /\*\*n\/a\*\*.*\*\*not met\*\*/);
});

test('p99 is compared by the medians over the rounds and round by round; CPU per write shows its median and every round', () => {
  const withTail = (each: WriteLoad, p99Ms: number, clusterUsPerWrite: number, leaderUsPerWrite: number, leaderBusiestThreadUsPerWrite?: number): WriteLoad => ({
    ...each,
    figures: { ...each.figures, p99Ms },
    cpu: { clusterUsPerWrite, leaderUsPerWrite, ...(leaderBusiestThreadUsPerWrite === undefined ? {} : { leaderBusiestThreadUsPerWrite }) },
  });
  const loads = [
    withTail(load('edgeward', 16, 12_000, 0, 1), 30, 900, 500, 400),
    withTail(load('etcd', 16, 10_000, 0, 1), 20, 700, 300),
    withTail(load('edgeward', 16, 11_000, 0, 2), 10, 800, 450, 380),
    withTail(load('etcd', 16, 10_500, 0, 2), 25, 650, 320),
    withTail(load('edgeward', 16, 12_500, 0, 3), 12, 850, 480),
    withTail(load('etcd', 16, 10_200, 0, 3), 15, 720, 310),
  ];
  const [comparison] = throughputComparisons(loads);
  assert.equal(comparison!.tailRatio, 12 / 20);
  assert.deepEqual(comparison!.roundTailRatios, [30 / 20, 10 / 25, 12 / 15]);
  assert.equal(comparison!.tailMet, true);
  const text = clusterSummary({ ...run, rounds: 3, loads });
  assert.match(text, /\| 16 \| edgeward \| 1200 \| 2\.00 \| 30\.00 \| 0 \| 0 \| 12000 \| 1200, 1100, 1250 \| 30\.0, 10\.0, 12\.0 \| 850 \(900, 800, 850\) \| 480 \(500, 450, 480\) \| 390 \(400, 380\) \|/);
  assert.match(text, /\| 16 \| etcd \| .* \| 310 \(300, 320, 310\) \| n\/a \|/, 'a figure no round has reads n/a');
  assert.match(text, /p99 edgeward\/etcd at 16 connections \(medians over the rounds\): \*\*0\.60\*\* \(by round: 1\.50, 0\.40, 0\.80\)\. Target \(the issue's\): ≤ 1\.0×: \*\*met\*\*/);
  const slower = throughputComparisons(loads.map((each) => (each.system === 'edgeward' ? { ...each, figures: { ...each.figures, p99Ms: each.figures.p99Ms * 3 } } : each)));
  assert.equal(slower[0]!.tailMet, false);
});

test('the section goes between its markers, leaving the rest of RESULTS.md alone', () => {
  const previous = '# Benchmark results\n\nHTTP table\n\n<!-- raft-bench:start -->\nraft\n<!-- raft-bench:end -->\n';
  const first = renderClusterSection(previous, run);
  assert.ok(first.startsWith(previous.trimEnd()));
  assert.match(first, /<!-- cluster-bench:start -->\n## Three-node clusters: edgeward vs etcd\n\nDate: 2026-11-22T01:00:00Z[\s\S]*<!-- cluster-bench:end -->\n$/);
  const second = renderClusterSection(first, { ...run, date: '2026-11-23T01:00:00Z' });
  assert.equal(second.match(/cluster-bench:start/g)?.length, 1);
  assert.ok(second.includes('2026-11-23T01:00:00Z') && !second.includes('2026-11-22T01:00:00Z'));
  assert.match(renderClusterSection(undefined, run), /^# Benchmark results\n\n<!-- cluster-bench:start -->/);
});

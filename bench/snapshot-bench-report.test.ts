import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderSnapshotSection, roundMedianRatio, roundRatio, snapshotSummary, requestFigures, type SnapshotMeasurement, type SnapshotRun, type SnapshotTaken } from './snapshot-bench-report.ts';

const writes = (p50Ms: number, p99Ms: number, maxMs: number, failed = 0) => ({ sent: 750, ok: 750 - failed, failed, failureKinds: failed > 0 ? [{ text: 'HTTP 503 CLUSTER_NO_LEADER', count: failed }] : [], p50Ms, p99Ms, maxMs });
const snapshot = (wallMs: number, sizeBytes = 40 * 1024 * 1024, serverMs?: number): SnapshotTaken => ({ wallMs, sizeBytes, index: 100_100, ...(serverMs === undefined ? {} : { serverMs }) });
const reads = (maxMs: number) => ({ sent: 300, ok: 300, failed: 0, failureKinds: [], p50Ms: 1, p99Ms: maxMs / 2, maxMs });
const without = (p99Ms: number): SnapshotMeasurement => ({ load: 'without', controller: 'ctrl1', termRise: 0, seconds: 15, writes: writes(3, p99Ms, p99Ms * 2), reads: reads(8), snapshots: [], snapshotFailures: [], cpuSeconds: 3, loadAverage: 2.25, benchStallMs: 12 });
const withSnapshots = (p99Ms: number, snapshots: SnapshotTaken[], extra: Partial<SnapshotMeasurement> = {}): SnapshotMeasurement => ({ load: 'with', controller: 'ctrl1', termRise: 0, seconds: 15, writes: writes(40, p99Ms, p99Ms + 100), reads: reads(1200), snapshots, snapshotFailures: [], cpuSeconds: 15, loadAverage: 9.5, benchStallMs: 480, ...extra });

const run: SnapshotRun = {
  date: '2026-11-29T17:00:00Z',
  machine: { cpus: 2, cpuModel: 'AMD EPYC', node: 'v20.20.2', os: 'Linux 6', loadAverage: 1.5, loadAverageAtEnd: 2.5 },
  controllers: 3,
  identities: { count: 100_000, seconds: 50, connections: 32 },
  writeRate: 50,
  readRate: 20,
  gapSeconds: 0,
  writeTargets: 500,
  settleSeconds: 3,
  rounds: [
    { round: 1, first: 'without', without: without(20), with: withSnapshots(400, [snapshot(900), snapshot(1100), snapshot(1000, 41 * 1024 * 1024, 950)]) },
    { round: 2, first: 'with', without: without(40), with: withSnapshots(400, [snapshot(800), snapshot(1200)], { snapshotFailures: ['HTTP 500 disk full', 'HTTP 500 disk full'], controller: 'ctrl2', termRise: 1 }) },
    { round: 3, first: 'without', without: { ...without(10), writes: writes(3, 10, 20, 2) }, with: withSnapshots(600, [snapshot(1000)]) },
  ],
};

test('write figures: percentiles of the accepted writes, every failure counted by what went wrong', () => {
  const samples = [
    ...Array.from({ length: 199 }, (_, i) => ({ ms: 199 - i, ok: true })),
    { ms: 5000, ok: true },
    { ms: 30_000, ok: false, error: 'no answer within 30000 ms' },
    { ms: 1, ok: false, error: 'no answer within 30000 ms' },
    { ms: 2, ok: false, error: 'HTTP 503 CLUSTER_NO_LEADER' },
  ];
  const figures = requestFigures(samples);
  assert.deepEqual(
    { sent: figures.sent, ok: figures.ok, failed: figures.failed, p50: figures.p50Ms, p99: figures.p99Ms, max: figures.maxMs },
    { sent: 203, ok: 200, failed: 3, p50: 100, p99: 198, max: 5000 },
  );
  assert.deepEqual(figures.failureKinds, [
    { text: 'no answer within 30000 ms', count: 2 },
    { text: 'HTTP 503 CLUSTER_NO_LEADER', count: 1 },
  ]);
  assert.deepEqual(requestFigures([]), { sent: 0, ok: 0, failed: 0, failureKinds: [], p50Ms: 0, p99Ms: 0, maxMs: 0 });
});

test('each round compares p99 and p50 with snapshots against without', () => {
  assert.deepEqual(run.rounds.map(roundRatio), [20, 10, 60]);
  assert.deepEqual(run.rounds.map(roundMedianRatio).map((ratio) => ratio.toFixed(2)), ['13.33', '13.33', '13.33']);
});

test('the summary lists every round in the order measured, every snapshot, the medians and the failures', () => {
  const text = snapshotSummary(run);
  const rows = text.split('\n').filter((line) => /^\| \d /.test(line));
  assert.equal(rows.length, 6);
  assert.match(rows[0]!, /^\| 1 \| without \| ctrl1 \| 0 \| 750\/750 \| 0 \| 3\.0 \| 20\.0 \| 40\.0 \| 4\.0 \| 8\.0 \| 0 \| – \| – \| – \| 20% \| 2\.3 \| 12 \|$/);
  assert.match(rows[1]!, /^\| 1 \| with snapshots \| ctrl1 \| 0 \| 750\/750 \| 0 \| 40\.0 \| 400\.0 \| 500\.0 \| 600\.0 \| 1200\.0 \| 3 \| 1000 \| 1100 \| 40\.0 MiB \| 100% \| 9\.5 \| 480 \|$/);
  assert.match(rows[2]!, /^\| 2 \| with snapshots \| ctrl2 \| 1 \| .* \| 2 \(\+2 failed\) \| 800 \| 1200 \|/, 'round 2 measured with snapshots first');
  assert.match(text, /Round 1, each snapshot's wall time \(ms\): 900, 1100, 1000\.\nRound 2, each snapshot's wall time \(ms\): 800, 1200\./);
  assert.match(text, /p99\(with\)\/p99\(without\): round 1: 20\.00, round 2: 10\.00, round 3: 60\.00; median \*\*20\.00\*\*/);
  assert.match(text, /p50\(with\)\/p50\(without\): round 1: 13\.33, round 2: 13\.33, round 3: 13\.33; median \*\*13\.33\*\*/);
  assert.match(text, /Write p99 \(median over the rounds\): without 20\.0 ms, with snapshots 400\.0 ms/);
  assert.match(text, /Snapshots: 6, wall time median \*\*1000 ms\*\*, min 800 ms, max 1200 ms; as the controller timed them \(`durationMs`\): median 950 ms, max 950 ms; size median \*\*40\.0 MiB\*\* \(41943040 bytes, 419 bytes per identity\)/);
  assert.match(text, /A 3-controller cluster .* loaded with 100,000 identities through the leader's management API .*: 50 s, \*\*2000 identities\/s\*\*/);
  assert.match(text, /Read probe max \(median over the rounds\): without 8\.0 ms, with snapshots 1200\.0 ms\./);
  assert.match(text, /sent to the leader again as soon as the last one was answered/);
  assert.match(snapshotSummary({ ...run, gapSeconds: 5 }), /sent to the leader 5 s after the last one was answered/);
  assert.match(text, /Raft term rises \(elections\): 1 while snapshots were taken, 0 without\./);
  assert.match(text, /load average 1\.50 at start, 2\.50 at the end/);
  assert.match(text, /Failures, round 2 with snapshots: 2 × snapshot: HTTP 500 disk full\.\nFailures, round 3 without: 2 × HTTP 503 CLUSTER_NO_LEADER\./);
});

test('one controller is named as such; without /proc the CPU reads n/a; a run with no snapshot says so', () => {
  const bare = { ...run, controllers: 1, rounds: [{ ...run.rounds[0]!, without: { ...without(20), cpuSeconds: undefined }, with: withSnapshots(20, []) }] };
  const text = snapshotSummary(bare);
  assert.match(text, /\| 1 \| without .* \| n\/a \|/);
  assert.match(text, /Snapshots: none was written\./);
  assert.doesNotMatch(text, /durationMs/);
  assert.match(text, /One controller \(a cluster of one voter\) on loopback .* through the controller's management API/);
});

test('the section replaces its own markers and keeps the rest of RESULTS.md', () => {
  const first = renderSnapshotSection('# Benchmark results\n\nother\n', run, 'notes');
  assert.match(first, /other\n\n<!-- snapshot-bench:start -->\n## Snapshots: time and size at 100k identities/);
  const second = renderSnapshotSection(first, { ...run, date: '2026-11-30T00:00:00Z' }, 'notes');
  assert.equal(second.match(/snapshot-bench:start/g)?.length, 1);
  assert.match(second, /2026-11-30T00:00:00Z/);
  assert.doesNotMatch(second, /2026-11-29T17:00:00Z/);
  assert.match(second, /^other$/m);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blockSize, creationBlocks, creationSlowdown, renderScaleSection, scaleSummary, secondsAt, type CircuitRound, type ScaleRun, type WriteRound } from './scale-bench-report.ts';

const figures = (p50Ms: number, p99Ms: number, failed = 0) => ({ sent: 200, ok: 200 - failed, failed, failureKinds: failed > 0 ? [{ text: 'HTTP 503', count: failed }] : [], p50Ms, p99Ms, maxMs: p99Ms * 2 });
const rate = (perSecond: number, p99: number, failed = 0) => ({ completed: perSecond * 10, failed, perSecond, setupMs: { p50: p99 / 3, p99, max: p99 * 2 }, ...(failed > 0 ? { firstFailure: 'connect ECONNREFUSED' } : {}) });

const writes: WriteRound[] = [
  { round: 1, first: 'empty', empty: figures(3, 10), full: figures(4, 12) },
  { round: 2, first: 'full', empty: figures(3, 20), full: figures(5, 60, 2) },
  { round: 3, first: 'empty', empty: figures(3, 10), full: figures(4, 14) },
];
const circuits: CircuitRound[] = [
  { round: 1, first: 'socat', socat: rate(3000, 5), overlay: rate(900, 25) },
  { round: 2, first: 'overlay', socat: rate(2800, 6), overlay: rate(1100, 18, 3) },
];

/** 1M identities in ten wrk runs of 100k; each run a second longer than the one before (10 s, 11 s, …, 19 s). */
const timeline = Array.from({ length: 10 }, (_, i) => ({ count: (i + 1) * 100_000, loadSeconds: Array.from({ length: i + 1 }, (__, j) => 10 + j).reduce((a, b) => a + b, 0) }));

const run: ScaleRun = {
  date: '2026-11-29T21:00:00Z',
  machine: { cpus: 2, cpuModel: 'AMD EPYC', node: 'v20.20.2', os: 'Linux 6', loadAverage: 1.5, loadAverageAtEnd: 3.25 },
  plan: { identities: 1_000_000, services: 2000, servicePolicies: 2500, edgeRouterPolicies: 2500, edgeRouters: 5000, roleGroups: 1000, wrkConnections: 32, entityConcurrency: 16, memoryStops: [0, 100_000, 250_000, 500_000, 1_000_000] },
  entities: [
    { kind: 'services', count: 2000, seconds: 4, failed: 0 },
    { kind: 'edge routers', count: 4999, seconds: 20, failed: 1, firstFailure: 'HTTP 500 boom' },
  ],
  identities: { count: 1_000_000, seconds: 200, timeline, stoppedAtDeadline: false },
  memory: [
    { identities: 0, controller: 'ctrl1', role: 'leader', rssBytes: 200 * 2 ** 20, heapUsedBytes: 80 * 2 ** 20 },
    { identities: 1_000_000, controller: 'ctrl1', role: 'leader', rssBytes: 3 * 2 ** 30, heapUsedBytes: 2 * 2 ** 30 },
    { identities: 1_000_000, controller: 'ctrl2', role: 'follower', rssBytes: 2.5 * 2 ** 30 },
  ],
  latency: [
    { request: 'GET /identities?filter=name contains "-4242"&limit=25', controller: 'ctrl1', role: 'leader', requests: 200, failed: 0, p50Ms: 30, p99Ms: 45, maxMs: 60, totalCount: 1234, targetP99Ms: 50 },
    { request: 'GET /identities?filter=name contains "-4242"&limit=25', controller: 'ctrl2', role: 'follower', requests: 200, failed: 0, p50Ms: 40, p99Ms: 80, maxMs: 90, totalCount: 1234, targetP99Ms: 50 },
  ],
  logins: [{ method: 'password', controller: 'ctrl1', concurrency: 8, seconds: 10, logins: 250, failed: 0, p50Ms: 300, p99Ms: 500 }],
  writeRate: 20,
  writeSeconds: 10,
  writes,
  snapshot: { seconds: 6.5, sizeBytes: 300 * 2 ** 20, index: 1_020_000, restoreSeconds: 12.25, restoredStartSeconds: 20, restoredIdentities: 1_000_000 },
  catchUp: { controller: 'ctrl4 (new, in place of ctrl3)', seconds: 95.5, leaderApplied: 1_020_010, followerApplied: 1_020_010, identities: 1_000_000 },
  circuitSeconds: 10,
  circuitConcurrency: 8,
  circuits,
  phases: [
    { name: 'create identities', status: 'done', seconds: 900 },
    { name: 'restore of the backup', status: 'timed out', seconds: 900, detail: 'ran past its 900 s limit' },
  ],
};

test('creation time per block: interpolated within wrk runs, the last block against the first', () => {
  assert.equal(secondsAt(timeline, 0), 0);
  assert.equal(secondsAt(timeline, 50_000), 5);
  assert.equal(secondsAt(timeline, 150_000), 15.5);
  assert.equal(secondsAt(timeline, 1_000_001), undefined);
  const blocks = creationBlocks(timeline);
  assert.equal(blocks.length, 10);
  assert.deepEqual(blocks[0], { from: 0, to: 100_000, seconds: 10 });
  assert.deepEqual(blocks[9], { from: 900_000, to: 1_000_000, seconds: 19 });
  assert.equal(creationSlowdown(blocks), 1.9);
  // A development run has blocks of a tenth of what was stored.
  assert.equal(blockSize(20_000), 2_000);
  assert.equal(creationBlocks([{ count: 20_500, loadSeconds: 20.5 }]).length, 10);
  assert.ok(Math.abs(creationSlowdown(creationBlocks([{ count: 5, loadSeconds: 1 }]))! - 1) < 1e-9);
  assert.equal(creationSlowdown([]), undefined);
});

test('the section: every round, the ratios, and each target judged plainly', () => {
  const text = scaleSummary(run);
  assert.match(text, /\| edge routers \| 4,999 \| 1 \| 20\.0 \| 250 \|/);
  assert.match(text, /First failure creating edge routers: HTTP 500 boom\./);
  assert.match(text, /\| 900,000 → 1,000,000 \| 19\.0 \| 5263 \|/);
  assert.match(text, /Last 100,000 against the first: \*\*1\.90x\*\* as long \(target ≤ 1\.5x\): \*\*not met\*\*/);
  assert.match(text, /Leader RSS at the full model: \*\*3072 MiB\*\* \(target ≤ 1 GiB at 1,000,000\): \*\*not met\*\*/);
  assert.match(text, /\| 1,000,000 \| ctrl2 \| follower \| 2560 MiB \| n\/a \|/);
  assert.match(text, /ctrl1 \| leader \| 200 \| 0 \| 1,234 \| 30\.0 \| 45\.0 \| 60\.0 \| ≤ 50 ms: met \|/);
  assert.match(text, /ctrl2 \| follower \| 200 \| 0 \| 1,234 \| 40\.0 \| 80\.0 \| 90\.0 \| ≤ 50 ms: not met \|/);
  assert.match(text, /\| password \| ctrl1 \| 8 \| 10\.0 \| 250 \| 0 \| 25\.0 \|/);
  // Six write rows, in the order each round ran them; the ratio is the median round's.
  assert.equal(text.match(/^\| \d \| (full model|empty) \|/gm)?.length, 6);
  assert.match(text, /round 1: 1\.20, round 2: 3\.00, round 3: 1\.40; median \*\*1\.40\*\* \(target ≤ 1\.5\): \*\*met\*\*/);
  assert.match(text, /Failures, round 2 full: 2 × HTTP 503\./);
  assert.match(text, /snapshot` on the leader: \*\*6\.5 s\*\*, 300 MiB/);
  assert.match(text, /restore` into an empty data folder: \*\*12\.3 s\*\*/);
  assert.match(text, /ctrl4 \(new, in place of ctrl3\) caught up \(applied index 1020010 ≥ the leader's 1020010 when it was added, 1,000,000 identities, as on the leader\) after \*\*95\.5 s\*\* \(target ≤ 120 s\): \*\*met\*\*/);
  assert.match(text, /\| 2 \| overlay \(r1 → r2\) \| 11000 \| 3 \| 1100 \| 6\.0 \| 18\.0 \| 36\.0 \|/);
  assert.match(text, /round 1: 0\.30, round 2: 0\.39/);
  // The median of an even count is the lower middle one, as elsewhere in bench/.
  assert.match(text, /\*\*900 circuits\/s\*\*, setup p99 \*\*18\.0 ms\*\*.*\*\*not met\*\*/);
  assert.match(text, /First failure, round 2 overlay: connect ECONNREFUSED\./);
  assert.match(text, /- restore of the backup: timed out after 900 s \(ran past its 900 s limit\)/);
});

test('a run that stopped early says what did not happen instead of inventing it', () => {
  const partial: ScaleRun = { ...run, identities: undefined, memory: [{ identities: 250_000, controller: 'ctrl1', role: 'leader', rssBytes: 900 * 2 ** 20 }], latency: [], logins: [], writes: [], snapshot: undefined, catchUp: undefined, circuits: [] };
  const text = scaleSummary(partial);
  assert.match(text, /Identities: the load did not finish/);
  const cut = scaleSummary({ ...run, identities: { count: 600_000, seconds: 120, timeline: timeline.slice(0, 6), stoppedAtDeadline: true } });
  assert.match(cut, /The identity load stopped at its time limit with \*\*600,000 of 1,000,000\*\* identities/);
  assert.match(cut, /Last 100,000 against the first: \*\*1\.50x\*\*.*\*\*met\*\*/);
  assert.match(text, /Leader RSS at 250,000 identities, the most this run stored \(not the full model\): \*\*900 MiB\*\*.*not judged/);
  assert.match(text, /No read was measured\./);
  assert.match(text, /Snapshot: not taken/);
  assert.match(text, /Follower caught up from empty: not measured/);
  assert.doesNotMatch(text, /circuits\/s/);
});

test('the section replaces its own markers and keeps the others', () => {
  const previous = '# Benchmark results\n\n<!-- snapshot-bench:start -->\nkept\n<!-- snapshot-bench:end -->\n\n<!-- scale-bench:start -->\nold\n<!-- scale-bench:end -->\n\n<!-- scale-notes:start -->\nby hand\n<!-- scale-notes:end -->\n';
  const next = renderScaleSection(previous, run, 'Choices: here.');
  assert.match(next, /<!-- snapshot-bench:start -->\nkept\n<!-- snapshot-bench:end -->/);
  assert.match(next, /<!-- scale-notes:start -->\nby hand\n<!-- scale-notes:end -->/);
  assert.doesNotMatch(next, /\nold\n/);
  assert.match(next, /<!-- scale-bench:start -->\n## Scale: the controller at ten times "Large"\n\nDate: 2026-11-29T21:00:00Z[\s\S]*Choices: here\.\n<!-- scale-bench:end -->/);
});

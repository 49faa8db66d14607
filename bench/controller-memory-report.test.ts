import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GcFigures, LoadFigures } from './controller-memory-model.ts';
import { memorySummary, probeFigures, renderMemorySection, roundRatio, type MemoryRun, type ProbeMeasurement } from './controller-memory-report.ts';

const noGc: GcFigures = { scavenges: 0, scavengeMs: 0, scavengeP99Ms: 0, markCompacts: 0, markCompactMs: 0, markCompactP99Ms: 0 };
const mib = 1024 * 1024;
const point = (identities: number, heapMiB: number, rssMiB: number, added = identities, seconds = 10): LoadFigures => ({
  added,
  seconds,
  cpuSeconds: seconds / 2,
  gc: { ...noGc, scavenges: 12, scavengeP99Ms: 40 },
  memory: { identities, heapUsedBytes: heapMiB * mib, heapTotalBytes: (heapMiB + 50) * mib, rssBytes: rssMiB * mib, externalBytes: 0, rows: identities + 12_000 },
});
const probe = (p99Ms: number): ProbeMeasurement => ({ writes: 1000, p50Ms: 0.5, p99Ms, maxMs: p99Ms * 2, cpuUsPerWrite: 700, gc: noGc, forcedScavengeP50Ms: 0.4, forcedScavengeP99Ms: 2, loadAverage: 3 });

const run: MemoryRun = {
  date: '2026-11-29T21:00:00Z',
  machine: { cpus: 2, cpuModel: 'AMD EPYC', node: 'v20.20.2', os: 'Linux 6', loadAverage: 2, loadAverageAtEnd: 3 },
  nodeFlags: [],
  model: { routers: 5000, services: 2000, servicePolicies: 2500, edgeRouterPolicies: 2500 },
  baselineHeapBytes: 8 * mib,
  checkpoints: [point(0, 20, 140, 0, 0), point(100_000, 60, 220), point(1_000_000, 420, 1100, 900_000, 90)],
  reopened: { memory: point(1_000_000, 400, 900).memory, seconds: 40 },
  writeRate: 100,
  probeSeconds: 10,
  rounds: [
    { round: 1, first: 'empty', empty: probe(10), full: probe(30) },
    { round: 2, first: 'full', full: probe(12), empty: probe(10) },
    { round: 3, first: 'empty', empty: probe(20), full: probe(20) },
  ],
  breakdown: [
    { part: 'rows Map (id → row)', bytes: 28 * mib },
    { part: 'row objects, their strings and arrays (the rest)', bytes: 300 * mib },
  ],
};

test('probe figures: percentiles of the writes and of the forced scavenges, CPU per write', () => {
  const figures = probeFigures({ writes: 200, latenciesMs: Array.from({ length: 200 }, (_, i) => 200 - i), cpuSeconds: 0.1, gc: noGc, forcedScavengesMs: [3, 1, 2, 40] }, 1.5);
  assert.deepEqual(
    { p50: figures.p50Ms, p99: figures.p99Ms, max: figures.maxMs, cpu: figures.cpuUsPerWrite, f50: figures.forcedScavengeP50Ms, f99: figures.forcedScavengeP99Ms },
    { p50: 100, p99: 198, max: 200, cpu: 500, f50: 2, f99: 40 },
  );
});

test('each round compares the full model write p99 with the empty one; the median decides the target', () => {
  assert.deepEqual(run.rounds.map(roundRatio), [3, 1.2, 1]);
  const text = memorySummary(run);
  assert.match(text, /round 1: 3\.00, round 2: 1\.20, round 3: 1\.00; median \*\*1\.20\*\* \(target ≤ 1\.5: met\)/);
});

test('every size, the reopened model and every round are rows of the section; bytes per identity above the 0 row', () => {
  const text = memorySummary(run);
  // (60 - 20) MiB over 100k identities, (420 - 20) MiB over 1M; RSS likewise.
  assert.match(text, /\| 100,000 \| 10\.0 \| 10000 \| 50\.0 \| 60\.0 \| 110\.0 \| 220\.0 \| 419 \| 839 \| 12 \| 40\.00 \|/);
  assert.match(text, /\| 1,000,000 \| 90\.0 \| 10000 \| 50\.0 \| 420\.0 \|/);
  assert.match(text, /\| 1,000,000, reopened \| 40\.0 \|/);
  assert.match(text, /RSS \*\*1100\.0 MiB\*\* as loaded, over the 1 GiB target, and \*\*900\.0 MiB\*\* reopened, within it/);
  assert.match(text, /\| rows Map \(id → row\) \| 28\.0 \| 29 \|/);
  assert.equal(text.split('\n').filter((line) => /^\| [123] \| (empty|full)/.test(line)).length, 6);
  assert.match(text.split('\n').find((line) => line.startsWith('| 2 |'))!, /full \(1,000,000\)/, 'round 2 starts with the full model');
});

test('the section replaces its own markers and keeps the rest of RESULTS.md', () => {
  const previous = '# Benchmark results\n\n<!-- other-bench:start -->\nkept\n<!-- other-bench:end -->\n\n<!-- controller-memory-bench:start -->\nold\n<!-- controller-memory-bench:end -->\n\n<!-- controller-memory-notes:start -->\nnotes\n<!-- controller-memory-notes:end -->\n';
  const next = renderMemorySection(previous, run);
  assert.match(next, /kept/);
  assert.match(next, /notes/);
  assert.doesNotMatch(next, /\nold\n/);
  assert.equal(next.match(/controller-memory-bench:start/g)!.length, 1);
});

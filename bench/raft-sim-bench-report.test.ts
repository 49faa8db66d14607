import assert from 'node:assert/strict';
import { test } from 'node:test';
import { medianSpeed, previousLongRuns, renderLongRuns, renderSimSection, type SimBenchRun } from './raft-sim-bench-report.ts';

const run: SimBenchRun = {
  date: '2026-11-26T10:00:00Z',
  machine: { cpus: 2, cpuModel: 'Test CPU', node: 'v20.20.2', os: 'Linux', loadAverage: 0.5 },
  steps: 3000,
  speed: [1, 2, 3].flatMap((round) => [
    { round, nodes: 3, workers: 1, seeds: 100, seconds: 4 + round * 0.1, failed: 0 },
    { round, nodes: 3, workers: 2, seeds: 100, seconds: 2 + round * 0.1, failed: 0 },
    { round, nodes: 5, workers: 1, seeds: 100, seconds: 6, failed: 0 },
    { round, nodes: 5, workers: 2, seeds: 100, seconds: 3, failed: round === 2 ? 1 : 0 },
  ]),
  mutants: { budget: 2000, seconds: 20, figures: [{ name: 'quorum-one-short', seed: 1, seedsRun: 2, seconds: 1, failure: 'commit safety: n1 committed index 2' }, { name: 'other', seedsRun: 2000, seconds: 60 }] },
};

test('medians, ratios against one worker, every round, failures and the planted bugs are reported', () => {
  assert.equal(medianSpeed(run, 3, 2), 100 / 2.2);
  const text = renderSimSection(undefined, run);
  assert.match(text, /<!-- raft-sim-bench:start -->/);
  assert.match(text, /\| 3 \| 2 \| 45\.5 \| 47\.6, 45\.5, 43\.5 \| 44 \| 0 \|/);
  assert.match(text, /\| 5 \| 2 \| 33\.3 \| 33\.3, 33\.3, 33\.3 \| 60 \| 1 \|/);
  assert.match(text, /3 voters: 2 workers \/ 1 worker \*\*1\.91\*\*/);
  assert.match(text, /\*\*1 of 2 caught\*\*/);
  assert.match(text, /\| `other` \| not caught in 2000 \|/);
  assert.match(text, /\| `quorum-one-short` \| 1 \| 2 \| 1\.0 \| commit safety \|/);
  assert.match(text, /Long runs: none recorded yet/);
});

test('long runs are written when made and carried over otherwise', () => {
  const long = renderLongRuns([{ nodes: 3, first: 10_000_001, seeds: 100_000, passed: 100_000, failed: 0, seconds: 1800, workers: 2 }]);
  assert.match(long, /\| 3 \| 10000001\.\.10100000 \| 100000 \| 0 \| 30\.0 min \| 55\.6 \| 2 \|/);
  const first = renderSimSection('# Benchmark results\n', { ...run, longRuns: [{ nodes: 3, first: 10_000_001, seeds: 100_000, passed: 100_000, failed: 0, seconds: 1800, workers: 2 }] });
  assert.equal(previousLongRuns(first), long);
  const second = renderSimSection(first, run);
  assert.equal(previousLongRuns(second), long);
  assert.equal(second.match(/raft-sim-bench:start/g)?.length, 1);
  assert.match(renderLongRuns([{ nodes: 5, first: 1, seeds: 10, passed: 9, failed: 1, seconds: 1, workers: 2, note: 'seed 3 was a checker bug, since fixed' }]), /\n5 voters: seed 3 was a checker bug, since fixed\n/);
});

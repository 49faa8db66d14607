// The CI seed budget for the simulator: every seed must keep the raft safety properties through the fault phase
// and converge after healing. A failing seed is printed with the command that replays it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runSeeds } from './run-seeds.ts';
import { runSimulation } from './simulation.ts';

const report = (summary: ReturnType<typeof runSeeds>, steps: number, nodes: number) =>
  summary.failed.map((failure) => `seed ${failure.seed} step ${failure.step}: ${failure.failure}\n  replay: ./edgeward raft sim --seed ${failure.seed} --steps ${steps} --nodes ${nodes} --trace`).join('\n');

test('500 seeds of a three-voter cluster (plus a spare added and removed) keep every safety property and converge', () => {
  const summary = runSeeds({ first: 1, seeds: 500, steps: 3000, nodes: 3 });
  assert.equal(summary.failed.length, 0, report(summary, 3000, 3));
  assert.equal(summary.passed, 500);
});

test('100 seeds of a five-voter cluster keep every safety property and converge', () => {
  const summary = runSeeds({ first: 100_001, seeds: 100, steps: 3000, nodes: 5 });
  assert.equal(summary.failed.length, 0, report(summary, 3000, 5));
});

test('the simulator makes progress under faults: elections, commits, snapshots, crashes all happen', () => {
  const totals = { elections: 0, committed: 0, snapshotsInstalled: 0, crashes: 0, dropped: 0, acknowledged: 0 };
  for (let seed = 1; seed <= 20; seed++) {
    const { stats } = runSimulation({ seed, steps: 3000 });
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += stats[key];
  }
  for (const [key, value] of Object.entries(totals)) assert.ok(value > 20, `${key}: ${value}`);
});

test('a seed replays exactly: the same seed gives the same trace', () => {
  const traces = [0, 1].map(() => {
    const lines: string[] = [];
    runSimulation({ seed: 4242, steps: 1500, trace: (line) => lines.push(line) });
    return lines;
  });
  assert.ok(traces[0]!.length > 100);
  assert.deepEqual(traces[0], traces[1]);
  const other: string[] = [];
  runSimulation({ seed: 4243, steps: 1500, trace: (line) => other.push(line) });
  assert.notDeepEqual(other, traces[0]);
});

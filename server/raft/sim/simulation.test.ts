// The CI seed budget for the simulator, which runs the real RaftNode: every seed must keep every safety property
// through the fault phase and converge after healing. A fixed range runs every time and a random range adds new
// seeds on each run; both are printed, and a failing seed is printed with the command that replays it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { replayCommand } from '../../cli/raft-command.ts';
import { repoRoot, runSeedPool, type SeedPoolOptions } from './seed-pool.ts';
import { runSimulation } from './simulation.ts';

const steps = 3000;

async function runRange(t: TestContext, options: Omit<SeedPoolOptions, 'steps'>): Promise<void> {
  const range = `seeds ${options.first}..${options.first + options.seeds - 1} with ${options.nodes} voters`;
  t.diagnostic(range);
  const summary = await runSeedPool({ ...options, steps });
  const report = summary.failed.map((failure) => `seed ${failure.seed} step ${failure.step}: ${failure.failure}\n  replay: ${replayCommand(failure, steps, options.nodes)}`).join('\n');
  assert.equal(summary.failed.length, 0, `${range}:\n${report}`);
  assert.equal(summary.passed, options.seeds);
  t.diagnostic(`${range}: ${summary.passed} passed in ${(summary.elapsedMs / 1000).toFixed(1)} s`);
}

test('a fixed range of seeds: three voters (and a spare that joins and leaves) keep every property and converge', (t) => runRange(t, { first: 1, seeds: 300, nodes: 3 }));

test('a fixed range of seeds: five voters keep every property and converge', (t) => runRange(t, { first: 100_001, seeds: 80, nodes: 5 }));

test('a random range of new seeds each run, printed', async (t) => {
  await runRange(t, { first: randomInt(1_000_000, 0xf0000000), seeds: 100, nodes: 3 });
  await runRange(t, { first: randomInt(1_000_000, 0xf0000000), seeds: 30, nodes: 5 });
});

test('the simulator exercises what it claims: elections, commits, snapshots, crashes, lost writes, disk faults, reads, membership changes', async () => {
  const totals = { elections: 0, committed: 0, acknowledged: 0, snapshotsInstalled: 0, crashes: 0, dropped: 0, writesLost: 0, diskFaults: 0, reads: 0, membershipChanges: 0 };
  for (let seed = 1; seed <= 20; seed++) {
    const { stats } = await runSimulation({ seed, steps });
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += stats[key];
  }
  for (const [key, value] of Object.entries(totals)) assert.ok(value >= 20, `${key}: ${value}`);
  assert.ok(totals.acknowledged >= 500, `acknowledged: ${totals.acknowledged}`);
});

test('a seed replays exactly, and its printed command replays it step for step in another process', async () => {
  const traces = await Promise.all(
    [0, 1].map(async () => {
      const lines: string[] = [];
      await runSimulation({ seed: 4242, steps: 800, trace: (line) => lines.push(line) });
      return lines;
    }),
  );
  assert.ok(traces[0]!.length > 100);
  assert.deepEqual(traces[0], traces[1]);
  const other: string[] = [];
  await runSimulation({ seed: 4243, steps: 800, trace: (line) => other.push(line) });
  assert.notDeepEqual(other, traces[0]);

  const command = replayCommand({ seed: 4242 }, 800, 3).replace(/^\.\/edgeward /, '').split(' ');
  const replay = spawnSync(join(repoRoot, 'edgeward'), command, { encoding: 'utf8', timeout: 60_000 });
  assert.equal(replay.status, 0, replay.stderr);
  const replayed = replay.stdout.split('\n').filter((line) => line.startsWith('['));
  assert.deepEqual(replayed, traces[0]);
});

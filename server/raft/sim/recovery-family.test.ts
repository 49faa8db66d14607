// The simulator's recovery family: part-way through the faults a majority is lost for good, the survivor is forced to
// a single voter (forceSingleVoter over its simulated disk) and fresh servers join it. Every seed must keep every
// property across that epoch boundary and converge; what only the lost servers held is reported, not failed; and a
// recovery done wrong is caught.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { replayCommand } from '../../cli/raft-command.ts';
import { forceSingleVoter } from '../node/forced-recovery.ts';
import type { RaftStore } from '../storage/raft-storage.ts';
import { runSeedPool } from './seed-pool.ts';
import type { RecoverCommand } from './sim-server.ts';
import { runSimulation, type SimulationResult } from './simulation.ts';

const steps = 3000;

async function runRange(t: TestContext, first: number, seeds: number, nodes: number): Promise<SimulationResult[]> {
  const range = `recovery family: seeds ${first}..${first + seeds - 1} with ${nodes} voters`;
  const results: SimulationResult[] = [];
  const summary = await runSeedPool({ first, seeds, steps, nodes, family: 'recovery' }, (result) => results.push(result));
  const report = summary.failed.map((failure) => `seed ${failure.seed} step ${failure.step}: ${failure.failure}\n  replay: ${replayCommand(failure, steps, nodes, undefined, 'recovery')}`).join('\n');
  assert.equal(summary.failed.length, 0, `${range}:\n${report}`);
  const lost = results.reduce((sum, result) => sum + result.stats.writesLostToRecovery.length, 0);
  t.diagnostic(`${range}: ${summary.passed} passed in ${(summary.elapsedMs / 1000).toFixed(1)} s; ${lost} committed entries lost to recovery in ${results.filter((result) => result.stats.writesLostToRecovery.length > 0).length} seeds`);
  return results;
}

test('recovery seeds of three voters: every one loses its majority, recovers on the survivor, keeps every property across the boundary and converges with fresh members', async (t) => {
  const results = await runRange(t, 1, 30, 3);
  assert.ok(results.every((result) => result.stats.recoveries === 1), 'each seed recovered once');
  assert.ok(results.every((result) => result.stats.rejoined === 2), 'two fresh servers replaced the lost voters in every seed');
  assert.ok(results.some((result) => result.stats.recoveryRuns > 1), 'some recoveries were killed part-way and run again');
  // The losses are reported, with their indexes: committed entries only the lost servers held.
  const lossy = results.filter((result) => result.stats.writesLostToRecovery.length > 0);
  assert.ok(lossy.length >= 3, `${lossy.length} seeds reported losses`);
  assert.ok(results.some((result) => result.stats.acknowledgedLostToRecovery > 0), 'acknowledged writes were among them');
  for (const { stats } of lossy) assert.ok(stats.writesLostToRecovery.every((index, i, all) => index > 0 && (i === 0 || index > all[i - 1]!)));
});

test('recovery seeds of five voters: all but one lost, the survivor recovers and four fresh servers join', async (t) => {
  const results = await runRange(t, 100_001, 8, 5);
  assert.ok(results.every((result) => result.stats.recoveries === 1 && result.stats.rejoined === 4));
});

test('a recovery seed replays exactly, and names what it lost in its trace', async () => {
  const traces = await Promise.all(
    [0, 1].map(async () => {
      const lines: string[] = [];
      const result = await runSimulation({ seed: 3, steps, family: 'recovery', trace: (line) => lines.push(line) });
      return { lines, result };
    }),
  );
  assert.deepEqual(traces[0]!.lines, traces[1]!.lines);
  const { lines, result } = traces[0]!;
  assert.ok(result.ok, result.failure);
  assert.ok(result.stats.writesLostToRecovery.length > 0, 'seed 3 loses writes');
  const line = lines.find((text) => text.includes('lost with the majority'));
  assert.ok(line?.includes(`indexes ${result.stats.writesLostToRecovery.join(',')}`), line);
  assert.ok(lines.some((text) => /forced to a single voter at \d+/.test(text)));
});

/** Resets the log without applying its tail: the snapshot is the state machine's state, at the index it had applied. */
const resetWithoutApplyingTheTail: RecoverCommand = async ({ id, store, snapshots, stateMachine }) => {
  const index = stateMachine.appliedIndex();
  const [newest] = await snapshots.list();
  const [entry] = await store.entries(index, index);
  const term = entry?.term ?? (newest?.index === index ? newest.term : 0);
  const configuration = { voters: [id], nonVoters: [] };
  await snapshots.save({ meta: { index, term, configuration }, data: stateMachine.snapshot() });
  await store.reset();
  const hard = await store.hardState();
  await store.setHardState({ term: Math.max(hard?.term ?? 0, term), vote: hard?.vote ?? null, commit: index });
  return { index, term, previous: configuration, configuration, applied: 0 };
};

/** Keeps only what the survivor knew to be committed, dropping the rest of its log: what the lost majority had
 * committed and acknowledged, which the survivor held without knowing, goes too. */
const keepOnlyWhatTheSurvivorKnewCommitted: RecoverCommand = async (options) => {
  const hard = await options.store.hardState();
  const known = Math.max(hard?.commit ?? 0, options.stateMachine.appliedIndex());
  const store = Object.create(options.store) as RaftStore;
  store.lastIndex = async () => Math.min(await options.store.lastIndex(), known);
  return forceSingleVoter({ ...options, store });
};

// The same seeds pass with forceSingleVoter (the first test runs them).
test('a recovery done wrong is caught: resetting the log without applying its tail, or dropping the tail the survivor did not know committed', async (t) => {
  for (const [name, recover] of [
    ['reset without applying the tail', resetWithoutApplyingTheTail],
    ['drop the tail not known committed', keepOnlyWhatTheSurvivorKnewCommitted],
  ] as const) {
    const caught: string[] = [];
    for (let seed = 1; seed <= 8; seed++) {
      const wrong = await runSimulation({ seed, steps, family: 'recovery', recover });
      if (!wrong.ok) caught.push(`seed ${seed}: ${wrong.failure!.split('\n')[0]}`);
    }
    t.diagnostic(`${name}: ${caught.length} of 8 seeds caught\n${caught.join('\n')}`);
    assert.ok(caught.length >= 2, `${name}: caught in ${caught.length} seeds`);
    assert.ok(caught.some((failure) => /state machine safety|acknowledged proposal lost|read your writes/.test(failure)), caught.join('\n'));
  }
});

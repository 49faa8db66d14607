// The planted-bug suite: every mutant must be caught within its seed budget (the bar is 2,000 seeds), and a
// mutant whose text no longer occurs in the code is refused rather than silently skipped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyMutant } from './mutant-tree.ts';
import { mutants } from './mutants.ts';
import { runMutants } from './run-mutants.ts';

const budget = 2000;

test(`every planted bug is caught by the simulator within ${budget} seeds`, async (t) => {
  assert.ok(mutants.length >= 8, `${mutants.length} mutants`);
  const outcomes = await runMutants({ first: 1, seeds: budget, steps: 3000, nodes: 3 }, (outcome) => {
    t.diagnostic(
      outcome.caught
        ? `${outcome.mutant.name}: caught by seed ${outcome.caught.seed} (step ${outcome.caught.step}) in ${(outcome.elapsedMs / 1000).toFixed(1)} s: ${outcome.caught.failure.split('\n')[0]}`
        : `${outcome.mutant.name}: NOT caught in ${outcome.seedsRun} seeds`,
    );
  });
  const missed = outcomes.filter((outcome) => !outcome.caught).map((outcome) => outcome.mutant.name);
  assert.deepEqual(missed, []);
  assert.equal(outcomes.length, mutants.length);
});

test('a mutant applies only where its text occurs exactly once', () => {
  const mutant = { name: 'example', breaks: 'nothing', file: 'core/x.ts', find: 'a < b', replace: 'a <= b' };
  assert.equal(applyMutant('if (a < b) return;', mutant), 'if (a <= b) return;');
  assert.throws(() => applyMutant('if (a > b) return;', mutant), /occurs nowhere in server\/raft\/core\/x.ts/);
  assert.throws(() => applyMutant('a < b; a < b', mutant), /occurs more than once/);
});

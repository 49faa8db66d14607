// The raft simulator's speed: seeds per second on one worker thread (the baseline) and on one per CPU, for three and
// five voters, rounds alternating; the planted-bug suite's catches and time; and, when BENCH_SIM_LONG_SEEDS is set,
// the long runs (three and five voters, that many seeds each, from seeds no test runs). Writes its marked section of
// bench/RESULTS.md (a run without long runs carries the last ones over) and prints the same.
// Env: BENCH_SIM_SEEDS (seeds per speed measurement, default 300), BENCH_SIM_ROUNDS (1 to 9, default 3),
// BENCH_SIM_LONG_SEEDS (default none; up to 1,000,000).
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, type } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSeedPool } from '../server/raft/sim/seed-pool.ts';
import { runMutants } from '../server/raft/mutants/run-mutants.ts';
import { positiveInteger, progress, readPreviousResults } from './bench-env.ts';
import { renderSimSection, simSummary, previousLongRuns, type LongRun, type SimBenchRun, type SpeedSample } from './raft-sim-bench-report.ts';

const steps = 3000;
const mutantBudget = 2000;
/** Speed measurements start here, far from the tests' fixed ranges and the long runs' (10,000,001 and 20,000,001). */
const speedSeedBase = 50_000_001;

async function main(): Promise<void> {
  const seeds = positiveInteger('BENCH_SIM_SEEDS', 300, 100_000, 'seeds');
  const rounds = positiveInteger('BENCH_SIM_ROUNDS', 3, 9, 'rounds');
  const longSeeds = process.env.BENCH_SIM_LONG_SEEDS ? positiveInteger('BENCH_SIM_LONG_SEEDS', 0, 1_000_000, 'seeds') : 0;
  const loadAverage = loadavg()[0] ?? 0;
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const all = availableParallelism();
  const workerCounts = [...new Set([1, all])];
  const speed: SpeedSample[] = [];
  let nextFirst = speedSeedBase;
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? workerCounts : [...workerCounts].reverse();
    for (const nodes of [3, 5]) {
      for (const workers of order) {
        const first = nextFirst;
        nextFirst += seeds;
        const summary = await runSeedPool({ first, seeds, steps, nodes, workers });
        const sample = { round, nodes, workers, seeds, seconds: summary.elapsedMs / 1000, failed: summary.failed.length };
        speed.push(sample);
        progress(`round ${round}: ${nodes} voters, ${workers} workers: ${(seeds / sample.seconds).toFixed(1)} seeds/s${sample.failed ? `, ${sample.failed} FAILED (first: seed ${summary.failed[0]!.seed})` : ''}`);
      }
    }
  }
  progress(`planted bugs, at most ${mutantBudget} seeds each`);
  const mutantStart = performance.now();
  const outcomes = await runMutants({ first: 1, seeds: mutantBudget, steps, nodes: 3 }, (outcome) =>
    progress(`${outcome.mutant.name}: ${outcome.caught ? `seed ${outcome.caught.seed}` : 'NOT caught'} in ${(outcome.elapsedMs / 1000).toFixed(1)} s`),
  );
  const mutants = {
    budget: mutantBudget,
    seconds: (performance.now() - mutantStart) / 1000,
    figures: outcomes.map((outcome) => ({ name: outcome.mutant.name, seedsRun: outcome.seedsRun, seconds: outcome.elapsedMs / 1000, ...(outcome.caught ? { seed: outcome.caught.seed, failure: outcome.caught.failure } : {}) })),
  };
  let longRuns: LongRun[] | undefined;
  if (longSeeds > 0) {
    longRuns = [];
    for (const [nodes, first] of [[3, 10_000_001], [5, 20_000_001]] as const) {
      progress(`long run: ${longSeeds} seeds of ${nodes} voters from ${first}`);
      const summary = await runSeedPool({ first, seeds: longSeeds, steps, nodes, workers: all });
      for (const failure of summary.failed) progress(`FAILED seed ${failure.seed}: ${failure.failure}`);
      longRuns.push({ nodes, first, seeds: longSeeds, passed: summary.passed, failed: summary.failed.length, seconds: summary.elapsedMs / 1000, workers: all });
    }
  }
  const run: SimBenchRun = {
    date,
    machine: { cpus: all, cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU', node: process.version, os: `${type()} ${release()}`, loadAverage },
    steps,
    speed,
    mutants,
    ...(longRuns ? { longRuns } : {}),
  };
  const resultsFile = join(fileURLToPath(new URL('.', import.meta.url)), 'RESULTS.md');
  const previous = readPreviousResults(resultsFile);
  writeFileSync(resultsFile, renderSimSection(previous, run));
  process.stdout.write(`${simSummary(run, previousLongRuns(previous))}\n\nWritten to ${resultsFile} (raft simulator section)\n`);
  const failures = speed.some((sample) => sample.failed > 0) || mutants.figures.some((figure) => figure.seed === undefined) || (longRuns ?? []).some((long) => long.failed > 0);
  process.exit(failures ? 1 : 0);
}

main().catch((error: Error) => {
  progress(`failed: ${error.stack ?? String(error)}`);
  process.exit(1);
});

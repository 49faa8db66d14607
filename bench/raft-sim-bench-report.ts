// Pure helpers for bench/raft-sim-bench.ts: the simulator's seeds per second on one worker thread (the baseline) and
// on every CPU, rounds alternating, for three and five voters; the planted-bug suite; and the long runs (100,000
// seeds), which a run replaces only when it makes them and otherwise carries over. Figures in, the text of the marked
// RESULTS.md section out.
import { replaceSection } from './raft-bench-report.ts';

export interface SpeedSample {
  readonly round: number;
  readonly nodes: number;
  readonly workers: number;
  readonly seeds: number;
  readonly seconds: number;
  readonly failed: number;
}

export interface MutantFigure {
  readonly name: string;
  /** Undefined when no seed of the budget caught it. */
  readonly seed?: number;
  readonly seedsRun: number;
  readonly seconds: number;
  readonly failure?: string;
}

export interface LongRun {
  readonly nodes: number;
  readonly first: number;
  readonly seeds: number;
  readonly passed: number;
  readonly failed: number;
  readonly seconds: number;
  readonly workers: number;
  /** What to know about the run (a failure explained), shown under the table. */
  readonly note?: string;
}

export interface SimBenchRun {
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly os: string; readonly loadAverage: number };
  readonly steps: number;
  readonly speed: readonly SpeedSample[];
  readonly mutants: { readonly budget: number; readonly seconds: number; readonly figures: readonly MutantFigure[] };
  /** This run's long runs, if it made them. */
  readonly longRuns?: readonly LongRun[];
}

export const sectionName = 'raft-sim';
const heading = '## Raft simulator: seeds per second, the long runs, the planted bugs';
const longStart = '<!-- raft-sim-long:start -->';
const longEnd = '<!-- raft-sim-long:end -->';

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const perSecond = (sample: SpeedSample) => sample.seeds / sample.seconds;
const fixed1 = (value: number) => value.toFixed(1);

/** Median seeds per second for a node count and a worker count. */
export function medianSpeed(run: SimBenchRun, nodes: number, workers: number): number {
  return median(run.speed.filter((sample) => sample.nodes === nodes && sample.workers === workers).map(perSecond));
}

export function renderLongRuns(runs: readonly LongRun[]): string {
  const rows = runs.map((run) => {
    const rate = run.seeds / run.seconds;
    return `| ${run.nodes} | ${run.first}..${run.first + run.seeds - 1} | ${run.passed} | ${run.failed} | ${(run.seconds / 60).toFixed(1)} min | ${fixed1(rate)} | ${run.workers} | \`./edgeward raft sim --first ${run.first} --seeds ${run.seeds} --nodes ${run.nodes}\` |`;
  });
  return [
    longStart,
    'Long runs: seeds never run before (far above the fixed ranges the tests use), 3000 steps each, every worker thread.',
    '',
    '| Voters | Seeds | Passed | Failed | Took | Seeds/s | Workers | Command |',
    '|---:|---|---:|---:|---:|---:|---:|---|',
    ...rows,
    ...runs.flatMap((run) => (run.note ? ['', `${run.nodes} voters: ${run.note}`] : [])),
    longEnd,
  ].join('\n');
}

/** The long-runs block of an earlier section, to carry over. */
export function previousLongRuns(document: string | undefined): string | undefined {
  if (!document) return undefined;
  const from = document.indexOf(longStart);
  const to = document.indexOf(longEnd);
  return from >= 0 && to > from ? document.slice(from, to + longEnd.length) : undefined;
}

export function simSummary(run: SimBenchRun, carriedLongRuns?: string): string {
  const nodeCounts = [...new Set(run.speed.map((sample) => sample.nodes))].sort((a, b) => a - b);
  const workerCounts = [...new Set(run.speed.map((sample) => sample.workers))].sort((a, b) => a - b);
  const rounds = Math.max(...run.speed.map((sample) => sample.round));
  const baseline = workerCounts[0]!;
  const all = workerCounts[workerCounts.length - 1]!;
  const speedRows = nodeCounts.flatMap((nodes) =>
    workerCounts.map((workers) => {
      const samples = run.speed.filter((sample) => sample.nodes === nodes && sample.workers === workers).sort((a, b) => a.round - b.round);
      const failed = samples.reduce((sum, sample) => sum + sample.failed, 0);
      return `| ${nodes} | ${workers} | ${fixed1(medianSpeed(run, nodes, workers))} | ${samples.map((sample) => fixed1(perSecond(sample))).join(', ')} | ${(median(samples.map((sample) => (sample.seconds * 1000 * workers) / sample.seeds))).toFixed(0)} | ${failed} |`;
    }),
  );
  const ratios = nodeCounts.map((nodes) => {
    const byRound = [...new Set(run.speed.map((sample) => sample.round))].sort((a, b) => a - b).map((round) => {
      const of = (workers: number) => run.speed.find((sample) => sample.round === round && sample.nodes === nodes && sample.workers === workers);
      const a = of(all);
      const b = of(baseline);
      return a && b ? (perSecond(a) / perSecond(b)).toFixed(2) : '–';
    });
    return `${nodes} voters: ${all} workers / ${baseline} worker **${(medianSpeed(run, nodes, all) / medianSpeed(run, nodes, baseline)).toFixed(2)}** (by round: ${byRound.join(', ')}); 100,000 seeds would take ${(100_000 / medianSpeed(run, nodes, all) / 60).toFixed(1)} min.`;
  });
  const caught = run.mutants.figures.filter((figure) => figure.seed !== undefined).length;
  const mutantRows = run.mutants.figures.map(
    (figure) => `| \`${figure.name}\` | ${figure.seed ?? `not caught in ${figure.seedsRun}`} | ${figure.seedsRun} | ${figure.seconds.toFixed(1)} | ${figure.failure?.split('\n')[0]?.split(':')[0] ?? '–'} |`,
  );
  const seedsCount = run.speed[0]?.seeds ?? 0;
  const longRuns = run.longRuns ? renderLongRuns(run.longRuns) : (carriedLongRuns ?? `${longStart}\nLong runs: none recorded yet (set BENCH_SIM_LONG_SEEDS).\n${longEnd}`);
  return [
    `Date: ${run.date}`,
    `Machine: ${run.machine.cpus} CPUs (${run.machine.cpuModel}), ${run.machine.os}, Node ${run.machine.node}; load average ${run.machine.loadAverage.toFixed(2)} at start.`,
    `How measured: \`./edgeward raft sim\`'s seed pool (server/raft/sim/seed-pool.ts), ${seedsCount} seeds per measurement at ${run.steps} steps each, each measurement from a fresh range of seeds; the baseline is one worker thread, against one worker per CPU. ${rounds} rounds; within a round every node count and worker count is measured once, the order alternating from round to round. Figures are medians over the rounds. CPU ms per seed = wall time × workers / seeds.`,
    '',
    '| Voters | Workers | Seeds/s | Seeds/s by round | CPU ms per seed | Failed |',
    '|---:|---:|---:|---|---:|---:|',
    ...speedRows,
    '',
    ...ratios,
    '',
    longRuns,
    '',
    `Planted bugs (\`./edgeward raft mutants\`, at most ${run.mutants.budget} seeds each, three voters): **${caught} of ${run.mutants.figures.length} caught** in ${run.mutants.seconds.toFixed(1)} s.`,
    '',
    '| Planted bug | First failing seed | Seeds run | Seconds | Property that failed |',
    '|---|---:|---:|---:|---|',
    ...mutantRows,
  ].join('\n');
}

export function renderSimSection(previous: string | undefined, run: SimBenchRun): string {
  return replaceSection(previous ?? '# Benchmark results\n', sectionName, heading, simSummary(run, previousLongRuns(previous)));
}

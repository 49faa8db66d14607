// Runs the simulator over a range of seeds in this thread and summarises, for the CLI's workers and the tests.
import { runSimulation, type SimulationFamily, type SimulationResult } from './simulation.ts';

export interface SeedRunOptions {
  readonly first: number;
  readonly seeds: number;
  readonly steps: number;
  readonly nodes: number;
  readonly family?: SimulationFamily;
  /** Run every `stride`-th seed from `first` (a worker's share); default 1. */
  readonly stride?: number;
  /** Stop at the first failing seed. */
  readonly stopAtFirstFailure?: boolean;
}

export interface SeedRunSummary {
  readonly passed: number;
  readonly failed: SimulationResult[];
  readonly elapsedMs: number;
}

export async function runSeeds(options: SeedRunOptions, onResult?: (result: SimulationResult) => void): Promise<SeedRunSummary> {
  const started = performance.now();
  const failed: SimulationResult[] = [];
  const stride = options.stride ?? 1;
  let passed = 0;
  for (let seed = options.first; seed < options.first + options.seeds; seed += stride) {
    const result = await runSimulation({ seed, steps: options.steps, nodes: options.nodes, ...(options.family ? { family: options.family } : {}) });
    if (result.ok) passed++;
    else failed.push(result);
    onResult?.(result);
    if (!result.ok && options.stopAtFirstFailure) break;
  }
  return { passed, failed, elapsedMs: performance.now() - started };
}

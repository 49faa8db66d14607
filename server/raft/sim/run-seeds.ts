// Runs the simulator over a range of seeds and summarises, for the CLI and the CI test alike.
import { runSimulation, type SimulationResult } from './simulation.ts';

export interface SeedRunOptions {
  readonly first: number;
  readonly seeds: number;
  readonly steps: number;
  readonly nodes: number;
}

export interface SeedRunSummary {
  readonly passed: number;
  readonly failed: SimulationResult[];
  readonly elapsedMs: number;
}

export function runSeeds(options: SeedRunOptions, onResult?: (result: SimulationResult) => void): SeedRunSummary {
  const started = performance.now();
  const failed: SimulationResult[] = [];
  let passed = 0;
  for (let seed = options.first; seed < options.first + options.seeds; seed++) {
    const result = runSimulation({ seed, steps: options.steps, nodes: options.nodes });
    if (result.ok) passed++;
    else failed.push(result);
    onResult?.(result);
  }
  return { passed, failed, elapsedMs: performance.now() - started };
}

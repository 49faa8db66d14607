// Runs the simulator against each planted bug until a seed catches it (or the seed budget runs out).
import { runSeedPool, repoRoot } from '../sim/seed-pool.ts';
import { createMutantTree } from './mutant-tree.ts';
import { mutants, type Mutant } from './mutants.ts';

export interface MutantOutcome {
  readonly mutant: Mutant;
  /** The lowest seed that failed, with what it reported; undefined when every seed of the budget passed. */
  readonly caught?: { readonly seed: number; readonly step: number; readonly failure: string };
  readonly seedsRun: number;
  readonly elapsedMs: number;
}

export interface MutantRunOptions {
  readonly first: number;
  /** The seed budget per mutant. */
  readonly seeds: number;
  readonly steps: number;
  readonly nodes: number;
  readonly workers?: number;
  /** Only the mutants with these names (default: all). */
  readonly only?: readonly string[];
}

export function selectMutants(only: readonly string[] | undefined): readonly Mutant[] {
  if (!only || only.length === 0) return mutants;
  const unknown = only.filter((name) => !mutants.some((mutant) => mutant.name === name));
  if (unknown.length > 0) throw new Error(`unknown mutant ${unknown.join(', ')}; known: ${mutants.map((mutant) => mutant.name).join(', ')}`);
  return mutants.filter((mutant) => only.includes(mutant.name));
}

export async function runMutants(options: MutantRunOptions, onOutcome?: (outcome: MutantOutcome) => void): Promise<MutantOutcome[]> {
  const outcomes: MutantOutcome[] = [];
  for (const mutant of selectMutants(options.only)) {
    const tree = await createMutantTree(repoRoot, mutant);
    try {
      let seedsRun = 0;
      const summary = await runSeedPool(
        { first: options.first, seeds: options.seeds, steps: options.steps, nodes: options.nodes, root: tree.root, stopAtFirstFailure: true, ...(options.workers ? { workers: options.workers } : {}) },
        () => seedsRun++,
      );
      const first = summary.failed[0];
      const outcome: MutantOutcome = {
        mutant,
        ...(first ? { caught: { seed: first.seed, step: first.step, failure: first.failure ?? 'failed' } } : {}),
        seedsRun,
        elapsedMs: summary.elapsedMs,
      };
      outcomes.push(outcome);
      onOutcome?.(outcome);
    } finally {
      await tree.remove();
    }
  }
  return outcomes;
}

// Spreads a seed range over worker threads (one per core by default): worker k runs seeds first+k, first+k+n, ...
// Results arrive as they finish; the summary lists failures in seed order, so a run reports the same failing seeds
// whatever the interleaving of the workers.
import { startModuleWorker } from '../../../common/threads/module-worker.ts';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SimulationFamily, SimulationResult } from './simulation.ts';
import type { SeedWorkerData } from './seed-worker.ts';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export interface SeedPoolOptions {
  readonly first: number;
  readonly seeds: number;
  readonly steps: number;
  readonly nodes: number;
  /** Default `standard`. */
  readonly family?: SimulationFamily;
  /** Worker threads (default: one per CPU). */
  readonly workers?: number;
  /** Where the simulator is loaded from (default: this repository). */
  readonly root?: string;
  /** Stop at the lowest failing seed: every seed below it runs, none above it does (beyond those in flight). */
  readonly stopAtFirstFailure?: boolean;
}

export interface SeedPoolSummary {
  readonly passed: number;
  readonly failed: readonly SimulationResult[];
  readonly elapsedMs: number;
  readonly workers: number;
}

export function runSeedPool(options: SeedPoolOptions, onResult?: (result: SimulationResult) => void): Promise<SeedPoolSummary> {
  const started = performance.now();
  const count = Math.max(1, Math.min(options.workers ?? availableParallelism(), options.seeds));
  const end = options.first + options.seeds;
  const lowestFailure = options.stopAtFirstFailure ? new SharedArrayBuffer(4) : undefined;
  if (lowestFailure) new Int32Array(lowestFailure)[0] = Math.min(end, 0x7fffffff);
  const failed: SimulationResult[] = [];
  let passed = 0;
  const runs = Array.from({ length: count }, (_, k) => {
    const data: SeedWorkerData = { root: options.root ?? repoRoot, first: options.first + k, end, stride: count, steps: options.steps, nodes: options.nodes, family: options.family ?? 'standard', lowestFailure };
    return new Promise<void>((resolveRun, rejectRun) => {
      const worker = startModuleWorker(join(repoRoot, 'server/raft/sim/seed-worker.ts'), data);
      worker.on('message', (message: { kind: 'result'; result: SimulationResult } | { kind: 'done' }) => {
        if (message.kind === 'done') return;
        if (message.result.ok) passed++;
        else failed.push(message.result);
        onResult?.(message.result);
      });
      worker.on('error', rejectRun);
      worker.on('exit', (code) => (code === 0 ? resolveRun() : rejectRun(new Error(`seed worker ${k} exited with code ${code}`))));
    });
  });
  return Promise.all(runs).then(() => {
    failed.sort((a, b) => a.seed - b.seed);
    // Seeds above the lowest failure that were already in flight are not part of the answer.
    const kept = options.stopAtFirstFailure && failed.length > 0 ? failed.slice(0, 1) : failed;
    return { passed, failed: kept, elapsedMs: performance.now() - started, workers: count };
  });
}

// One worker thread's share of a seed run: every `stride`-th seed from `first`, with the simulator loaded from
// `root` (the repository, or a mutant's copy of it). Each result is posted back as it comes; a shared cell holds the
// lowest failing seed any worker has found, so the others stop once they pass it.
import { parentPort, workerData } from 'node:worker_threads';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface SeedWorkerData {
  readonly root: string;
  readonly first: number;
  readonly end: number;
  readonly stride: number;
  readonly steps: number;
  readonly nodes: number;
  readonly family: import('./simulation.ts').SimulationFamily;
  /** Int32Array over a SharedArrayBuffer: [0] the lowest failing seed found so far (or end), when stopping early. */
  readonly lowestFailure: SharedArrayBuffer | undefined;
}

const data = workerData as SeedWorkerData;
const { runSimulation } = (await import(pathToFileURL(join(data.root, 'server/raft/sim/simulation.ts')).href)) as typeof import('./simulation.ts');
const lowest = data.lowestFailure ? new Int32Array(data.lowestFailure) : undefined;
for (let seed = data.first; seed < data.end; seed += data.stride) {
  if (lowest && seed > Atomics.load(lowest, 0)) break;
  const result = await runSimulation({ seed, steps: data.steps, nodes: data.nodes, family: data.family });
  if (!result.ok && lowest) {
    let current = Atomics.load(lowest, 0);
    while (seed < current) {
      const seen = Atomics.compareExchange(lowest, 0, current, seed);
      if (seen === current) break;
      current = seen;
    }
  }
  parentPort!.postMessage({ kind: 'result', result });
}
parentPort!.postMessage({ kind: 'done' });

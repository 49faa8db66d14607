// The controller's model memory and write latency as the model grows (issue 42, items 3 and 4), in-process and fast:
// a child process (controller-memory-model.ts) holds a model store over LevelDB behind the model's state machine and
// applies commands as a controller applies committed entries: 5,000 edge routers, 2,000 services, 2,500 service and
// 2,500 edge router policies, then identities up to each size (default 100k, 250k, 500k, 1M). At each size: heap used
// and RSS after full collections, bytes per identity, load rate and CPU per identity, GC pauses while loading. Then
// the write probe, in alternating rounds on two children, an empty model (the baseline) and the full one: writes at
// a steady rate, each applied and written to LevelDB, p50/p99 (the ratio full/empty is the target), GC
// during the probe, and a forced scavenge after every fifth write (what a scavenge costs at that model size). Last,
// what each part of the full model costs (rows Map, each index, the id order, the row objects; one in-memory raft
// entry per identity), and optionally a heap snapshot (BENCH_MEMORY_HEAP_SNAPSHOT=<path>). Writes its section of
// bench/RESULTS.md.
// Env: BENCH_MEMORY_SIZES (comma-separated identity counts, ascending, default 100000,250000,500000,1000000),
// BENCH_MEMORY_ROUNDS (1 to 9, default 3), BENCH_MEMORY_PROBE_SECONDS (default 10), BENCH_MEMORY_WRITE_RATE (writes/s,
// default 100), BENCH_MEMORY_NODE_FLAGS (node flags for both children after the controller's own, e.g.
// --max-semi-space-size=64: a later flag wins).
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, release, type } from 'node:os';
import { fileURLToPath } from 'node:url';
import { controllerNodeFlags } from '../server/cli/node-flags.ts';
import { benchLifecycle } from './bench-lifecycle.ts';
import { positiveInteger, progress, readPreviousResults } from './bench-env.ts';
import { stopChild, track } from './child-processes.ts';
import type { ModelAnswer, ModelRequest } from './controller-memory-model.ts';
import { probeFigures, renderMemorySection, type MemoryRun, type ProbeRound } from './controller-memory-report.ts';

const resultsFile = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const childModule = fileURLToPath(new URL('./controller-memory-model.ts', import.meta.url));
const loader = new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

function sizesFromEnv(): number[] {
  const raw = process.env['BENCH_MEMORY_SIZES'] ?? '100000,250000,500000,1000000';
  const sizes = raw.split(',').map((part) => Number(part.trim()));
  if (sizes.length === 0 || sizes.some((size, i) => !Number.isInteger(size) || size < 1 || size > 2_000_000 || (i > 0 && size <= sizes[i - 1]!))) {
    throw new Error(`BENCH_MEMORY_SIZES must be ascending whole numbers of identities from 1 to 2000000, not "${raw}"`);
  }
  return sizes;
}

const sizes = sizesFromEnv();
const rounds = positiveInteger('BENCH_MEMORY_ROUNDS', 3, 9, 'rounds');
const probeSeconds = positiveInteger('BENCH_MEMORY_PROBE_SECONDS', 10, 120);
const writeRate = positiveInteger('BENCH_MEMORY_WRITE_RATE', 100, 1000, 'writes per second');
// The flags `controller run` starts with (young generation size, V8 helper threads), then any given: a scavenge's
// cost is what the write probe looks at.
const nodeFlags = [...controllerNodeFlags(), ...(process.env['BENCH_MEMORY_NODE_FLAGS'] ?? '').split(' ').filter((flag) => flag !== '')];
const model = { routers: 5000, services: 2000, servicePolicies: 2500, edgeRouterPolicies: 2500 };
const largest = sizes[sizes.length - 1]!;
// Loading ran at 4,600 to 17,000 identities/s on a busy machine (load average 17 to 20): 500 µs each at worst, and
// reading them back 200 µs each; plus the probes and the breakdown.
const budgetMs = (120 + largest / 2000 + largest / 5000 + rounds * 2 * (probeSeconds + 30) + 300) * 1000;

class ModelChild {
  private constructor(
    readonly label: string,
    private readonly child: ChildProcess,
  ) {}

  static start(label: string): ModelChild {
    const child = track(
      fork(childModule, [], { execArgv: ['--import', loader, '--expose-gc', ...nodeFlags], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
    );
    return new ModelChild(label, child);
  }

  ask<K extends ModelAnswer['kind']>(request: ModelRequest, expected: K): Promise<Extract<ModelAnswer, { kind: K }>> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the ${this.label} model process exited (${code ?? 'signal'}) during ${request.kind}`));
      this.child.once('exit', onExit);
      this.child.once('message', (answer: ModelAnswer) => {
        this.child.off('exit', onExit);
        if (answer.kind === expected) resolve(answer as Extract<ModelAnswer, { kind: K }>);
        else reject(new Error(`the ${this.label} model process answered ${answer.kind} to ${request.kind}: ${answer.kind === 'failed' ? answer.message : ''}`));
      });
      this.child.send(request);
    });
  }

  async stop(): Promise<void> {
    if (this.child.connected) await this.ask({ kind: 'close' }, 'closed').catch(() => undefined);
    await stopChild(this.child);
  }
}

const { cleanups, runCleanups, abort, markFinishing } = benchLifecycle(budgetMs, progress);

async function main(): Promise<void> {
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const loadAverage = loadavg()[0]!;
  const empty = ModelChild.start('empty');
  const full = ModelChild.start('full');
  cleanups.push(() => empty.stop(), () => full.stop());
  await empty.ask({ kind: 'open' }, 'opened');
  const opened = await full.ask({ kind: 'open' }, 'opened');
  const loaded = await full.ask({ kind: 'policies', ...model }, 'loaded');
  progress(`routers, services and policies: heap ${(loaded.figures.memory.heapUsedBytes / 1048576).toFixed(1)} MiB`);
  const checkpoints = [{ ...loaded.figures, added: 0 }];
  for (const size of sizes) {
    const step = await full.ask({ kind: 'load', identities: size }, 'loaded');
    checkpoints.push(step.figures);
    progress(`${size} identities: ${step.figures.seconds.toFixed(1)} s, heap ${(step.figures.memory.heapUsedBytes / 1048576).toFixed(1)} MiB, RSS ${(step.figures.memory.rssBytes / 1048576).toFixed(1)} MiB`);
  }
  const reopened = await full.ask({ kind: 'reopen' }, 'reopened');
  progress(`reopened from ctrl.db: ${reopened.seconds.toFixed(1)} s, heap ${(reopened.memory.heapUsedBytes / 1048576).toFixed(1)} MiB, RSS ${(reopened.memory.rssBytes / 1048576).toFixed(1)} MiB`);
  const probeRounds: ProbeRound[] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? [empty, full] : [full, empty];
    const figures: Partial<Record<'empty' | 'full', ReturnType<typeof probeFigures>>> = {};
    for (const child of order) {
      const probed = await child.ask({ kind: 'probe', seconds: probeSeconds, rate: writeRate }, 'probed');
      figures[child.label as 'empty' | 'full'] = probeFigures(probed.figures, loadavg()[0]!);
      progress(`round ${round}, ${child.label}: write p99 ${figures[child.label as 'empty' | 'full']!.p99Ms.toFixed(2)} ms`);
    }
    probeRounds.push({ round, first: order[0]!.label as 'empty' | 'full', empty: figures.empty!, full: figures.full! });
  }
  const snapshotPath = process.env['BENCH_MEMORY_HEAP_SNAPSHOT'];
  if (snapshotPath) progress(`heap snapshot: ${(await full.ask({ kind: 'heapSnapshot', path: snapshotPath }, 'heapSnapshot')).path}`);
  const identityHeapBytes = reopened.memory.heapUsedBytes - checkpoints[0]!.memory.heapUsedBytes;
  const breakdown = await full.ask({ kind: 'breakdown', identityHeapBytes }, 'breakdown');
  await runCleanups();
  const run: MemoryRun = {
    date,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, os: `${type()} ${release()}`, loadAverage, loadAverageAtEnd: loadavg()[0]! },
    nodeFlags,
    model,
    baselineHeapBytes: opened.memory.heapUsedBytes,
    checkpoints,
    reopened: { memory: reopened.memory, seconds: reopened.seconds },
    writeRate,
    probeSeconds,
    rounds: probeRounds,
    breakdown: breakdown.parts,
  };
  markFinishing();
  writeFileSync(resultsFile, renderMemorySection(readPreviousResults(resultsFile), run));
  progress(`wrote ${resultsFile}`);
}

main().catch((error: Error) => void abort(`failed: ${error.stack ?? error.message}`, 1));

// Keeps the server and wrk off each other's cores for the 64-connection loads: the server on CPU 0, wrk on the
// rest. Unpinned on a small machine, the scheduler moves the three busy threads around and requests/s swing by
// half from one run to the next. Off with BENCH_PIN=0, or by itself with one CPU or without taskset (util-linux).
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface PinningPlan {
  /** taskset CPU lists. */
  readonly server: string;
  readonly load: string;
  readonly all: string;
}

export function pinningPlan(env: NodeJS.ProcessEnv = process.env): PinningPlan | undefined {
  const cpus = availableParallelism();
  if (env.BENCH_PIN === '0' || cpus < 2) return undefined;
  if (spawnSync('taskset', ['--version'], { timeout: 5_000 }).status !== 0) return undefined;
  return { server: '0', load: cpus === 2 ? '1' : `1-${cpus - 1}`, all: `0-${cpus - 1}` };
}

/** Sets the CPUs of every thread of `pid`; threads it starts later inherit them. */
export function pinProcess(pid: number | undefined, cpuList: string): void {
  if (pid === undefined) throw new Error('cannot pin a process without a pid');
  const result = spawnSync('taskset', ['-a', '-p', '-c', cpuList, String(pid)], { encoding: 'utf8', timeout: 5_000 });
  if (result.status !== 0) throw new Error(`taskset could not pin ${pid} to CPUs ${cpuList}: ${result.stderr || result.error?.message}`);
}

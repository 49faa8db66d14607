// Runs wrk once against a URL with bench/wrk/bench.lua (or another script that prints the same result line) and
// returns its figures. The run is bounded: wrk is killed if it outlives its duration by more than its own request
// timeout plus a margin.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { track } from './child-processes.ts';
import { parseWrkOutput, type WrkFigures } from './wrk-output.ts';

const luaScript = fileURLToPath(new URL('./wrk/bench.lua', import.meta.url));

export interface WrkLoad {
  readonly url: string;
  readonly connections: number;
  readonly threads: number;
  readonly seconds: number;
  readonly method?: string;
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A request without a response after this long counts as a timeout (wrk's default is 2 s). */
  readonly requestTimeoutSeconds?: number;
  /** A taskset CPU list to run wrk on; any CPU when absent. */
  readonly cpus?: string;
  /** The Lua script, bench/wrk/bench.lua when absent; it must print bench.lua's BENCH_RESULT line from done(). */
  readonly script?: string;
  /** Extra environment for the script (bench.lua reads WRK_METHOD and WRK_BODY). */
  readonly env?: Readonly<Record<string, string>>;
}

export async function runWrk(load: WrkLoad): Promise<WrkFigures> {
  const requestTimeout = load.requestTimeoutSeconds ?? 10;
  const args = [`-t${load.threads}`, `-c${load.connections}`, `-d${load.seconds}s`, `--timeout`, `${requestTimeout}s`, '-s', load.script ?? luaScript];
  for (const [name, value] of Object.entries(load.headers ?? {})) args.push('-H', `${name}: ${value}`);
  args.push(load.url);
  const [command, commandArgs] = load.cpus === undefined ? ['wrk', args] : ['taskset', ['-c', load.cpus, 'wrk', ...args]];
  const child = track(spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, WRK_METHOD: load.method ?? 'GET', WRK_BODY: load.body ?? '', ...(load.env ?? {}) } }));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const limitMs = (load.seconds + requestTimeout + 15) * 1000;
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`wrk did not finish within ${limitMs / 1000} s (${load.url})`));
    }, limitMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject((error as NodeJS.ErrnoException).code === 'ENOENT' ? new Error('wrk is not installed: run bench/run.sh, or apt-get install wrk') : error);
    });
    // 'close' rather than 'exit': stdout is fully read by then.
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  if (code !== 0) throw new Error(`wrk exited with ${code} against ${load.url}\n${stderr}${stdout}`);
  return parseWrkOutput(stdout);
}

// Loads a controller with many identities through its management API, as fast as it takes them: wrk with
// bench/wrk/unique-writes.lua (`POST /identities`, every name new) in runs of 5 to 60 s sized from the rate so far,
// counting what is stored after each run, until there are at least `target` (the last run overshoots a little).
// Used by the benchmarks that need a big model (the status page's, the snapshot's).
import { fileURLToPath } from 'node:url';
import { runWrk } from './wrk-runner.ts';

const uniqueWrites = fileURLToPath(new URL('./wrk/unique-writes.lua', import.meta.url));

export interface IdentityLoad {
  /** Identities named `<prefix>-…` stored when the load ended. */
  readonly count: number;
  readonly seconds: number;
  readonly connections: number;
}

export interface IdentityLoadOptions {
  /** `…/edge/management/v1` of the controller that takes the writes (a cluster's leader). */
  readonly managementApi: string;
  readonly token: string;
  readonly target: number;
  /** Every identity is named `<prefix>-<wrk run>-<thread>-<counter>`. */
  readonly prefix: string;
  /** How many identities named `<prefix>-…` the controller holds. */
  readonly count: (prefix: string) => Promise<number>;
  readonly progress: (line: string) => void;
  /** wrk's connections (default 32). */
  readonly connections?: number;
}

export async function loadIdentities(options: IdentityLoadOptions): Promise<IdentityLoad> {
  const connections = options.connections ?? 32;
  const started = performance.now();
  let count = 0;
  let rate = 2000;
  while (count < options.target) {
    const runSeconds = Math.max(5, Math.min(60, Math.ceil((options.target - count) / rate)));
    const figures = await runWrk({
      url: `${options.managementApi}/identities`,
      connections,
      threads: 2,
      seconds: runSeconds,
      method: 'POST',
      headers: { 'zt-session': options.token, 'content-type': 'application/json' },
      script: uniqueWrites,
      env: { WRK_WRITE_KIND: 'identity', WRK_NAME_PREFIX: `${options.prefix}-${count}` },
      requestTimeoutSeconds: 30,
    });
    if (figures.requests === figures.httpErrors + figures.socketErrors) throw new Error(`no identity was created in ${runSeconds} s (${figures.httpErrors} HTTP errors, ${figures.socketErrors} socket errors)`);
    count = await options.count(options.prefix);
    rate = Math.max(100, figures.requestsPerSecond);
    options.progress(`identities: ${count} of ${options.target} (${rate.toFixed(0)} a second)`);
  }
  return { count, seconds: (performance.now() - started) / 1000, connections };
}

// Loads a controller with many identities through its management API, as fast as it takes them: wrk with
// bench/wrk/unique-writes.lua (`POST /identities`, every name new) in runs of 5 to 60 s sized from the rate so far,
// counting what is stored after each run, until there are at least `target` (the last run overshoots a little).
// Used by the benchmarks that need a big model (the status page's, the snapshot's, the scale bench's). The scale bench
// also gives each identity a role attribute (one of n groups), pauses the load at given counts (to read memory
// there) and reads the timeline: the stored count after each run against the seconds wrk had run so far.
import { fileURLToPath } from 'node:url';
import { runWrk } from './wrk-runner.ts';

const uniqueWrites = fileURLToPath(new URL('./wrk/unique-writes.lua', import.meta.url));

export interface IdentityLoad {
  /** Identities named `<prefix>-…` stored when the load ended. */
  readonly count: number;
  readonly seconds: number;
  readonly connections: number;
  /** True when the load stopped at `deadline` short of the target. */
  readonly stoppedAtDeadline: boolean;
  /** After each wrk run: the identities stored, and the seconds wrk had run so far (pauses and counting left out). */
  readonly timeline: readonly { readonly count: number; readonly loadSeconds: number }[];
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
  /** Each identity gets the role attribute `<prefix>-<k>`, k one of `groups` in turn. */
  readonly roles?: { readonly groups: number; readonly prefix: string };
  /** Counts at which the load pauses for `atStop` (runs are sized to end near each; the count may pass it a little). */
  readonly stops?: readonly number[];
  readonly atStop?: (count: number) => Promise<void>;
  /** performance.now() after which no wrk run starts (the last one is cut to end by then): the load stops short. */
  readonly deadline?: number;
}

export async function loadIdentities(options: IdentityLoadOptions): Promise<IdentityLoad> {
  const connections = options.connections ?? 32;
  const started = performance.now();
  let count = 0;
  let rate = 2000;
  let loadSeconds = 0;
  const timeline: { count: number; loadSeconds: number }[] = [];
  const stops = [...(options.stops ?? [])].filter((stop) => stop < options.target).sort((a, b) => a - b);
  let stoppedAtDeadline = false;
  while (count < options.target) {
    const left = options.deadline === undefined ? Number.POSITIVE_INFINITY : Math.floor((options.deadline - performance.now()) / 1000);
    if (left < 2) {
      stoppedAtDeadline = true;
      break;
    }
    const goal = stops.find((stop) => stop > count) ?? options.target;
    // Shorter runs (down to 2 s) while heading for a stop, so that the count lands near it.
    const runSeconds = Math.min(left, Math.max(goal < options.target ? 2 : 5, Math.min(60, Math.ceil((goal - count) / rate))));
    const runStarted = performance.now();
    const figures = await runWrk({
      url: `${options.managementApi}/identities`,
      connections,
      threads: 2,
      seconds: runSeconds,
      method: 'POST',
      headers: { 'zt-session': options.token, 'content-type': 'application/json' },
      script: uniqueWrites,
      env: { WRK_WRITE_KIND: 'identity', WRK_NAME_PREFIX: `${options.prefix}-${count}`, ...(options.roles ? { WRK_ROLE_GROUPS: String(options.roles.groups), WRK_ROLE_PREFIX: options.roles.prefix } : {}) },
      requestTimeoutSeconds: 30,
    });
    loadSeconds += (performance.now() - runStarted) / 1000;
    if (figures.requests === figures.httpErrors + figures.socketErrors) throw new Error(`no identity was created in ${runSeconds} s (${figures.httpErrors} HTTP errors, ${figures.socketErrors} socket errors)`);
    const before = count;
    count = await options.count(options.prefix);
    timeline.push({ count, loadSeconds });
    rate = Math.max(100, figures.requestsPerSecond);
    options.progress(`identities: ${count} of ${options.target} (${rate.toFixed(0)} a second)`);
    // One reading however many stops this run passed.
    if (options.atStop && stops.some((stop) => before < stop && count >= stop)) await options.atStop(count);
  }
  return { count, seconds: (performance.now() - started) / 1000, connections, timeline, stoppedAtDeadline };
}

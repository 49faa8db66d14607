// A login flood at full CPU against the leader of a three-controller cluster under a steady write load (through the
// leader, whose HTTP side the flood also loads, and through a follower, which forwards to the leader: raft alone), with
// password hashing's bounded queue off (`edge.passwordHashing.concurrency: 0`: every scrypt straight to libuv's
// thread pool, the behaviour before the queue) and on (the defaults), one fresh cluster each, in one run. Each
// variant has a quiet phase (the writes alone) and a flood phase (the writes and wrk's logins); throughout, every
// controller's term is polled (elections) and every write's answer and latency kept (commit timeouts, p99). Writes
// its marked section of bench/RESULTS.md (kept by the other benchmarks) and prints the same. Everything is bounded
// by a watchdog; every controller is stopped and the temp dir removed on success, failure, timeout or a signal.
// Env: BENCH_FLOOD_SECONDS (default 30), BENCH_QUIET_SECONDS (default 10), BENCH_WRITE_RATE (writes/s, default 100),
// BENCH_FLOOD_CONNECTIONS (wrk's connections, default 256: well past the queue's 2 + 64, as a real flood would be),
// BENCH_FLOOD_VARIANTS (a comma-separated list of off, on, off-pool16 and on-c1; default off,on). off-pool16 is the
// queue off with UV_THREADPOOL_SIZE=16 (would a bigger thread pool alone do?); on-c1 the queue with one hash at a time.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, tmpdir, type } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminCredentials } from '../test/support/controller-fixture.ts';
import { benchLifecycle } from './bench-lifecycle.ts';
import { positiveInteger, progress, wrkVersion, readPreviousResults } from './bench-env.ts';
import { EdgewardCluster } from './edgeward-cluster.ts';
import { loginFloodSummary, renderLoginFloodSection, termChanges, writeFigures, type FloodVariant, type LoginFloodRun, type PhaseFigures, type WriteSample } from './login-flood-report.ts';
import { ProbeClient } from './write-probe.ts';
import { runWrk } from './wrk-runner.ts';
import type { WrkFigures } from './wrk-output.ts';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const resultsFile = join(benchDir, 'RESULTS.md');
const statusScript = join(benchDir, 'wrk', 'status-counts.lua');

const floodSeconds = positiveInteger('BENCH_FLOOD_SECONDS', 30);
const quietSeconds = positiveInteger('BENCH_QUIET_SECONDS', 10);
const writeRate = positiveInteger('BENCH_WRITE_RATE', 100, 5_000, 'writes per second');
const floodConnections = positiveInteger('BENCH_FLOOD_CONNECTIONS', 256, 10_000, 'connections');
const threads = 2;
const pollMs = 250;
/** Longer than commitTimeout (5 s) and the API deadline (10 s): a write not answered by then never will be. */
const writeTimeoutMs = 15_000;

const queueOff = (yaml: string) => replaceOnce(yaml, /(\n {4}concurrency: )\d+/, '$10');
const allVariants: Record<string, { description: string; editConfig?: (yaml: string) => string; env?: NodeJS.ProcessEnv }> = {
  off: { description: 'concurrency 0: unbounded, as before the queue', editConfig: queueOff },
  on: { description: 'the defaults: 2 at once, 64 waiting' },
  'off-pool16': { description: 'concurrency 0 and UV_THREADPOOL_SIZE=16', editConfig: queueOff, env: { UV_THREADPOOL_SIZE: '16' } },
  'on-c1': { description: 'concurrency 1, 64 waiting', editConfig: (yaml) => replaceOnce(yaml, /(\n {4}concurrency: )\d+/, '$11') },
};
const variantNames = (process.env.BENCH_FLOOD_VARIANTS ?? 'off,on').split(',').map((name) => name.trim());
for (const name of variantNames) if (!(name in allVariants)) throw new Error(`BENCH_FLOOD_VARIANTS: unknown variant "${name}" (known: ${Object.keys(allVariants).join(', ')})`);

/** Start-up, per variant (the cluster, both phases with margins, stopping) and the end. bench/run.sh repeats this sum. */
const budgetMs = (60 + variantNames.length * (120 + quietSeconds + floodSeconds + 2 * writeTimeoutMs / 1000 + 60)) * 1000;

function replaceOnce(text: string, pattern: RegExp, replacement: string): string {
  if (!pattern.test(text)) throw new Error(`the controller config has no ${pattern}`);
  return text.replace(pattern, replacement);
}

/** Busy and total CPU time of the whole machine so far, from /proc/stat (jiffies). */
function machineCpu(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** Writes at a steady rate, each on its own (none waits for another), keeping every write's latency and outcome. */
class PacedWrites {
  private readonly samples: WriteSample[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private sent = 0;
  private started = 0;

  constructor(
    private readonly probe: ProbeClient,
    private readonly url: string,
    private readonly headers: Readonly<Record<string, string>>,
    private readonly prefix: string,
  ) {}

  start(): void {
    this.started = performance.now();
    this.timer = setInterval(() => {
      const due = Math.floor(((performance.now() - this.started) / 1000) * writeRate);
      while (this.sent < due) this.send(this.sent++);
    }, 10);
  }

  /** Stops sending and waits for the writes still in flight (each bounded by writeTimeoutMs). */
  async stop(): Promise<WriteSample[]> {
    clearInterval(this.timer);
    await Promise.all(this.inFlight);
    return this.samples;
  }

  private send(sequence: number): void {
    const began = performance.now();
    const done = this.probe
      .post(this.url, JSON.stringify({ name: `${this.prefix}-${sequence}`, isAdmin: false }), this.headers, writeTimeoutMs)
      .then(
        (answer) => {
          const code = answer.status === 201 ? '' : errorCode(answer.text);
          this.samples.push({ ms: performance.now() - began, outcome: code ? `${answer.status} ${code}` : String(answer.status) });
        },
        () => {
          this.samples.push({ ms: performance.now() - began, outcome: 'no answer' });
        },
      )
      .finally(() => this.inFlight.delete(done));
    this.inFlight.add(done);
  }
}

function errorCode(text: string): string {
  try {
    return String((JSON.parse(text) as { error?: { code?: unknown } }).error?.code ?? '');
  } catch {
    return '';
  }
}

/** Polls every controller's term and leader until stopped; the polls in order, and how many got no answer. */
function watchTerms(cluster: EdgewardCluster): { stop: () => Promise<{ polls: Array<{ term: number; leader: string | undefined }>; unanswered: number }> } {
  const polls: Array<{ term: number; leader: string | undefined }> = [];
  let unanswered = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const round = await Promise.allSettled(cluster.memberNames.map((_, member) => cluster.status(member)));
      for (const result of round) {
        if (result.status === 'fulfilled') polls.push(result.value);
        else unanswered++;
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { polls, unanswered };
    },
  };
}

async function measurePhase(cluster: EdgewardCluster, variant: string, phase: 'quiet' | 'flood', seconds: number): Promise<PhaseFigures> {
  const leader = await cluster.leader(60_000);
  const target = await cluster.loadTarget(leader);
  const probe = new ProbeClient(cluster.caPem);
  try {
    const follower = (leader + 1) % cluster.memberNames.length;
    const followerTarget = await cluster.loadTarget(follower);
    const prefix = `flood-${variant}-${phase}-${process.pid}-${Date.now().toString(36)}`;
    const writes = new PacedWrites(probe, target.url, { 'zt-session': target.headers['zt-session']! }, `${prefix}-l`);
    const followerWrites = new PacedWrites(probe, followerTarget.url, { 'zt-session': followerTarget.headers['zt-session']! }, `${prefix}-f`);
    const terms = watchTerms(cluster);
    const cpuBefore = machineCpu();
    progress(`${variant}: ${phase} phase, ${seconds} s, ${writeRate} writes/s through ${cluster.memberNames[leader]} and through ${cluster.memberNames[follower]}${phase === 'flood' ? `, ${floodConnections} connections of logins against ${cluster.memberNames[leader]}` : ''}`);
    writes.start();
    followerWrites.start();
    let logins: WrkFigures | undefined;
    if (phase === 'flood') {
      logins = await runWrk({
        url: cluster.loginUrl(leader),
        connections: floodConnections,
        threads,
        seconds,
        method: 'POST',
        body: JSON.stringify({ username: adminCredentials.username, password: adminCredentials.password }),
        headers: { 'content-type': 'application/json' },
        requestTimeoutSeconds: writeTimeoutMs / 1000,
        script: statusScript,
      });
    } else {
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    }
    const cpuAfter = machineCpu();
    const samples = await writes.stop();
    const followerSamples = await followerWrites.stop();
    const { polls, unanswered } = await terms.stop();
    const figures: PhaseFigures = {
      phase,
      seconds,
      ...termChanges(polls),
      unansweredPolls: unanswered,
      writes: writeFigures(samples),
      followerWrites: writeFigures(followerSamples),
      ...(logins ? { logins } : {}),
      cpuBusy: (cpuAfter.busy - cpuBefore.busy) / Math.max(1, cpuAfter.total - cpuBefore.total),
    };
    progress(
      `${variant}: ${phase}: CPU ${(figures.cpuBusy * 100).toFixed(0)}% busy, ${figures.elections} elections, writes via leader ${figures.writes.outcomes.map(([outcome, count]) => `${outcome}: ${count}`).join(', ')}, p99 ${figures.writes.p99Ms.toFixed(1)} ms, via follower ${figures.followerWrites.outcomes.map(([outcome, count]) => `${outcome}: ${count}`).join(', ')}, p99 ${figures.followerWrites.p99Ms.toFixed(1)} ms` +
        (logins ? `; logins ${Object.entries(logins.statuses ?? {}).map(([status, count]) => `${status}: ${count}`).join(', ')}, ${logins.socketErrors} socket errors` : ''),
    );
    return figures;
  } finally {
    probe.close();
  }
}

async function main(cleanups: (() => Promise<void> | void)[]): Promise<LoginFloodRun> {
  const wrk = wrkVersion();
  const loadAverage = loadavg()[0] ?? 0;
  const root = mkdtempSync(join(tmpdir(), 'edgeward-login-flood-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const variants: FloodVariant[] = [];
  let raftTimeouts: LoginFloodRun['raftTimeouts'] | undefined;
  for (const name of variantNames) {
    const { description, editConfig, env } = allVariants[name]!;
    progress(`${name}: starting a three-controller cluster (password hashing queue ${name}: ${description})`);
    const cluster = await EdgewardCluster.start(join(root, name), (stop) => cleanups.push(stop), progress, { ...(editConfig ? { editConfig } : {}), ...(env ? { env } : {}) });
    raftTimeouts ??= await cluster.timeouts();
    const phases = [await measurePhase(cluster, name, 'quiet', quietSeconds), await measurePhase(cluster, name, 'flood', floodSeconds)];
    variants.push({ name, description, phases });
    progress(`${name}: stopping the cluster`);
    await cluster.stop();
  }
  return {
    date: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU', node: process.version, os: `${type()} ${release()}`, loadAverage },
    wrkVersion: wrk,
    raftTimeouts: raftTimeouts!,
    writeRate,
    floodConnections,
    threads,
    variants,
  };
}

const { cleanups, runCleanups, abort, markFinishing } = benchLifecycle(budgetMs, progress);

try {
  const run = await main(cleanups);
  markFinishing();
  await runCleanups();
  const previous = readPreviousResults(resultsFile);
  writeFileSync(resultsFile, renderLoginFloodSection(previous, run));
  process.stdout.write(`${loginFloodSummary(run)}\n\nWritten to ${resultsFile} (login-flood section)\n`);
  process.exit(0);
} catch (error) {
  await abort(`failed: ${(error as Error).stack ?? String(error)}`, 1);
}

// The alerts daemon's two figures. Matching: a large generated controller log, searched by `grep -F -c -f` with the
// daemon's own substrings and by the daemon's file follower and line scanner, in alternating rounds of one run
// (target: the daemon at ≥ 0.5× grep's speed). Delivery: the real daemon process and a real Alertmanager, the
// time from a line appended to the alert accepted (target: p99 ≤ 1 s). Writes the `alerts` section of
// bench/RESULTS.md and prints it.
// Env: BENCH_ALERTS_MB (size of the generated log, default 500), BENCH_ALERTS_ROUNDS (default 3),
// BENCH_ALERTS_LINES (lines timed for delivery, default 200). Bounded by a watchdog.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../common/log/logger.ts';
import { logNeedleTable } from '../alerts/core/matching/log-line.ts';
import { logRules } from '../alerts/core/rules/alert-rules.ts';
import { readChunkBytes } from '../alerts/daemon/alerts-daemon.ts';
import { FileFollower } from '../alerts/daemon/file-follower.ts';
import { LogConsumer } from '../alerts/daemon/log-consumer.ts';
import type { RecordSink } from '../alerts/daemon/record-sink.ts';
import { startAlertmanager } from '../test/support/prometheus-tools.ts';
import { alertsBenchSection, latencySummary, speedRatio } from './alerts-bench-report.ts';
import type { AlertsBenchRun, MatchingRound } from './alerts-bench-report.ts';
import { benchLifecycle } from './bench-lifecycle.ts';
import { positiveInteger, progress } from './bench-env.ts';
import { stopChild, track } from './child-processes.ts';
import { replaceSection } from './raft-bench-report.ts';

const megabytes = positiveInteger('BENCH_ALERTS_MB', 500, 10_000, 'MiB');
const rounds = positiveInteger('BENCH_ALERTS_ROUNDS', 3, 20, 'rounds');
const timedLines = positiveInteger('BENCH_ALERTS_LINES', 200, 10_000, 'lines');
const root = mkdtempSync(join(tmpdir(), 'edgeward-alerts-bench-'));
// Generation and page-cache warm-up at ~50 MiB/s, the rounds at ≥ 50 MiB/s each way, the delivery lines at ≤ 1 s.
const lifecycle = benchLifecycle((120 + (megabytes / 50) * (2 + 2 * rounds) + timedLines * 1.5) * 1000, progress);
lifecycle.cleanups.push(() => rmSync(root, { recursive: true, force: true }));

// ---- the generated log ------------------------------------------------------------------------------------------

/** A small seeded generator, so every run writes the same file. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Messages of the operator guide's log table that a busy controller writes, none holding an alerting substring.
const ordinary: readonly [string, string, (random: () => number) => Record<string, unknown>][] = [
  ['info', 'auth', (r) => ({ msg: 'password authentication failed', reason: 'wrong password', identityId: `id${Math.floor(r() * 1e6)}` })],
  ['info', 'web', (r) => ({ msg: 'request refused', requestId: `r${Math.floor(r() * 1e9)}`, code: 'UNAUTHORIZED', method: 'GET', path: '/edge/client/v1/current-api-session', cause: 'no session' })],
  ['info', 'routers', (r) => ({ msg: 'router connected', routerId: `er${Math.floor(r() * 100)}`, name: 'edge-router', version: 'v0.1.0', remote: '10.1.2.3:41234', linkListeners: 1 })],
  ['info', 'routers', (r) => ({ msg: 'router disconnected', routerId: `er${Math.floor(r() * 100)}`, reason: 'connection closed', remote: '10.1.2.3:41234' })],
  ['info', 'raft', (r) => ({ msg: 'raft snapshot taken', index: Math.floor(r() * 1e6), term: 7, compactedTo: Math.floor(r() * 1e6) })],
  ['info', 'controller', (r) => ({ msg: 'expired api sessions removed', count: Math.floor(r() * 40) })],
  ['info', 'controller', (r) => ({ msg: 'raft rate limiter window changed', from: 250, to: 240 + Math.floor(r() * 10), successRate: 0.98 })],
  ['info', 'mfa', (r) => ({ msg: 'mfa code refused', identityId: `id${Math.floor(r() * 1e6)}`, reason: 'wrong code' })],
  ['info', 'auth', (r) => ({ msg: 'ext-jwt authentication failed', reason: 'expired', detail: '"exp" claim timestamp check failed', signerId: `s${Math.floor(r() * 10)}` })],
  ['info', 'raft', () => ({ msg: 'raft state changed', role: 'follower', leader: 'ctrl2', term: 7 })],
];
// One in `matchEvery` lines holds an alerting substring.
const matchEvery = 1000;
const alerting: readonly Record<string, unknown>[] = [
  { level: 'info', component: 'peers', msg: 'peer disconnected', peerId: 'ctrl2', reason: 'connection closed' },
  { level: 'info', component: 'peers', msg: 'peer connected', peerId: 'ctrl2', address: 'tls:10.0.0.2:6262', version: 'v0.1.0' },
  { level: 'warn', component: 'cluster', msg: 'cluster running without leader for longer than configured threshold', leaderlessForMs: 61_000 },
  { level: 'warn', component: 'peers', msg: 'peer TLS handshake failed: x509: certificate signed by unknown authority', remote: '10.0.0.9:5555' },
  { level: 'info', component: 'web', msg: 'request refused', code: 'CLUSTER_NO_LEADER', method: 'POST', path: '/edge/management/v1/identities' },
];

function generateLog(path: string, bytes: number): { bytes: number; lines: number; matchingLines: number } {
  const random = seeded(42);
  const fd = openSync(path, 'w');
  let written = 0;
  let lines = 0;
  let matchingLines = 0;
  let time = Date.UTC(2026, 10, 24);
  const batch: string[] = [];
  while (written < bytes) {
    time += Math.floor(random() * 5);
    const stamp = { time: new Date(time).toISOString() };
    let record: Record<string, unknown>;
    if (lines % matchEvery === matchEvery - 1) {
      const { level, component, ...rest } = alerting[matchingLines % alerting.length]!;
      record = { level, ...stamp, ...rest, component, controllerId: 'ctrl1' };
      matchingLines++;
    } else {
      const [level, component, fields] = ordinary[Math.floor(random() * ordinary.length)]!;
      const { msg, ...rest } = fields(random);
      record = { level, ...stamp, msg, component, controllerId: 'ctrl1', ...rest };
    }
    const line = `${JSON.stringify(record)}\n`;
    batch.push(line);
    written += line.length;
    lines++;
    if (batch.length === 20_000) writeSync(fd, batch.splice(0).join(''));
  }
  writeSync(fd, batch.join(''));
  closeSync(fd);
  return { bytes: written, lines, matchingLines };
}

// ---- matching ---------------------------------------------------------------------------------------------------

function timeGrep(patterns: string, file: string): { seconds: number; count: number } {
  const started = performance.now();
  const result = spawnSync('grep', ['-F', '-c', '-f', patterns, file], { encoding: 'utf8', timeout: 600_000 });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`grep failed (${result.status}): ${result.stderr}`);
  return { seconds, count: Number(result.stdout.trim()) };
}

/** The daemon's reading and matching, as it tails a file: its follower, 1 MiB reads, its log consumer. */
async function timeDaemonMatching(file: string): Promise<{ seconds: number; count: number; lines: number }> {
  let count = 0;
  let lines = 0;
  const sink: RecordSink = {
    now: () => 0,
    observe: () => undefined,
    lines: (_kind, n) => void (lines += n),
    matched: (_rule, n = 1) => void (count += n),
    skipped: () => undefined,
  };
  const follower = new FileFollower(file, new LogConsumer('ctrl1', logNeedleTable(logRules), 1024 * 1024, sink), { initialPosition: 'start', chunkBytes: readChunkBytes, logger: silentLogger });
  const started = performance.now();
  await follower.poke();
  const seconds = (performance.now() - started) / 1000;
  await follower.stop();
  return { seconds, count, lines };
}

// ---- delivery ---------------------------------------------------------------------------------------------------

const cliEntry = fileURLToPath(new URL('../server/cli/main.ts', import.meta.url));
const tsxLoader = new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

async function timeDelivery(): Promise<{ latencies: number[]; alertmanager: string }> {
  const amConfig = join(root, 'alertmanager.yml');
  writeFileSync(amConfig, 'route:\n  receiver: nowhere\nreceivers:\n  - name: nowhere\n');
  const am = await startAlertmanager(amConfig);
  lifecycle.cleanups.push(() => am.stop());
  const versionRun = spawnSync('/usr/bin/prometheus-alertmanager', ['--version'], { encoding: 'utf8', timeout: 10_000 });
  const version = /version (\S+)/.exec(`${versionRun.stdout}${versionRun.stderr}`)?.[1];

  const log = join(root, 'ctrl1.log');
  writeFileSync(log, '');
  const config = join(root, 'alerts.yml');
  writeFileSync(
    config,
    ['cluster: bench', 'controllers:', '  - id: ctrl1', `    logFile: ${log}`, 'alertmanager:', `  urls: [${am.url}]`, '  resendInterval: 1h', `stateDir: ${join(root, 'state')}`, 'listen: 127.0.0.1:0', ''].join('\n'),
  );
  const daemon = track(spawn(process.execPath, ['--import', tsxLoader, cliEntry, 'alerts', 'run', config], { stdio: ['ignore', 'pipe', 'pipe'] }));
  lifecycle.cleanups.push(() => stopChild(daemon));
  let output = '';
  daemon.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  daemon.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!output.includes('alerts daemon started')) {
    if (daemon.exitCode !== null || Date.now() > deadline) throw new Error(`the alerts daemon did not start:\n${output}`);
    await sleep(50);
  }

  const firing = async (): Promise<string[]> => {
    const response = await fetch(`${am.url}/api/v2/alerts?filter=${encodeURIComponent('alertname="EdgewardClusterReadOnly"')}`);
    return ((await response.json()) as { startsAt: string }[]).map((alert) => alert.startsAt);
  };
  const latencies: number[] = [];
  let lastTime = 0;
  for (let index = 0; index < timedLines; index++) {
    const entering = index % 2 === 0;
    // Strictly later than the last line, so each line is news to the daemon.
    let time = Date.now();
    while (time <= lastTime) {
      await sleep(1);
      time = Date.now();
    }
    lastTime = time;
    const stamp = new Date(time).toISOString();
    const msg = entering ? 'entering read-only mode: different versions detected in cluster' : 'exiting read-only mode: all connected members report the same version';
    const line = `${JSON.stringify({ level: entering ? 'warn' : 'info', time: stamp, msg, component: 'cluster', controllerId: 'ctrl1' })}\n`;
    const started = performance.now();
    appendFileSync(log, line);
    for (;;) {
      const startsAt = await firing();
      if (entering ? startsAt.includes(stamp) : startsAt.length === 0) break;
      if (performance.now() - started > 30_000) throw new Error(`line ${index} was not delivered within 30 s:\n${output.slice(-4000)}`);
      await sleep(5);
    }
    latencies.push(performance.now() - started);
    await sleep(20 + Math.floor(Math.random() * 30));
  }
  await stopChild(daemon);
  return { latencies, alertmanager: `Alertmanager ${version ?? '(unknown version)'}` };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---- the run ----------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const loadAverage = loadavg()[0]!;
  const file = join(root, 'controller.log');
  progress(`generating a ${megabytes} MiB controller log`);
  const generated = generateLog(file, megabytes * 1024 * 1024);
  const needles = logNeedleTable(logRules).needles;
  const patterns = join(root, 'patterns.txt');
  writeFileSync(patterns, `${needles.join('\n')}\n`);
  // Into the page cache, so both read from memory.
  spawnSync('cat', [file], { stdio: ['ignore', 'ignore', 'ignore'], timeout: 600_000 });

  const results: MatchingRound[] = [];
  for (let round = 1; round <= rounds; round++) {
    const grep = timeGrep(patterns, file);
    const daemon = await timeDaemonMatching(file);
    if (grep.count !== generated.matchingLines || daemon.count !== generated.matchingLines || daemon.lines !== generated.lines) {
      throw new Error(`round ${round}: grep found ${grep.count} lines, the daemon ${daemon.count} in ${daemon.lines} lines; the file has ${generated.matchingLines} in ${generated.lines}`);
    }
    results.push({ grepSeconds: grep.seconds, daemonSeconds: daemon.seconds });
    progress(`round ${round}: grep ${grep.seconds.toFixed(2)} s, daemon ${daemon.seconds.toFixed(2)} s, ratio ${speedRatio(results.at(-1)!).toFixed(2)}`);
  }
  rmSync(file, { force: true });

  progress(`timing ${timedLines} lines from append to Alertmanager`);
  const delivery = await timeDelivery();
  const summary = latencySummary(delivery.latencies);
  progress(`delivery: p50 ${summary.p50.toFixed(1)} ms, p99 ${summary.p99.toFixed(1)} ms, max ${summary.max.toFixed(1)} ms`);

  const run: AlertsBenchRun = {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
      node: process.version,
      grep: spawnSync('grep', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] ?? 'grep',
      alertmanager: delivery.alertmanager,
      loadAverage,
    },
    file: { bytes: generated.bytes, lines: generated.lines, matchingLines: generated.matchingLines, patterns: needles.length },
    rounds: results,
    latenciesMs: delivery.latencies,
  };
  const section = alertsBenchSection(run);
  const resultsFile = new URL('./RESULTS.md', import.meta.url);
  let previous: string;
  try {
    previous = readFileSync(resultsFile, 'utf8');
  } catch {
    previous = '# Benchmark results\n';
  }
  writeFileSync(resultsFile, replaceSection(previous, 'alerts', '## Alerts daemon: matching against grep, delivery to Alertmanager', section));
  console.log(section);
  progress('wrote bench/RESULTS.md (alerts section)');
}

main().then(
  async () => {
    lifecycle.markFinishing();
    await lifecycle.runCleanups();
  },
  async (error: Error) => {
    await lifecycle.abort(`alerts benchmark failed: ${error.stack ?? error.message}`, 1);
  },
);

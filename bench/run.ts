// The HTTP benchmark: (a) a bare Koa route, (b) the controller's authenticated current-api-session and (c) password
// logins, each served by its own process over HTTPS and loaded by wrk. Writes bench/RESULTS.md and prints the
// summary. Everything is bounded by a watchdog, and every process started here is stopped before exit.
// Env: BENCH_SECONDS (measured seconds per load, default 10); BENCH_CPU_PROF=<dir> writes .cpuprofile files
// of both servers there.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, tmpdir, type } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { initPki, issueControllerCertificate, pkiPaths } from '../server/pki/pki-directory.ts';
import { adminCredentials, ControllerFixture } from '../test/support/controller-fixture.ts';
import { HttpsClient } from '../test/support/https-client.ts';
import { stopAllChildren, stopChild, track } from './child-processes.ts';
import { processCpuSeconds } from './process-cpu.ts';
import { renderResults, runSummary, type BenchRun, type LoadResult } from './results-report.ts';
import { runWrk, type WrkLoad } from './wrk-runner.ts';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const resultsFile = join(benchDir, 'RESULTS.md');
const tsxLoader = new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const profileHook = new URL('./cpu-profile-hook.mjs', import.meta.url).href;

const seconds = positiveInteger('BENCH_SECONDS', 10);
const warmupSeconds = 2;
const threads = 2;
const profileDir = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 3600) throw new Error(`${name} must be a whole number of seconds from 1 to 3600, not "${raw}"`);
  return value;
}

const progress = (text: string) => process.stderr.write(`bench: ${text}\n`);

function wrkVersion(): string {
  const result = spawnSync('wrk', ['-v'], { encoding: 'utf8', timeout: 5_000 });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') throw new Error('wrk is not installed: run bench/run.sh, or apt-get install wrk');
  return /wrk \S+/.exec(`${result.stdout}${result.stderr}`)?.[0] ?? 'wrk (unknown version)';
}

/** A warm-up run whose figures are dropped (JIT, TLS sessions, caches), then the measured run, during which the
 * server process's CPU time is taken too. */
async function measure(label: string, serverPid: number | undefined, load: Omit<WrkLoad, 'seconds' | 'threads'>): Promise<LoadResult> {
  progress(`${label}: warm-up ${warmupSeconds} s, ${load.connections} connections`);
  await runWrk({ ...load, threads, seconds: warmupSeconds });
  progress(`${label}: measuring ${seconds} s`);
  const cpuBefore = processCpuSeconds(serverPid);
  const figures = await runWrk({ ...load, threads, seconds });
  const cpuAfter = processCpuSeconds(serverPid);
  const serverCpuUsPerRequest = cpuBefore !== undefined && cpuAfter !== undefined && figures.requests > 0 ? ((cpuAfter - cpuBefore) * 1e6) / figures.requests : undefined;
  progress(`${label}: ${figures.requestsPerSecond.toFixed(1)} requests/s, p99 ${figures.p99Ms.toFixed(2)} ms, ${figures.httpErrors} non-2xx, ${figures.socketErrors} socket errors`);
  return { label, connections: load.connections, figures, ...(serverCpuUsPerRequest === undefined ? {} : { serverCpuUsPerRequest }) };
}

async function expectStatus(what: string, response: Promise<{ status: number; text: string }>, status = 200): Promise<void> {
  const answer = await response;
  if (answer.status !== status) throw new Error(`${what}: expected HTTP ${status}, got ${answer.status} ${answer.text}`);
}

async function startBareServer(certFile: string, keyFile: string, caFile: string): Promise<{ port: number; pid: number | undefined; stop: () => Promise<void> }> {
  const profile = profileDir ? ['--import', profileHook] : [];
  const env = profileDir ? { ...process.env, BENCH_CPU_PROF_FILE: join(profileDir, 'bare-koa.cpuprofile') } : process.env;
  const child = track(spawn(process.execPath, [...profile, '--import', tsxLoader, join(benchDir, 'bare-koa-server.ts'), certFile, keyFile, caFile], { stdio: ['pipe', 'pipe', 'inherit'], env }));
  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error('the bare Koa server did not start within 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`the bare Koa server exited with ${code} before listening`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolvePort((JSON.parse(line) as { port: number }).port);
    });
  });
  return { port, pid: child.pid, stop: () => stopChild(child) };
}

async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms)));
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}

async function main(cleanups: (() => Promise<void> | void)[]): Promise<BenchRun> {
  const wrk = wrkVersion();
  const loadAverage = loadavg()[0] ?? 0;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const root = mkdtempSync(join(tmpdir(), 'edgeward-bench-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));

  progress('issuing a P-256 server certificate from a fresh PKI');
  const pkiDir = join(root, 'pki');
  await initPki(pkiDir, { trustDomain: 'edgeward.bench' });
  const certificate = await issueControllerCertificate(pkiDir, { id: 'bench', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const bundle = pkiPaths(pkiDir).bundle;
  const client = new HttpsClient(readFileSync(bundle, 'utf8'));
  cleanups.push(() => client.close());

  const bareServer = await startBareServer(certificate.paths.chain, certificate.paths.key, bundle);
  cleanups.push(bareServer.stop);
  const bareUrl = `https://127.0.0.1:${bareServer.port}/bare`;
  await expectStatus('GET /bare', client.get(bareUrl));
  const bare = await measure('`GET /bare` (bare Koa)', bareServer.pid, { url: bareUrl, connections: 64 });
  // Stopped before the controller starts, so the two never compete for CPU.
  await bareServer.stop();

  progress('starting a controller');
  const fixture = await ControllerFixture.create(profileDir ? { env: { NODE_OPTIONS: `--import=${profileHook}`, BENCH_CPU_PROF_FILE: join(profileDir, 'controller.cpuprofile') } } : {});
  cleanups.push(async () => {
    await withTimeout(fixture.dispose(), 15_000, 'stopping the controller').catch((error: Error) => {
      progress(`${error.message}; killing it`);
      fixture.child?.kill('SIGKILL');
    });
  });
  const token = await fixture.login(adminCredentials.username, adminCredentials.password, 'client');
  const sessionUrl = `${fixture.clientApi}/current-api-session`;
  await expectStatus('GET current-api-session', fixture.http.get(sessionUrl, { headers: { 'zt-session': token } }));
  const session = await measure('`GET /edge/client/v1/current-api-session`', fixture.child?.pid, { url: sessionUrl, connections: 64, headers: { 'zt-session': token } });

  const loginUrl = `${fixture.clientApi}/authenticate?method=password`;
  const loginBody = JSON.stringify({ username: adminCredentials.username, password: adminCredentials.password });
  await expectStatus('POST authenticate', fixture.http.post(loginUrl, { rawBody: loginBody, headers: { 'content-type': 'application/json' } }));
  const login = await measure('`POST /edge/client/v1/authenticate?method=password`', fixture.child?.pid, {
    url: loginUrl,
    connections: 16,
    method: 'POST',
    body: loginBody,
    headers: { 'content-type': 'application/json' },
  });

  return {
    date: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU', node: process.version, os: `${type()} ${release()}`, loadAverage },
    wrkVersion: wrk,
    threads,
    seconds,
    warmupSeconds,
    bare,
    session,
    login,
  };
}

async function runCleanups(cleanups: (() => Promise<void> | void)[]): Promise<void> {
  // Newest first: the controller and servers stop before their temp folders go.
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (error) {
      progress(`cleanup: ${(error as Error).message}`);
    }
  }
  cleanups.length = 0;
  await stopAllChildren();
}

const cleanups: (() => Promise<void> | void)[] = [];
let finishing = false;
const abort = async (reason: string, code: number) => {
  if (finishing) return;
  finishing = true;
  progress(`${reason}; stopping every process`);
  await runCleanups(cleanups);
  process.exit(code);
};
// Three loads of warm-up + measurement + wrk's request-timeout margin, plus PKI, controller start-up and shutdown.
const budgetMs = (3 * (warmupSeconds + seconds + 25) + 150) * 1000;
setTimeout(() => void abort(`the benchmark ran past its ${budgetMs / 1000} s budget`, 1), budgetMs).unref();
process.once('SIGINT', () => void abort('interrupted', 130));
process.once('SIGTERM', () => void abort('terminated', 143));

try {
  const run = await main(cleanups);
  await runCleanups(cleanups);
  let previous: string | undefined;
  try {
    previous = readFileSync(resultsFile, 'utf8');
  } catch {
    previous = undefined;
  }
  writeFileSync(resultsFile, renderResults(run, previous));
  process.stdout.write(`${runSummary(run)}\n\nWritten to ${resultsFile}\n`);
  process.exit(0);
} catch (error) {
  await abort(`failed: ${(error as Error).stack ?? String(error)}`, 1);
}

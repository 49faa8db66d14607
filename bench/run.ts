// The HTTP benchmark: (a) a bare Koa route, (a′) the same bare Koa server answering with a copy of (b)'s response,
// (b) the controller's authenticated current-api-session and (c) password logins, each server in its own process
// over HTTPS and loaded by wrk. Writes bench/RESULTS.md (keeping other benchmarks' marked sections) and prints the
// summary. Everything is bounded by a watchdog, and every process started here is stopped before exit.
// Order: the controller starts and answers (b) once, and that response is saved; the controller is then paused
// (SIGSTOP) while the bare server, given the saved response, serves (a). Then (a′) and (b) alternate in rounds, the
// server not under load paused each time; the bare server stops and the controller serves (c). No two servers ever
// compete for CPU.
// Env: BENCH_SECONDS (measured seconds per load, default 10); BENCH_HTTP_ROUNDS (rounds of (a′) then (b), 1 to 9,
// default 3); BENCH_PIN=0 turns CPU pinning off (see cpu-pinning.ts); BENCH_CPU_PROF=<dir> writes .cpuprofile files
// of both servers there.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, tmpdir, type } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchLifecycle } from './bench-lifecycle.ts';
import { createInterface } from 'node:readline';
import { initPki, issueControllerCertificate, pkiPaths } from '../common/pki/pki-directory.ts';
import { adminCredentials, ControllerFixture } from '../test/support/controller-fixture.ts';
import { HttpsClient } from '../test/support/https-client.ts';
import { stopChild, track } from './child-processes.ts';
import { pinningPlan, pinProcess } from './cpu-pinning.ts';
import { processCpuSeconds } from './process-cpu.ts';
import { renderResults, runSummary, type BenchRun, type HttpRound, type LoadResult } from './results-report.ts';
import { runWrk, type WrkLoad } from './wrk-runner.ts';
import { positiveInteger, progress, wrkVersion, readPreviousResults } from './bench-env.ts';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const resultsFile = join(benchDir, 'RESULTS.md');
const tsxLoader = new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const profileHook = new URL('./cpu-profile-hook.mjs', import.meta.url).href;

const seconds = positiveInteger('BENCH_SECONDS', 10);
const rounds = positiveInteger('BENCH_HTTP_ROUNDS', 3, 9, 'rounds');
const warmupSeconds = 2;
const threads = 2;
const profileDir = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
const pinning = pinningPlan();

/** Before its first (b), the controller runs its load as long as the bare server has run loads before its first
 * (a′): (a)'s warm-up and measurement and (a′)'s warm-up. Both are then compared in the same steady state (V8 grows
 * its young generation and optimises hot code over the first seconds of a load), not a warm process against a
 * fresh one. */
const steadyWarmupSeconds = 2 * warmupSeconds + seconds;

/** A warm-up run whose figures are dropped (JIT, heap sizing, TLS sessions, caches), then the measured run, during
 * which the server process's CPU time is taken too. */
async function measure(
  label: string,
  serverPid: number | undefined,
  load: Omit<WrkLoad, 'seconds' | 'threads'>,
  { warmup = warmupSeconds, round }: { warmup?: number; round?: number } = {},
): Promise<LoadResult> {
  const shown = round === undefined ? label : `round ${round}: ${label}`;
  progress(`${shown}: warm-up ${warmup} s, ${load.connections} connections`);
  await runWrk({ ...load, threads, seconds: warmup });
  progress(`${shown}: measuring ${seconds} s`);
  const cpuBefore = processCpuSeconds(serverPid);
  const figures = await runWrk({ ...load, threads, seconds });
  const cpuAfter = processCpuSeconds(serverPid);
  const serverCpuUsPerRequest = cpuBefore !== undefined && cpuAfter !== undefined && figures.requests > 0 ? ((cpuAfter - cpuBefore) * 1e6) / figures.requests : undefined;
  progress(`${shown}: ${figures.requestsPerSecond.toFixed(1)} requests/s, p99 ${figures.p99Ms.toFixed(2)} ms, ${figures.httpErrors} non-2xx, ${figures.socketErrors} socket errors`);
  return { label, connections: load.connections, figures, ...(serverCpuUsPerRequest === undefined ? {} : { serverCpuUsPerRequest }) };
}

async function expectStatus(what: string, response: Promise<{ status: number; text: string }>, status = 200): Promise<void> {
  const answer = await response;
  if (answer.status !== status) throw new Error(`${what}: expected HTTP ${status}, got ${answer.status} ${answer.text}`);
}

/** The parts of (b)'s response that (a′) repeats: the body text and the headers the controller sets. */
interface CapturedResponse {
  readonly body: string;
  readonly headers: Record<string, string>;
}

/** Headers every Node HTTP response carries, set per response by Node or Koa rather than by the application. */
const perResponseHeaders = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'content-type']);
/** Headers (b) must carry; the capture fails without them rather than measure a different response. */
const sessionHeaders = ['server', 'expires-at', 'expiration-seconds'];

async function captureResponse(what: string, response: Promise<{ status: number; text: string; headers: Record<string, string | string[] | undefined> }>): Promise<CapturedResponse & { contentType: string }> {
  const answer = await response;
  if (answer.status !== 200) throw new Error(`${what}: expected HTTP 200, got ${answer.status} ${answer.text}`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || perResponseHeaders.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const missing = sessionHeaders.filter((name) => headers[name] === undefined);
  if (missing.length > 0) throw new Error(`${what}: the response has no ${missing.join(', ')} header`);
  return { body: answer.text, headers, contentType: String(answer.headers['content-type']) };
}

/** Fails unless (a′) answers with the same status, content type, headers and body text as the captured (b). */
async function expectSameResponse(bareSessionUrl: string, client: HttpsClient, expected: CapturedResponse & { contentType: string }): Promise<void> {
  const actual = await captureResponse('GET /bare-session', client.get(bareSessionUrl));
  const differences = [
    ...(actual.contentType === expected.contentType ? [] : [`content-type ${actual.contentType} instead of ${expected.contentType}`]),
    ...(actual.body === expected.body ? [] : [`a ${Buffer.byteLength(actual.body)}-byte body instead of the captured ${Buffer.byteLength(expected.body)} bytes`]),
    ...[...new Set([...Object.keys(actual.headers), ...Object.keys(expected.headers)])]
      .filter((name) => actual.headers[name] !== expected.headers[name])
      .map((name) => `header ${name}: ${actual.headers[name] ?? '(none)'} instead of ${expected.headers[name] ?? '(none)'}`),
  ];
  if (differences.length > 0) throw new Error(`GET /bare-session does not repeat the controller's response: ${differences.join('; ')}`);
}

async function startBareServer(certFile: string, keyFile: string, caFile: string, sessionResponseFile: string): Promise<{ port: number; pid: number | undefined; stop: () => Promise<void> }> {
  const profile = profileDir ? ['--import', profileHook] : [];
  const env = profileDir ? { ...process.env, BENCH_CPU_PROF_FILE: join(profileDir, 'bare-koa.cpuprofile') } : process.env;
  const child = track(spawn(process.execPath, [...profile, '--import', tsxLoader, join(benchDir, 'bare-koa-server.ts'), certFile, keyFile, caFile, sessionResponseFile], { stdio: ['pipe', 'pipe', 'inherit'], env }));
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

  progress('starting a controller');
  // The fixture makes its folder under os.tmpdir(); pointing that into ours means a start-up failure, which leaves
  // no fixture to dispose, still leaves nothing behind.
  const previousTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = root;
  let fixture: ControllerFixture;
  try {
    fixture = await ControllerFixture.create(profileDir ? { env: { NODE_OPTIONS: `--import=${profileHook}`, BENCH_CPU_PROF_FILE: join(profileDir, 'controller.cpuprofile') } } : {});
  } finally {
    if (previousTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmpdir;
  }
  cleanups.push(async () => {
    await withTimeout(fixture.dispose(), 15_000, 'stopping the controller').catch((error: Error) => {
      progress(`${error.message}; killing it`);
      fixture.child?.kill('SIGKILL');
    });
  });
  const controllerPid = fixture.child?.pid;
  const token = await fixture.login(adminCredentials.username, adminCredentials.password, 'client');
  const sessionUrl = `${fixture.clientApi}/current-api-session`;
  const sessionResponse = await captureResponse('GET current-api-session', fixture.http.get(sessionUrl, { headers: { 'zt-session': token } }));
  const sessionResponseFile = join(root, 'session-response.json');
  writeFileSync(sessionResponseFile, JSON.stringify({ body: sessionResponse.body, headers: sessionResponse.headers } satisfies CapturedResponse));
  progress(`captured the controller's current-api-session response: ${Buffer.byteLength(sessionResponse.body)}-byte body, headers ${Object.keys(sessionResponse.headers).join(', ')}`);

  // Paused, the idle controller (timers, raft ticks) takes no CPU from the baselines. Resumed before anything else
  // in the cleanups (they run newest first), so it can still be stopped gracefully after a failure.
  if (controllerPid === undefined) throw new Error('the controller has no pid');
  let controllerPaused = false;
  const pauseController = () => {
    controllerPaused = true;
    process.kill(controllerPid, 'SIGSTOP');
  };
  const resumeController = () => {
    if (!controllerPaused) return;
    controllerPaused = false;
    process.kill(controllerPid, 'SIGCONT');
  };
  pauseController();
  cleanups.push(resumeController);

  const bareServer = await startBareServer(certificate.paths.chain, certificate.paths.key, bundle, sessionResponseFile);
  cleanups.push(bareServer.stop);
  const bareUrl = `https://127.0.0.1:${bareServer.port}/bare`;
  const bareSessionUrl = `https://127.0.0.1:${bareServer.port}/bare-session`;
  await expectStatus('GET /bare', client.get(bareUrl));
  await expectSameResponse(bareSessionUrl, client, sessionResponse);
  if (pinning) pinProcess(bareServer.pid, pinning.server);
  if (pinning) pinProcess(controllerPid, pinning.server);
  const bare = await measure('`GET /bare` (bare Koa)', bareServer.pid, { url: bareUrl, connections: 64, cpus: pinning?.load });

  // (a′) and (b) take turns, the one not measured paused, so a slow spell on this shared machine hits both.
  const bareServerPid = bareServer.pid;
  if (bareServerPid === undefined) throw new Error('the bare server has no pid');
  const httpRounds: HttpRound[] = [];
  for (let round = 1; round <= rounds; round++) {
    const bareSession = await measure('`GET /bare-session` (bare Koa, same response as b)', bareServerPid, { url: bareSessionUrl, connections: 64, cpus: pinning?.load }, { round });
    process.kill(bareServerPid, 'SIGSTOP');
    resumeController();
    // Let it run its overdue timers first: closing idle keep-alive sockets, which the next request could otherwise
    // be sent on and lose.
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 1_000));
    await expectStatus('GET current-api-session', fixture.http.get(sessionUrl, { headers: { 'zt-session': token } }));
    const session = await measure(
      '`GET /edge/client/v1/current-api-session`',
      controllerPid,
      { url: sessionUrl, connections: 64, headers: { 'zt-session': token }, cpus: pinning?.load },
      { round, warmup: round === 1 ? steadyWarmupSeconds : warmupSeconds },
    );
    httpRounds.push({ bareSession, session });
    if (round < rounds) pauseController();
    process.kill(bareServerPid, 'SIGCONT');
  }
  // Stopped before the controller serves (c), so the two never compete for CPU.
  await bareServer.stop();
  // Logins hash on libuv's thread pool: give the controller every CPU again so scrypt is not confined to one.
  if (pinning) pinProcess(controllerPid, pinning.all);

  const loginUrl = `${fixture.clientApi}/authenticate?method=password`;
  const loginBody = JSON.stringify({ username: adminCredentials.username, password: adminCredentials.password });
  await expectStatus('POST authenticate', fixture.http.post(loginUrl, { rawBody: loginBody, headers: { 'content-type': 'application/json' } }));
  const login = await measure('`POST /edge/client/v1/authenticate?method=password`', controllerPid, {
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
    steadyWarmupSeconds,
    pinning: pinning ? `server on CPU ${pinning.server}, wrk on CPU ${pinning.load} for (a), (a′) and (b); (c) unpinned` : 'none',
    bare,
    rounds: httpRounds,
    login,
  };
}

// Each load's warm-up + measurement + wrk's request-timeout margin ((a), (c) and two per round), (b)'s longer first
// warm-up, a second's pause per round, plus PKI, controller start-up and shutdown.
const budgetMs = ((2 + 2 * rounds) * (warmupSeconds + seconds + 25) + steadyWarmupSeconds + rounds + 150) * 1000;
const { cleanups, runCleanups, abort } = benchLifecycle(budgetMs, progress);

try {
  const run = await main(cleanups);
  await runCleanups();
  const previous = readPreviousResults(resultsFile);
  writeFileSync(resultsFile, renderResults(run, previous));
  process.stdout.write(`${runSummary(run)}\n\nWritten to ${resultsFile}\n`);
  process.exit(0);
} catch (error) {
  await abort(`failed: ${(error as Error).stack ?? String(error)}`, 1);
}

// Filtered identity lists at a large model (issue 42: "p99 of a filtered identity list ≤ 50 ms" at 1M identities).
// One real controller over HTTPS holds N identities (default 1,000,000), loaded the fastest honest way: the bench
// starts a controller, creates one identity through the API (the template row), takes a backup, adds N identity rows
// shaped like the template (names `list-id-<i>`, one of 1,000 role attributes `list-role-<i % 1000>`) to the backup,
// and `controller restore`s it into the controller's emptied data folder, then starts it. Then in alternating rounds,
// each query R times one after another: the scale bench's filtered lists (name contains, anyOf(roleAttributes)) and
// the other list shapes (name icontains, name =, name in, sorts by name both ways with offset, unfiltered limit=1),
// against a detail read (`GET /identities/<id>`, the baseline: what a request costs that does not depend on the
// table's size). Each query's totalCount is checked against what the generated rows hold. p50/p99 per query, the controller's CPU per request,
// and its RSS and V8 heap used (from /metrics, no forced collection) after the start and after the lists.
// Before the rounds, the first `sort=name` and the first `name contains` are each asked once while a detail read is sent
// back to back beside them (a ticker): its slowest read is the longest the controller held its event loop, during the
// request (where the index was built in one piece) and over BENCH_LIST_BUILD_WINDOW seconds after it (default 20: where
// it is built in slices in the background).
// Writes its marked section of bench/RESULTS.md. Bounded by a watchdog; the controller is stopped and its temp folder
// removed on success, failure, timeout or a signal.
// Env: BENCH_LIST_IDENTITIES (default 1000000), BENCH_LIST_ROUNDS (1 to 9, default 3), BENCH_LIST_REQUESTS (per query
// per round, default 20), BENCH_CPU_PROF=<dir> (the controller's main thread profile, from its start, written there as
// controller.cpuprofile when it stops; summarise with bench/cpu-profile-summary.ts).
import { execFile, execSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForHealthy } from '../server/demo/wait-for-health.ts';
import { newEntityId } from '../server/edge/ids.ts';
import { readBackupFile, writeBackupFile } from '../server/store/model-backup-file.ts';
import type { Row } from '../server/store/entity-table.ts';
import { ControllerFixture } from '../test/support/controller-fixture.ts';
import { benchLifecycle } from './bench-lifecycle.ts';
import { positiveInteger, progress, readPreviousResults } from './bench-env.ts';
import { renderListSection, querySummary, type FirstBuild, type ListRun, type QueryFigures, type QueryRound } from './list-bench-report.ts';
import { percentile } from './raft-bench-report.ts';
import { processCpuSeconds, residentBytes } from './process-cpu.ts';
import { ProbeClient } from './write-probe.ts';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const resultsFile = join(benchDir, 'RESULTS.md');
const cliEntry = fileURLToPath(new URL('../server/cli/main.ts', import.meta.url));
const tsxLoader = new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const profileHook = new URL('./cpu-profile-hook.mjs', import.meta.url).href;
const profileDir = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;

const identities = positiveInteger('BENCH_LIST_IDENTITIES', 1_000_000, 2_000_000, 'identities');
const rounds = positiveInteger('BENCH_LIST_ROUNDS', 3, 9, 'rounds');
const requests = positiveInteger('BENCH_LIST_REQUESTS', 20, 1000, 'requests');
const buildWindowSeconds = positiveInteger('BENCH_LIST_BUILD_WINDOW', 20, 300, 'seconds');
const roleGroups = 1000;
// Writing and restoring ran at ~40k rows/s and the start at ~25k/s under load: 60 µs a row at worst, plus the
// requests (up to 15 s each when lists scan) and a few minutes.
const budgetMs = (600 + (identities / 5000) * 3 + rounds * 10 * requests * 15 + 2 * (buildWindowSeconds + 60)) * 1000;
const life = benchLifecycle(budgetMs, progress);

function edgeward(args: readonly string[], timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, ['--import', tsxLoader, cliEntry, ...args], { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

/** fixture.start() with room for a large model: a restored controller reads every row before it serves (over 60 s
 * at 1M identities on a busy machine). */
async function startSlowly(fixture: ControllerFixture, env: NodeJS.ProcessEnv): Promise<void> {
  const command = fixture.command();
  const child = spawn(command.file, command.args, { env: { ...command.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  fixture.child = child;
  try {
    await waitForHealthy(`${fixture.origin}/health-checks`, fixture.caPem, 900_000, () => child.exitCode === null && child.signalCode === null);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- controller output ---\n${output}`);
  }
}

/** SIGTERM, then up to 5 minutes for the controller to exit (and the profile hook to write its profile). */
async function stopPatiently(fixture: ControllerFixture): Promise<void> {
  const child = fixture.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise<void>((done) => (timer = setTimeout(done, 300_000)))]);
  clearTimeout(timer);
}

interface Query {
  readonly request: string;
  readonly path: string;
  readonly baseline?: boolean;
  readonly targeted?: boolean;
  /** The totalCount the generated rows must give; undefined for a detail read. */
  readonly expected?: number;
}

const nameAt = (i: number) => `list-id-${i}`;

/** How many of the generated names pass `test` (the template and the admin are named otherwise). */
function countNames(test: (name: string) => boolean): number {
  let count = 0;
  for (let i = 0; i < identities; i++) if (test(nameAt(i))) count++;
  return count;
}

async function main(): Promise<void> {
  const startLoad = loadavg()[0]!;
  const fixture = await ControllerFixture.create();
  life.cleanups.push(() => fixture.dispose());
  const probe = new ProbeClient(fixture.caPem);
  life.cleanups.push(() => probe.close());
  let token = await fixture.adminToken();
  const created = await probe.post(`${fixture.managementApi}/identities`, JSON.stringify({ name: 'list-template', type: 'User', isAdmin: false, roleAttributes: ['list-role-template'] }), { 'zt-session': token }, 30_000);
  if (created.status !== 201) throw new Error(`creating the template identity: ${created.status} ${created.text}`);

  const backup = join(fixture.root, 'small.backup');
  const taken = await edgeward(['agent', 'controller', 'snapshot', '--socket', fixture.agentSocket, '--out', backup, '--json'], 120_000);
  if (taken.code !== 0) throw new Error(`agent controller snapshot: exit ${taken.code}: ${taken.stderr.slice(0, 300)}`);
  await fixture.stop('SIGTERM');

  progress(`writing a backup with ${identities} more identities`);
  let began = performance.now();
  const contents = await readBackupFile(backup);
  const identityRows = contents.tables['identities'] as (Row & Record<string, unknown>)[] | undefined;
  const template = identityRows?.find((row) => row['name'] === 'list-template');
  if (!identityRows || !template) throw new Error('the backup holds no template identity');
  const ids: string[] = [];
  for (let i = 0; i < identities; i++) {
    const id = newEntityId();
    if (i % 100_000 === 42) ids.push(id);
    identityRows.push({ ...template, id, name: nameAt(i), roleAttributes: [`list-role-${i % roleGroups}`] });
  }
  const big = join(fixture.root, 'big.backup');
  const { format: _format, tables: _counts, ...header } = contents.header;
  await writeBackupFile(big, header, contents.tables);
  identityRows.length = 0;
  const backupSeconds = (performance.now() - began) / 1000;

  progress('restoring it');
  rmSync(fixture.dataDir, { recursive: true, force: true });
  began = performance.now();
  const restored = await edgeward(['controller', 'restore', fixture.configFile, big], 1_800_000);
  if (restored.code !== 0) throw new Error(`controller restore: exit ${restored.code}: ${restored.stderr.slice(0, 300)}`);
  const restoreSeconds = (performance.now() - began) / 1000;
  rmSync(big, { force: true });

  if (profileDir) mkdirSync(profileDir, { recursive: true });
  began = performance.now();
  await startSlowly(fixture, profileDir ? { NODE_OPTIONS: `--import=${profileHook}`, BENCH_CPU_PROF_FILE: join(profileDir, 'controller.cpuprofile') } : {});
  token = await fixture.adminToken();
  // The profile hook writes the profile as the controller exits, which takes longer than fixture.stop() waits.
  if (profileDir) life.cleanups.push(() => stopPatiently(fixture));
  const startSeconds = (performance.now() - began) / 1000;
  const afterStart = { rssBytes: residentBytes(fixture.child?.pid), heapUsedBytes: await heapUsedBytes(probe, fixture.origin) };
  progress(`backup ${backupSeconds.toFixed(1)} s, restore ${restoreSeconds.toFixed(1)} s, start ${startSeconds.toFixed(1)} s`);

  const list = (filter: string | undefined, rest: string) => `/identities?${filter === undefined ? '' : `filter=${encodeURIComponent(filter)}&`}${rest}`;
  const perRole = Math.floor(identities / roleGroups) + (42 < identities % roleGroups ? 1 : 0);
  const queries: Query[] = [
    { request: 'GET /identities/<id>', path: `/identities/${ids[0]}`, baseline: true },
    { request: 'GET /identities?limit=1', path: list(undefined, 'limit=1'), expected: identities + 2 },
    { request: 'GET /identities?filter=name contains "-4242"&limit=25', path: list('name contains "-4242"', 'limit=25'), targeted: true, expected: countNames((name) => name.includes('-4242')) },
    { request: 'GET /identities?filter=name icontains "ID-4242"&limit=25', path: list('name icontains "ID-4242"', 'limit=25'), targeted: true, expected: countNames((name) => name.toLowerCase().includes('id-4242')) },
    { request: 'GET /identities?filter=anyOf(roleAttributes) = "list-role-42"&limit=25', path: list('anyOf(roleAttributes) = "list-role-42"', 'limit=25'), targeted: true, expected: perRole },
    { request: `GET /identities?filter=name = "${nameAt(424242 % identities)}"`, path: list(`name = "${nameAt(424242 % identities)}"`, 'limit=25'), targeted: true, expected: 1 },
    { request: 'GET /identities?filter=name in ["list-id-7", "list-id-77", "list-id-777"]', path: list('name in ["list-id-7", "list-id-77", "list-id-777"]', 'limit=25'), targeted: true, expected: [7, 77, 777].filter((i) => i < identities).length },
    { request: 'GET /identities?filter=anyOf(roleAttributes) = "list-role-42"&sort=name desc&limit=25&offset=100', path: list('anyOf(roleAttributes) = "list-role-42"', `sort=${encodeURIComponent('name desc')}&limit=25&offset=100`), targeted: true, expected: perRole },
    { request: 'GET /identities?sort=name&limit=25&offset=1000', path: `/identities?sort=name&limit=25&offset=1000`, targeted: true, expected: identities + 2 },
    { request: 'GET /identities?sort=name desc&limit=25&offset=1000', path: `/identities?sort=${encodeURIComponent('name desc')}&limit=25&offset=1000`, targeted: true, expected: identities + 2 },
  ];

  const firstBuilds: FirstBuild[] = [];
  for (const first of [queries.find((query) => query.path.startsWith('/identities?sort=name&'))!, queries.find((query) => query.request.includes('name contains'))!]) {
    firstBuilds.push(await firstBuild(probe, `${fixture.managementApi}`, token, first, queries[0]!.path));
    const last = firstBuilds.at(-1)!;
    progress(`first ${first.request}: ${last.firstMs.toFixed(0)} ms; slowest detail read during it ${last.longestDuringMs.toFixed(0)} ms, after it ${last.longestAfterMs.toFixed(0)} ms; again ${last.secondMs.toFixed(0)} ms`);
  }

  const figures = queries.map((query) => ({ query, rounds: [] as QueryRound[], totalCount: undefined as number | undefined }));
  const pid = () => fixture.child?.pid;
  for (let round = 1; round <= rounds; round++) {
    // Alternate the order each round, so no query always follows another.
    const order = round % 2 === 1 ? figures : [...figures].reverse();
    for (const entry of order) {
      const ms: number[] = [];
      let failed = 0;
      const cpuBefore = processCpuSeconds(pid()) ?? 0;
      for (let i = 0; i < requests; i++) {
        const t0 = performance.now();
        const answer = await probe.get(`${fixture.managementApi}${entry.query.path}`, { 'zt-session': token }, 120_000);
        ms.push(performance.now() - t0);
        if (answer.status !== 200) {
          failed++;
          continue;
        }
        const totalCount = (JSON.parse(answer.text) as { meta?: { pagination?: { totalCount?: number } } }).meta?.pagination?.totalCount;
        if (entry.query.expected !== undefined && totalCount !== entry.query.expected) throw new Error(`${entry.query.request}: totalCount ${totalCount}, expected ${entry.query.expected}`);
        entry.totalCount = totalCount;
      }
      const cpuSeconds = (processCpuSeconds(pid()) ?? 0) - cpuBefore;
      entry.rounds.push({ round, ms, cpuSeconds, failed });
      const summary = querySummary({ request: entry.query.request, baseline: false, targeted: false, rounds: [entry.rounds.at(-1)!] });
      progress(`round ${round}: ${entry.query.request}: p50 ${summary.p50Ms.toFixed(1)} ms, p99 ${summary.p99Ms.toFixed(1)} ms, CPU ${summary.cpuMsPerRequest.toFixed(1)} ms/request`);
    }
  }
  const rssBytes = residentBytes(pid());
  const heapUsed = await heapUsedBytes(probe, fixture.origin);
  if (profileDir) await stopPatiently(fixture);
  await fixture.stop('SIGTERM');

  const run: ListRun = {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, loadAverage: startLoad, loadAverageAtEnd: loadavg()[0]! },
    commit: execSync('git rev-parse --short HEAD', { cwd: benchDir, encoding: 'utf8' }).trim(),
    identities,
    loadSeconds: { backup: backupSeconds, restore: restoreSeconds, start: startSeconds },
    ...(rssBytes === undefined ? {} : { rssBytes }),
    ...(heapUsed === undefined ? {} : { heapUsedBytes: heapUsed }),
    afterStart: {
      ...(afterStart.rssBytes === undefined ? {} : { rssBytes: afterStart.rssBytes }),
      ...(afterStart.heapUsedBytes === undefined ? {} : { heapUsedBytes: afterStart.heapUsedBytes }),
    },
    requestsPerRound: requests,
    firstBuilds,
    queries: figures.map(({ query, rounds: measured, totalCount }): QueryFigures => ({
      request: query.request,
      baseline: query.baseline === true,
      targeted: query.targeted === true,
      ...(totalCount === undefined ? {} : { totalCount }),
      rounds: measured,
    })),
  };
  const previous = readPreviousResults(resultsFile);
  writeFileSync(resultsFile, renderListSection(previous, run, ''));
  process.stdout.write(`${renderListSection(undefined, run, '')}\n`);
}

/** The controller's `edgeward_nodejs_heap_used_bytes` (V8 heap in use, garbage not yet collected included), or
 * undefined when /metrics does not give it. */
async function heapUsedBytes(probe: ProbeClient, origin: string): Promise<number | undefined> {
  const answer = await probe.get(`${origin}/metrics`, {}, 30_000);
  const match = /^edgeward_nodejs_heap_used_bytes(?:\{[^}]*\})? ([\d.e+]+)/m.exec(answer.text);
  return answer.status === 200 && match ? Number(match[1]) : undefined;
}

/** Asks `query` once while detail reads go back to back beside it, keeps the ticker going `buildWindowSeconds` more,
 * then asks it again. */
async function firstBuild(probe: ProbeClient, api: string, token: string, query: Query, detailPath: string): Promise<FirstBuild> {
  const reads: { start: number; end: number }[] = [];
  let ticking = true;
  const ticker = (async () => {
    while (ticking) {
      const start = performance.now();
      const answer = await probe.get(`${api}${detailPath}`, { 'zt-session': token }, 120_000);
      if (answer.status !== 200) throw new Error(`ticker read: ${answer.status}`);
      reads.push({ start, end: performance.now() });
    }
  })();
  await new Promise((done) => setTimeout(done, 1000));
  const asked = performance.now();
  const answer = await probe.get(`${api}${query.path}`, { 'zt-session': token }, 600_000);
  const answered = performance.now();
  if (answer.status !== 200) throw new Error(`${query.request}: ${answer.status} ${answer.text.slice(0, 200)}`);
  await new Promise((done) => setTimeout(done, buildWindowSeconds * 1000));
  ticking = false;
  await ticker;
  const again = performance.now();
  const second = await probe.get(`${api}${query.path}`, { 'zt-session': token }, 600_000);
  const secondMs = performance.now() - again;
  if (second.status !== 200) throw new Error(`${query.request} again: ${second.status}`);
  const longest = (from: number, to: number) => Math.max(0, ...reads.filter((read) => read.end > from && read.start < to).map((read) => read.end - read.start));
  return {
    request: query.request,
    firstMs: answered - asked,
    longestDuringMs: longest(asked, answered),
    longestAfterMs: Math.max(0, ...reads.filter((read) => read.start >= answered).map((read) => read.end - read.start)),
    tickerP50Ms: percentile(reads.map((read) => read.end - read.start).sort((a, b) => a - b), 0.5),
    windowSeconds: buildWindowSeconds,
    secondMs,
  };
}

main()
  .then(async () => {
    life.markFinishing();
    await life.runCleanups();
  })
  .catch(async (error: unknown) => {
    progress(`failed: ${(error as Error).stack ?? String(error)}`);
    await life.abort('the list benchmark failed', 1);
  });

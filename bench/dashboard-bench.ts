// The status page's two figures. Its data endpoint: three controllers with 100k identities created through the
// management API, the real `./edgeward dashboard run` process with a full chart history, and wrk against
// `GET /api/state`, round after round with a bare node:http server answering the same bytes as the baseline
// (target: p99 ≤ 50 ms). Its first paint: Debian's Chromium (playwright-core) loading the page, the Performance API's
// paint entries. Also times `next build` of the page. Writes the `dashboard` section of bench/RESULTS.md and prints it.
// The page runs with its default poll interval and history (1 s, 10 minutes), and is measured once its history is
// full: a ten-minute wait.
// Env: BENCH_DASHBOARD_IDENTITIES (default 100000), BENCH_DASHBOARD_ROUNDS (default 3), BENCH_DASHBOARD_SECONDS
// (seconds per wrk measurement, default 10), BENCH_DASHBOARD_CONNECTIONS (the busier load, default 8; the other is 1),
// BENCH_DASHBOARD_PAINTS (page loads, default 5), BENCH_DASHBOARD_POLL_MS (the page's poll interval, default 1000; its
// history is 600 of them), BENCH_DASHBOARD_BUILD (1: build the page first and time it, the default; 0: use the build
// there is). Bounded by a watchdog.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dashboardConfigExample } from '../dashboard/config/dashboard-config-example.ts';
import { pkiPaths } from '../common/pki/pki-directory.ts';
import { memberList, threeControllerCluster } from '../test/support/cluster-helpers.ts';
import { adminCredentials, type ControllerFixture } from '../test/support/controller-fixture.ts';
import { freePort } from '../test/support/free-port.ts';
import { EdgewardProcess, launchChromium } from '../test/support/status-page-process.ts';
import { benchLifecycle } from './bench-lifecycle.ts';
import { positiveInteger, progress, wrkVersion } from './bench-env.ts';
import { stopChild, track } from './child-processes.ts';
import { dashboardBenchSection, endpointSummary } from './dashboard-bench-report.ts';
import type { DashboardBenchRun, EndpointRound, PaintSample } from './dashboard-bench-report.ts';
import { replaceSection } from './raft-bench-report.ts';
import { runWrk } from './wrk-runner.ts';
import { loadIdentities } from './identity-loader.ts';

const identityTarget = positiveInteger('BENCH_DASHBOARD_IDENTITIES', 100_000, 10_000_000, 'identities');
const rounds = positiveInteger('BENCH_DASHBOARD_ROUNDS', 3, 20, 'rounds');
const seconds = positiveInteger('BENCH_DASHBOARD_SECONDS', 10, 600);
const connections = positiveInteger('BENCH_DASHBOARD_CONNECTIONS', 8, 1024, 'connections');
const paintLoads = positiveInteger('BENCH_DASHBOARD_PAINTS', 5, 100, 'loads');
const build = (process.env.BENCH_DASHBOARD_BUILD ?? '1') !== '0';
const pollIntervalMs = positiveInteger('BENCH_DASHBOARD_POLL_MS', 1000, 2000, 'milliseconds');
/** Connections creating identities. */
const writeConnections = 32;
/** The default history, 10 minutes at the default 1 s interval, is 600 points. */
const historyPoints = 600;
const historyMs = historyPoints * pollIntervalMs;

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const tsxLoader = new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const resultsFile = join(benchDir, 'RESULTS.md');
const root = mkdtempSync(join(tmpdir(), 'edgeward-dashboard-bench-'));
// Build 10 min, the cluster 3 min, identities at ≥ 200 a second, the history and 2 min, the rounds (two loads, two
// servers), the paints and the rest 5 min.
const lifecycle = benchLifecycle((600 + 180 + identityTarget / 200 + historyMs / 1000 + 120 + rounds * 4 * (seconds + 20) + 300) * 1000, progress);
lifecycle.cleanups.push(() => rmSync(root, { recursive: true, force: true }));

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const started = performance.now();
  const value = await work();
  return { value, seconds: (performance.now() - started) / 1000 };
}

async function buildPage(): Promise<number> {
  progress('building the status page (./edgeward dashboard build --force)');
  const builder = new EdgewardProcess(['dashboard', 'build', '--force']);
  track(builder.child);
  const { seconds: took } = await timed(() => new Promise<void>((resolve, reject) => builder.child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the build failed (exit ${code}):\n${builder.output.slice(-4000)}`))))));
  return took;
}

async function identityCount(node: ControllerFixture, token: string, prefix: string): Promise<number> {
  const filter = encodeURIComponent(`name contains "${prefix}-"`);
  const answer = await node.http.get(`${node.managementApi}/identities?filter=${filter}&limit=1`, { headers: { 'zt-session': token } });
  const count = (answer.json as { meta?: { pagination?: { totalCount?: unknown } } } | undefined)?.meta?.pagination?.totalCount;
  if (answer.status !== 200 || typeof count !== 'number') throw new Error(`counting identities: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
  return count;
}

/** Starts bench/bare-json-server.ts with the body; resolves with its port. */
async function startBareServer(bodyFile: string): Promise<{ port: number; stop: () => Promise<void> }> {
  const child = track(spawn(process.execPath, ['--import', tsxLoader, join(benchDir, 'bare-json-server.ts'), bodyFile], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve((JSON.parse(line!) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`the bare server exited (${code})`)));
  });
  return { port, stop: () => stopChild(child) };
}

async function measurePaints(url: string): Promise<{ samples: PaintSample[]; version: string }> {
  const browser = await launchChromium();
  try {
    const samples: PaintSample[] = [];
    for (let load = 0; load < paintLoads; load++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(url, { waitUntil: 'load' });
      await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, undefined, { timeout: 30_000 });
      // No named functions inside: the callback runs in the page as written, without the loader's helpers.
      samples.push(
        await page.evaluate(() => {
          const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
          return {
            firstPaintMs: performance.getEntriesByName('first-paint')[0]?.startTime ?? Number.NaN,
            firstContentfulPaintMs: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
            responseStartMs: navigation.responseStart,
            domContentLoadedMs: navigation.domContentLoadedEventEnd,
          };
        }),
      );
      await context.close();
    }
    return { samples, version: `Chromium ${browser.version()}` };
  } finally {
    await browser.close();
  }
}

async function main(): Promise<void> {
  const loadAverage = loadavg()[0]!;
  const wrk = wrkVersion();
  const buildSeconds = build ? await buildPage() : undefined;

  progress('starting three controllers');
  const previousTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = root;
  let nodes: ControllerFixture[];
  try {
    nodes = await threeControllerCluster(join(root, 'pki'), { editConfig: (yaml) => yaml.replace('propagateAlways: false', 'propagateAlways: true') });
  } finally {
    if (previousTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmpdir;
  }
  lifecycle.cleanups.push(() => Promise.all(nodes.map((node) => node.dispose())).then(() => undefined));
  const leaderId = (await memberList(nodes[0]!)).find((row) => row.leader)?.id;
  const leader = nodes.find((node) => node.id === leaderId);
  if (!leader) throw new Error('no leader after the cluster formed');

  progress(`creating ${identityTarget} identities through ${leader.id}`);
  const token = await leader.login(adminCredentials.username, adminCredentials.password, 'management');
  const identities = await loadIdentities({
    managementApi: leader.managementApi,
    token,
    target: identityTarget,
    prefix: `dash-${Date.now().toString(36)}`,
    count: (prefix) => identityCount(leader, token, prefix),
    progress,
    connections: writeConnections,
  });

  const passwordFile = join(root, 'admin-password');
  writeFileSync(passwordFile, `${adminCredentials.password}\n`, { mode: 0o600 });
  const port = await freePort();
  const configFile = join(root, 'dashboard.yml');
  const config = dashboardConfigExample({
    listen: `127.0.0.1:${port}`,
    controllers: nodes.map((node) => ({ id: node.id, url: node.origin, eventsFile: node.eventsFile })),
    caBundle: pkiPaths(join(root, 'pki')).bundle,
    credentials: { username: adminCredentials.username, passwordFile },
    pollInterval: `${pollIntervalMs}ms`,
  }).replace('# history: 10m', `history: ${historyMs / 1000}s`);
  writeFileSync(configFile, config);
  progress('starting the status page');
  const dashboard = new EdgewardProcess(['dashboard', 'run', configFile]);
  track(dashboard.child);
  lifecycle.cleanups.push(() => dashboard.stop());
  const url = `http://127.0.0.1:${port}`;
  await dashboard.ready(`${url}/api/health`, 600_000);

  // A full history: about 600 points, a few fewer when a poll runs late.
  progress(`waiting ${historyMs / 1000} s for a full history (about ${historyPoints} points)`);
  let body = '';
  let points = 0;
  const deadline = Date.now() + historyMs + 120_000;
  for (;;) {
    body = await (await fetch(`${url}/api/state`)).text();
    const parsed = JSON.parse(body) as { history: { t: number }[]; snapshot: { members: { rows: unknown[] } } };
    points = parsed.history.length;
    const span = points > 1 ? parsed.history[points - 1]!.t - parsed.history[0]!.t : 0;
    if (span >= historyPoints * pollIntervalMs - 2 * pollIntervalMs && parsed.snapshot.members.rows.length === 3) break;
    if (Date.now() > deadline) throw new Error(`the history spans ${span} ms (${points} points) after ${(historyMs + 120_000) / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
  const bodyFile = join(root, 'state.json');
  writeFileSync(bodyFile, body);
  const bare = await startBareServer(bodyFile);
  lifecycle.cleanups.push(() => bare.stop());

  const results: EndpointRound[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const load of [1, connections]) {
      progress(`round ${round} of ${rounds}, ${load} connection(s): /api/state, then the bare server`);
      const page = await runWrk({ url: `${url}/api/state`, connections: load, threads: Math.min(2, load), seconds });
      const baseline = await runWrk({ url: `http://127.0.0.1:${bare.port}/api/state`, connections: load, threads: Math.min(2, load), seconds });
      results.push({ connections: load, page, bare: baseline });
    }
  }

  progress(`first paint: ${paintLoads} loads in Chromium`);
  const paints = await measurePaints(`${url}/`);

  const run: DashboardBenchRun = {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model.trim() ?? 'unknown', node: process.version, wrk, chromium: paints.version, loadAverage },
    identities: { count: identities.count, seconds: identities.seconds, connections: writeConnections },
    ...(buildSeconds === undefined ? {} : { buildSeconds }),
    body: { bytes: Buffer.byteLength(body), historyPoints: points, pollIntervalMs },
    load: { connections: [1, connections], threads: 2, seconds },
    rounds: results,
    paints: paints.samples,
  };
  const section = dashboardBenchSection(run);
  let previous = '# Benchmark results\n';
  try {
    previous = readFileSync(resultsFile, 'utf8');
  } catch {
    // a first run writes the file
  }
  writeFileSync(resultsFile, replaceSection(previous, 'dashboard', '## Status page: data endpoint and first paint', section));
  process.stdout.write(`${section}\n`);
  const summary = endpointSummary(results.filter((round) => round.connections === connections));
  progress(`done: /api/state p99 at ${connections} connections ${summary.pageP99.toFixed(2)} ms (bare ${summary.bareP99.toFixed(2)} ms); written to ${resultsFile}`);
  lifecycle.markFinishing();
  await lifecycle.runCleanups();
}

main().then(
  () => process.exit(0),
  async (error: Error) => {
    progress(`failed: ${error.stack ?? error.message}`);
    await lifecycle.runCleanups();
    process.exit(1);
  },
);

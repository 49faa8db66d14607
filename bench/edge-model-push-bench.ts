// What one edge model change costs with routers connected: routers sent the whole model on every change (the
// baseline: routers of earlier versions) against routers sent deltas (ctrl.edgeModelDelta). A three-controller
// cluster (bench/edgeward-cluster.ts) holds the 10x-Large service and policy set (bench/router-sim-model.ts); each
// round enrolls a fresh set of simulated routers (bench/router-simulator.ts), connects them, creates services one at
// a time (each once the last has reached every router) and stops them; rounds alternate between the variants.
// Writes its marked section of bench/RESULTS.md (bench/edge-model-push-report.ts). Bounded by a watchdog; the
// simulators and controllers are stopped and the temp dir removed on success, failure, timeout or a signal.
// Env: BENCH_PUSH_ROUTERS (routers a round, default 500), BENCH_PUSH_ROUNDS (rounds of each variant, 1 to 5, default
// 2), BENCH_PUSH_CHANGES (services created a round, default 5), BENCH_PUSH_SERVICES (default 2000),
// BENCH_PUSH_SERVICE_POLICIES (default 2500), BENCH_PUSH_EDGE_ROUTER_POLICIES (default 2500).
import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchLifecycle, type Cleanup } from './bench-lifecycle.ts';
import { positiveInteger, progress, readPreviousResults } from './bench-env.ts';
import { EdgewardCluster } from './edgeward-cluster.ts';
import { pushSummary, renderPushSection, type PushRound, type PushRun, type PushVariant } from './edge-model-push-report.ts';
import { processCpuSeconds, residentBytes } from './process-cpu.ts';
import { loadRouterSimModel } from './router-sim-model.ts';
import { RouterSimulator } from './router-simulator.ts';
import { ProbeClient } from './write-probe.ts';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const resultsFile = join(benchDir, 'RESULTS.md');

const routers = positiveInteger('BENCH_PUSH_ROUTERS', 500, 5000, 'routers');
const rounds = positiveInteger('BENCH_PUSH_ROUNDS', 2, 5, 'rounds');
const changes = positiveInteger('BENCH_PUSH_CHANGES', 5, 50, 'changes');
const size = {
  services: positiveInteger('BENCH_PUSH_SERVICES', 2000, 100_000, 'services'),
  servicePolicies: positiveInteger('BENCH_PUSH_SERVICE_POLICIES', 2500, 100_000, 'service policies'),
  edgeRouterPolicies: positiveInteger('BENCH_PUSH_EDGE_ROUTER_POLICIES', 2500, 100_000, 'edge router policies'),
  identities: 0,
  terminatorsPerRouter: 0,
};
const modelTypes = ['ctrl.edgeModel', 'ctrl.edgeModelDelta'];
/** A push is over once no model byte has arrived for this long (the push is debounced by 1 s). */
const quietMs = 1500;
const settleLimitMs = 120_000;

/** Start, the model (no less than 50 entities/s), enrolling (no less than 3 routers/s), each round's changes, stopping. */
const budgetMs = (240 + (size.services + size.servicePolicies + size.edgeRouterPolicies) / 50 + (2 * rounds * routers) / 3 + 2 * rounds * (60 + changes * (settleLimitMs / 1000)) + 120) * 1000;

const modelBytesOf = (simulator: RouterSimulator) => {
  const bytes = simulator.counts().bytesByType;
  return modelTypes.reduce((sum, type) => sum + (bytes[type] ?? 0), 0);
};

async function main(cleanups: Cleanup[]): Promise<PushRun> {
  const loadAverage = loadavg()[0] ?? 0;
  const root = mkdtempSync(join(tmpdir(), 'edgeward-push-bench-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  progress('starting a three-controller cluster');
  const cluster = await EdgewardCluster.start(join(root, 'cluster'), (stop) => cleanups.push(stop), progress);
  const leader = await cluster.leader(60_000);
  const leaderTarget = await cluster.loadTarget(leader);
  const managementApi = leaderTarget.url.replace(/\/identities$/, '');
  const token = leaderTarget.headers['zt-session']!;
  const prefix = `mp-${Date.now().toString(36)}`;
  progress(`loading ${size.services} services, ${size.servicePolicies} service policies and ${size.edgeRouterPolicies} edge router policies`);
  const model = await loadRouterSimModel({ managementApi, token, caPem: cluster.caPem, prefix, size, progress });
  progress(`model loaded in ${model.seconds.toFixed(0)} s`);
  const probe = new ProbeClient(cluster.caPem);
  cleanups.push(() => probe.close());

  const measured: PushRound[] = [];
  let wholeModelBytes: number | undefined;
  for (let round = 1; round <= 2 * rounds; round++) {
    const variant: PushVariant = round % 2 === 1 ? 'whole' : 'deltas';
    const simulator = new RouterSimulator({
      managementApi,
      token,
      caPem: cluster.caPem,
      routers,
      terminatorsPerRouter: 0,
      serviceIds: [],
      terminatorAddress: model.terminatorAddress,
      namePrefix: `${prefix}-r${round}`,
      enrollConcurrency: 8,
      edgeModelDeltas: variant === 'deltas',
      progress,
    });
    cleanups.push(() => simulator.stop());
    progress(`round ${round} (${variant}): enrolling ${routers} routers`);
    await simulator.enroll();
    simulator.connect();
    await simulator.waitConnected(routers, 300_000);
    // The welcomes' whole models have arrived once no model byte came for a while.
    await settled(simulator, performance.now());
    const connected = simulator.counts().connected;
    if (variant === 'whole' && wholeModelBytes === undefined) wholeModelBytes = Math.round(modelBytesOf(simulator) / connected);
    const pids = cluster.pids();
    const cpuBefore = pids.map(processCpuSeconds);
    const rssBefore = Math.max(...pids.map((pid) => residentBytes(pid) ?? 0));
    let peakRss = rssBefore;
    const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, ...pids.map((pid) => residentBytes(pid) ?? 0))), 100);
    const bytesBefore = modelBytesOf(simulator);
    const settleMs: number[] = [];
    try {
      for (let change = 0; change < changes; change++) {
        const body = JSON.stringify({ name: `${prefix}-push-${round}-${change}`, encryptionRequired: false, roleAttributes: ['pushed'] });
        const answer = await probe.post(`${managementApi}/services`, body, { 'zt-session': token }, 60_000);
        if (answer.status !== 201) throw new Error(`creating a service: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
        const answeredAt = performance.now();
        settleMs.push((await settled(simulator, answeredAt, modelBytesOf(simulator))) - answeredAt);
      }
    } finally {
      clearInterval(rssTimer);
    }
    let cpuSeconds = 0;
    for (const [member, pid] of pids.entries()) cpuSeconds += (processCpuSeconds(pid) ?? 0) - (cpuBefore[member] ?? 0);
    const modelBytes = modelBytesOf(simulator) - bytesBefore;
    measured.push({ round, variant, routers, connected, changes, modelBytes, cpuSeconds, peakRssBytes: peakRss, rssBeforeBytes: rssBefore, settleMs });
    progress(`round ${round} (${variant}): ${(modelBytes / (changes * connected)).toFixed(0)} B per router per change, controllers' CPU ${((cpuSeconds * 1000) / changes).toFixed(1)} ms per change, peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB, settle ${settleMs.map((ms) => ms.toFixed(0)).join('/')} ms`);
    await simulator.stop();
  }
  return {
    date: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU', node: process.version, loadAverage, loadAverageAtEnd: loadavg()[0] ?? 0 },
    commit: execSync('git rev-parse --short HEAD', { cwd: benchDir, encoding: 'utf8' }).trim(),
    model: { services: size.services, servicePolicies: size.servicePolicies, edgeRouterPolicies: size.edgeRouterPolicies },
    wholeModelBytes,
    rounds: measured,
  };
}

/**
 * When the last model byte arrived, once none has for `quietMs` (and, when `before` is given, some did after it:
 * the change's push). Throws past `settleLimitMs`.
 */
async function settled(simulator: RouterSimulator, since: number, before?: number): Promise<number> {
  let last = modelBytesOf(simulator);
  let lastAt = since;
  const deadline = since + settleLimitMs;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = performance.now();
    const bytes = modelBytesOf(simulator);
    if (bytes !== last) {
      last = bytes;
      lastAt = now;
    }
    const pushed = before === undefined || last > before;
    if (pushed && now - lastAt >= quietMs) return lastAt;
    if (now > deadline) throw new Error(`no push settled within ${settleLimitMs / 1000} s`);
  }
}

const { cleanups, runCleanups, abort, markFinishing } = benchLifecycle(budgetMs, progress);

try {
  const run = await main(cleanups);
  markFinishing();
  await runCleanups();
  writeFileSync(resultsFile, renderPushSection(readPreviousResults(resultsFile), run));
  process.stdout.write(`${pushSummary(run)}\n\nWritten to ${resultsFile} (edge-model-push section)\n`);
  process.exit(0);
} catch (error) {
  await abort(`failed: ${(error as Error).stack ?? String(error)}`, 1);
}

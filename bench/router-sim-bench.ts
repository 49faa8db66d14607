// 5,000 routers and 150,000 terminators on a 3-controller cluster (issue 42, item 3's routers): the cluster
// (bench/edgeward-cluster.ts) is loaded with the 10x-Large policy set through the leader's management API
// (bench/router-sim-model.ts), then the router simulator (bench/router-simulator.ts) makes and enrolls every router
// and dials them all. Measured: enrollment rate; time from the first dial to the last welcome; terminators as
// `GET /terminators?limit=1` counts them on the leader and on a follower (polled), with the time of each tenth and
// last/first; each controller's CPU and RSS over an idle window with every router enrolled and none connected (the
// baseline) and over the same window with all connected (heartbeats and metrics only): CPU ms per router per minute;
// the router list's latency (`GET /edge-routers?filter=…`) on the leader and a follower at that size. Writes its
// marked section of bench/RESULTS.md. Bounded by a watchdog; the simulator and the controllers are stopped and the
// temp dir removed on success, failure, timeout or a signal.
// Env: BENCH_SCALE_ROUTERS (default 5000), BENCH_SCALE_TERMINATORS_PER_ROUTER (default 30), BENCH_ROUTERSIM_SERVICES
// (default 2000), BENCH_ROUTERSIM_SERVICE_POLICIES (default 2500), BENCH_ROUTERSIM_EDGE_ROUTER_POLICIES (default
// 2500), BENCH_ROUTERSIM_IDENTITIES (default 1000), BENCH_ROUTERSIM_IDLE_SECONDS (each idle window, default 60),
// BENCH_ROUTERSIM_METRICS_SECONDS (each router's metrics interval, default 60, a router's default),
// BENCH_ROUTERSIM_TERMINATOR_SECONDS (how long to wait for every terminator after the first dial, default 900),
// BENCH_ROUTERSIM_ENROLL_CONCURRENCY (enrollments in flight at once, default 16; fewer on a loaded machine, whose
// enrollment requests otherwise time out), BENCH_ROUTERSIM_ROUTERS_CHANGED (default 1; 0: the routers' hello is an
// older router's, without `routersChanged`, so each is told of every other router's arrival in its own frame).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, tmpdir, type } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchLifecycle, type Cleanup } from './bench-lifecycle.ts';
import { positiveInteger, progress, readPreviousResults } from './bench-env.ts';
import { EdgewardCluster } from './edgeward-cluster.ts';
import { processCpuSeconds, residentBytes } from './process-cpu.ts';
import { renderRouterSimSection, routerSimSummary, type ControllerIdle, type CountSample, type IdleFigures, type ListLatency, type RouterSimRun, type TerminatorTimeline } from './router-sim-bench-report.ts';
import { loadRouterSimModel, routerRoleAttributes } from './router-sim-model.ts';
import { RouterSimulator } from './router-simulator.ts';
import { ProbeClient } from './write-probe.ts';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const resultsFile = join(benchDir, 'RESULTS.md');

const routers = positiveInteger('BENCH_SCALE_ROUTERS', 5000, 20_000, 'routers');
const terminatorsPerRouter = positiveInteger('BENCH_SCALE_TERMINATORS_PER_ROUTER', 30, 1000, 'terminators');
const services = positiveInteger('BENCH_ROUTERSIM_SERVICES', 2000, 100_000, 'services');
const servicePolicies = positiveInteger('BENCH_ROUTERSIM_SERVICE_POLICIES', 2500, 100_000, 'service policies');
const edgeRouterPolicies = positiveInteger('BENCH_ROUTERSIM_EDGE_ROUTER_POLICIES', 2500, 100_000, 'edge router policies');
const identities = positiveInteger('BENCH_ROUTERSIM_IDENTITIES', 1000, 1_000_000, 'identities');
const idleSeconds = positiveInteger('BENCH_ROUTERSIM_IDLE_SECONDS', 60, 600);
const metricsSeconds = positiveInteger('BENCH_ROUTERSIM_METRICS_SECONDS', 60, 600);
const terminatorSeconds = positiveInteger('BENCH_ROUTERSIM_TERMINATOR_SECONDS', 900, 3600);
const heartbeatSeconds = 10;
const enrollConcurrency = positiveInteger('BENCH_ROUTERSIM_ENROLL_CONCURRENCY', 16, 64, 'enrollments');
// 0: the routers' hello is an older router's (no `routersChanged`): every arrival is a frame to every router.
const routersChanged = (process.env.BENCH_ROUTERSIM_ROUTERS_CHANGED ?? '1') !== '0';
const connectConcurrency = 64;
const pollIntervalMs = 2000;
const listRequests = 100;

/** Start-up and the model (no less than 50 entities/s), enrollment (no less than 3 routers/s), the terminator wait,
 * both idle windows, the list probes, stopping; bench/run.sh repeats this sum. */
const budgetMs = (240 + (services + servicePolicies + edgeRouterPolicies + identities) / 50 + routers / 3 + terminatorSeconds + 2 * idleSeconds + 300) * 1000;


/** Each controller's CPU over `seconds` of doing nothing asked of it, and its RSS at the end. */
async function idleWindow(cluster: EdgewardCluster): Promise<IdleFigures[]> {
  const pids = cluster.pids();
  const before = pids.map(processCpuSeconds);
  const began = performance.now();
  await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  const elapsed = (performance.now() - began) / 1000;
  return pids.map((pid, member) => {
    const after = processCpuSeconds(pid);
    const start = before[member];
    return { seconds: elapsed, cpuSeconds: after === undefined || start === undefined ? undefined : after - start, rssBytes: residentBytes(pid) };
  });
}

async function totalCount(probe: ProbeClient, url: string, token: string): Promise<number | undefined> {
  try {
    const answer = await probe.get(url, { 'zt-session': token }, 60_000);
    const count = answer.status === 200 ? (JSON.parse(answer.text) as { meta?: { pagination?: { totalCount?: unknown } } }).meta?.pagination?.totalCount : undefined;
    return typeof count === 'number' ? count : undefined;
  } catch {
    return undefined;
  }
}

async function listLatency(probe: ProbeClient, managementApi: string, token: string, filter: string): Promise<{ samplesMs: number[]; failures: number }> {
  const samplesMs: number[] = [];
  let failures = 0;
  const url = `${managementApi}/edge-routers?filter=${encodeURIComponent(filter)}&limit=10`;
  for (let i = 0; i < listRequests; i++) {
    const began = performance.now();
    try {
      const answer = await probe.get(url, { 'zt-session': token }, 30_000);
      if (answer.status === 200) samplesMs.push(performance.now() - began);
      else failures++;
    } catch {
      failures++;
    }
  }
  return { samplesMs, failures };
}

async function main(cleanups: Cleanup[]): Promise<RouterSimRun> {
  const loadAverage = loadavg()[0] ?? 0;
  const root = mkdtempSync(join(tmpdir(), 'edgeward-router-sim-bench-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  progress('starting a three-controller cluster');
  const cluster = await EdgewardCluster.start(join(root, 'cluster'), (stop) => cleanups.push(stop), progress);
  const leader = await cluster.leader(60_000);
  const follower = (leader + 1) % cluster.memberNames.length;
  const leaderTarget = await cluster.loadTarget(leader);
  const followerTarget = await cluster.loadTarget(follower);
  const api = (target: { url: string }) => target.url.replace(/\/identities$/, '');
  const leaderApi = { managementApi: api(leaderTarget), token: leaderTarget.headers['zt-session']! };
  const followerApi = { managementApi: api(followerTarget), token: followerTarget.headers['zt-session']! };
  const names = cluster.memberNames;
  const roleOf = (member: number) => (member === leader ? ('leader' as const) : ('follower' as const));

  const prefix = `rs-${Date.now().toString(36)}`;
  progress(`loading the model through ${names[leader]}: ${services} services, ${servicePolicies} service policies, ${edgeRouterPolicies} edge router policies, ${identities} identities`);
  const model = await loadRouterSimModel({ ...leaderApi, caPem: cluster.caPem, prefix, size: { services, servicePolicies, edgeRouterPolicies, identities, terminatorsPerRouter }, progress });
  progress(`model loaded in ${model.seconds.toFixed(0)} s`);

  const simulator = new RouterSimulator({
    ...leaderApi,
    caPem: cluster.caPem,
    routers,
    terminatorsPerRouter,
    serviceIds: model.hostedServiceIds,
    terminatorAddress: model.terminatorAddress,
    roleAttributes: (index) => routerRoleAttributes(index, model.groups),
    namePrefix: `${prefix}-router`,
    enrollConcurrency,
    connectConcurrency,
    metricsIntervalMs: metricsSeconds * 1000,
    heartbeatIntervalMs: heartbeatSeconds * 1000,
    routersChanged,
    progress,
  });
  cleanups.push(() => simulator.stop());
  progress(`enrolling ${routers} routers (${enrollConcurrency} at once)`);
  const enrollBegan = performance.now();
  await simulator.enroll();
  const enrollSeconds = (performance.now() - enrollBegan) / 1000;
  progress(`${routers} routers enrolled in ${enrollSeconds.toFixed(1)} s (${(routers / enrollSeconds).toFixed(1)}/s); wall ms per router by step: ${JSON.stringify(Object.fromEntries(Object.entries(simulator.counts().enrollStepMs).map(([step, ms]) => [step, Math.round(ms / routers)])))}; calls tried again after a busy answer: ${simulator.counts().enrollRetries}, routers re-enrolled: ${simulator.counts().reEnrollments}`);

  progress(`idle baseline: ${idleSeconds} s with no router connected`);
  const baseline = await idleWindow(cluster);

  const probe = new ProbeClient(cluster.caPem);
  cleanups.push(() => probe.close());
  const total = routers * terminatorsPerRouter;
  const timelines: Array<TerminatorTimeline & { samples: CountSample[] }> = [
    { controller: names[leader]!, role: 'leader', samples: [] },
    { controller: names[follower]!, role: 'follower', samples: [] },
  ];
  const simulatorCpuBefore = process.cpuUsage();
  const controllerCpuBefore = cluster.pids().map(processCpuSeconds);
  const dialBegan = performance.now();
  simulator.connect();
  let allConnectedAt: number | undefined;
  const connected = simulator.waitConnected(routers, terminatorSeconds * 1000).then(
    () => (allConnectedAt = performance.now()),
    () => undefined,
  );
  const pollEnd = dialBegan + terminatorSeconds * 1000;
  const poll = async (timeline: (typeof timelines)[number], target: { managementApi: string; token: string }) => {
    while (performance.now() < pollEnd) {
      const count = await totalCount(probe, `${target.managementApi}/terminators?limit=1`, target.token);
      if (count !== undefined) {
        timeline.samples.push({ atMs: performance.now() - dialBegan, count });
        if (count >= total && allConnectedAt !== undefined) return;
      }
      await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
    }
  };
  let lastReport = 0;
  const reporter = setInterval(() => {
    const counts = simulator.counts();
    const latest = timelines.map((timeline) => `${timeline.controller} ${timeline.samples.at(-1)?.count ?? 0}`).join(', ');
    if (performance.now() - lastReport > 9000) {
      lastReport = performance.now();
      progress(`${((performance.now() - dialBegan) / 1000).toFixed(0)} s: ${counts.connected} connected (${counts.welcomes} welcomes, ${counts.failedDials} failed dials, ${counts.reconnects} reconnects); terminators listed: ${latest}`);
    }
  }, 1000);
  await Promise.all([poll(timelines[0]!, leaderApi), poll(timelines[1]!, followerApi)]);
  await connected;
  clearInterval(reporter);
  // The controllers' CPU for the whole arrival: admissions, welcomes, edge models, terminators (and the polls).
  const arrivalCpuSeconds = cluster.pids().map((pid, member) => {
    const after = processCpuSeconds(pid);
    const before = controllerCpuBefore[member];
    return after === undefined || before === undefined ? undefined : after - before;
  });
  const arrivalSeconds = (performance.now() - dialBegan) / 1000;
  const afterConnect = simulator.counts();
  // Not all connected in time: the figures of what did connect are reported (the section says how many), not thrown away.
  const lastConnectAt = allConnectedAt ?? afterConnect.lastWelcomeAt ?? performance.now();
  progress(allConnectedAt === undefined ? `only ${afterConnect.connected} of ${routers} routers connected within ${terminatorSeconds} s` : `all connected after ${((allConnectedAt - dialBegan) / 1000).toFixed(1)} s`);

  progress(`idle with every router connected: ${idleSeconds} s`);
  const withRouters = await idleWindow(cluster);
  const simulatorCpu = process.cpuUsage(simulatorCpuBefore);
  const idle: ControllerIdle[] = names.map((name, member) => ({ controller: name, role: roleOf(member), baseline: baseline[member]!, connected: withRouters[member]!, arrival: { seconds: arrivalSeconds, cpuSeconds: arrivalCpuSeconds[member], rssBytes: undefined } }));

  const routerList: ListLatency[] = [];
  for (const [member, target] of [[leader, leaderApi], [follower, followerApi]] as const) {
    for (const filter of [`name contains "${prefix}-router-12"`, 'isOnline = true']) {
      progress(`router list on ${names[member]}: ${filter}`);
      routerList.push({ controller: names[member]!, role: roleOf(member), filter: filter.replace(prefix, '<run>'), ...(await listLatency(probe, target.managementApi, target.token, filter)) });
    }
  }
  const counts = simulator.counts();
  return {
    date: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU', node: process.version, os: `${type()} ${release()}`, loadAverage, loadAverageAtEnd: loadavg()[0] ?? 0 },
    routers,
    terminatorsPerRouter,
    model: { services, servicePolicies, edgeRouterPolicies, identities, groups: model.groups, seconds: model.seconds },
    enrollment: { seconds: enrollSeconds, concurrency: enrollConcurrency, stepMs: counts.enrollStepMs },
    connect: { seconds: (lastConnectAt - dialBegan) / 1000, connected: afterConnect.connected, concurrency: connectConcurrency, welcomes: afterConnect.welcomes, reconnects: afterConnect.reconnects, failedDials: afterConnect.failedDials, refusals: afterConnect.refusals },
    lastConnectMs: lastConnectAt - dialBegan,
    terminators: timelines,
    idle,
    metricsIntervalSeconds: metricsSeconds,
    heartbeatIntervalSeconds: heartbeatSeconds,
    routersChanged,
    routerList,
    bytesByType: counts.bytesByType,
    simulatorCpuSeconds: (simulatorCpu.user + simulatorCpu.system) / 1e6,
  };
}

const { cleanups, runCleanups, abort, markFinishing } = benchLifecycle(budgetMs, progress);

try {
  const run = await main(cleanups);
  markFinishing();
  await runCleanups();
  writeFileSync(resultsFile, renderRouterSimSection(readPreviousResults(resultsFile), run));
  process.stdout.write(`${routerSimSummary(run)}\n\nWritten to ${resultsFile} (router-sim section)\n`);
  process.exit(0);
} catch (error) {
  await abort(`failed: ${(error as Error).stack ?? String(error)}`, 1);
}

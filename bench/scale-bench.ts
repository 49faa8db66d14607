// The controller at ten times OpenZiti's "Large" (issue 42, item 3): a three-controller cluster
// (bench/edgeward-cluster.ts) loaded through the leader's management API with 2,000 services, 5,000 edge routers
// (rows only), 2,500 service policies, 2,500 edge router policies and 1,000,000 identities with role attributes
// (bench/scale-model.ts; identities with wrk, bench/identity-loader.ts), then, phase by phase:
//   memory: every controller's RSS and heap used at 0, 10%, 25%, 50% and 100% of the identities (the load paused);
//   reads: filtered identity lists on the leader and a follower, the client API's `GET /services` and
//     `/current-identity/edge-routers` for a dialer, what the status page asks each controller every poll (health
//     checks, /metrics, the member list), password and certificate logins for 10 s each;
//   writes: 20 writes/s through the leader, against a second, empty three-controller cluster, taking turns;
//   circuits: two real routers (r1 proxy-mode tunnel listener, r2 hosting an echo server), new connections through
//     r1 against socat, taking turns (bench/connection-rate-load.ts);
//   snapshot: `./edgeward agent controller snapshot` on the leader (time, size);
//   catch-up: a follower stopped, its data folder deleted, started again: time until its applied index reaches the
//     leader's and it lists as many identities;
//   restore: the cluster stopped, `./edgeward controller restore` of that backup into a new controller's empty data
//     folder, and the restored controller's start.
// Each phase has its own time limit; one that fails or runs out is written as such and the run goes on where it
// can. Writes its marked section of bench/RESULTS.md and prints the same. Bounded by a watchdog; every process is
// stopped and the temp dir removed on success, failure, timeout or a signal.
// Env: BENCH_SCALE_IDENTITIES (default 1000000), BENCH_SCALE_SERVICES (2000), BENCH_SCALE_SERVICE_POLICIES (2500),
// BENCH_SCALE_EDGE_ROUTER_POLICIES (2500), BENCH_SCALE_EDGE_ROUTERS (5000), BENCH_SCALE_GROUPS (identity groups,
// 1000), BENCH_SCALE_ROUNDS (1 to 9, default 3), BENCH_SCALE_WRITE_SECONDS (10), BENCH_SCALE_CIRCUIT_SECONDS (10),
// BENCH_SCALE_CIRCUIT_CONCURRENCY (8), BENCH_SCALE_CONNECTIONS (wrk's, 32), BENCH_SCALE_LOAD_SECONDS (how long the
// identities may take, default 300 s + 1 s per 300: the load stops there and the run goes on at the size reached).
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, tmpdir, type } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callAgent } from '../server/agent/agent-client.ts';
import { benchLifecycle, type Cleanup } from './bench-lifecycle.ts';
import { positiveInteger, progress, readPreviousResults } from './bench-env.ts';
import { stopChild, track } from './child-processes.ts';
import { measureConnectionRate } from './connection-rate-load.ts';
import { EdgewardCluster } from './edgeward-cluster.ts';
import { loadIdentities } from './identity-loader.ts';
import { pacedRequests } from './paced-requests.ts';
import { renderScaleSection, scaleSummary, type CatchUpFigures, type CircuitRound, type EntityLoad, type LatencyFigures, type LoginRate, type MemorySample, type PhaseOutcome, type ScaleRun, type SnapshotFigures, type WriteRound } from './scale-bench-report.ts';
import { createEntities, entityPlans, identityRolePrefix, type ModelShape } from './scale-model.ts';
import { certIdentity, CertLogin, heapUsedBytes, loginLoop, passwordIdentity, passwordLogin, timedGets } from './scale-probes.ts';
import { residentBytes } from './process-cpu.ts';
import { requestFigures } from './snapshot-bench-report.ts';
import { ProbeClient, until } from './write-probe.ts';
import { ControllerFixture, adminCredentials } from '../test/support/controller-fixture.ts';
import { enrollRouterProcess, testRouterYaml, startWelcomedRouter } from '../test/support/circuit-routers.ts';
import { startEchoServer } from '../test/support/echo-server.ts';
import { freePort } from '../test/support/free-port.ts';
import { HttpsClient } from '../test/support/https-client.ts';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const resultsFile = join(benchDir, 'RESULTS.md');
const cliEntry = fileURLToPath(new URL('../server/cli/main.ts', import.meta.url));
const tsxLoader = new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

const identityTarget = positiveInteger('BENCH_SCALE_IDENTITIES', 1_000_000, 2_000_000, 'identities');
const shape: ModelShape = {
  services: positiveInteger('BENCH_SCALE_SERVICES', 2_000, 100_000, 'services'),
  servicePolicies: positiveInteger('BENCH_SCALE_SERVICE_POLICIES', 2_500, 100_000, 'service policies'),
  edgeRouterPolicies: positiveInteger('BENCH_SCALE_EDGE_ROUTER_POLICIES', 2_500, 100_000, 'edge router policies'),
  edgeRouters: positiveInteger('BENCH_SCALE_EDGE_ROUTERS', 5_000, 100_000, 'edge routers'),
  groups: positiveInteger('BENCH_SCALE_GROUPS', 1_000, 100_000, 'groups'),
};
const rounds = positiveInteger('BENCH_SCALE_ROUNDS', 3, 9, 'rounds');
const writeSeconds = positiveInteger('BENCH_SCALE_WRITE_SECONDS', 10, 600);
const circuitSeconds = positiveInteger('BENCH_SCALE_CIRCUIT_SECONDS', 10, 600);
const circuitConcurrency = positiveInteger('BENCH_SCALE_CIRCUIT_CONCURRENCY', 8, 256, 'connections');
const wrkConnections = positiveInteger('BENCH_SCALE_CONNECTIONS', 32, 512, 'connections');
/** How long the identities may take: the load stops there, short of the target, and the run goes on at that size. */
const loadSeconds = positiveInteger('BENCH_SCALE_LOAD_SECONDS', 300 + Math.ceil(identityTarget / 300), 36_000);
const entityConcurrency = 16;
const writeRate = 20;
const loginSeconds = 10;
const loginConcurrency = 8;
/** Requests per list measurement (or 30 s, whichever comes first). */
const listRequests = 200;
const memoryStops = [0.1, 0.25, 0.5].map((share) => Math.round(identityTarget * share));

/** Each phase's limit, in seconds; bench/run.sh repeats their sum. */
const limits = {
  start: 240,
  entities: 120 + Math.ceil((shape.services + shape.servicePolicies + shape.edgeRouterPolicies + shape.edgeRouters) / 20),
  identities: loadSeconds + 180,
  reads: 600,
  writes: 300 + rounds * 2 * (writeSeconds + 40),
  circuits: 300 + rounds * 2 * (circuitSeconds + 20),
  snapshot: 600,
  catchUp: 600,
  restore: 900,
};
const budgetMs = (Object.values(limits).reduce((sum, seconds) => sum + seconds, 0) + 120) * 1000;

const notes = [
  'Choices: every write goes to the leader (the model\'s size is the leader\'s); the other kinds are created before the',
  'identities so that each identity is created against the full set of policies. The filtered lists ask for one page',
  '(`limit=25`); the answer\'s `totalCount` is what the filter matched. The status page itself is not run here (the',
  'cluster harness does not serve it; bench/run.sh dashboard measures its data endpoint at 100k identities); what it',
  'asks each controller at every poll is timed on the leader (`status page\'s poll` rows). Logins:',
  'closed loop with a fixed number in flight, on keep-alive connections (no handshake per login).',
].join('\n');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const phases: PhaseOutcome[] = [];

/** Runs one phase within its limit, recording how it ended; answers undefined when it failed or ran out. */
async function phase<T>(name: string, limitSeconds: number, work: (deadline: number) => Promise<T>): Promise<T | undefined> {
  const began = performance.now();
  const deadline = began + limitSeconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), limitSeconds * 1000)));
  progress(`phase: ${name} (limit ${limitSeconds} s)`);
  try {
    const outcome = await Promise.race([work(deadline).then((value) => ({ value })), limit]);
    const seconds = (performance.now() - began) / 1000;
    if (outcome === 'timeout') {
      phases.push({ name, status: 'timed out', seconds, detail: `ran past its ${limitSeconds} s limit` });
      progress(`phase ${name}: timed out after ${seconds.toFixed(0)} s`);
      return undefined;
    }
    phases.push({ name, status: 'done', seconds });
    return outcome.value;
  } catch (error) {
    const seconds = (performance.now() - began) / 1000;
    const detail = ((error as Error).message ?? String(error)).split('\n')[0]!.slice(0, 300);
    phases.push({ name, status: 'failed', seconds, detail });
    progress(`phase ${name}: failed after ${seconds.toFixed(0)} s: ${(error as Error).stack ?? String(error)}`);
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

function notRun(name: string, why: string): void {
  phases.push({ name, status: 'not run', seconds: 0, detail: why });
}

/** `./edgeward <args>`: exit code and output, bounded in time. */
function edgeward(args: readonly string[], timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', tsxLoader, cliEntry, ...args], { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

async function appliedIndex(node: ControllerFixture): Promise<number> {
  const response = await callAgent(node.agentSocket, 'status', {}, 10_000);
  if (!response.ok) throw new Error(`status on ${node.id}: ${response.error}`);
  return (response.result as { appliedIndex: number }).appliedIndex;
}

interface Session {
  readonly member: number;
  readonly name: string;
  readonly node: ControllerFixture;
  readonly token: string;
}

async function main(cleanups: Cleanup[]): Promise<ScaleRun> {
  const loadAverage = loadavg()[0] ?? 0;
  const root = mkdtempSync(join(tmpdir(), 'edgeward-scale-bench-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const probe = new ProbeClient();
  cleanups.push(() => probe.close());
  const run = {
    entities: [] as EntityLoad[],
    memory: [] as MemorySample[],
    latency: [] as LatencyFigures[],
    logins: [] as LoginRate[],
    writes: [] as WriteRound[],
    circuits: [] as CircuitRound[],
    identities: undefined as ScaleRun['identities'],
    snapshot: undefined as SnapshotFigures | undefined,
    catchUp: undefined as CatchUpFigures | undefined,
  };
  const finish = (): ScaleRun => ({
    date: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU', node: process.version, os: `${type()} ${release()}`, loadAverage, loadAverageAtEnd: loadavg()[0] ?? 0 },
    plan: { identities: identityTarget, ...shape, roleGroups: shape.groups, wrkConnections, entityConcurrency, memoryStops: [0, ...memoryStops, identityTarget] },
    ...run,
    writeRate,
    writeSeconds,
    circuitSeconds,
    circuitConcurrency,
    phases,
  });

  const cluster = await phase('start the cluster', limits.start, () => EdgewardCluster.start(join(root, 'cluster'), (stop) => cleanups.push(stop), progress));
  if (!cluster) return finish();
  const caPem = cluster.caPem;
  const secure = new ProbeClient(caPem);
  cleanups.push(() => secure.close());
  const sessions = new Map<number, string>();
  const session = async (member: number): Promise<Session> => {
    const node = cluster.fixture(member);
    let token = sessions.get(member);
    if (token === undefined) {
      token = await node.login(adminCredentials.username, adminCredentials.password, 'management');
      sessions.set(member, token);
    }
    return { member, name: cluster.memberNames[member]!, node, token };
  };
  const leaderSession = async () => session(await cluster.leader(120_000));
  const followerSession = async () => {
    const leader = await cluster.leader(120_000);
    return session(cluster.memberNames.findIndex((_, member) => member !== leader));
  };
  const prefix = `scale-${Date.now().toString(36)}`;
  const identityPrefix = `${prefix}-id`;

  const sampleMemory = async (identities: number) => {
    const leader = await cluster.leader(120_000);
    const pids = cluster.pids();
    for (const [member, name] of cluster.memberNames.entries()) {
      const rssBytes = residentBytes(pids[member]);
      const heap = await heapUsedBytes(secure, cluster.fixture(member).origin);
      run.memory.push({ identities, controller: name, role: member === leader ? 'leader' : 'follower', ...(rssBytes === undefined ? {} : { rssBytes }), ...(heap === undefined ? {} : { heapUsedBytes: heap }) });
    }
    const line = run.memory.slice(-3).map((sample) => `${sample.controller} ${sample.role} RSS ${((sample.rssBytes ?? 0) / 2 ** 20).toFixed(0)} MiB heap ${((sample.heapUsedBytes ?? 0) / 2 ** 20).toFixed(0)} MiB`);
    progress(`memory at ${identities} identities: ${line.join('; ')}`);
  };
  const countIdentities = async (member: number) => cluster.storedCount(member, identityPrefix);

  await phase('create services, edge routers and policies', limits.entities, async (deadline) => {
    const leader = await leaderSession();
    for (const plan of entityPlans(shape, prefix)) {
      const load = await createEntities(secure, leader.node.managementApi, leader.token, plan, entityConcurrency, deadline);
      run.entities.push(load);
      progress(`${plan.kind}: ${load.count} created (${load.failed} failed) in ${load.seconds.toFixed(1)} s, ${(load.count / load.seconds).toFixed(0)}/s`);
    }
  });
  await phase('memory with no identities', 60, () => sampleMemory(0));
  const loaded = await phase('create identities', limits.identities, async (deadline) => {
    const leader = await leaderSession();
    return loadIdentities({
      deadline: deadline - 180_000,
      managementApi: leader.node.managementApi,
      token: leader.token,
      target: identityTarget,
      prefix: identityPrefix,
      count: async () => countIdentities(await cluster.leader(120_000)),
      progress,
      connections: wrkConnections,
      roles: { groups: shape.groups, prefix: identityRolePrefix },
      stops: memoryStops,
      atStop: async (count) => {
        await sleep(2_000);
        await sampleMemory(count);
      },
    });
  });
  if (loaded) run.identities = { count: loaded.count, seconds: loaded.seconds, timeline: loaded.timeline, stoppedAtDeadline: loaded.stoppedAtDeadline };
  const stored = loaded?.count ?? (await countIdentities(await cluster.leader(120_000)).catch(() => 0));
  await phase('memory with every identity', 120, async () => {
    // The followers apply what the leader committed; a moment for the last of it.
    await sleep(5_000);
    await sampleMemory(stored);
  });

  await phase('reads and logins', limits.reads, async () => {
    const leader = await leaderSession();
    const follower = await followerSession();
    const clientApi = `${leader.node.origin}/edge/client/v1`;
    const dialer = await passwordIdentity(secure, leader.node.managementApi, clientApi, leader.token, `${prefix}-dialer`, [`${identityRolePrefix}-42`]);
    const device = await certIdentity(secure, leader.node.managementApi, clientApi, leader.token, `${prefix}-device`, [`${identityRolePrefix}-43`], root);
    const lists = [
      { request: 'GET /identities?filter=name contains "-4242"&limit=25', path: `/identities?filter=${encodeURIComponent('name contains "-4242"')}&limit=25` },
      { request: `GET /identities?filter=anyOf(roleAttributes) = "${identityRolePrefix}-42"&limit=25`, path: `/identities?filter=${encodeURIComponent(`anyOf(roleAttributes) = "${identityRolePrefix}-42"`)}&limit=25` },
    ];
    for (const target of [leader, follower]) {
      for (const list of lists) {
        const timed = await timedGets(secure, `${target.node.managementApi}${list.path}`, { 'zt-session': target.token }, listRequests, 30);
        run.latency.push({ request: list.request, controller: target.name, role: target === leader ? 'leader' : 'follower', targetP99Ms: 50, ...timed });
        progress(`${list.request} on ${target.name}: p50 ${timed.p50Ms.toFixed(1)} ms, p99 ${timed.p99Ms.toFixed(1)} ms (${timed.failed} failed)`);
      }
    }
    const dialerToken = await passwordLogin(secure, clientApi, dialer);
    for (const request of ['GET /services?limit=25', 'GET /current-identity/edge-routers?limit=25']) {
      const url = `${clientApi}${request.slice(4)}`;
      const timed = await timedGets(secure, url, { 'zt-session': dialerToken }, listRequests, 30);
      run.latency.push({ request: `client API ${request} (a dialer in one group)`, controller: leader.name, role: 'leader', ...timed });
      progress(`${request} on ${leader.name}: p50 ${timed.p50Ms.toFixed(1)} ms, p99 ${timed.p99Ms.toFixed(1)} ms (${timed.failed} failed)`);
    }
    // What the status page asks every controller at each poll (dashboard/page-server/cluster-gatherer.ts), at the
    // full model: none of it should grow with the identities.
    for (const [path, headers] of [['/health-checks', {}], ['/health-checks/controller/raft', {}], ['/metrics', {}], ['/fabric/v1/cluster/list-members', { 'zt-session': leader.token }]] as const) {
      const timed = await timedGets(secure, `${leader.node.origin}${path}`, headers, listRequests, 30);
      run.latency.push({ request: `status page's poll: GET ${path}`, controller: leader.name, role: 'leader', ...timed });
      progress(`status page's poll GET ${path} on ${leader.name}: p50 ${timed.p50Ms.toFixed(1)} ms, p99 ${timed.p99Ms.toFixed(1)} ms (${timed.failed} failed)`);
    }
    const password = await loginLoop(async () => void (await passwordLogin(secure, clientApi, dialer)), loginSeconds, loginConcurrency);
    run.logins.push({ method: 'password', controller: leader.name, concurrency: loginConcurrency, ...password });
    const certClient = new CertLogin(caPem, device, loginConcurrency * 2);
    try {
      const cert = await loginLoop(() => certClient.login(clientApi), loginSeconds, loginConcurrency);
      run.logins.push({ method: 'cert', controller: leader.name, concurrency: loginConcurrency, ...cert });
    } finally {
      certClient.close();
    }
    for (const login of run.logins) progress(`${login.method} logins: ${(login.logins / login.seconds).toFixed(1)}/s, p99 ${login.p99Ms.toFixed(1)} ms (${login.failed} failed)`);
  });

  await phase('writes against an empty cluster', limits.writes, async () => {
    const empty = await EdgewardCluster.start(join(root, 'empty'), (stop) => cleanups.push(stop), progress);
    // Its own PKI: a client that trusts its CA.
    const emptyProbe = new ProbeClient(empty.caPem);
    try {
      const emptyLeader = empty.fixture(await empty.leader(120_000));
      const emptyToken = await emptyLeader.login(adminCredentials.username, adminCredentials.password, 'management');
      const emptyIds: string[] = [];
      for (let n = 0; n < 25; n++) {
        const answer = await emptyProbe.post(`${emptyLeader.managementApi}/identities`, JSON.stringify({ name: `write-target-${n}`, isAdmin: false }), { 'zt-session': emptyToken }, 60_000);
        if (answer.status !== 201) throw new Error(`creating a write target on the empty cluster: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
        emptyIds.push((JSON.parse(answer.text) as { data: { id: string } }).data.id);
      }
      const full = await leaderSession();
      const listed = await secure.get(`${full.node.managementApi}/identities?filter=${encodeURIComponent(`name contains "${identityPrefix}-"`)}&limit=25`, { 'zt-session': full.token }, 60_000);
      const fullIds = (JSON.parse(listed.text) as { data: { id: string }[] }).data.map((row) => row.id);
      if (fullIds.length === 0) throw new Error('no identity on the full cluster to write to');
      const measure = async (client: ProbeClient, api: string, token: string, ids: string[], tag: string) => {
        await sleep(2_000);
        const writes = pacedRequests(writeRate, async (n) => {
          const answer = await client.request('PATCH', `${api}/identities/${ids[n % ids.length]}`, JSON.stringify({ tags: { scaleBench: `${tag}-${n}` } }), { 'zt-session': token }, 30_000);
          return answer.status === 200 ? true : `HTTP ${answer.status}`;
        });
        await sleep(writeSeconds * 1000);
        return requestFigures(await writes.stop());
      };
      for (let round = 1; round <= rounds; round++) {
        const first = round % 2 === 1 ? 'empty' : 'full';
        const figures: Partial<Record<'empty' | 'full', ReturnType<typeof requestFigures>>> = {};
        for (const which of first === 'empty' ? (['empty', 'full'] as const) : (['full', 'empty'] as const)) {
          figures[which] = which === 'empty' ? await measure(emptyProbe, emptyLeader.managementApi, emptyToken, emptyIds, `r${round}`) : await measure(secure, full.node.managementApi, full.token, fullIds, `r${round}`);
        }
        run.writes.push({ round, first, empty: figures.empty!, full: figures.full! });
        progress(`writes round ${round}: p99 empty ${figures.empty!.p99Ms.toFixed(1)} ms, full ${figures.full!.p99Ms.toFixed(1)} ms`);
      }
    } finally {
      emptyProbe.close();
      await empty.stop();
    }
  });

  await phase('circuits through a router', limits.circuits, async () => {
    const leader = await leaderSession();
    const admin = { 'zt-session': leader.token };
    const http = new HttpsClient(caPem);
    const echo = await startEchoServer();
    const stops: (() => Promise<void>)[] = [async () => echo.close(), async () => http.close()];
    try {
      const api = { http, managementApi: leader.node.managementApi };
      // An election on this busy machine answers 503 CLUSTER_NO_LEADER for a moment: such a write is sent again.
      const post = async (path: string, body: Record<string, unknown>) => {
        const answer = await until(`POST ${path}`, async () => {
          const sent = await http.post(`${leader.node.managementApi}${path}`, { headers: admin, body });
          if (sent.status === 503) return undefined;
          return sent;
        }, 60_000, 1_000);
        if (answer.status !== 201) throw new Error(`POST ${path}: ${answer.status} ${answer.text.slice(0, 200)}`);
        return answer.json.data.id as string;
      };
      const proxyPort = await freePort();
      const linkPort = await freePort();
      const service = `${prefix}-echo`;
      const r1 = await enrollRouterProcess(api, admin, join(root, 'r1'), testRouterYaml({ endpoint: leader.node.ctrlAddress, listeners: [`  - binding: tunnel\n    options: {mode: proxy, services: [${service}:${proxyPort}]}`], tail: 'link:\n  dialers:\n    - binding: transport\n      groups: [default]\n      healthyDialBackoff: {retryBackoffFactor: 2, minRetryInterval: 200ms, maxRetryInterval: 1s}' }, await freePort()), `${prefix}-r1`, { isTunnelerEnabled: true, roleAttributes: ['scale-clients'] });
      const r2 = await enrollRouterProcess(api, admin, join(root, 'r2'), testRouterYaml({ endpoint: leader.node.ctrlAddress, listeners: ['  - binding: tunnel\n    options: {mode: host}'], tail: `link:\n  listeners:\n    - {binding: transport, bind: "tls:127.0.0.1:${linkPort}", advertise: "tls:127.0.0.1:${linkPort}", groups: [default]}` }, await freePort()), `${prefix}-r2`, { isTunnelerEnabled: true, roleAttributes: ['scale-hosts'] });
      for (const [name, router] of [['r1', r1], ['r2', r2]] as const) {
        const started = await startWelcomedRouter(router.config, `${name} welcomed`);
        track(started.child);
        stops.push(async () => void (await started.stop()));
      }
      const config = await post('/configs', { name: `${service}-host`, configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: echo.port } });
      await post('/services', { name: service, encryptionRequired: true, roleAttributes: ['scale-echo'], configs: [config] });
      await post('/service-policies', { name: `${prefix}-r2-binds-echo`, type: 'Bind', semantic: 'AnyOf', identityRoles: ['#scale-hosts'], serviceRoles: ['#scale-echo'] });
      await post('/service-policies', { name: `${prefix}-r1-dials-echo`, type: 'Dial', semantic: 'AnyOf', identityRoles: ['#scale-clients'], serviceRoles: ['#scale-echo'] });
      await post('/service-edge-router-policies', { name: `${prefix}-echo-everywhere`, semantic: 'AnyOf', serviceRoles: ['#scale-echo'], edgeRouterRoles: ['#all'] });
      const socatPort = await freePort();
      const socat = track(spawn('socat', [`TCP-LISTEN:${socatPort},fork,reuseaddr,bind=127.0.0.1`, `TCP:127.0.0.1:${echo.port}`], { stdio: ['ignore', 'ignore', 'inherit'] }));
      stops.push(() => stopChild(socat));
      await until('an echo through r1 → r2', async () => (await measureConnectionRate({ host: '127.0.0.1', port: proxyPort, seconds: 1, concurrency: 1, deadlineMs: 5_000 })).completed > 0, 120_000, 1_000);
      await until('an echo through socat', async () => (await measureConnectionRate({ host: '127.0.0.1', port: socatPort, seconds: 1, concurrency: 1 })).completed > 0, 30_000);
      for (let round = 1; round <= rounds; round++) {
        const first = round % 2 === 1 ? 'socat' : 'overlay';
        const figures: Partial<Record<'socat' | 'overlay', Awaited<ReturnType<typeof measureConnectionRate>>>> = {};
        for (const path of first === 'socat' ? (['socat', 'overlay'] as const) : (['overlay', 'socat'] as const)) {
          await sleep(1_000);
          figures[path] = await measureConnectionRate({ host: '127.0.0.1', port: path === 'socat' ? socatPort : proxyPort, seconds: circuitSeconds, concurrency: circuitConcurrency });
        }
        run.circuits.push({ round, first, socat: figures.socat!, overlay: figures.overlay! });
        progress(`circuits round ${round}: overlay ${figures.overlay!.perSecond.toFixed(0)}/s p99 ${figures.overlay!.setupMs.p99.toFixed(1)} ms (${figures.overlay!.failed} failed); socat ${figures.socat!.perSecond.toFixed(0)}/s p99 ${figures.socat!.setupMs.p99.toFixed(1)} ms`);
      }
    } finally {
      for (const stop of stops.reverse()) await stop().catch((error: Error) => progress(`circuits clean-up: ${error.message}`));
    }
  });

  const backup = join(root, 'backup.json');
  const snapshot = await phase('snapshot of the full model', limits.snapshot, async () => {
    const leader = await leaderSession();
    const began = performance.now();
    const answer = await edgeward(['agent', 'controller', 'snapshot', '--socket', leader.node.agentSocket, '--out', backup, '--json'], limits.snapshot * 1000);
    const seconds = (performance.now() - began) / 1000;
    if (answer.code !== 0) throw new Error(`agent controller snapshot: exit ${answer.code}: ${answer.stderr.slice(0, 300)}`);
    const written = JSON.parse(answer.stdout) as { index: number };
    run.snapshot = { seconds, sizeBytes: statSync(backup).size, index: written.index };
    progress(`snapshot: ${seconds.toFixed(1)} s, ${statSync(backup).size} bytes`);
    return run.snapshot;
  });

  await phase('a new follower caught up from empty', limits.catchUp, async () => {
    // A fresh member, as test/disaster-recovery.test.ts adds one: a follower restarted on an emptied data folder under
    // its old id stays at applied index 0 (see the notes), so one follower is stopped and removed, and a new
    // controller with an empty data folder is added in its place.
    const leader = await leaderSession();
    const follower = await followerSession();
    const leaderCount = await countIdentities(leader.member);
    // Removed while it still runs, then stopped: in the 1M run of 2026-11-29 a remove sent after the stop was refused
    // ("no channel to ctrl1"). A refusal (a leadership change at that moment) is tried again for up to a minute.
    await until(`cluster.remove ${follower.name}`, async () => {
      const removed = await callAgent((await leaderSession()).node.agentSocket, 'cluster.remove', { id: follower.name }, 60_000);
      if (!removed.ok) throw new Error(`cluster.remove ${follower.name}: ${removed.error}`);
      return true;
    }, 60_000, 2_000);
    await follower.node.stop('SIGTERM');
    const previousTmpdir = process.env.TMPDIR;
    process.env.TMPDIR = root;
    let fresh: ControllerFixture;
    try {
      fresh = await ControllerFixture.create({ pkiDir: join(root, 'cluster', 'pki'), id: 'ctrl4', initAdmin: false });
    } finally {
      if (previousTmpdir === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previousTmpdir;
    }
    cleanups.push(() => fresh.dispose());
    const leaderApplied = await appliedIndex(leader.node);
    const began = performance.now();
    const added = await callAgent(leader.node.agentSocket, 'cluster.add', { address: fresh.ctrlAddress, voter: true }, 120_000);
    if (!added.ok) throw new Error(`cluster.add ctrl4: ${added.error}`);
    let token: string | undefined;
    const caught = await until('ctrl4 to catch up', async () => {
      // A controller that installed a snapshot may exit to be started again (exit 3).
      if (fresh.child && fresh.child.exitCode !== null) await fresh.start();
      const own = await appliedIndex(fresh);
      if (own < leaderApplied) return undefined;
      token ??= await fresh.login(adminCredentials.username, adminCredentials.password, 'management');
      const answer = await secure.get(`${fresh.managementApi}/identities?filter=${encodeURIComponent(`name contains "${identityPrefix}-"`)}&limit=1`, { 'zt-session': token }, 60_000);
      const count = (JSON.parse(answer.text) as { meta?: { pagination?: { totalCount?: number } } }).meta?.pagination?.totalCount;
      return count === leaderCount ? { own, count } : undefined;
    }, limits.catchUp * 1000, 500);
    const seconds = (performance.now() - began) / 1000;
    const rssBytes = residentBytes(fresh.child?.pid);
    run.catchUp = { controller: `ctrl4 (new, in place of ${follower.name})`, seconds, leaderApplied, followerApplied: caught.own, identities: caught.count, ...(rssBytes === undefined ? {} : { rssBytes }) };
    progress(`ctrl4 caught up in ${seconds.toFixed(1)} s`);
  });

  if (!snapshot) notRun('restore of the backup', 'no backup was written');
  else {
    await phase('restore of the backup', limits.restore, async () => {
      // The cluster goes first: a fourth controller holding the whole model beside three would be memory the machine
      // may not have.
      await cluster.stop();
      const previousTmpdir = process.env.TMPDIR;
      process.env.TMPDIR = root;
      let restored: ControllerFixture;
      try {
        restored = await ControllerFixture.create({ pkiDir: join(root, 'cluster', 'pki'), id: 'ctrl-restored', initAdmin: false });
      } finally {
        if (previousTmpdir === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = previousTmpdir;
      }
      cleanups.push(() => restored.dispose());
      await restored.stop('SIGTERM');
      rmSync(restored.dataDir, { recursive: true, force: true });
      const began = performance.now();
      const outcome = await edgeward(['controller', 'restore', restored.configFile, backup], limits.restore * 1000);
      const restoreSeconds = (performance.now() - began) / 1000;
      if (outcome.code !== 0) throw new Error(`controller restore: exit ${outcome.code}: ${outcome.stderr.slice(0, 300)}`);
      run.snapshot = { ...run.snapshot!, restoreSeconds };
      const startBegan = performance.now();
      // A restored controller reads every row before it serves: 47 s on a quiet machine at 1M, 211–294 s at load 20.
      await restored.start({}, limits.restore * 1000);
      const restoredStartSeconds = (performance.now() - startBegan) / 1000;
      run.snapshot = { ...run.snapshot, restoredStartSeconds };
      const token = await until('the restored controller to log the admin in', () => restored.login(adminCredentials.username, adminCredentials.password, 'management'), 120_000, 500);
      const answer = await secure.get(`${restored.managementApi}/identities?filter=${encodeURIComponent(`name contains "${identityPrefix}-"`)}&limit=1`, { 'zt-session': token }, 120_000);
      const count = (JSON.parse(answer.text) as { meta?: { pagination?: { totalCount?: number } } }).meta?.pagination?.totalCount;
      const rssBytes = residentBytes(restored.child?.pid);
      run.snapshot = { ...run.snapshot, ...(typeof count === 'number' ? { restoredIdentities: count } : {}), ...(rssBytes === undefined ? {} : { restoredRssBytes: rssBytes }) };
      progress(`restore ${restoreSeconds.toFixed(1)} s, start ${restoredStartSeconds.toFixed(1)} s, ${count} identities`);
    });
  }
  return finish();
}

const { cleanups, runCleanups, abort, markFinishing } = benchLifecycle(budgetMs, progress);

try {
  const run = await main(cleanups);
  markFinishing();
  await runCleanups();
  writeFileSync(resultsFile, renderScaleSection(readPreviousResults(resultsFile), run, notes));
  process.stdout.write(`${scaleSummary(run)}\n\nWritten to ${resultsFile} (scale section)\n`);
  process.exit(0);
} catch (error) {
  await abort(`failed: ${(error as Error).stack ?? String(error)}`, 1);
}

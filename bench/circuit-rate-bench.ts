// How fast circuits are made: new TCP connections per second, and each one's connect→echo time, through one ingress
// router at a large policy model, against new connections through socat, in one run. Every new connection through
// the overlay is one `circuit.create` round trip to the controller:
//   socat   client → `socat TCP-LISTEN:…,fork` → echo (the baseline: a forked relay per connection);
//   tunnel  client → r1's proxy-mode tunnel listener → link → r2 (hosts the service) → echo (r1's own identity dials);
//   sdk     client → `./edgeward tunnel run`'s local proxy port → SDK Connect at r1's edge listener → link → r2 → echo
//           (the identity's API session dials).
// One controller (test/support/controller-fixture.ts) and two routers enrolled and run as an operator does. Before
// measuring, the policy side of the issue's 10x-Large model is loaded through the management API: identities (wrk,
// bench/identity-loader.ts), edge routers with no process behind them, services, service policies and edge router
// policies whose role attributes make each dialing identity match a handful of them (teams of identities, groups of
// services and of routers). The load is bench/connection-rate-load.ts's closed loop, at each concurrency, in rounds
// whose order of paths rotates; CPU per connection of the controller, r1, r2, the tunneler and socat from /proc.
// Writes its marked section of bench/RESULTS.md and prints the same. Bounded by a watchdog; every process is stopped
// and the temp dir removed on success, failure, timeout or a signal.
// Env: BENCH_CIRCUIT_IDENTITIES (default 100000), BENCH_CIRCUIT_ROUTERS (edge-router rows, default 5000),
// BENCH_CIRCUIT_SERVICES (default 2000), BENCH_CIRCUIT_POLICIES (service policies and edge router policies each,
// default 2500), BENCH_CIRCUIT_ROUNDS (1 to 9, default 3), BENCH_CIRCUIT_SECONDS (per measurement, default 10),
// BENCH_CIRCUIT_CONCURRENCY (comma-separated loops, default 8,32), BENCH_CIRCUIT_LABEL (a note for the section),
// BENCH_CPU_PROF=<dir> (the controller's, r1's and r2's .cpuprofile there, as overlay-bench.ts does).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ControllerFixture } from '../test/support/controller-fixture.ts';
import { benchLifecycle, type Cleanup } from './bench-lifecycle.ts';
import { positiveInteger, progress, readPreviousResults } from './bench-env.ts';
import { stopChild, track } from './child-processes.ts';
import { circuitRateSummary, renderCircuitRateSection, type CircuitPathName, type CircuitRateModel, type CircuitRateRun, type CircuitRateSample } from './circuit-rate-bench-report.ts';
import { echoOnce, measureConnectionRate } from './connection-rate-load.ts';
import { loadIdentities } from './identity-loader.ts';
import { processCpuSeconds, processCpuWithChildrenSeconds } from './process-cpu.ts';

const profileHook = new URL('./cpu-profile-hook.mjs', import.meta.url).href;
const profileDir = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;

/** Teams of identities, groups of services and groups of routers the generated policies select by attribute. */
const teams = 100;
const serviceGroups = 200;
const routerGroups = 250;

async function loadHarness() {
  const [clusterHelpers, controllerFixture, freePortModule, routerFixture, tunnelProcess] = await Promise.all([
    import('../test/support/cluster-helpers.ts'),
    import('../test/support/controller-fixture.ts'),
    import('../test/support/free-port.ts'),
    import('../test/support/router-fixture.ts'),
    import('../test/support/tunnel-process.ts'),
  ]);
  return {
    until: clusterHelpers.until,
    ControllerFixture: controllerFixture.ControllerFixture,
    freePort: freePortModule.freePort,
    RouterRun: routerFixture.RouterRun,
    runEdgeward: routerFixture.runEdgeward,
    startTunnel: tunnelProcess.startTunnel,
    enrolledIdentityFile: tunnelProcess.enrolledIdentityFile,
  };
}
type Harness = Awaited<ReturnType<typeof loadHarness>>;

function concurrencies(): number[] {
  const raw = process.env.BENCH_CIRCUIT_CONCURRENCY ?? '8,32';
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (values.length === 0 || values.some((value) => !Number.isInteger(value) || value < 1 || value > 256)) {
    throw new Error(`BENCH_CIRCUIT_CONCURRENCY must be whole numbers from 1 to 256 separated by commas, not "${raw}"`);
  }
  return values;
}

function socatVersion(): string {
  const result = spawnSync('socat', ['-V'], { encoding: 'utf8', timeout: 5_000 });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') throw new Error('socat is not installed: apt-get install socat');
  return /socat version (\S+)/.exec(`${result.stdout}${result.stderr}`)?.[0]?.replace('version ', '') ?? 'socat (unknown version)';
}


/** Runs `work(i)` for i in [0, count) with at most `parallel` in flight; throws the first failure. */
async function inParallel(count: number, parallel: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, lane));
}

function routerConfig(name: 'r1' | 'r2', edgePort: number, ctrlAddress: string, options: { proxy?: string; linkPort?: number }): string {
  const tunnel = name === 'r1' ? `  - binding: tunnel\n    options: {mode: proxy, services: [${options.proxy}]}` : '  - binding: tunnel\n    options: {mode: host}';
  const link =
    name === 'r1'
      ? 'link:\n  dialers:\n    - binding: transport\n      groups: [to-r2]\n      healthyDialBackoff: {retryBackoffFactor: 2, minRetryInterval: 200ms, maxRetryInterval: 1s}'
      : `link:\n  listeners:\n    - {binding: transport, bind: "tls:127.0.0.1:${options.linkPort}", advertise: "tls:127.0.0.1:${options.linkPort}", groups: [to-r2]}`;
  return `v: 3
identity: {cert: router.cert, server_cert: router.server.cert, key: router.key, ca: ca.pem}
ctrl:
  endpoint: ${ctrlAddress}
edge:
  csr:
    sans: {dns: [localhost], ip: [127.0.0.1]}
listeners:
  - binding: edge
    address: tls:127.0.0.1:${edgePort}
    options: {advertise: 127.0.0.1:${edgePort}}
${tunnel}
dialers:
  - binding: transport
${link}
`;
}

interface Settings {
  readonly identities: number;
  readonly routers: number;
  readonly services: number;
  readonly policies: number;
  readonly rounds: number;
  readonly seconds: number;
  readonly concurrencies: readonly number[];
  readonly label: string;
}

async function main(harness: Harness, cleanups: Cleanup[], settings: Settings): Promise<CircuitRateRun> {
  const { until, freePort, runEdgeward } = harness;
  const date = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const loadAverage = loadavg()[0] ?? 0;
  const socat = socatVersion();
  const root = mkdtempSync(join(tmpdir(), 'edgeward-circuit-bench-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const profileEnv = (name: string) => (profileDir ? { NODE_OPTIONS: `--import=${profileHook}`, BENCH_CPU_PROF_FILE: join(profileDir, `${name}.cpuprofile`) } : {});

  progress('starting the echo upstream and socat in front of it');
  const echo = createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => socket.write(chunk));
    socket.on('error', () => undefined);
  });
  const echoPort = await new Promise<number>((done) => echo.listen(0, '127.0.0.1', () => done((echo.address() as AddressInfo).port)));
  cleanups.push(() => new Promise<void>((done) => echo.close(() => done())));
  const socatPort = await freePort();
  const socatChild = track(spawn('socat', [`TCP-LISTEN:${socatPort},fork,reuseaddr,backlog=1024,bind=127.0.0.1`, `TCP:127.0.0.1:${echoPort}`], { stdio: ['ignore', 'ignore', 'inherit'] }));
  cleanups.push(() => stopChild(socatChild));
  await until('socat to listen', () => echoOnce(socatPort), 10_000);

  progress('starting a controller');
  const previousTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = root;
  let controller: ControllerFixture;
  try {
    controller = await harness.ControllerFixture.create({ env: profileEnv('controller') });
  } finally {
    if (previousTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmpdir;
  }
  cleanups.push(() => controller.dispose());
  const token = await controller.adminToken();
  const admin = { 'zt-session': token };
  const post = async (path: string, body: Record<string, unknown>): Promise<string> => {
    const response = await controller.http.post(`${controller.managementApi}${path}`, { headers: admin, body });
    if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${response.text.slice(0, 300)}`);
    return response.json.data.id as string;
  };

  // The model. Identities first (wrk), then router rows, services and the policies that select them by attribute.
  progress(`creating ${settings.identities} identities`);
  const prefix = `circ-${Date.now().toString(36)}`;
  const count = async (name: string) => {
    const filter = encodeURIComponent(`name contains "${name}-"`);
    const answer = await controller.http.get(`${controller.managementApi}/identities?filter=${filter}&limit=1`, { headers: admin });
    const total = answer.json?.meta?.pagination?.totalCount;
    if (typeof total !== 'number') throw new Error(`counting identities: ${answer.status} ${answer.text.slice(0, 200)}`);
    return total;
  };
  const identities = await loadIdentities({ managementApi: controller.managementApi, token, target: settings.identities, prefix, count, progress });
  progress(`creating ${settings.routers} edge routers (rows only)`);
  const routersStarted = performance.now();
  await inParallel(settings.routers, 16, async (i) => {
    await post('/edge-routers', { name: `bench-er-${i}`, isTunnelerEnabled: i % 10 === 0, roleAttributes: [`router-group-${i % routerGroups}`] });
    if (i % 1000 === 999) progress(`edge routers: ${i + 1}`);
  });
  const edgeRouterSeconds = (performance.now() - routersStarted) / 1000;
  progress(`creating ${settings.services} services, ${settings.policies} service policies and ${settings.policies} edge router policies`);
  const policiesStarted = performance.now();
  await inParallel(settings.services, 16, (i) => post('/services', { name: `bench-svc-${i}`, encryptionRequired: false, roleAttributes: [`service-group-${i % serviceGroups}`] }).then(() => undefined));
  await inParallel(settings.policies, 16, (i) =>
    post('/service-policies', {
      name: `bench-sp-${i}`,
      type: i % 2 === 0 ? 'Dial' : 'Bind',
      semantic: 'AnyOf',
      identityRoles: [`#team-${i % teams}`],
      serviceRoles: [`#service-group-${i % serviceGroups}`],
    }).then(() => undefined),
  );
  await inParallel(settings.policies, 16, (i) =>
    post('/edge-router-policies', { name: `bench-erp-${i}`, semantic: 'AnyOf', identityRoles: [`#team-${i % teams}`], edgeRouterRoles: [`#router-group-${i % routerGroups}`] }).then(() => undefined),
  );
  const policySeconds = (performance.now() - policiesStarted) / 1000;

  // The measured path: a service hosted by r2, dialed through r1 (by r1's identity and by the tunneler's).
  const overlayPort = await freePort();
  const r2Link = await freePort();
  const routers = new Map<'r1' | 'r2', { id: string; pid: number; lines: ReadonlyArray<Record<string, unknown>> }>();
  for (const name of ['r2', 'r1'] as const) {
    progress(`enrolling router ${name}`);
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    const config = join(dir, 'router.yml');
    writeFileSync(config, routerConfig(name, await freePort(), controller.ctrlAddress, { proxy: `circuit-echo:${overlayPort}`, linkPort: r2Link }));
    // Each dialing identity is in two teams, as a user in a realistic handful of policies.
    const roles = name === 'r1' ? ['bench-clients', 'team-3', 'team-42'] : ['bench-hosts'];
    const id = await post('/edge-routers', { name, isTunnelerEnabled: true, roleAttributes: roles });
    const detail = await controller.http.get(`${controller.managementApi}/edge-routers/${id}`, { headers: admin });
    writeFileSync(join(dir, 'enroll.jwt'), detail.json.data.enrollmentJwt as string);
    const enrolled = await runEdgeward(['router', 'enroll', config, '--jwt', join(dir, 'enroll.jwt')]);
    if (enrolled.code !== 0) throw new Error(`router enroll ${name} failed: ${enrolled.stderr}`);
    const run = harness.RouterRun.start(config, profileEnv(name));
    track(run.child);
    cleanups.push(async () => void (await run.stop()));
    await run.waitForLog((line) => line.msg === 'control channel established', 60_000, `${name} welcomed`);
    routers.set(name, { id, pid: run.child.pid!, lines: run.lines });
  }
  const hostConfig = await post('/configs', { name: 'circuit-echo-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: echoPort } });
  await post('/services', { name: 'circuit-echo', encryptionRequired: false, roleAttributes: ['bench-echo'], configs: [hostConfig] });
  await post('/service-policies', { name: 'hosts-bind-echo', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#bench-hosts'], serviceRoles: ['#bench-echo'] });
  await post('/service-policies', { name: 'clients-dial-echo', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#bench-clients'], serviceRoles: ['#bench-echo'] });
  await post('/edge-router-policies', { name: 'clients-use-r1', semantic: 'AnyOf', identityRoles: ['#bench-clients'], edgeRouterRoles: ['#bench-clients'] });
  await post('/service-edge-router-policies', { name: 'echo-everywhere', semantic: 'AnyOf', serviceRoles: ['#bench-echo'], edgeRouterRoles: ['#all'] });
  progress('waiting for the terminator and a circuit through r1 → r2');
  await until('an echo through r1 → r2', () => echoOnce(overlayPort), 60_000);
  const path = routers.get('r1')!.lines.filter((line) => line.msg === 'circuit created').at(-1)?.path;
  if (JSON.stringify(path) !== JSON.stringify([routers.get('r1')!.id, routers.get('r2')!.id])) throw new Error(`circuit-echo went by ${JSON.stringify(path)}, not r1 → r2`);

  progress('enrolling an identity with `./edgeward edge enroll` and starting `./edgeward tunnel run`');
  const identity = await harness.enrolledIdentityFile(controller, admin, root, 'bench-tunneler', ['bench-clients', 'team-3', 'team-42']);
  const sdkPort = await freePort();
  const tunnel = harness.startTunnel(identity.file, ['--proxy', `circuit-echo:${sdkPort}`], profileEnv('tunnel'));
  track(tunnel.child);
  cleanups.push(async () => void (await tunnel.stop()));
  await tunnel.listening(['circuit-echo'], 60_000);
  await until('an echo through the tunneler', () => echoOnce(sdkPort), 60_000);
  // bench-sp-i selects #team-(i % teams): the dialers' two teams, and clients-dial-echo.
  const policiesPerDialer = Array.from({ length: settings.policies }, (_, i) => i % teams).filter((team) => team === 3 || team === 42).length + 1;

  const model: CircuitRateModel = {
    identities: identities.count,
    identitySeconds: identities.seconds,
    edgeRouters: settings.routers,
    edgeRouterSeconds,
    services: settings.services,
    servicePolicies: settings.policies,
    edgeRouterPolicies: settings.policies,
    policySeconds,
    policiesPerDialer,
  };

  const ports: Record<CircuitPathName, number> = { socat: socatPort, tunnel: overlayPort, sdk: sdkPort };
  const pids = { controller: controller.child!.pid!, r1: routers.get('r1')!.pid, r2: routers.get('r2')!.pid, tunnel: tunnel.child.pid! };
  const meters: Record<CircuitPathName, Record<string, () => number | undefined>> = {
    socat: { socat: () => processCpuWithChildrenSeconds(socatChild.pid!) },
    tunnel: { controller: () => processCpuSeconds(pids.controller), r1: () => processCpuSeconds(pids.r1), r2: () => processCpuSeconds(pids.r2) },
    sdk: { controller: () => processCpuSeconds(pids.controller), tunnel: () => processCpuSeconds(pids.tunnel), r1: () => processCpuSeconds(pids.r1), r2: () => processCpuSeconds(pids.r2) },
  };

  const samples: CircuitRateSample[] = [];
  const measure = async (round: number, path: CircuitPathName, concurrency: number, keep: boolean) => {
    const before = Object.fromEntries(Object.entries(meters[path]).map(([name, read]) => [name, read()]));
    const result = await measureConnectionRate({ host: '127.0.0.1', port: ports[path], seconds: keep ? settings.seconds : 2, concurrency });
    // socat's forked children are counted once reaped: give the last ones a moment.
    await new Promise((done) => setTimeout(done, 300));
    const cpuMsPerConnection: Record<string, number> = {};
    for (const [name, read] of Object.entries(meters[path])) {
      const start = before[name];
      const end = read();
      if (start !== undefined && end !== undefined && result.completed > 0) cpuMsPerConnection[name] = ((end - start) * 1000) / result.completed;
    }
    if (!keep) return;
    const sample: CircuitRateSample = {
      round,
      path,
      concurrency,
      completed: result.completed,
      failed: result.failed,
      perSecond: result.perSecond,
      p50Ms: result.setupMs.p50,
      p99Ms: result.setupMs.p99,
      maxMs: result.setupMs.max,
      cpuMsPerConnection,
      ...(result.firstFailure !== undefined ? { firstFailure: result.firstFailure } : {}),
    };
    samples.push(sample);
    progress(
      `round ${round}: ${path} at ${concurrency}: ${result.perSecond.toFixed(0)}/s, p50 ${result.setupMs.p50.toFixed(1)} ms, p99 ${result.setupMs.p99.toFixed(1)} ms, ${result.failed} failed${result.firstFailure ? ` (${result.firstFailure})` : ''}; CPU ms/connection ${Object.entries(cpuMsPerConnection)
        .map(([name, value]) => `${name} ${value.toFixed(2)}`)
        .join(', ')}`,
    );
  };

  progress('warming up: 2 s of each path at the highest concurrency, not kept');
  const paths: CircuitPathName[] = ['socat', 'tunnel', 'sdk'];
  for (const path of paths) await measure(0, path, Math.max(...settings.concurrencies), false);
  const orders: CircuitPathName[][] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    const shift = (round - 1) % paths.length;
    const order = [...paths.slice(shift), ...paths.slice(0, shift)];
    orders.push(order);
    progress(`round ${round} of ${settings.rounds}: ${order.join(' → ')}`);
    for (const concurrency of settings.concurrencies) for (const path of order) await measure(round, path, concurrency, true);
  }

  return {
    date,
    label: settings.label,
    machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU', node: process.version, loadAverage },
    socatVersion: socat,
    rounds: settings.rounds,
    seconds: settings.seconds,
    concurrencies: settings.concurrencies,
    model,
    orders,
    samples,
  };
}



async function runBench(): Promise<void> {
  const resultsFile = join(fileURLToPath(new URL('.', import.meta.url)), 'RESULTS.md');
  const settings: Settings = {
    identities: positiveInteger('BENCH_CIRCUIT_IDENTITIES', 100_000, 1_000_000, 'identities'),
    routers: positiveInteger('BENCH_CIRCUIT_ROUTERS', 5_000, 10_000, 'edge routers'),
    services: positiveInteger('BENCH_CIRCUIT_SERVICES', 2_000, 10_000, 'services'),
    policies: positiveInteger('BENCH_CIRCUIT_POLICIES', 2_500, 10_000, 'policies'),
    rounds: positiveInteger('BENCH_CIRCUIT_ROUNDS', 3, 9, 'rounds'),
    seconds: positiveInteger('BENCH_CIRCUIT_SECONDS', 10, 120),
    concurrencies: concurrencies(),
    label: (process.env.BENCH_CIRCUIT_LABEL ?? '').slice(0, 200) || 'this branch',
  };
  // 300 s to start, identities at ≥ 300 a second, other rows at ≥ 50 a second, then per round 3 paths x each
  // concurrency x (seconds + 15 s of margin), 60 s to stop. bench/run.sh repeats this sum.
  const budgetMs = (300 + Math.ceil(settings.identities / 300) + Math.ceil((settings.routers + settings.services + 2 * settings.policies) / 50) + (settings.rounds + 1) * 3 * settings.concurrencies.length * (settings.seconds + 15) + 60) * 1000;
  const { cleanups, runCleanups, abort, markFinishing } = benchLifecycle(budgetMs, progress);
  try {
    const run = await main(await loadHarness(), cleanups, settings);
    markFinishing();
    progress('stopping the tunneler, the routers, the controller, socat and the echo server');
    await runCleanups();
    writeFileSync(resultsFile, renderCircuitRateSection(readPreviousResults(resultsFile), run));
    process.stdout.write(`${circuitRateSummary(run)}\n\nWritten to ${resultsFile} (circuit-rate section)\n`);
    process.exit(0);
  } catch (error) {
    await abort(`failed: ${(error as Error).stack ?? String(error)}`, 1);
  }
}

await runBench();

// Throughput and added latency through the overlay, against a direct loopback connection, socat forwarding and a pair
// of stunnel relays, in one run; with the fairness of 8 concurrent streams, new TCP connections per second, and
// verdicts against issue 42's targets. One upstream process on 127.0.0.1 (a byte-counting sink and an echo server)
// and one client process (the load) are reached through each path in turn:
//   direct         client → upstream;
//   socat          client → `socat TCP-LISTEN:…,fork` → upstream;
//   stunnel-pair   client → stunnel relay A (client mode) → one TLS 1.3 hop → stunnel relay B (server mode) → upstream:
//                  the like-for-like tunnel for the overlay's two routers (bench/stunnel-pair.ts);
//   overlay        client → r1's proxy port → link → r2 (hosts the service) → upstream: one link hop, the demo's shape;
//   overlay-chain  client → r1 → r2 → r3 (hosts the service) → upstream: two link hops;
//   sdk            client → `./edgeward tunnel run`'s local proxy port → the SDK → r1's edge listener → link → r2
//                  (hosts the service) → upstream, for a service with encryptionRequired false;
//   sdk-encrypted  the same for a service with encryptionRequired true: the SDK and r2 seal and open every byte.
// The tunneler runs with an identity file written by `./edgeward edge enroll`, Dial granted on the SDK services only.
// One controller (test/support/controller-fixture.ts) and three routers enrolled and run as an operator does
// (`./edgeward router enroll`, `./edgeward router run`). Per round, paths in an order that rotates: throughput (the
// sink's bytes over a fixed time) at 1 and 16 connections, latency (64-byte echo round trips) at 1 and 16 connections;
// fairness (8 connections flooding the sink through the overlay and through the stunnel pair, each one's bytes
// sampled at the sink every 100 ms); new connections (8 loops of connect, 64-byte echo, close, through socat, the
// stunnel pair and the overlay: bench/connection-rate-load.ts). The report (bench/overlay-bench-report.ts) states each
// target of issue 42 with its by-round figures and whether it is met: a measurement, never a failure of this run.
// Writes its marked section of bench/RESULTS.md (kept by the other benchmarks) and prints the same. Everything is
// bounded by a watchdog; every process is stopped and the temp dir removed on success, failure, timeout or a signal.
// Env: BENCH_OVERLAY_ROUNDS (1 to 9, default 3), BENCH_OVERLAY_SECONDS (measured seconds per throughput, fairness and
// new-connection measurement, default 5), BENCH_OVERLAY_LATENCY_SECONDS (timed seconds per latency measurement,
// default 3), BENCH_CPU_PROF=<dir> (each router's and the tunneler's .cpuprofile there, as bench/run.ts does for its
// servers).
// The same file is the upstream and the client process: `overlay-bench.ts upstream|client`, driven over IPC.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { availableParallelism, cpus, loadavg, release, tmpdir, type } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ControllerFixture } from '../test/support/controller-fixture.ts';
import type { RouterRun } from '../test/support/router-fixture.ts';
import { benchLifecycle, type Cleanup } from './bench-lifecycle.ts';
import { positiveInteger, progress, readPreviousResults } from './bench-env.ts';
import { stopChild, track } from './child-processes.ts';
import {
  renderOverlaySection,
  overlaySummary,
  streamFairness,
  type ConnectionRateSample,
  type FairnessSample,
  type LatencySample,
  type OverlayBenchRun,
  type PathDescription,
  type PathName,
  type StreamCounts,
  type ThroughputSample,
} from './overlay-bench-report.ts';
import { echoOnce, type ConnectionRate } from './connection-rate-load.ts';
import { processCpuSeconds, processCpuWithChildrenSeconds } from './process-cpu.ts';
import { startStunnelPair } from './stunnel-pair.ts';
import { startTunnel } from '../test/support/tunnel-process.ts';

const thisFile = fileURLToPath(import.meta.url);
const tsxLoader = new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

const profileHook = new URL('./cpu-profile-hook.mjs', import.meta.url).href;
/** BENCH_CPU_PROF=<dir>: each router and the tunneler writes <dir>/<name>.cpuprofile (its main thread, the whole run) when it stops. */
const profileDir = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;

const messageBytes = 64;
const writeBytes = 256 * 1024;
const connectionCounts = [1, 16];
/** The fairness measurement: this many streams, each one's bytes sampled at the sink this often. */
const fairnessStreams = 8;
const fairnessSampleMs = 100;
/** The new-connection measurement: this many concurrent loops, each connection echoing this many bytes. */
const connectionRateConcurrency = 8;
const connectionRatePayloadBytes = 64;

// ---------------------------------------------------------------------------------------------------------------
// The child processes: requests over IPC ({id, cmd, ...}), answers ({id, result} or {id, error}).

type Handlers = Record<string, (request: Record<string, unknown>) => Promise<unknown> | unknown>;

function serve(handlers: Handlers, ready: Record<string, unknown>): void {
  process.on('message', (message: Record<string, unknown>) => {
    const handler = handlers[String(message.cmd)];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown command ${String(message.cmd)}`);
        return handler(message);
      })
      .then(
        (result) => process.send!({ id: message.id, result }),
        (error: unknown) => process.send!({ id: message.id, error: (error as Error).stack ?? String(error) }),
      );
  });
  // The parent is gone (or stops us): nothing here is worth keeping.
  process.on('disconnect', () => process.exit(0));
  process.once('SIGTERM', () => process.exit(0));
  process.once('SIGINT', () => process.exit(0));
  process.send!({ ready });
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

async function runUpstream(): Promise<void> {
  let bytes = 0;
  let open = 0;
  let echoOpen = 0;
  /** Every open sink connection's byte count, in the order they were accepted (the fairness measurement's streams). */
  const streams = new Set<{ bytes: number }>();
  const sink = createServer((socket) => {
    open++;
    const stream = { bytes: 0 };
    streams.add(stream);
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      stream.bytes += chunk.length;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      open--;
      streams.delete(stream);
    });
  });
  const echo = createServer((socket) => {
    echoOpen++;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => socket.write(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => echoOpen--);
  });
  const listen = (server: ReturnType<typeof createServer>) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  const [sinkPort, echoPort] = [await listen(sink), await listen(echo)];
  serve(
    {
      count: () => ({ bytes, atUs: nowUs(), open, echoOpen }),
      /** Each open sink connection's byte count every `intervalMs` for `ms`: the streams open when it starts. */
      sampleStreams: (request) => {
        const watched = [...streams];
        if (watched.length !== Number(request.streams)) throw new Error(`${watched.length} sink connections open, not ${String(request.streams)}`);
        const samples: { atUs: number; bytes: number[] }[] = [];
        const take = () => samples.push({ atUs: nowUs(), bytes: watched.map((stream) => stream.bytes) });
        take();
        return new Promise((resolve) => {
          const timer = setInterval(take, Number(request.intervalMs));
          setTimeout(() => {
            clearInterval(timer);
            take();
            resolve({ samples });
          }, Number(request.ms));
        });
      },
    },
    { sinkPort, echoPort },
  );
}

function openConnections(port: number, count: number, noDelay: boolean): Promise<Socket[]> {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect({ host: '127.0.0.1', port });
          socket.once('error', reject);
          socket.once('connect', () => {
            socket.removeListener('error', reject);
            if (noDelay) socket.setNoDelay(true);
            resolve(socket);
          });
        }),
    ),
  );
}

/** Ends every socket and waits until each has closed (the far end has ended too), destroying any still open after
 * `timeoutMs`. */
function closeAll(sockets: readonly Socket[], timeoutMs: number): Promise<void> {
  return Promise.all(
    sockets.map(
      (socket) =>
        new Promise<void>((resolve) => {
          if (socket.destroyed) return resolve();
          const timer = setTimeout(() => socket.destroy(), timeoutMs);
          socket.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          socket.resume();
          socket.end();
        }),
    ),
  ).then(() => undefined);
}

function runClient(): void {
  const chunk = Buffer.alloc(writeBytes, 0x61);
  let flood: { sockets: Socket[]; running: boolean; errors: string[] } | undefined;
  serve(
    {
      /** Opens the connections and keeps every one's socket full until stopFlood. */
      flood: async (request) => {
        if (flood) throw new Error('a flood is already running');
        const sockets = await openConnections(Number(request.port), Number(request.connections), false);
        const state = { sockets, running: true, errors: [] as string[] };
        flood = state;
        for (const socket of sockets) {
          socket.on('error', (error) => state.errors.push(error.message));
          socket.resume();
          // Writes until the socket's buffer is full, yielding now and then so that IPC requests get through.
          const pump = () => {
            for (let i = 0; i < 32 && state.running && !socket.destroyed; i++) {
              if (!socket.write(chunk)) return;
            }
            if (state.running && !socket.destroyed) setImmediate(pump);
          };
          socket.on('drain', pump);
          pump();
        }
        return { connections: sockets.length };
      },
      stopFlood: async () => {
        const state = flood;
        if (!state) throw new Error('no flood is running');
        state.running = false;
        await closeAll(state.sockets, 20_000);
        flood = undefined;
        return { errors: state.errors };
      },
      /** New connections as fast as the path takes them (bench/connection-rate-load.ts, loaded only here). */
      connectionRate: async (request) => {
        const { measureConnectionRate } = await import('./connection-rate-load.ts');
        return measureConnectionRate({ host: '127.0.0.1', port: Number(request.port), seconds: Number(request.seconds), concurrency: Number(request.concurrency), payloadBytes: Number(request.payloadBytes) });
      },
      /** Round trips of a small message on each of `connections` connections: sent, echoed whole, sent again. */
      pingPong: async (request) => {
        const size = Number(request.size);
        const warmupMs = Number(request.warmupMs);
        const measureMs = Number(request.measureMs);
        const sockets = await openConnections(Number(request.port), Number(request.connections), true);
        const payload = Buffer.alloc(size, 0x62);
        const samples: number[] = [];
        const errors: string[] = [];
        let recording = false;
        let running = true;
        const finished = sockets.map(
          (socket) =>
            new Promise<void>((resolve) => {
              let received = 0;
              let sentAt = 0n;
              const send = () => {
                sentAt = process.hrtime.bigint();
                socket.write(payload);
              };
              socket.on('error', (error) => {
                errors.push(error.message);
                resolve();
              });
              socket.on('close', () => resolve());
              socket.on('data', (data: Buffer) => {
                received += data.length;
                if (received < size) return;
                received -= size;
                if (recording) samples.push(Number(process.hrtime.bigint() - sentAt) / 1000);
                if (running) send();
                else resolve();
              });
              send();
            }),
        );
        await new Promise((resolve) => setTimeout(resolve, warmupMs));
        recording = true;
        await new Promise((resolve) => setTimeout(resolve, measureMs));
        recording = false;
        running = false;
        await Promise.race([Promise.all(finished), new Promise((resolve) => setTimeout(resolve, 10_000))]);
        await closeAll(sockets, 10_000);
        const sorted = Float64Array.from(samples).sort();
        const at = (q: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!);
        return { count: sorted.length, p50Us: at(0.5), p99Us: at(0.99), errors };
      },
    },
    {},
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The benchmark.

/** A child process of this file, driven over IPC. */
class Worker {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    child.on('message', (message: { id?: number; result?: unknown; error?: string }) => {
      if (typeof message.id !== 'number') return;
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new Error(`${name}: ${message.error}`));
      else waiter?.resolve(message.result);
    });
    child.on('exit', (code, signal) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`${name} exited (${signal ?? code})`));
      this.pending.clear();
    });
  }

  static async start(role: 'upstream' | 'client', cleanups: Cleanup[]): Promise<{ worker: Worker; ready: Record<string, unknown> }> {
    const child = track(spawn(process.execPath, ['--import', tsxLoader, thisFile, role], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    const worker = new Worker(role, child);
    cleanups.push(() => stopChild(child));
    const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${role} did not start within 30 s`)), 30_000);
      child.on('message', (message: { ready?: Record<string, unknown> }) => {
        if (message.ready === undefined) return;
        clearTimeout(timer);
        resolve(message.ready);
      });
      child.once('exit', (code) => reject(new Error(`${role} exited (${code}) before it was ready`)));
    });
    return { worker, ready };
  }

  call<T>(cmd: string, args: Record<string, unknown> = {}, timeoutMs = 30_000): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.name}: ${cmd} took longer than ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value as T);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.child.send({ id, cmd, ...args });
    });
  }
}

/** The controller and router harness (test/support), loaded by the benchmark's own process only: the upstream and
 * client processes stay small, since a large module graph makes every garbage collection dearer, and a sink reading
 * 64 KiB buffers at GB/s collects often (it tripled the sink's CPU per MB when this file imported it statically). */
async function loadHarness() {
  const [clusterHelpers, controllerFixture, freePortModule, routerFixture] = await Promise.all([
    import('../test/support/cluster-helpers.ts'),
    import('../test/support/controller-fixture.ts'),
    import('../test/support/free-port.ts'),
    import('../test/support/router-fixture.ts'),
  ]);
  return { until: clusterHelpers.until, ControllerFixture: controllerFixture.ControllerFixture, freePort: freePortModule.freePort, RouterRun: routerFixture.RouterRun, runEdgeward: routerFixture.runEdgeward };
}
type Harness = Awaited<ReturnType<typeof loadHarness>>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));


function liveChildren(pid: number): number {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).length;
  } catch {
    return 0;
  }
}

function socatVersion(): string {
  const result = spawnSync('socat', ['-V'], { encoding: 'utf8', timeout: 5_000 });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    throw new Error('socat is not installed: apt-get install socat');
  }
  return /socat version (\S+)/.exec(`${result.stdout}${result.stderr}`)?.[0]?.replace('version ', '') ?? 'socat (unknown version)';
}

function waitForPort({ until }: Harness, port: number, timeoutMs: number): Promise<void> {
  return until(`port ${port} to accept connections`, () =>
    new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    }),
  timeoutMs).then(() => undefined);
}


interface RouterPlan {
  readonly name: 'r1' | 'r2' | 'r3';
  readonly role: string;
  readonly tunnel: string;
  readonly linkListen?: { port: number; group: string };
  readonly dialGroups: readonly string[];
}

function routerConfig(plan: RouterPlan, edgePort: number, ctrlAddress: string): string {
  const listeners = [`  - binding: edge\n    address: tls:127.0.0.1:${edgePort}\n    options: {advertise: 127.0.0.1:${edgePort}}`, plan.tunnel];
  const link = ['link:'];
  if (plan.linkListen) {
    const { port, group } = plan.linkListen;
    link.push('  listeners:', `    - {binding: transport, bind: "tls:127.0.0.1:${port}", advertise: "tls:127.0.0.1:${port}", groups: [${group}]}`);
  }
  if (plan.dialGroups.length > 0) {
    link.push('  dialers:', '    - binding: transport', `      groups: [${plan.dialGroups.join(', ')}]`, '      healthyDialBackoff: {retryBackoffFactor: 2, minRetryInterval: 200ms, maxRetryInterval: 1s}');
  }
  return `v: 3
identity: {cert: router.cert, server_cert: router.server.cert, key: router.key, ca: ca.pem}
ctrl:
  endpoint: ${ctrlAddress}
edge:
  csr:
    sans: {dns: [localhost], ip: [127.0.0.1]}
listeners:
${listeners.join('\n')}
dialers:
  - binding: transport
${link.join('\n')}
`;
}

interface Endpoints {
  readonly sink: number;
  readonly echo: number;
}

async function main(harness: Harness, cleanups: Cleanup[], settings: { rounds: number; seconds: number; latencySeconds: number; warmupSeconds: number; latencyWarmupSeconds: number }): Promise<OverlayBenchRun> {
  const { until, freePort, runEdgeward } = harness;
  const started = performance.now();
  const date = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const loadAverage = loadavg()[0] ?? 0;
  const socat = socatVersion();
  const root = mkdtempSync(join(tmpdir(), 'edgeward-overlay-bench-'));
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));

  progress('starting the upstream (sink and echo) and the client processes');
  const { worker: upstream, ready } = await Worker.start('upstream', cleanups);
  const { worker: client } = await Worker.start('client', cleanups);
  const direct: Endpoints = { sink: Number(ready.sinkPort), echo: Number(ready.echoPort) };

  progress('starting socat in front of the sink and the echo server');
  const socatPorts: Endpoints = { sink: await freePort(), echo: await freePort() };
  const socatSink = track(spawn('socat', [`TCP-LISTEN:${socatPorts.sink},fork,reuseaddr,bind=127.0.0.1`, `TCP:127.0.0.1:${direct.sink}`], { stdio: ['ignore', 'ignore', 'inherit'] }));
  cleanups.push(() => stopChild(socatSink));
  const socatEcho = track(spawn('socat', [`TCP-LISTEN:${socatPorts.echo},fork,reuseaddr,bind=127.0.0.1`, `TCP:127.0.0.1:${direct.echo}`], { stdio: ['ignore', 'ignore', 'inherit'] }));
  cleanups.push(() => stopChild(socatEcho));
  await waitForPort(harness, socatPorts.sink, 10_000);
  await waitForPort(harness, socatPorts.echo, 10_000);

  progress('starting the stunnel pair (relay A, client mode → one TLS hop → relay B, server mode) in front of the sink and the echo server');
  const stunnelPorts: Endpoints = { sink: await freePort(), echo: await freePort() };
  const stunnelServices = [
    { name: 'sink', acceptPort: stunnelPorts.sink, tlsPort: await freePort(), upstreamPort: direct.sink },
    { name: 'echo', acceptPort: stunnelPorts.echo, tlsPort: await freePort(), upstreamPort: direct.echo },
  ];
  const stunnel = await startStunnelPair({
    dir: root,
    services: stunnelServices,
    probe: { port: await freePort(), via: stunnelServices[1]! },
    track: (child) => {
      track(child);
      cleanups.push(() => stopChild(child));
    },
  });
  progress(`the stunnel pair negotiated ${stunnel.protocol} ${stunnel.cipher} (${stunnel.keyExchange})`);

  progress('starting a controller');
  const previousTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = root;
  let controller: ControllerFixture;
  try {
    controller = await harness.ControllerFixture.create();
  } finally {
    if (previousTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmpdir;
  }
  cleanups.push(() => controller.dispose());
  const admin = { 'zt-session': await controller.adminToken() };
  const post = async (path: string, body: Record<string, unknown>): Promise<string> => {
    const response = await controller.http.post(`${controller.managementApi}${path}`, { headers: admin, body });
    if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${response.text}`);
    return response.json.data.id as string;
  };

  const overlay: Endpoints = { sink: await freePort(), echo: await freePort() };
  const chain: Endpoints = { sink: await freePort(), echo: await freePort() };
  const [r2Link, r3Link] = [await freePort(), await freePort()];
  const proxyServices = [`bench-sink:${overlay.sink}`, `bench-echo:${overlay.echo}`, `bench-sink-chain:${chain.sink}`, `bench-echo-chain:${chain.echo}`];
  const plans: RouterPlan[] = [
    { name: 'r1', role: 'clients', tunnel: `  - binding: tunnel\n    options: {mode: proxy, services: [${proxyServices.join(', ')}]}`, dialGroups: ['to-r2'] },
    { name: 'r2', role: 'hosts-two', tunnel: '  - binding: tunnel\n    options: {mode: host}', linkListen: { port: r2Link, group: 'to-r2' }, dialGroups: ['to-r3'] },
    { name: 'r3', role: 'hosts-three', tunnel: '  - binding: tunnel\n    options: {mode: host}', linkListen: { port: r3Link, group: 'to-r3' }, dialGroups: [] },
  ];
  const routers = new Map<string, { id: string; run: RouterRun }>();
  for (const plan of plans) {
    progress(`enrolling router ${plan.name}`);
    const dir = join(root, plan.name);
    mkdirSync(dir, { recursive: true });
    const config = join(dir, 'router.yml');
    writeFileSync(config, routerConfig(plan, await freePort(), controller.ctrlAddress));
    const id = await post('/edge-routers', { name: plan.name, isTunnelerEnabled: true, roleAttributes: [plan.role] });
    const detail = await controller.http.get(`${controller.managementApi}/edge-routers/${id}`, { headers: admin });
    writeFileSync(join(dir, 'enroll.jwt'), detail.json.data.enrollmentJwt as string);
    const enrolled = await runEdgeward(['router', 'enroll', config, '--jwt', join(dir, 'enroll.jwt')]);
    if (enrolled.code !== 0) throw new Error(`router enroll ${plan.name} failed: ${enrolled.stderr}`);
    const profile = profileDir ? { NODE_OPTIONS: `--import=${profileHook}`, BENCH_CPU_PROF_FILE: join(profileDir, `${plan.name}.cpuprofile`) } : {};
    routers.set(plan.name, { id, run: harness.RouterRun.start(config, profile) });
    const run = routers.get(plan.name)!.run;
    track(run.child);
    cleanups.push(async () => void (await run.stop()));
  }
  const host = async (name: string, port: number) => post('/configs', { name: `${name}-host`, configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port } });
  await post('/services', { name: 'bench-sink', encryptionRequired: true, roleAttributes: ['two-hop'], configs: [await host('bench-sink', direct.sink)] });
  await post('/services', { name: 'bench-echo', encryptionRequired: true, roleAttributes: ['two-hop'], configs: [await host('bench-echo', direct.echo)] });
  await post('/services', { name: 'bench-sink-chain', encryptionRequired: true, roleAttributes: ['three-hop'], configs: [await host('bench-sink-chain', direct.sink)] });
  await post('/services', { name: 'bench-echo-chain', encryptionRequired: true, roleAttributes: ['three-hop'], configs: [await host('bench-echo-chain', direct.echo)] });
  await post('/service-policies', { name: 'r2-binds-two-hop', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosts-two'], serviceRoles: ['#two-hop'] });
  await post('/service-policies', { name: 'r3-binds-three-hop', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosts-three'], serviceRoles: ['#three-hop'] });
  await post('/service-policies', { name: 'r1-dials-all', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#clients'], serviceRoles: ['#two-hop', '#three-hop'] });
  // A router's proxy-mode dial, like an SDK's, is refused without a service edge router policy for the routers it uses.
  await post('/service-edge-router-policies', { name: 'services-everywhere', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] });
  for (const [name, router] of routers) await router.run.waitForLog((line) => line.msg === 'control channel established', 60_000, `${name} welcomed`);
  progress('waiting for the four terminators and for circuits through r1');
  await until(
    'four terminators',
    async () => {
      const list = await controller.http.get(`${controller.managementApi}/terminators`, { headers: admin });
      return list.json?.data?.length === 4;
    },
    60_000,
  );
  await until('an echo through r1 → r2', () => echoOnce(overlay.echo), 60_000);
  await until('an echo through r1 → r2 → r3', () => echoOnce(chain.echo), 60_000);
  const r1 = routers.get('r1')!;
  const ids = (names: string[]) => names.map((name) => routers.get(name)!.id);
  const pathOf = (service: string) => r1.run.lines.filter((line) => line.msg === 'circuit created' && line.service === service).at(-1)?.path;
  if (JSON.stringify(pathOf('bench-echo')) !== JSON.stringify(ids(['r1', 'r2']))) throw new Error(`bench-echo went by ${JSON.stringify(pathOf('bench-echo'))}, not r1 → r2`);
  if (JSON.stringify(pathOf('bench-echo-chain')) !== JSON.stringify(ids(['r1', 'r2', 'r3']))) throw new Error(`bench-echo-chain went by ${JSON.stringify(pathOf('bench-echo-chain'))}, not r1 → r2 → r3`);

  // The SDK paths: services hosted by r2 like bench-sink/bench-echo, dialable only by the tunneler's identity, which
  // may use r1's edge listener only (so that its circuits take the link to r2, as the router overlay's do).
  progress('enrolling an identity with `./edgeward edge enroll` and starting `./edgeward tunnel run`');
  const sdkServices = { plain: { sink: 'bench-sdk-sink', echo: 'bench-sdk-echo' }, encrypted: { sink: 'bench-sdk-sink-e2e', echo: 'bench-sdk-echo-e2e' } };
  for (const [kind, names] of Object.entries(sdkServices)) {
    const encryptionRequired = kind === 'encrypted';
    await post('/services', { name: names.sink, encryptionRequired, roleAttributes: ['two-hop', 'sdk'], configs: [await host(names.sink, direct.sink)] });
    await post('/services', { name: names.echo, encryptionRequired, roleAttributes: ['two-hop', 'sdk'], configs: [await host(names.echo, direct.echo)] });
  }
  await post('/service-policies', { name: 'tunneler-dials-sdk', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#bench-tunneler'], serviceRoles: ['#sdk'] });
  await post('/edge-router-policies', { name: 'tunneler-uses-r1', semantic: 'AnyOf', identityRoles: ['#bench-tunneler'], edgeRouterRoles: ['#clients'] });
  const identityId = await post('/identities', { name: 'bench-tunneler', type: 'Device', isAdmin: false, roleAttributes: ['bench-tunneler'], enrollment: { ott: true } });
  const identityDetail = await controller.http.get(`${controller.managementApi}/identities/${identityId}`, { headers: admin });
  const jwtFile = join(root, 'bench-tunneler.jwt');
  writeFileSync(jwtFile, identityDetail.json.data.enrollment.ott.jwt as string);
  const identityFile = join(root, 'bench-tunneler.json');
  const enrolledIdentity = await runEdgeward(['edge', 'enroll', jwtFile, '--out', identityFile]);
  if (enrolledIdentity.code !== 0) throw new Error(`edge enroll failed: ${enrolledIdentity.stderr}`);
  const sdk: Endpoints = { sink: await freePort(), echo: await freePort() };
  const sdkEncrypted: Endpoints = { sink: await freePort(), echo: await freePort() };
  const proxies = {
    [sdkServices.plain.sink]: sdk.sink,
    [sdkServices.plain.echo]: sdk.echo,
    [sdkServices.encrypted.sink]: sdkEncrypted.sink,
    [sdkServices.encrypted.echo]: sdkEncrypted.echo,
  };
  const tunnelProfile = profileDir ? { NODE_OPTIONS: `--import=${profileHook}`, BENCH_CPU_PROF_FILE: join(profileDir, 'tunnel.cpuprofile') } : {};
  const tunnel = startTunnel(identityFile, Object.entries(proxies).flatMap(([service, port]) => ['--proxy', `${service}:${port}`]), tunnelProfile);
  track(tunnel.child);
  cleanups.push(async () => void (await tunnel.stop()));
  await tunnel.listening(Object.keys(proxies), 60_000);
  progress('waiting for circuits through the tunneler and r1 to r2');
  await until('eight terminators', async () => (await controller.http.get(`${controller.managementApi}/terminators`, { headers: admin })).json?.data?.length === 8, 60_000);
  await until('an echo through the tunneler (plain)', () => echoOnce(sdk.echo), 60_000);
  await until('an echo through the tunneler (encrypted)', () => echoOnce(sdkEncrypted.echo), 60_000);
  for (const service of [sdkServices.plain.echo, sdkServices.encrypted.echo]) {
    if (JSON.stringify(pathOf(service)) !== JSON.stringify(ids(['r1', 'r2']))) throw new Error(`${service} went by ${JSON.stringify(pathOf(service))}, not r1 → r2`);
  }

  const paths: ReadonlyArray<PathDescription & { endpoints: Endpoints }> = [
    { name: 'direct', label: 'client → upstream', endpoints: direct },
    { name: 'socat', label: '`socat TCP-LISTEN:<port>,fork,reuseaddr,bind=127.0.0.1 TCP:127.0.0.1:<upstream>` (one forked socat per connection)', endpoints: socatPorts },
    { name: 'stunnel-pair', label: 'client → stunnel relay A (client mode: plain TCP in, TLS out) → one TLS hop → stunnel relay B (server mode: TLS in, plain TCP out) → upstream', endpoints: stunnelPorts },
    { name: 'overlay', label: "client → r1's proxy-mode tunnel listener → link → r2 (host mode, the service's terminator) → upstream", endpoints: overlay },
    { name: 'overlay-chain', label: 'client → r1 → link → r2 → link → r3 (host mode) → upstream', endpoints: chain },
    { name: 'sdk', label: "client → `./edgeward tunnel run`'s proxy port → the SDK → r1's edge listener → link → r2 (host mode) → upstream; encryptionRequired false", endpoints: sdk },
    { name: 'sdk-encrypted', label: 'the same as sdk, encryptionRequired true (the SDK and r2 encrypt end to end)', endpoints: sdkEncrypted },
  ];
  const pids = {
    r1: routers.get('r1')!.run.child.pid!,
    r2: routers.get('r2')!.run.child.pid!,
    r3: routers.get('r3')!.run.child.pid!,
    tunnel: tunnel.child.pid!,
    client: client.child.pid!,
    sink: upstream.child.pid!,
    stunnelA: stunnel.a.pid!,
    stunnelB: stunnel.b.pid!,
    controller: controller.child!.pid!,
  };
  const forwarders: Record<PathName, Record<string, () => number | undefined>> = {
    direct: {},
    socat: { socat: () => processCpuWithChildrenSeconds(socatSink.pid!) },
    'stunnel-pair': { 'stunnel-a': () => processCpuWithChildrenSeconds(pids.stunnelA), 'stunnel-b': () => processCpuWithChildrenSeconds(pids.stunnelB) },
    overlay: { r1: () => processCpuSeconds(pids.r1), r2: () => processCpuSeconds(pids.r2) },
    'overlay-chain': { r1: () => processCpuSeconds(pids.r1), r2: () => processCpuSeconds(pids.r2), r3: () => processCpuSeconds(pids.r3) },
    sdk: { tunnel: () => processCpuSeconds(pids.tunnel), r1: () => processCpuSeconds(pids.r1), r2: () => processCpuSeconds(pids.r2) },
    'sdk-encrypted': { tunnel: () => processCpuSeconds(pids.tunnel), r1: () => processCpuSeconds(pids.r1), r2: () => processCpuSeconds(pids.r2) },
  };

  const count = () => upstream.call<{ bytes: number; atUs: number; open: number; echoOpen: number }>('count');
  const throughput: ThroughputSample[] = [];
  const latency: LatencySample[] = [];
  const fairness: FairnessSample[] = [];
  const connectionRates: ConnectionRateSample[] = [];
  const orders: PathName[][] = [];
  const pathNamed = (name: PathName) => paths.find((path) => path.name === name)!;
  const fairnessPaths = [pathNamed('overlay'), pathNamed('stunnel-pair')];
  const connectionRatePaths = [pathNamed('socat'), pathNamed('stunnel-pair'), pathNamed('overlay')];
  // socat's echo listener forks the children the new-connection measurement makes; the overlay's circuits also cost
  // the controller (one circuit.create each).
  const connectionForwarders: Partial<Record<PathName, Record<string, () => number | undefined>>> = {
    socat: { socat: () => processCpuWithChildrenSeconds(socatEcho.pid!) },
    'stunnel-pair': forwarders['stunnel-pair'],
    overlay: { ...forwarders.overlay, controller: () => processCpuSeconds(pids.controller) },
  };

  async function measureThroughput(round: number, path: (typeof paths)[number], connections: number): Promise<void> {
    const meters = { ...forwarders[path.name], client: () => processCpuSeconds(pids.client), sink: () => processCpuSeconds(pids.sink) };
    const cpuBefore = Object.fromEntries(Object.entries(meters).map(([name, read]) => [name, read()]));
    const first = await count();
    await client.call('flood', { port: path.endpoints.sink, connections }, 60_000);
    await sleep(settings.warmupSeconds * 1000);
    const from = await count();
    await sleep(settings.seconds * 1000);
    const to = await count();
    const { errors } = await client.call<{ errors: string[] }>('stopFlood', {}, 60_000);
    if (errors.length > 0) throw new Error(`${path.name}, ${connections} connections: socket errors during the flood: ${errors.slice(0, 5).join('; ')}`);
    await until(`the sink's connections to close (${path.name})`, async () => (await count()).open === 0, 30_000);
    if (path.name === 'socat') await until("socat's forked children to be reaped", () => liveChildren(socatSink.pid!) === 0, 10_000);
    const last = await count();
    const mb = (last.bytes - first.bytes) / 1e6;
    const cpuMsPerMb: Record<string, number> = {};
    for (const [name, read] of Object.entries(meters)) {
      const before = cpuBefore[name];
      const after = read();
      if (before !== undefined && after !== undefined && mb > 0) cpuMsPerMb[name] = ((after - before) * 1000) / mb;
    }
    const mbPerSecond = (to.bytes - from.bytes) / 1e6 / ((to.atUs - from.atUs) / 1e6);
    throughput.push({ round, path: path.name, connections, mbPerSecond, cpuMsPerMb });
    progress(
      `round ${round}: ${path.name}, ${connections} connection(s): ${mbPerSecond.toFixed(0)} MB/s; CPU ms/MB ${Object.entries(cpuMsPerMb)
        .map(([name, value]) => `${name} ${value.toFixed(2)}`)
        .join(', ')}`,
    );
  }

  async function measureLatency(round: number, path: (typeof paths)[number], connections: number): Promise<void> {
    const result = await client.call<{ count: number; p50Us: number; p99Us: number; errors: string[] }>(
      'pingPong',
      { port: path.endpoints.echo, connections, size: messageBytes, warmupMs: settings.latencyWarmupSeconds * 1000, measureMs: settings.latencySeconds * 1000 },
      (settings.latencyWarmupSeconds + settings.latencySeconds) * 1000 + 60_000,
    );
    if (result.errors.length > 0 || result.count === 0) throw new Error(`${path.name}, ${connections} connections: ${result.count} round trips, errors: ${result.errors.slice(0, 5).join('; ')}`);
    latency.push({ round, path: path.name, connections, count: result.count, p50Us: result.p50Us, p99Us: result.p99Us });
    progress(`round ${round}: ${path.name}, ${connections} connection(s): ${result.count} round trips, p50 ${result.p50Us.toFixed(0)} µs, p99 ${result.p99Us.toFixed(0)} µs`);
  }

  /** `fairnessStreams` connections flooding the sink through `path`; the sink samples each one's bytes. */
  async function measureFairness(round: number, path: (typeof paths)[number]): Promise<void> {
    await client.call('flood', { port: path.endpoints.sink, connections: fairnessStreams }, 60_000);
    await until(`${fairnessStreams} streams at the sink (${path.name})`, async () => (await count()).open === fairnessStreams, 30_000);
    await sleep(settings.warmupSeconds * 1000);
    const { samples } = await upstream.call<{ samples: StreamCounts[] }>('sampleStreams', { streams: fairnessStreams, ms: settings.seconds * 1000, intervalMs: fairnessSampleMs }, settings.seconds * 1000 + 30_000);
    const { errors } = await client.call<{ errors: string[] }>('stopFlood', {}, 60_000);
    if (errors.length > 0) throw new Error(`${path.name}, fairness: socket errors during the flood: ${errors.slice(0, 5).join('; ')}`);
    await until(`the sink's connections to close (${path.name})`, async () => (await count()).open === 0, 30_000);
    const result = streamFairness(samples);
    fairness.push({ round, path: path.name, ...result });
    const total = result.streamBytes.reduce((sum, bytes) => sum + bytes, 0);
    progress(
      `round ${round}: ${path.name}, ${fairnessStreams} streams: ${(total / 1e6 / result.seconds).toFixed(0)} MB/s, shares ${result.streamBytes.map((bytes) => `${((100 * bytes) / total).toFixed(1)}%`).join(' ')}; longest stall ${Math.max(...result.longestStallMs).toFixed(0)} ms`,
    );
  }

  /** New connections through `path`'s echo port as fast as it takes them, and the forwarders' CPU per connection. */
  async function measureConnectionRate(round: number, path: (typeof paths)[number]): Promise<void> {
    const meters = connectionForwarders[path.name] ?? {};
    const cpuBefore = Object.fromEntries(Object.entries(meters).map(([name, read]) => [name, read()]));
    const rate = await client.call<ConnectionRate>(
      'connectionRate',
      { port: path.endpoints.echo, seconds: settings.seconds, concurrency: connectionRateConcurrency, payloadBytes: connectionRatePayloadBytes },
      settings.seconds * 1000 + 60_000,
    );
    await until(`the echo server's connections to close (${path.name})`, async () => (await count()).echoOpen === 0, 30_000);
    if (path.name === 'socat') await until("socat's forked children to be reaped", () => liveChildren(socatEcho.pid!) === 0, 10_000);
    const cpuMsPerConnection: Record<string, number> = {};
    for (const [name, read] of Object.entries(meters)) {
      const before = cpuBefore[name];
      const after = read();
      if (before !== undefined && after !== undefined && rate.completed > 0) cpuMsPerConnection[name] = ((after - before) * 1000) / rate.completed;
    }
    connectionRates.push({
      round,
      path: path.name,
      completed: rate.completed,
      failed: rate.failed,
      perSecond: rate.perSecond,
      p50Ms: rate.setupMs.p50,
      p99Ms: rate.setupMs.p99,
      cpuMsPerConnection,
      ...(rate.firstFailure !== undefined ? { firstFailure: rate.firstFailure } : {}),
    });
    progress(
      `round ${round}: ${path.name}, new connections: ${rate.perSecond.toFixed(0)}/s, p50 ${rate.setupMs.p50.toFixed(2)} ms, p99 ${rate.setupMs.p99.toFixed(2)} ms, ${rate.failed} failed${rate.firstFailure ? ` (${rate.firstFailure})` : ''}; CPU ms per connection ${Object.entries(cpuMsPerConnection)
        .map(([name, value]) => `${name} ${value.toFixed(2)}`)
        .join(', ')}`,
    );
  }

  // A pass over every path that is not kept: the client, the sink and the routers get their code compiled and the
  // controller and routers finish whatever they do after starting, so that round 1 measures the same as the others.
  progress('warming up: every path, 2 s of 16 connections and 1 s of round trips each, not kept');
  for (const path of paths) {
    await client.call('flood', { port: path.endpoints.sink, connections: 16 }, 60_000);
    await sleep(2_000);
    await client.call('stopFlood', {}, 60_000);
    await client.call('pingPong', { port: path.endpoints.echo, connections: 16, size: messageBytes, warmupMs: 0, measureMs: 1_000 }, 60_000);
  }
  for (const path of connectionRatePaths) {
    await client.call('connectionRate', { port: path.endpoints.echo, seconds: 1, concurrency: connectionRateConcurrency, payloadBytes: connectionRatePayloadBytes }, 60_000);
  }
  await until("the sink's connections to close after the warm-up", async () => (await count()).open === 0, 30_000);
  await until("the echo server's connections to close after the warm-up", async () => (await count()).echoOpen === 0, 30_000);
  const setupSeconds = (performance.now() - started) / 1000;
  const measureStart = performance.now();

  for (let round = 1; round <= settings.rounds; round++) {
    const shift = (round - 1) % paths.length;
    const order = [...paths.slice(shift), ...paths.slice(0, shift)];
    orders.push(order.map((path) => path.name));
    progress(`round ${round} of ${settings.rounds}: ${order.map((path) => path.name).join(' → ')}`);
    for (const connections of connectionCounts) for (const path of order) await measureThroughput(round, path, connections);
    for (const connections of connectionCounts) for (const path of order) await measureLatency(round, path, connections);
    const rotate = <T>(list: readonly T[]) => [...list.slice((round - 1) % list.length), ...list.slice(0, (round - 1) % list.length)];
    for (const path of rotate(fairnessPaths)) await measureFairness(round, path);
    for (const path of rotate(connectionRatePaths)) await measureConnectionRate(round, path);
  }

  return {
    date,
    machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU', node: process.version, os: `${type()} ${release()}`, loadAverage },
    socatVersion: socat,
    stunnel: { version: stunnel.version, protocol: stunnel.protocol, cipher: stunnel.cipher, keyExchange: stunnel.keyExchange },
    rounds: settings.rounds,
    warmupSeconds: settings.warmupSeconds,
    seconds: settings.seconds,
    latencyWarmupSeconds: settings.latencyWarmupSeconds,
    latencySeconds: settings.latencySeconds,
    messageBytes,
    writeBytes,
    connectionCounts,
    paths: paths.map(({ name, label }) => ({ name, label })),
    orders,
    throughput,
    latency,
    fairnessStreams,
    fairnessSampleMs,
    fairness,
    connectionRate: { concurrency: connectionRateConcurrency, seconds: settings.seconds, payloadBytes: connectionRatePayloadBytes },
    connectionRates,
    setupSeconds,
    measureSeconds: (performance.now() - measureStart) / 1000,
  };
}

async function runBench(): Promise<void> {
  const benchDir = fileURLToPath(new URL('.', import.meta.url));
  const resultsFile = join(benchDir, 'RESULTS.md');
  const settings = {
    rounds: positiveInteger('BENCH_OVERLAY_ROUNDS', 3, 9, 'rounds'),
    seconds: positiveInteger('BENCH_OVERLAY_SECONDS', 5),
    latencySeconds: positiveInteger('BENCH_OVERLAY_LATENCY_SECONDS', 3),
    warmupSeconds: 1,
    latencyWarmupSeconds: 0.5,
  };
  // 240 s to set up and warm up, then per round 7 paths x 2 connection counts x (a throughput measurement with 30 s for
  // its connections and margins, a latency one with as much), 2 fairness measurements (warm-up + seconds + 60 s) and 3
  // new-connection ones (seconds + 60 s), 60 s to stop. bench/run.sh repeats this sum.
  const budgetMs = (240 + settings.rounds * (7 * 2 * (1 + settings.seconds + 30 + 1 + settings.latencySeconds + 30) + 2 * (1 + settings.seconds + 60) + 3 * (settings.seconds + 60)) + 60) * 1000;
  const { cleanups, runCleanups, abort, markFinishing } = benchLifecycle(budgetMs, progress);
  try {
    const run = await main(await loadHarness(), cleanups, settings);
    markFinishing();
    progress('stopping the tunneler, the routers, the controller, socat and the upstream and client processes');
    await runCleanups();
    const previous = readPreviousResults(resultsFile);
    writeFileSync(resultsFile, renderOverlaySection(previous, run));
    process.stdout.write(`${overlaySummary(run)}\n\nWritten to ${resultsFile} (overlay section)\n`);
    process.exit(0);
  } catch (error) {
    await abort(`failed: ${(error as Error).stack ?? String(error)}`, 1);
  }
}

const role = process.argv[2];
if (role === 'upstream') await runUpstream();
else if (role === 'client') runClient();
else await runBench();

// The local appliance on loopback: one PKI, three controllers (ctrl1, ctrl2, ctrl3) formed into one cluster, the
// bootstrap admin, two routers (router1, router2) linked to each other and connected to the cluster, the
// observability stack watching them (Prometheus, Alertmanager, the alerts daemon and a local pager receiver), the
// status page, and demo.json describing it all. Every process runs under a supervisor that restarts it when it fails
// (Restart=on-failure). Re-running with the same data folder reuses what is there: every process keeps its ports,
// the controllers find each other from their raft logs and form the same cluster again, the routers, already
// enrolled, are neither created nor enrolled again, and the stack keeps its history and the daemon its offsets.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { controllerConfigExample } from '../config/controller-config.ts';
import { callAgent } from '../agent/agent-client.ts';
import { initPki, issueControllerCertificate, controllerPaths, pkiPaths } from '../../common/pki/pki-directory.ts';
import { freeLoopbackPort } from './loopback-port.ts';
import { spawnEdgeward } from './child-process.ts';
import { formCluster, until } from './demo-cluster.ts';
import { demoRouterNames, managementSession, planRouter, provisionRouters, refuseIfRouterRunning, waitForRouterLinks, type DemoRouter, type RouterPlan } from './demo-routers.ts';
import { ensureDemoDataPlane, waitForDataPlane, type DemoDataPlane } from './demo-data-plane.ts';
import { demoRouterHost, demoServiceName } from './demo-router-config.ts';
import { startEchoServer, type EchoServer } from './echo-server.ts';
import { layOutStatusPage, preferredStatusPagePort, storedStatusPagePort } from './demo-status-page.ts';
import { layOutObservabilityStack, spawnStackCommand, storedStackPorts, waitForStackReady, type ObservabilityStack, type StackCommand, type StackPorts } from './observability-stack.ts';
import { Supervisor } from './supervisor.ts';
import { waitForHealthy } from './wait-for-health.ts';

export interface DemoController {
  id: string;
  pid: number;
  config: string;
  clientApi: string;
  managementApi: string;
  healthChecks: string;
  metrics: string;
  agentSocket: string;
  dataDir: string;
  logFile: string;
  eventsFile: string;
}

export type { DemoRouter } from './demo-routers.ts';

export interface DemoState {
  controllers: DemoController[];
  routers: DemoRouter[];
  caBundle: string;
  admin: { username: string; passwordFile: string };
  prometheus: { url: string };
  alertmanager: { url: string };
  /** The alerts daemon: its pid (updated when restarted) and its /metrics. */
  alerts: { pid: number; metrics: string };
  /** Where the local pager receiver appends every alert Alertmanager sends it. */
  pager: { log: string };
  /** The status page: its URL and its pid (updated when restarted). */
  dashboard: { url: string; pid: number };
  /** The overlay's demo service: router1's proxy port for it and the echo server behind router2. */
  dataPlane: DemoDataPlane;
}

/** What the summary prints about a router beyond its demo.json entry. */
export interface DemoRouterDetails {
  readonly name: string;
  readonly entry: DemoRouter;
  readonly linkAddress: string;
  readonly logFile: string;
}

export interface RunningDemo {
  /** What demo.json holds; controller and router pids are updated in place when one is restarted. */
  readonly state: DemoState;
  /** The routers in the order of state.routers, with their names. */
  readonly routers: readonly DemoRouterDetails[];
  /** The observability stack's files, URLs and commands. */
  readonly stack: ObservabilityStack;
  readonly stateFile: string;
  /** The cluster's leader when the demo came up. */
  readonly leader: string;
  /** Whether this start created the cluster (a fresh data folder). */
  readonly created: boolean;
  stop(): Promise<void>;
  /** Resolves when the demo cannot go on (a controller or router keeps failing, or every controller has exited). */
  readonly unexpectedExit: Promise<string>;
}

export interface StartDemoOptions {
  /** Abandons the start-up (Ctrl-C while it is coming up): everything started is stopped and startDemo rejects. */
  readonly signal?: AbortSignal;
  /** How long to wait for each start-up step (healthy controllers, the formed cluster, linked routers). */
  readonly timeoutMs?: number;
}

export const demoControllerIds = ['ctrl1', 'ctrl2', 'ctrl3'] as const;
export const demoClusterName = 'demo';
const adminUsername = 'admin';
/** Prometheus', Alertmanager's, the alerts daemon's and the pager receiver's usual ports. */
const preferredStackPorts: Required<StackPorts> = { prometheus: 9090, alertmanager: 9093, alertsDaemon: 9105, pager: 9096 };
const firstWebPort = 1280;
const preferredEchoPort = 8090;
const firstCtrlPort = 6262;
const stopGraceMs = 15_000;

interface ControllerPlan {
  readonly entry: DemoController;
  readonly ctrlAddress: string;
}

export async function startDemo(dataFolder: string, log: (line: string) => void, options: StartDemoOptions = {}): Promise<RunningDemo> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const root = resolve(dataFolder);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const pkiDir = join(root, 'pki');
  await initPki(pkiDir, { trustDomain: 'edgeward.demo' });
  const pki = pkiPaths(pkiDir);
  const caPem = readFileSync(pki.bundle, 'utf8');
  const stateFile = join(root, 'demo.json');

  // Before anything is written: a demo still running on this folder must keep its configs and ports.
  await refuseIfRunning(root, caPem);

  // Ports already promised to one of the processes, so that no two get the same fallback port.
  const taken = new Set<number>();
  const plans: ControllerPlan[] = [];
  for (const [index, id] of demoControllerIds.entries()) {
    plans.push(await planController(root, pkiDir, pki.bundle, id, index, taken, log));
  }
  const routerPlans: RouterPlan[] = [];
  for (const [index, name] of demoRouterNames.entries()) {
    routerPlans.push(await planRouter(root, name, index, plans.map((plan) => plan.ctrlAddress), taken));
  }
  const stack = layOutObservabilityStack({
    cluster: demoClusterName,
    controllers: plans.map((plan) => ({ id: plan.entry.id, origin: new URL(plan.entry.metrics).origin, logFile: plan.entry.logFile, eventsFile: plan.entry.eventsFile })),
    caBundle: pki.bundle,
    dataDir: root,
    ports: await planStackPorts(root, taken),
  });
  const echoPort = await freeLoopbackPort([...[storedUpstreamPort(stateFile)].filter((port): port is number => port !== undefined), preferredEchoPort], taken);
  taken.add(echoPort);
  const proxyRouter = routerPlans.find((plan) => plan.proxyAddress !== undefined)!;
  const statusPagePort = await freeLoopbackPort([...[storedStatusPagePort(root)].filter((port): port is number => port !== undefined), preferredStatusPagePort], taken);
  taken.add(statusPagePort);
  // Started in this order (each ready before the next), stopped in the reverse one.
  const stackCommands = [stack.commands.pager, stack.commands.alertmanager, stack.commands.prometheus, stack.commands.alertsDaemon].filter(
    (command): command is StackCommand => command !== undefined,
  );

  const passwordFile = join(root, 'admin-password');
  if (!existsSync(passwordFile)) writeFileSync(passwordFile, `${randomBytes(18).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  const state: DemoState = {
    controllers: plans.map((plan) => plan.entry),
    routers: routerPlans.map((plan) => plan.entry),
    caBundle: pki.bundle,
    admin: { username: adminUsername, passwordFile },
    prometheus: { url: stack.urls.prometheus },
    alertmanager: { url: stack.urls.alertmanager },
    alerts: { pid: 0, metrics: stack.urls.alertsMetrics },
    pager: { log: stack.files.pagerLog },
    dashboard: { url: `http://127.0.0.1:${statusPagePort}`, pid: 0 },
    dataPlane: { service: demoServiceName, proxy: proxyRouter.proxyAddress!, upstream: `${demoRouterHost}:${echoPort}` },
  };
  let echo: EchoServer | undefined;
  let published = false;
  const persist = () => {
    if (!published) return;
    writeFileSync(`${stateFile}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
    renameSync(`${stateFile}.tmp`, stateFile);
  };

  let stopping = false;
  let endDemo: (reason: string) => void = () => undefined;
  const unexpectedExit = new Promise<string>((resolveExit) => (endDemo = resolveExit));
  /** A supervised child: its pid kept current in demo.json, and a restart followed until it is healthy again. */
  const supervise = (name: string, args: string[], logFile: string, entry: { pid: number; readonly healthChecks: string }, onCleanExit?: () => void) =>
    new Supervisor({
      name,
      spawn: () => spawnEdgeward(args, { outputFile: logFile }),
      log,
      logFile,
      onStart: (child, restarted) => {
        entry.pid = child.pid!;
        try {
          persist();
        } catch (error) {
          log(`could not update ${stateFile}: ${(error as Error).message}`);
        }
        if (restarted) {
          const current = () => !stopping && child.exitCode === null && child.signalCode === null;
          waitForHealthy(entry.healthChecks, caPem, timeoutMs, current).then(
            () => log(`${name} is healthy again`),
            () => undefined,
          );
        }
      },
      onGiveUp: (reason) => endDemo(reason),
      ...(onCleanExit ? { onCleanExit } : {}),
    });
  const supervisors: Supervisor[] = plans.map((plan) =>
    supervise(`controller ${plan.entry.id}`, ['controller', 'run', plan.entry.config], plan.entry.logFile, plan.entry, () => {
      if (supervisors.every((supervisor) => !supervisor.up)) endDemo('every controller has exited');
    }),
  );
  // Routers are supervised the same way; they are started once the cluster has formed and they are enrolled.
  const routerSupervisors = routerPlans.map((plan) => supervise(`router ${plan.name}`, ['router', 'run', plan.entry.config], plan.files.logFile, plan.entry));
  // So is the stack, started once the routers are linked: it watches a cluster that is up, not one forming.
  const stackSupervisors = stackCommands.map(
    (command) =>
      new Supervisor({
        name: command.name,
        spawn: () => spawnStackCommand(command),
        log,
        logFile: command.logFile,
        onStart: (child, restarted) => {
          if (command === stack.commands.alertsDaemon) {
            state.alerts.pid = child.pid!;
            try {
              persist();
            } catch (error) {
              log(`could not update ${stateFile}: ${(error as Error).message}`);
            }
          }
          if (restarted) {
            const current = () => !stopping && child.exitCode === null && child.signalCode === null;
            waitForStackReady(command, current, timeoutMs).then(
              () => log(`${command.name} is ready again`),
              () => undefined,
            );
          }
        },
        onGiveUp: (reason) => endDemo(reason),
      }),
  );

  // The status page comes last: its config names the routers, known once they are enrolled. Its first start may
  // build the page (next build), so it gets longer to become ready than the others.
  let statusPage: Supervisor | undefined;
  const statusPageReadyMs = Math.max(timeoutMs, 300_000);

  const stop = async () => {
    stopping = true;
    await statusPage?.stop(stopGraceMs);
    // The watchers first, so that the demo's own shutdown is not an incident; the daemon saves where it was.
    for (const supervisor of [...stackSupervisors].reverse()) await supervisor.stop(stopGraceMs);
    // Routers next, so that they do not spend their last moments failing over between stopping controllers.
    await Promise.all(routerSupervisors.map((supervisor) => supervisor.stop(stopGraceMs)));
    await Promise.all(supervisors.map((supervisor) => supervisor.stop(stopGraceMs)));
    await echo?.close();
    // Every controller has exited: a socket left behind is from one that was killed and nothing answers there.
    for (const plan of plans) rmSync(plan.entry.agentSocket, { force: true });
  };
  const guard = () => {
    if (options.signal?.aborted) throw new Error('the demo was asked to stop while it was starting');
    if (stopping) throw new Error('the demo is stopping');
    const failed = [...supervisors, ...routerSupervisors, ...stackSupervisors, ...(statusPage ? [statusPage] : [])].find((supervisor) => supervisor.failed !== undefined);
    if (failed) throw new Error(failed.failed);
  };

  const bringUp = async () => {
    for (const supervisor of supervisors) supervisor.start();
    await Promise.all(
      plans.map(async (plan, index) => {
        const supervisor = supervisors[index]!;
        try {
          await waitForHealthy(plan.entry.healthChecks, caPem, timeoutMs, () => supervisor.failed === undefined && !stopping);
        } catch (error) {
          throw new Error(supervisor.failed ?? `controller ${plan.entry.id}: ${(error as Error).message}; see ${plan.entry.logFile}`);
        }
      }),
    );
    log(`controllers ${demoControllerIds.join(', ')} are healthy; forming the cluster`);
    const formed = await formCluster(
      plans.map((plan) => ({ id: plan.entry.id, agentSocket: plan.entry.agentSocket, ctrlAddress: plan.ctrlAddress, dataDir: plan.entry.dataDir })),
      {
        admin: { username: adminUsername, password: () => readFileSync(passwordFile, 'utf8').trim(), name: 'Default Admin' },
        log,
        guard,
        timeoutMs,
      },
    );
    log(`cluster formed: ${formed.rows.map((row) => row.id).join(', ')} are connected voters; the leader is ${formed.leader}`);

    const leaderFirst = [...plans].sort((a, b) => Number(b.entry.id === formed.leader) - Number(a.entry.id === formed.leader));
    await provisionRouters(routerPlans, {
      managementApis: leaderFirst.map((plan) => plan.entry.managementApi),
      caPem,
      admin: { username: adminUsername, password: () => readFileSync(passwordFile, 'utf8').trim() },
      log,
      guard,
      timeoutMs,
    });
    for (const supervisor of routerSupervisors) supervisor.start();
    log(`routers ${demoRouterNames.join(', ')} are starting; waiting for them to reach the cluster and link to each other`);
    await waitForRouterLinks(routerPlans, caPem, timeoutMs, guard);
    log(`routers ${routerPlans.map((plan) => `${plan.name} (${plan.entry.id})`).join(' and ')} are connected and linked`);

    // The data plane: the echo server (in this process), the demo service through the management API, and a
    // request through router1's proxy that comes back from it over the link.
    echo = await startEchoServer(echoPort, demoRouterHost);
    const api = await managementSession({
      managementApis: leaderFirst.map((plan) => plan.entry.managementApi),
      caPem,
      admin: { username: adminUsername, password: () => readFileSync(passwordFile, 'utf8').trim() },
      log,
      guard,
      timeoutMs,
    });
    try {
      await until('the demo service set up', async () => {
        await ensureDemoDataPlane(api, routerPlans.map((plan) => ({ id: plan.entry.id, tunnel: plan.tunnel })), { host: demoRouterHost, port: echo!.port });
        return true;
      }, timeoutMs, guard, 1000);
    } finally {
      await api.logout();
    }
    await waitForDataPlane(state.dataPlane.proxy, timeoutMs, guard);
    log(`the overlay carries ${demoServiceName}: ${state.dataPlane.proxy} (router1) reaches ${state.dataPlane.upstream} behind router2`);

    for (const [index, command] of stackCommands.entries()) {
      const supervisor = stackSupervisors[index]!;
      supervisor.start();
      try {
        await waitForStackReady(command, () => supervisor.failed === undefined && !stopping, timeoutMs);
      } catch (error) {
        throw new Error(supervisor.failed ?? (error as Error).message);
      }
    }
    log(`${stackCommands.map((command) => command.name).join(', ')} are running`);

    const page = layOutStatusPage(root, statusPagePort, {
      controllers: plans.map((plan) => ({ id: plan.entry.id, origin: new URL(plan.entry.metrics).origin, eventsFile: plan.entry.eventsFile })),
      routers: routerPlans.map((plan) => ({ id: plan.entry.id, name: plan.name, healthChecks: plan.entry.healthChecks })),
      caBundle: pki.bundle,
      alertsDaemonUrl: new URL(stack.urls.alertsMetrics).origin,
      admin: { username: adminUsername, passwordFile },
    });
    const pageSupervisor = new Supervisor({
      name: page.command.name,
      spawn: () => spawnStackCommand(page.command),
      log,
      logFile: page.command.logFile,
      onStart: (child, restarted) => {
        state.dashboard.pid = child.pid!;
        try {
          persist();
        } catch (error) {
          log(`could not update ${stateFile}: ${(error as Error).message}`);
        }
        if (restarted) {
          const current = () => !stopping && child.exitCode === null && child.signalCode === null;
          waitForStackReady(page.command, current, statusPageReadyMs).then(
            () => log('the status page is ready again'),
            () => undefined,
          );
        }
      },
      onGiveUp: (reason) => endDemo(reason),
    });
    statusPage = pageSupervisor;
    pageSupervisor.start();
    log('the status page is starting (its first start builds it, which takes a minute or so)');
    try {
      await waitForStackReady(page.command, () => pageSupervisor.failed === undefined && !stopping, statusPageReadyMs);
    } catch (error) {
      throw new Error(pageSupervisor.failed ?? (error as Error).message);
    }
    log(`the status page is ready at ${state.dashboard.url}`);
    return formed;
  };

  try {
    const startup = bringUp();
    startup.catch(() => undefined);
    const formed = await abortable(startup, options.signal, unexpectedExit);
    published = true;
    persist();
    const routers = routerPlans.map((plan) => ({ name: plan.name, entry: plan.entry, linkAddress: plan.linkAddress, logFile: plan.files.logFile }));
    return { state, routers, stack, stateFile, leader: formed.leader, created: formed.created, stop, unexpectedExit };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Certificate, ports and config of one controller; ports are kept from an earlier start so the cluster's addresses stay valid. */
async function planController(root: string, pkiDir: string, caBundle: string, id: string, index: number, taken: Set<number>, log: (line: string) => void): Promise<ControllerPlan> {
  const controllerDir = join(root, id);
  mkdirSync(controllerDir, { recursive: true, mode: 0o700 });
  const certificate = controllerPaths(pkiDir, id);
  if (!existsSync(certificate.cert)) await issueControllerCertificate(pkiDir, { id, dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });

  const configFile = join(controllerDir, 'ctrl.yml');
  const stored = storedPorts(configFile);
  const webPort = await freeLoopbackPort([...(stored.web ? [stored.web] : []), firstWebPort + index], taken);
  taken.add(webPort);
  const ctrlPort = await freeLoopbackPort([...(stored.ctrl ? [stored.ctrl] : []), firstCtrlPort + index], taken);
  taken.add(ctrlPort);
  if (stored.ctrl !== undefined && stored.ctrl !== ctrlPort) {
    log(`warning: ${id}'s control port ${stored.ctrl} is taken; using ${ctrlPort}, which the other controllers do not know yet`);
  }

  const dataDir = join(controllerDir, 'data');
  const logFile = join(controllerDir, 'controller.log');
  const eventsFile = join(controllerDir, 'events.jsonl');
  const agentSocket = agentSocketOf(root, id);
  const ctrlAddress = `tls:127.0.0.1:${ctrlPort}`;
  writeFileSync(
    configFile,
    controllerConfigExample({
      id,
      dataDir,
      identity: { cert: certificate.chain, key: certificate.key, ca: caBundle },
      signingCert: { cert: pkiPaths(pkiDir).intermediateCert, key: pkiPaths(pkiDir).intermediateKey },
      totpSecretKeyFile: join(pkiDir, 'mfa.key'),
      webAddress: `127.0.0.1:${webPort}`,
      ctrlAddress,
      eventsFile,
      // Every controller writes the entity changes it applies: the alerts daemon's commit lag compares them.
      entityChangesFromEveryController: true,
      logFile,
      agentSocket,
    }),
    { mode: 0o600 },
  );
  const origin = `https://127.0.0.1:${webPort}`;
  return {
    ctrlAddress,
    entry: {
      id,
      pid: 0,
      config: configFile,
      clientApi: `${origin}/edge/client/v1`,
      managementApi: `${origin}/edge/management/v1`,
      healthChecks: `${origin}/health-checks`,
      metrics: `${origin}/metrics`,
      agentSocket,
      dataDir,
      logFile,
      eventsFile,
    },
  };
}

/** The stack's ports: those of an earlier start, else the usual ones, else free ones; never one promised to another process. */
async function planStackPorts(root: string, taken: Set<number>): Promise<Required<StackPorts>> {
  const stored = storedStackPorts(root);
  const ports = { ...preferredStackPorts };
  for (const key of Object.keys(preferredStackPorts) as (keyof StackPorts)[]) {
    const previous = stored[key];
    ports[key] = await freeLoopbackPort([...(previous === undefined ? [] : [previous]), preferredStackPorts[key]], taken);
    taken.add(ports[key]);
  }
  return ports;
}

/** The web and control ports of a config written by an earlier start, when there is one. */
function storedPorts(configFile: string): { web?: number; ctrl?: number } {
  if (!existsSync(configFile)) return {};
  try {
    const config = parseYaml(readFileSync(configFile, 'utf8')) as { ctrl?: { listener?: unknown }; web?: { bindPoints?: { interface?: unknown }[] }[] };
    const port = (value: unknown) => {
      const match = typeof value === 'string' ? /:(\d+)$/.exec(value) : null;
      return match ? Number(match[1]) : undefined;
    };
    return { ctrl: port(config.ctrl?.listener), web: port(config.web?.[0]?.bindPoints?.[0]?.interface) };
  } catch {
    return {};
  }
}

function agentSocketOf(root: string, id: string): string {
  return join(root, id, 'data', 'agent.sock');
}

/** A second demo on the same data folder would fight over the data directories and rewrite the configs: refuse early, saying why. */
async function refuseIfRunning(root: string, caPem: string): Promise<void> {
  for (const id of demoControllerIds) {
    const agentSocket = agentSocketOf(root, id);
    if (!existsSync(agentSocket)) continue;
    const answered = await callAgent(agentSocket, 'status', {}, 5000).then(
      () => true,
      () => false,
    );
    if (answered) throw new Error(`controller ${id} is already running (its agent socket ${agentSocket} answers); is another demo using this data folder?`);
  }
  for (const name of demoRouterNames) await refuseIfRouterRunning(root, name, caPem);
}

function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined, ended: Promise<string>): Promise<T> {
  return new Promise<T>((resolvePromise, reject) => {
    const onAbort = () => reject(new Error('the demo was asked to stop while it was starting'));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => signal?.removeEventListener('abort', onAbort);
    void ended.then((reason) => {
      settle();
      reject(new Error(reason));
    });
    work.then(
      (value) => {
        settle();
        resolvePromise(value);
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
  });
}

/** The echo server's port from an earlier start's demo.json, so the demo service's host.v1 config stays true. */
function storedUpstreamPort(stateFile: string): number | undefined {
  if (!existsSync(stateFile)) return undefined;
  try {
    const upstream = (JSON.parse(readFileSync(stateFile, 'utf8')) as { dataPlane?: { upstream?: unknown } }).dataPlane?.upstream;
    const match = typeof upstream === 'string' ? /:(\d+)$/.exec(upstream) : null;
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

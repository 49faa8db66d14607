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
import { bringUp, type DemoControllerPlan, type DemoLayout, type DemoRun } from './demo-bring-up.ts';
import { demoRouterNames, planRouter, refuseIfRouterRunning, type DemoRouter, type RouterPlan } from './demo-routers.ts';
import type { DemoState } from './demo-state.ts';
import { supervised, type SupervisionContext } from './demo-supervision.ts';
import { demoRouterHost, demoServiceName } from './demo-router-config.ts';
import { demoClientName, planSdkClient, preferredSdkProxyPort, storedSdkProxyPort } from './demo-sdk-client.ts';
import { preferredStatusPagePort, storedStatusPagePort } from './demo-status-page.ts';
import { layOutObservabilityStack, spawnStackCommand, storedStackPorts, waitForStackReady, type ObservabilityStack, type StackCommand, type StackPorts } from './observability-stack.ts';
import type { Supervisor } from './supervisor.ts';
import { waitForHealthy } from './wait-for-health.ts';

export type { DemoController, DemoState } from './demo-state.ts';
export type { DemoRouter } from './demo-routers.ts';

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

export async function startDemo(dataFolder: string, log: (line: string) => void, options: StartDemoOptions = {}): Promise<RunningDemo> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const layout = await layOutDemo(dataFolder, log);
  const { state, stateFile, plans, routerPlans, stack, caPem } = layout;
  let published = false;
  const persist = () => {
    if (!published) return;
    writeFileSync(`${stateFile}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
    renameSync(`${stateFile}.tmp`, stateFile);
  };
  let stopping = false;
  let endDemo: (reason: string) => void = () => undefined;
  const unexpectedExit = new Promise<string>((resolveExit) => (endDemo = resolveExit));
  const supervision: SupervisionContext = { log, stateFile, persist, stopping: () => stopping, endDemo: (reason) => endDemo(reason) };
  const supervisors: Supervisor[] = plans.map((plan) =>
    supervised(supervision, {
      name: `controller ${plan.entry.id}`,
      spawn: () => spawnEdgeward(['controller', 'run', plan.entry.config], { outputFile: plan.entry.logFile }),
      logFile: plan.entry.logFile,
      onPid: (pid) => (plan.entry.pid = pid),
      readyAgain: (current) => waitForHealthy(plan.entry.healthChecks, caPem, timeoutMs, current),
      readyAgainLine: `controller ${plan.entry.id} is healthy again`,
      onCleanExit: () => {
        if (supervisors.every((supervisor) => !supervisor.up)) endDemo('every controller has exited');
      },
    }),
  );
  // Routers are supervised the same way; they are started once the cluster has formed and they are enrolled.
  const routerSupervisors = routerPlans.map((plan) =>
    supervised(supervision, {
      name: `router ${plan.name}`,
      spawn: () => spawnEdgeward(['router', 'run', plan.entry.config], { outputFile: plan.files.logFile }),
      logFile: plan.files.logFile,
      onPid: (pid) => (plan.entry.pid = pid),
      readyAgain: (current) => waitForHealthy(plan.entry.healthChecks, caPem, timeoutMs, current),
      readyAgainLine: `router ${plan.name} is healthy again`,
    }),
  );
  // So is the stack, started once the routers are linked.
  const stackSupervisors = layout.stackCommands.map((command) =>
    supervised(supervision, {
      name: command.name,
      spawn: () => spawnStackCommand(command),
      logFile: command.logFile,
      ...(command === stack.commands.alertsDaemon ? { onPid: (pid: number) => (state.alerts.pid = pid) } : {}),
      readyAgain: (current) => waitForStackReady(command, current, timeoutMs),
      readyAgainLine: `${command.name} is ready again`,
    }),
  );
  const started: DemoRun['started'] = {};
  const stop = async () => {
    stopping = true;
    await started.statusPage?.stop(stopGraceMs);
    // The watchers first, so that the demo's own shutdown is not an incident; the daemon saves where it was.
    for (const supervisor of [...stackSupervisors].reverse()) await supervisor.stop(stopGraceMs);
    // The tunnel before the routers it uses, so that its shutdown is not a lost router.
    await started.tunnel?.stop(stopGraceMs);
    // Routers next, so that they do not spend their last moments failing over between stopping controllers.
    await Promise.all(routerSupervisors.map((supervisor) => supervisor.stop(stopGraceMs)));
    await Promise.all(supervisors.map((supervisor) => supervisor.stop(stopGraceMs)));
    await started.echo?.close();
    // Every controller has exited: a socket left behind is from one that was killed and nothing answers there.
    for (const plan of plans) rmSync(plan.entry.agentSocket, { force: true });
  };
  const guard = () => {
    if (options.signal?.aborted) throw new Error('the demo was asked to stop while it was starting');
    if (stopping) throw new Error('the demo is stopping');
    const failed = [...supervisors, ...routerSupervisors, ...stackSupervisors, ...(started.statusPage ? [started.statusPage] : []), ...(started.tunnel ? [started.tunnel] : [])].find((supervisor) => supervisor.failed !== undefined);
    if (failed) throw new Error(failed.failed);
  };
  const run: DemoRun = {
    ...layout,
    adminUsername,
    // Its first start may build the page (next build), so it gets longer to become ready than the others.
    statusPageReadyMs: Math.max(timeoutMs, 300_000),
    supervisors,
    routerSupervisors,
    stackSupervisors,
    supervision,
    timeoutMs,
    guard,
    started,
  };
  try {
    const startup = bringUp(run);
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

interface LaidOutDemo extends DemoLayout {
  readonly stateFile: string;
}

/** The PKI, every process's ports, configs and files, and the state demo.json will hold; a demo still running on
 * this folder is refused before anything is written. */
async function layOutDemo(dataFolder: string, log: (line: string) => void): Promise<LaidOutDemo> {
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
  const plans: DemoControllerPlan[] = [];
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
  const sdkProxyPort = await freeLoopbackPort([...[storedSdkProxyPort(stateFile)].filter((port): port is number => port !== undefined), preferredSdkProxyPort], taken);
  taken.add(sdkProxyPort);
  const sdkClient = planSdkClient(root, sdkProxyPort);
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
    dataPlane: { service: demoServiceName, proxy: proxyRouter.proxyAddress!, upstream: `${demoRouterHost}:${echoPort}`, sdkProxy: sdkClient.proxy, sdkIdentityFile: sdkClient.identityFile, sdkIdentity: demoClientName },
  };
  return { root, caPem, caBundle: pki.bundle, stateFile, state, passwordFile, plans, routerPlans, stack, stackCommands, echoPort, statusPagePort, sdkClient };
}

/** Certificate, ports and config of one controller; ports are kept from an earlier start so the cluster's addresses stay valid. */
async function planController(root: string, pkiDir: string, caBundle: string, id: string, index: number, taken: Set<number>, log: (line: string) => void): Promise<DemoControllerPlan> {
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

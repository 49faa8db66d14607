// The demo's start-up steps, each ready before the next: the controllers healthy and formed into one cluster, the
// routers enrolled, connected and linked, the data plane carrying the demo service, the SDK path (a tunnel for an
// enrolled client identity) carrying it too, the observability stack, and
// last the status page (its config names the routers, known once they are enrolled).
import { readFileSync } from 'node:fs';
import type { DemoState } from './demo-state.ts';
import { formCluster, until, type FormedCluster } from './demo-cluster.ts';
import { ensureDemoDataPlane, waitForDataPlane } from './demo-data-plane.ts';
import { demoRouterHost, demoServiceName } from './demo-router-config.ts';
import { demoRouterNames, managementSession, provisionRouters, waitForRouterLinks, type RouterPlan } from './demo-routers.ts';
import { layOutStatusPage, type StatusPageSources } from './demo-status-page.ts';
import { startEchoServer, type EchoServer } from './echo-server.ts';
import type { SdkClientPlan } from './demo-sdk-client.ts';
import { startSdkPath } from './demo-sdk-path.ts';
import { spawnStackCommand, waitForStackReady, type ObservabilityStack, type StackCommand } from './observability-stack.ts';
import { supervised, type SupervisionContext } from './demo-supervision.ts';
import type { Supervisor } from './supervisor.ts';
import { waitForHealthy } from './wait-for-health.ts';

/** A controller of the demo as the start-up needs it. */
export interface DemoControllerPlan {
  readonly entry: DemoState['controllers'][number];
  readonly ctrlAddress: string;
}

/** What the demo laid out before starting anything: its PKI, every process's ports, configs and files. */
export interface DemoLayout {
  readonly root: string;
  readonly caPem: string;
  readonly caBundle: string;
  readonly state: DemoState;
  readonly passwordFile: string;
  readonly plans: readonly DemoControllerPlan[];
  readonly routerPlans: readonly RouterPlan[];
  readonly stack: ObservabilityStack;
  /** Started in this order (each ready before the next), stopped in the reverse one. */
  readonly stackCommands: readonly StackCommand[];
  readonly echoPort: number;
  readonly statusPagePort: number;
  /** The SDK path's identity file, tunnel log and proxy port. */
  readonly sdkClient: SdkClientPlan;
}

export interface DemoRun extends DemoLayout {
  readonly adminUsername: string;
  readonly statusPageReadyMs: number;
  readonly supervisors: readonly Supervisor[];
  readonly routerSupervisors: readonly Supervisor[];
  readonly stackSupervisors: readonly Supervisor[];
  readonly supervision: SupervisionContext;
  readonly timeoutMs: number;
  /** Throws when the start-up must end (asked to stop, stopping, or a process failed for good). */
  readonly guard: () => void;
  /** Parts started here that stop() must stop too. */
  readonly started: { echo?: EchoServer; statusPage?: Supervisor; tunnel?: Supervisor };
}

export async function bringUp(run: DemoRun): Promise<FormedCluster> {
  const formed = await startCluster(run);
  const leaderFirst = [...run.plans].sort((a, b) => Number(b.entry.id === formed.leader) - Number(a.entry.id === formed.leader));
  const managementApis = leaderFirst.map((plan) => plan.entry.managementApi);
  await startRouters(run, managementApis);
  await startDataPlane(run, managementApis);
  await startSdkPath(run, managementApis, () => adminPassword(run));
  await startStack(run);
  await startStatusPage(run);
  return formed;
}

async function startCluster(run: DemoRun): Promise<FormedCluster> {
  const { plans, supervisors, timeoutMs, supervision } = run;
  for (const supervisor of supervisors) supervisor.start();
  await Promise.all(
    plans.map(async (plan, index) => {
      const supervisor = supervisors[index]!;
      try {
        await waitForHealthy(plan.entry.healthChecks, run.caPem, timeoutMs, () => supervisor.failed === undefined && !supervision.stopping());
      } catch (error) {
        throw new Error(supervisor.failed ?? `controller ${plan.entry.id}: ${(error as Error).message}; see ${plan.entry.logFile}`);
      }
    }),
  );
  supervision.log(`controllers ${plans.map((plan) => plan.entry.id).join(', ')} are healthy; forming the cluster`);
  const formed = await formCluster(
    plans.map((plan) => ({ id: plan.entry.id, agentSocket: plan.entry.agentSocket, ctrlAddress: plan.ctrlAddress, dataDir: plan.entry.dataDir })),
    { admin: { username: run.adminUsername, password: () => adminPassword(run), name: 'Default Admin' }, log: supervision.log, guard: run.guard, timeoutMs },
  );
  supervision.log(`cluster formed: ${formed.rows.map((row) => row.id).join(', ')} are connected voters; the leader is ${formed.leader}`);
  return formed;
}

async function startRouters(run: DemoRun, managementApis: readonly string[]): Promise<void> {
  const { routerPlans } = run;
  const { log } = run.supervision;
  await provisionRouters(routerPlans, { managementApis: [...managementApis], caPem: run.caPem, admin: { username: run.adminUsername, password: () => adminPassword(run) }, log, guard: run.guard, timeoutMs: run.timeoutMs });
  for (const supervisor of run.routerSupervisors) supervisor.start();
  log(`routers ${demoRouterNames.join(', ')} are starting; waiting for them to reach the cluster and link to each other`);
  await waitForRouterLinks(routerPlans, run.caPem, run.timeoutMs, run.guard);
  log(`routers ${routerPlans.map((plan) => `${plan.name} (${plan.entry.id})`).join(' and ')} are connected and linked`);
}

/** The echo server (in this process), the demo service through the management API, and a request through router1's
 * proxy that comes back from it over the link. */
async function startDataPlane(run: DemoRun, managementApis: readonly string[]): Promise<void> {
  const { state, timeoutMs, guard } = run;
  const echo = await startEchoServer(run.echoPort, demoRouterHost);
  run.started.echo = echo;
  const api = await managementSession({ managementApis: [...managementApis], caPem: run.caPem, admin: { username: run.adminUsername, password: () => adminPassword(run) }, log: run.supervision.log, guard, timeoutMs });
  try {
    await until('the demo service set up', async () => {
      await ensureDemoDataPlane(api, run.routerPlans.map((plan) => ({ id: plan.entry.id, tunnel: plan.tunnel })), { host: demoRouterHost, port: echo.port });
      return true;
    }, timeoutMs, guard, 1000);
  } finally {
    await api.logout();
  }
  await waitForDataPlane(state.dataPlane.proxy, timeoutMs, guard);
  run.supervision.log(`the overlay carries ${demoServiceName}: ${state.dataPlane.proxy} (router1) reaches ${state.dataPlane.upstream} behind router2`);
}

/** Started once the routers are linked: the stack watches a cluster that is up, not one forming. */
async function startStack(run: DemoRun): Promise<void> {
  for (const [index, command] of run.stackCommands.entries()) {
    const supervisor = run.stackSupervisors[index]!;
    supervisor.start();
    try {
      await waitForStackReady(command, () => supervisor.failed === undefined && !run.supervision.stopping(), run.timeoutMs);
    } catch (error) {
      throw new Error(supervisor.failed ?? (error as Error).message);
    }
  }
  run.supervision.log(`${run.stackCommands.map((command) => command.name).join(', ')} are running`);
}

/** Its first start may build the page (next build), so it gets longer to become ready than the others. */
async function startStatusPage(run: DemoRun): Promise<void> {
  const { state, plans, supervision } = run;
  const pageSources: StatusPageSources = {
    controllers: plans.map((plan) => ({ id: plan.entry.id, origin: new URL(plan.entry.metrics).origin, eventsFile: plan.entry.eventsFile })),
    routers: run.routerPlans.map((plan) => ({ id: plan.entry.id, name: plan.name, healthChecks: plan.entry.healthChecks })),
    caBundle: run.caBundle,
    alertsDaemonUrl: new URL(run.stack.urls.alertsMetrics).origin,
    admin: { username: run.adminUsername, passwordFile: run.passwordFile },
  };
  const page = layOutStatusPage(run.root, run.statusPagePort, pageSources);
  const pageSupervisor = supervised(supervision, {
    name: page.command.name,
    spawn: () => spawnStackCommand(page.command),
    logFile: page.command.logFile,
    onPid: (pid) => (state.dashboard.pid = pid),
    readyAgain: (current) => waitForStackReady(page.command, current, run.statusPageReadyMs),
    readyAgainLine: 'the status page is ready again',
  });
  run.started.statusPage = pageSupervisor;
  pageSupervisor.start();
  supervision.log('the status page is starting (its first start builds it, which takes a minute or so)');
  try {
    await waitForStackReady(page.command, () => pageSupervisor.failed === undefined && !supervision.stopping(), run.statusPageReadyMs);
  } catch (error) {
    throw new Error(pageSupervisor.failed ?? (error as Error).message);
  }
  supervision.log(`the status page is ready at ${state.dashboard.url}`);
}

function adminPassword(run: DemoRun): string {
  return readFileSync(run.passwordFile, 'utf8').trim();
}

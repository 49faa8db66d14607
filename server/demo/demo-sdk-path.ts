// The demo's start-up step for the SDK path: the client identity and its file (demo-sdk-client.ts), then
// `./edgeward tunnel run` for it, supervised like the routers, and a request through the tunnel's port that comes
// back from the echo server over the overlay before the demo says it is up.
import { ensureDemoClient, tunnelArguments } from './demo-sdk-client.ts';
import type { DemoRun } from './demo-bring-up.ts';
import { until } from './demo-cluster.ts';
import { waitForDataPlane } from './demo-data-plane.ts';
import { demoServiceName } from './demo-router-config.ts';
import { managementSession } from './demo-routers.ts';
import { spawnEdgeward } from './child-process.ts';
import { supervised } from './demo-supervision.ts';

export async function startSdkPath(run: DemoRun, managementApis: readonly string[], adminPassword: () => string): Promise<void> {
  const { sdkClient: plan, supervision, timeoutMs, guard, state } = run;
  const api = await managementSession({ managementApis: [...managementApis], caPem: run.caPem, admin: { username: run.adminUsername, password: adminPassword }, log: supervision.log, guard, timeoutMs });
  const origins = run.plans.map((controller) => new URL(controller.entry.clientApi).origin);
  try {
    await until('the SDK client identity enrolled', async () => {
      await ensureDemoClient(api, plan, origins, supervision.log);
      return true;
    }, timeoutMs, guard, 1000);
  } finally {
    await api.logout();
  }
  const tunnel = supervised(supervision, {
    name: `tunnel ${state.dataPlane.sdkIdentity}`,
    spawn: () => spawnEdgeward(tunnelArguments(plan), { outputFile: plan.logFile }),
    logFile: plan.logFile,
    readyAgain: (current) =>
      waitForDataPlane(plan.proxy, timeoutMs, () => {
        if (!current()) throw new Error('the tunnel is gone');
      }),
    readyAgainLine: `the tunnel of ${state.dataPlane.sdkIdentity} carries ${demoServiceName} again`,
  });
  run.started.tunnel = tunnel;
  tunnel.start();
  supervision.log(`the tunnel of ${state.dataPlane.sdkIdentity} is starting: ./edgeward tunnel run ${plan.identityFile} --proxy ${demoServiceName}:${plan.port}`);
  await waitForDataPlane(plan.proxy, timeoutMs, guard);
  supervision.log(`the SDK path carries ${demoServiceName}: ${plan.proxy} (./edgeward tunnel run as ${state.dataPlane.sdkIdentity}) reaches ${state.dataPlane.upstream} behind router2`);
}

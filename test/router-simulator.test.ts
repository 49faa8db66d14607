// The router simulator (bench/router-simulator.ts) against a real controller: its routers are made and enrolled
// through the APIs, hold control channels the controller shows as online, register the terminators their Bind policy
// grants, report links and metrics the controller exposes, and come back after the controller restarts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RouterSimulator } from '../bench/router-simulator.ts';
import { ControllerFixture } from './support/controller-fixture.ts';

let controller: ControllerFixture;
let token: string;
let simulator: RouterSimulator | undefined;
const prefix = `simtest-${Date.now().toString(36)}`;
const mgmt = (path: string) => `${controller.managementApi}${path}`;

async function post(path: string, body: Record<string, unknown>): Promise<string> {
  const response = await controller.http.post(mgmt(path), { headers: { 'zt-session': token }, body });
  assert.equal(response.status, 201, response.text);
  return response.json.data.id as string;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function terminatorCount(): Promise<number> {
  const response = await controller.http.get(mgmt('/terminators?limit=1'), { headers: { 'zt-session': token } });
  assert.equal(response.status, 200, response.text);
  return response.json.meta.pagination.totalCount as number;
}

async function simulatedRouters(): Promise<Array<{ id: string; isOnline: boolean; isVerified: boolean; isTunnelerEnabled: boolean }>> {
  const filter = encodeURIComponent(`name contains "${prefix}-"`);
  const response = await controller.http.get(mgmt(`/edge-routers?filter=${filter}&limit=100`), { headers: { 'zt-session': token } });
  assert.equal(response.status, 200, response.text);
  return response.json.data;
}

async function metricsText(): Promise<string> {
  const response = await controller.http.get(`${controller.origin}/metrics`, { headers: { accept: 'text/plain' } });
  assert.equal(response.status, 200);
  return response.text;
}

before(async () => {
  controller = await ControllerFixture.create();
  token = await controller.adminToken();
});

after(async () => {
  await simulator?.stop();
  await controller?.dispose();
});

describe('router simulator', () => {
  it('enrolls routers that connect, host what their Bind policy grants, report links and metrics, and reconnect', async () => {
    const hostConfig = await post('/configs', { name: `${prefix}-host`, configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: 18222 } });
    const serviceIds: string[] = [];
    for (let i = 0; i < 3; i++) serviceIds.push(await post('/services', { name: `${prefix}-svc-${i}`, encryptionRequired: false, roleAttributes: ['simhosted'], configs: [hostConfig] }));
    await post('/service-policies', { name: `${prefix}-bind`, type: 'Bind', semantic: 'AnyOf', identityRoles: ['#simhost'], serviceRoles: ['#simhosted'], postureCheckRoles: [] });

    simulator = new RouterSimulator({
      controlAddresses: [controller.ctrlAddress],
      managementApi: controller.managementApi,
      token,
      caPem: controller.caPem,
      routers: 4,
      terminatorsPerRouter: 2,
      serviceIds,
      terminatorAddress: 'tcp:127.0.0.1:18222',
      // Router 3 has no Bind policy: what it registers is refused by the controller.
      roleAttributes: (index) => (index < 3 ? ['simhost'] : []),
      namePrefix: prefix,
      metricsIntervalMs: 300,
      heartbeatIntervalMs: 300,
    });
    await simulator.enroll();
    const made = await simulatedRouters();
    assert.equal(made.length, 4);
    assert.ok(made.every((router) => router.isVerified && router.isTunnelerEnabled && !router.isOnline), JSON.stringify(made));

    simulator.connect();
    await simulator.waitConnected(4, 30_000);
    assert.ok((await simulatedRouters()).every((router) => router.isOnline));
    // 3 routers × 2 services granted; the fourth's 2 are refused.
    await waitFor('6 terminators', async () => ((await terminatorCount()) === 6 ? true : undefined));

    const [first, second] = simulator.routerIds();
    const text = await waitFor('the routers\' link and latency gauges', async () => {
      const body = await metricsText();
      return body.includes(`edgeward_router_link_count{router_id="${first}"} 3`) && body.includes(`edgeward_router_link_latency_seconds{router_id="${first}",link_id="sim0x0"}`) ? body : undefined;
    });
    assert.match(text, new RegExp(`edgeward_router_link_count\\{router_id="${second}"\\} 3`));
    assert.match(text, new RegExp(`edgeward_router_link_latency_seconds\\{router_id="${first}",link_id="sim0x0"\\} 0\\.001\\b`));
    const counts = simulator.counts();
    assert.equal(counts.enrolled, 4);
    assert.equal(counts.terminatorsSent, 8);
    assert.ok(counts.metricsSent > 0 && (counts.bytesByType.hbAck ?? 0) > 0, JSON.stringify(counts));
    assert.ok((counts.bytesByType['ctrl.edgeModel'] ?? 0) > 0, 'the edge models were read past, by type');

    // The controller goes away and comes back: every router dials again and registers its terminators anew.
    await controller.stop('SIGKILL');
    await waitFor('the simulator to see the channels close', async () => (simulator!.counts().connected === 0 ? true : undefined));
    await controller.start();
    await simulator.waitConnected(4, 60_000);
    const again = simulator.counts();
    assert.equal(again.reconnects, 4);
    assert.equal(again.welcomes, 8);
    await waitFor('6 terminators after the restart', async () => ((await terminatorCount()) === 6 ? true : undefined));
  });
});

// Edge connections reach the controllers, across real processes: three controllers in a cluster (API session
// timeout 1m, activity flushed every second) and one router with an edge listener, connected to the second
// controller. Identities enrolled with a one-time token log in with their certificates and open SDK channels with the
// wire protocol (test/support/edge-wire-client.ts). Shown as a client and an operator see it: the identity's
// `hasEdgeRouterConnection` turns true on every controller (management and client API) while the channel is open and
// false after it closes; an API session holding a channel outlives its inactivity timeout and ends one timeout after
// its channel closed; the router's edge gauges (channels, virtual connections) reach /metrics and a real Prometheus,
// with the controllers' terminators per service and binding, under the generated rules.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { pkiPaths } from '../common/pki/pki-directory.ts';
import { headerValue, readHeader } from '../common/edge-protocol/header-values.ts';
import { allowEveryRouter, circuitRouterYaml, enrollRouterProcess, managementPoster, startWelcomedRouter } from './support/circuit-routers.ts';
import { threeControllerCluster, until } from './support/cluster-helpers.ts';
import type { ControllerFixture } from './support/controller-fixture.ts';
import { startEchoServer, type EchoServer } from './support/echo-server.ts';
import { freePort } from './support/free-port.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import type { RouterRun } from './support/router-fixture.ts';
import { WireClient } from './support/edge-wire-client.ts';
import { PrometheusServer, controllerScrapeJob, testPrometheusGlobal } from './support/prometheus-server.ts';
import { prometheusRuleGroups } from './support/prometheus-api.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-edge-presence-'));
let nodes: ControllerFixture[] = [];
/** A fresh administrator session on the first controller (the sessions' timeout here is one minute). */
const admin = async (): Promise<Record<string, string>> => ({ 'zt-session': await nodes[0]!.adminToken() });
let workbench: OpensslWorkbench;
let echo: EchoServer;
let router: RouterRun;
let routerId: string;
let edgePort: number;
let echoServiceId: string;

const post = async (path: string, body: Record<string, unknown>): Promise<string> => managementPoster(nodes[0]!, await admin())(path, body);

interface CertIdentity {
  readonly id: string;
  readonly cert: string;
  readonly key: string;
  readonly token: string;
  readonly apiSessionId: string;
}

/** An identity enrolled by one-time token with an openssl key, logged in with its certificate. */
async function certIdentity(name: string, roles: string[]): Promise<CertIdentity> {
  const controller = nodes[0]!;
  const id = await post('/identities', { name, type: 'Device', isAdmin: false, roleAttributes: roles, enrollment: { ott: true } });
  const detail = await controller.http.get(`${controller.managementApi}/identities/${id}`, { headers: await admin() });
  const { keyFile, csrPem } = await workbench.keyAndCsr(name);
  const enrolled = await controller.http.post(`${controller.clientApi}/enroll/ott?token=${encodeURIComponent(detail.json.data.enrollment.ott.token)}`, {
    headers: { 'content-type': 'application/x-pem-file', accept: 'application/x-pem-file' },
    rawBody: csrPem,
  });
  assert.equal(enrolled.status, 200, enrolled.text);
  const key = readFileSync(keyFile, 'utf8');
  const login = await controller.http.post(`${controller.clientApi}/authenticate?method=cert`, { body: {}, cert: enrolled.text, key });
  assert.equal(login.status, 200, login.text);
  return { id, cert: enrolled.text, key, token: login.json.data.token as string, apiSessionId: login.json.data.id as string };
}

async function openChannel(identity: CertIdentity): Promise<WireClient> {
  const client = await WireClient.open({ port: edgePort, caPem: nodes[0]!.caPem }, identity);
  const result = await client.hello(identity.token);
  assert.equal(readHeader.bool(result?.headers.get(2)), true, `the hello is accepted: ${result?.body.toString()}`);
  return client;
}

/** `hasEdgeRouterConnection` of the identity as each controller's management API shows it. */
async function connectedOnEveryController(identityId: string, among: readonly ControllerFixture[] = nodes): Promise<boolean[]> {
  return Promise.all(
    among.map(async (node) => {
      const detail = await node.http.get(`${node.managementApi}/identities/${identityId}`, { headers: { 'zt-session': await node.adminToken() } });
      assert.equal(detail.status, 200, detail.text);
      assert.equal(detail.json.data.edgeRouterConnectionStatus, detail.json.data.hasEdgeRouterConnection ? 'online' : 'offline');
      return detail.json.data.hasEdgeRouterConnection as boolean;
    }),
  );
}

/** Whether the management API still lists the API session (the leader removes expired ones). */
async function sessionListed(apiSessionId: string): Promise<boolean> {
  const response = await nodes[0]!.http.get(`${nodes[0]!.managementApi}/api-sessions/${apiSessionId}`, { headers: await admin() });
  assert.ok(response.status === 200 || response.status === 404, response.text);
  return response.status === 200;
}

before(async () => {
  nodes = await threeControllerCluster(join(root, 'pki'), {
    editConfig: (yaml) => yaml.replace('    sessionTimeout: 30m', '    sessionTimeout: 1m').replace(/    activityUpdateInterval: 90s[^\n]*/, '    activityUpdateInterval: 1s'),
  });
  workbench = new OpensslWorkbench(join(root, 'certs'));
  echo = await startEchoServer();
  const echoPort = echo.port;
  edgePort = await freePort();
  const yaml = circuitRouterYaml({
    ctrlAddress: nodes[1]!.ctrlAddress,
    edgePort,
    tunnel: '{mode: host}',
    before: 'metrics: {reportInterval: 300ms, intervalAgeThreshold: 100ms}\n',
    tail: '',
  });
  const enrolled = await enrollRouterProcess(nodes[0]!, await admin(), join(root, 'r1'), yaml, 'r1', { isTunnelerEnabled: true, roleAttributes: ['hosting'] });
  routerId = enrolled.id;
  const hostConfig = await post('/configs', { name: 'presence-echo-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: echoPort } });
  echoServiceId = await post('/services', { name: 'presence-echo', encryptionRequired: false, roleAttributes: ['echo'], configs: [hostConfig] });
  await post('/service-policies', { name: 'presence-bind', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosting'], serviceRoles: ['#echo'], postureCheckRoles: [] });
  await post('/service-policies', { name: 'presence-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#dialer'], serviceRoles: ['#echo'], postureCheckRoles: [] });
  await allowEveryRouter(post, 'presence');
  router = await startWelcomedRouter(enrolled.config, 'r1 welcomed');
});

after(async () => {
  await router?.stop();
  await echo?.close();
  for (const node of nodes) await node.dispose();
  rmSync(root, { recursive: true, force: true });
});

test('hasEdgeRouterConnection is true on every controller while the identity holds an SDK channel, false once it closes', async (t) => {
  const identity = await certIdentity('presence-flip', ['dialer']);
  assert.deepEqual(await connectedOnEveryController(identity.id), [false, false, false], 'no channel yet');
  const client = await openChannel(identity);
  const openedAt = Date.now();
  await until('hasEdgeRouterConnection true on every controller', async () => (await connectedOnEveryController(identity.id)).every(Boolean), 10_000);
  t.diagnostic(`true on every controller ${Date.now() - openedAt} ms after the hello was answered`);
  // The client API's own view of the identity, on a controller that does not hold the router's channel.
  const current = await nodes[2]!.http.get(`${nodes[2]!.clientApi}/current-identity`, { headers: { 'zt-session': identity.token } });
  assert.equal(current.status, 200, current.text);
  assert.equal(current.json.data.hasEdgeRouterConnection, true);

  // A second channel of the same session: one closing leaves the identity connected.
  const second = await openChannel(identity);
  await second.close();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.deepEqual(await connectedOnEveryController(identity.id), [true, true, true], 'one channel is still open');

  await client.close();
  const closedAt = Date.now();
  await until('hasEdgeRouterConnection false on every controller', async () => (await connectedOnEveryController(identity.id)).every((connected) => !connected), 10_000);
  t.diagnostic(`false on every controller ${Date.now() - closedAt} ms after the channel closed`);
});

test('the router reports its SDK channels and their virtual connections as gauges on /metrics', async () => {
  const identity = await certIdentity('presence-metrics', ['dialer']);
  const client = await openChannel(identity);
  const session = await nodes[0]!.http.post(`${nodes[0]!.clientApi}/sessions`, { headers: { 'zt-session': identity.token }, body: { serviceId: echoServiceId, type: 'Dial' } });
  assert.equal(session.status, 201, session.text);
  const connect = client.send(60783, [[1000, headerValue.uint32(5)]], session.json.data.token as string);
  const connected = await client.next((frame) => readHeader.int32(frame.headers.get(1)) === connect, 'connect reply');
  assert.equal(connected?.contentType, 60784, `StateConnected: ${connected?.body.toString()}`);
  const gauge = (text: string, name: string) => new RegExp(`^edgeward_router_edge_${name}_count\\{router_id="${routerId}"\\} (\\d+)`, 'm').exec(text)?.[1];
  // The controller holding the router's control channel exposes its reports.
  const reported = async () => {
    for (const node of nodes) {
      const text = (await node.http.get(`${node.origin}/metrics`)).text;
      if (new RegExp(`^edgeward_router_ctrl_connected\\{router_id="${routerId}"\\} 1`, 'm').test(text)) return { channels: gauge(text, 'channel'), connections: gauge(text, 'connection') };
    }
    return undefined;
  };
  let seen: unknown;
  const expect = async (channels: string, connections: string, what: string) =>
    until(what, async () => {
      seen = await reported();
      return JSON.stringify(seen) === JSON.stringify({ channels, connections });
    }, 15_000).catch((error: Error) => {
      throw new Error(`${error.message}; saw ${JSON.stringify(seen)}`);
    });
  await expect('1', '1', 'one channel and one connection on /metrics');
  await client.close();
  await expect('0', '0', 'no channel on /metrics');
});

test('an API session holding an edge channel outlives its inactivity timeout, and ends one timeout after the channel closed', async () => {
  const identity = await certIdentity('presence-keepalive', ['dialer']);
  const client = await openChannel(identity);
  // No API request with this session from here on: only the channel keeps it.
  const openedAt = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 80_000));
  assert.equal(client.closed, false, 'the channel is still open');
  assert.equal(await sessionListed(identity.apiSessionId), true, 'the session is alive 80 s into a 60 s inactivity timeout');
  await client.close();
  const closedAt = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 45_000));
  assert.equal(await sessionListed(identity.apiSessionId), true, 'the timeout runs from when the channel closed');
  await until('the session ended by inactivity', async () => !(await sessionListed(identity.apiSessionId)), 60_000);
  const endedAfter = Date.now() - closedAt;
  assert.ok(endedAfter >= 59_000, `ended ${endedAfter} ms after the close`);
  assert.ok(Date.now() - openedAt > 140_000);
  const refused = await nodes[0]!.http.get(`${nodes[0]!.clientApi}/current-api-session`, { headers: { 'zt-session': identity.token } });
  assert.equal(refused.status, 401, refused.text);
});

test('the edge gauges and the terminators per service reach a real Prometheus, whose generated rules evaluate them', async () => {
  const rulesFile = new URL('../alerts/generated/edgeward-rules.yml', import.meta.url).pathname;
  const configFile = join(root, 'prometheus.yml');
  writeFileSync(
    configFile,
    stringify({
      global: testPrometheusGlobal,
      rule_files: [rulesFile],
      scrape_configs: [
        controllerScrapeJob(nodes, pkiPaths(join(root, 'pki')).bundle, 'presence'),
      ],
    }),
  );
  const prometheus = await PrometheusServer.start(configFile);
  const identity = await certIdentity('presence-prometheus', ['dialer']);
  const client = await openChannel(identity);
  try {
    const value = async (expr: string) => {
      const answer = await prometheus.query(expr);
      assert.ok(answer.ok, answer.ok ? '' : answer.error);
      return answer.series.length === 1 ? answer.series[0]!.value?.[1] : undefined;
    };
    await until('the router\'s SDK channel and the echo service\'s terminators in Prometheus', async () =>
      (await value(`sum(edgeward_router_edge_channel_count{cluster="presence",router_id="${routerId}"})`)) === '1' &&
      (await value(`sum(edgeward_service_terminators{cluster="presence",service_name="presence-echo",binding="tunnel"})`)) === '1' &&
      (await value(`sum(edgeward_service_terminators{cluster="presence",service_name="presence-echo",binding="edge"})`)) === '0',
    30_000);
    const rule = (await prometheusRuleGroups(prometheus.url)).flatMap((group) => group.rules).find((candidate) => candidate.name === 'EdgewardSdkTerminatorsGone');
    assert.equal(rule?.health, 'ok', `the rule evaluates: ${rule?.lastError ?? 'not loaded'}`);
  } finally {
    await client.close();
    await prometheus.stop();
  }
});

test('a router that fails over to another controller reports its edge sessions there: the identity stays connected on the survivors', async () => {
  const identity = await certIdentity('presence-failover', ['dialer']);
  const client = await openChannel(identity);
  await until('connected on every controller', async () => (await connectedOnEveryController(identity.id)).every(Boolean), 10_000);
  const holding = await Promise.all(nodes.map(async (node) => new RegExp(`^edgeward_router_ctrl_connected\\{router_id="${routerId}"\\} 1`, 'm').test((await node.http.get(`${node.origin}/metrics`)).text)));
  const victim = nodes[holding.indexOf(true)]!;
  assert.ok(victim, 'a controller holds the router');
  const survivors = nodes.filter((node) => node !== victim);
  victim.child!.kill('SIGKILL');
  await router.waitForLog((line) => line.msg === 'control channel established' && line.controllerId !== victim.id, 30_000, 'a welcome from another controller');
  // Past the grace of what the dead controller reported: the survivors answer from the new controller's report.
  await new Promise((resolve) => setTimeout(resolve, 6000));
  await until('still connected on the survivors', async () => (await connectedOnEveryController(identity.id, survivors)).every(Boolean), 10_000);
  await client.close();
  await until('not connected on the survivors once the channel closed', async () => (await connectedOnEveryController(identity.id, survivors)).every((connected) => !connected), 10_000);
  await victim.start();
});

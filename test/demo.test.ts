// The README's run command as a user runs it: ./edgeward demo brings up three controllers formed into one cluster
// and two routers linked to each other and connected to it, with Prometheus, Alertmanager, the alerts daemon and
// the pager receiver watching them, writes demo.json, serves the admin on every controller, restarts a controller
// or router that is killed, stops everything on Ctrl-C, and on a second start reuses the data and forms the same
// cluster without initializing it again, with the same routers, neither created nor enrolled again, and the same
// stack on the same ports. The status page shows the cluster in Chromium, every Grafana panel query returns series
// from the demo's own Prometheus, and `edgeward edge` drives the management API of the demo.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { callAgent } from '../server/agent/agent-client.ts';
import type { MemberRow } from '../server/cluster/cluster-service.ts';
import { parse as parseYaml } from 'yaml';
import { alertmanagerConfig } from '../alerts/alertmanager/alertmanager-config.ts';
import { HttpsClient } from './support/https-client.ts';
import { alertmanagerConfigLoaded, prometheusRuleGroups, prometheusTargets } from './support/prometheus-api.ts';
import { allValue } from '../grafana/queries/template-variables.ts';
import { PanelQueryRunner, panelTargets, targetsWhen } from './support/dashboard-panel-queries.ts';
import { PrometheusClient } from './support/prometheus-server.ts';
import { artifactDir, launchChromium, screenshotPath } from './support/status-page-process.ts';
import { runEdgeCliScenario } from './support/edge-cli-scenario.ts';

const edgeward = fileURLToPath(new URL('../edgeward', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'edgeward-demo-'));
const data = join(root, 'data');
const stateFile = join(data, 'demo.json');
const ids = ['ctrl1', 'ctrl2', 'ctrl3'];
const controllerKeys = ['agentSocket', 'clientApi', 'config', 'dataDir', 'eventsFile', 'healthChecks', 'id', 'logFile', 'managementApi', 'metrics', 'pid'].sort();
const routerNames = ['router1', 'router2'];
const routerKeys = ['config', 'endpointsFile', 'healthChecks', 'id', 'pid'];

interface Controller {
  id: string;
  pid: number;
  config: string;
  clientApi: string;
  managementApi: string;
  healthChecks: string;
  metrics: string;
  agentSocket: string;
  logFile: string;
}
interface Router {
  id: string;
  pid: number;
  config: string;
  healthChecks: string;
  endpointsFile: string;
}
interface State {
  controllers: Controller[];
  routers: Router[];
  caBundle: string;
  admin: { username: string; passwordFile: string };
  prometheus: { url: string };
  alertmanager: { url: string };
  alerts: { pid: number; metrics: string };
  pager: { log: string };
  dashboard: { url: string; pid: number };
  dataPlane: { service: string; proxy: string; upstream: string; sdkProxy: string; sdkIdentityFile: string; sdkIdentity: string };
}

/** The demo service through router1's proxy port, as curl would ask: a GET naming a path, and a body echoed. */
async function checkDataPlane(state: State, label: string): Promise<void> {
  const get = await runCurl(['--silent', '--show-error', '--max-time', '20', `http://${state.dataPlane.proxy}/${label}/hello`]);
  assert.equal(get.code, 0, get.stderr);
  assert.equal(get.stdout, `edgeward demo echo: you asked for /${label}/hello\n`);
  const body = randomBytes(2 * 1024 * 1024);
  const echoed = await fetch(`http://${state.dataPlane.proxy}/echo-body`, { method: 'POST', body });
  assert.equal(echoed.status, 200);
  assert.ok(Buffer.from(await echoed.arrayBuffer()).equals(body), '2 MB echoed byte for byte over the overlay');
}

/** The same service through `./edgeward tunnel run`'s port: the SDK dials it over the overlay as demo-client. */
async function checkSdkPath(state: State, label: string): Promise<void> {
  const get = await runCurl(['--silent', '--show-error', '--max-time', '20', `http://${state.dataPlane.sdkProxy}/${label}/sdk`]);
  assert.equal(get.code, 0, get.stderr);
  assert.equal(get.stdout, `edgeward demo echo: you asked for /${label}/sdk\n`);
  const body = randomBytes(2 * 1024 * 1024);
  const echoed = await fetch(`http://${state.dataPlane.sdkProxy}/echo-body`, { method: 'POST', body });
  assert.equal(echoed.status, 200);
  assert.ok(Buffer.from(await echoed.arrayBuffer()).equals(body), '2 MB echoed byte for byte through the tunnel');
}

function runCurl(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('curl', args);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const readState = () => JSON.parse(readFileSync(stateFile, 'utf8')) as State;

/** Processes whose command line names this test's folder: whatever the demo started (Prometheus, Alertmanager and
 * the pager receiver have no pid in demo.json). */
function processesOfThisTest(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(root)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Whether something answers HTTP at the URL (any status). */
const answers = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(3000) }).then(
    async (response) => (await response.arrayBuffer(), true),
    () => false,
  );

let running: { child: ChildProcess; output: () => string } | undefined;
const pidsSeen = new Set<number>();

after(async () => {
  // Leave nothing behind when a test failed half-way: stop the demo, then kill any controller it left running.
  if (running && running.child.exitCode === null && running.child.signalCode === null) {
    const exited = new Promise((resolve) => running!.child.once('exit', resolve));
    running.child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
  }
  if (existsSync(stateFile)) for (const process of [...readState().controllers, ...(readState().routers ?? [])]) pidsSeen.add(process.pid);
  for (const pid of [...pidsSeen, ...processesOfThisTest()]) if (alive(pid)) process.kill(pid, 'SIGKILL');
  running?.child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

async function runDemo() {
  const child = spawn(edgeward, ['demo', '--data', data], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, EDGEWARD_AGENT_REGISTRY: join(root, 'agents') } });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  running = { child, output: () => output };
  // Its first start on a new clone also builds the status page (next build).
  const deadline = Date.now() + 420_000;
  while (!output.includes('Press Ctrl-C to stop.')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`demo did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const process of [...readState().controllers, ...readState().routers, readState().alerts, readState().dashboard]) pidsSeen.add(process.pid);
  return running;
}

async function stopDemo(demo: { child: ChildProcess }, signal: NodeJS.Signals): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => demo.child.once('exit', (code) => resolve(code)));
  demo.child.kill(signal);
  return exited;
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}\n--- demo output ---\n${running?.output() ?? ''}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function clusterList(socket: string): Promise<MemberRow[]> {
  const response = await callAgent(socket, 'cluster.list', {}, 15_000);
  if (!response.ok) throw new Error(`cluster.list: ${response.error}`);
  return response.result as MemberRow[];
}

/** `agent cluster list` on the leader (the one ctrl1 names): three connected voters, one of them the leader. */
async function formedCluster(state: State): Promise<MemberRow[]> {
  return until('three connected voters and one leader', async () => {
    const leaderId = (await clusterList(state.controllers[0]!.agentSocket)).find((row) => row.leader)?.id;
    const leader = state.controllers.find((controller) => controller.id === leaderId);
    if (!leader) return undefined;
    const rows = await clusterList(leader.agentSocket);
    return rows.length === 3 && rows.every((row) => row.voter && row.connected) && rows.filter((row) => row.leader).length === 1 ? rows : undefined;
  });
}

async function loginEverywhere(state: State, password: string): Promise<void> {
  const http = new HttpsClient(readFileSync(state.caBundle, 'utf8'));
  try {
    for (const controller of state.controllers) {
      const token = await until(`a login on ${controller.id}`, async () => {
        const login = await http.post(`${controller.managementApi}/authenticate?method=password`, { body: { username: state.admin.username, password } });
        return login.status === 200 ? (login.json.data.token as string) : undefined;
      });
      const identities = await http.get(`${controller.managementApi}/identities`, { headers: { 'zt-session': token } });
      assert.equal(identities.status, 200, `${controller.id}: ${identities.text}`);
      assert.equal(identities.json.data.filter((identity: { isDefaultAdmin: boolean }) => identity.isDefaultAdmin).length, 1, controller.id);
    }
  } finally {
    http.close();
  }
}

/** An admin session on ctrl1's management API. */
async function adminSession(state: State, http: HttpsClient): Promise<Record<string, string>> {
  const controller = state.controllers[0]!;
  const token = await until(`a login on ${controller.id}`, async () => {
    const login = await http.post(`${controller.managementApi}/authenticate?method=password`, { body: { username: state.admin.username, password } });
    return login.status === 200 ? (login.json.data.token as string) : undefined;
  });
  return { 'zt-session': token };
}

interface EdgeRouterRow {
  id: string;
  name: string;
  isOnline: boolean;
  isVerified: boolean;
}

/** The edge routers the management API lists, once every one of them is online. */
async function edgeRoutersOnline(state: State): Promise<EdgeRouterRow[]> {
  const http = new HttpsClient(readFileSync(state.caBundle, 'utf8'));
  try {
    const session = await adminSession(state, http);
    return await until('both edge routers online on the management API', async () => {
      const list = await http.get(`${state.controllers[0]!.managementApi}/edge-routers?limit=100`, { headers: session });
      const rows = list.json?.data as EdgeRouterRow[] | undefined;
      return rows && rows.length > 0 && rows.every((row) => row.isOnline) ? rows : undefined;
    }, 30_000);
  } finally {
    http.close();
  }
}

interface RouterHealth {
  healthy: boolean;
  checks: { id: string; healthy: boolean; details?: { destRouterId: string }[] | null }[];
}

/** Each router's health checks, read over HTTPS with the CA bundle, once controllerPing passes and it is linked to the other. */
async function routersLinked(state: State): Promise<Map<string, RouterHealth>> {
  const http = new HttpsClient(readFileSync(state.caBundle, 'utf8'));
  const reports = new Map<string, RouterHealth>();
  try {
    for (const router of state.routers) {
      const other = state.routers.find((candidate) => candidate !== router)!;
      reports.set(
        router.id,
        await until(`${router.id}: controllerPing passing and a link to ${other.id}`, async () => {
          const report = (await http.get(router.healthChecks)).json?.data as RouterHealth | undefined;
          const ping = report?.checks.find((check) => check.id === 'controllerPing');
          const links = report?.checks.find((check) => check.id === 'link.health')?.details ?? [];
          return ping?.healthy && links.some((link) => link.destRouterId === other.id) ? report : undefined;
        }, 30_000),
      );
    }
    return reports;
  } finally {
    http.close();
  }
}

let firstState: State;
let password: string;

test('first start: three controllers formed into one cluster and two routers linked to each other, described in demo.json', async () => {
  const demo = await runDemo();
  const state = readState();
  firstState = state;
  assert.deepEqual(Object.keys(state).sort(), ['admin', 'alertmanager', 'alerts', 'caBundle', 'controllers', 'dashboard', 'dataPlane', 'pager', 'prometheus', 'routers']);
  assert.deepEqual(
    state.controllers.map((controller) => controller.id),
    ids,
  );
  for (const controller of state.controllers) {
    assert.deepEqual(Object.keys(controller).sort(), controllerKeys);
    assert.match(controller.clientApi, /^https:\/\/127\.0\.0\.1:\d+\/edge\/client\/v1$/);
    assert.match(controller.managementApi, /^https:\/\/127\.0\.0\.1:\d+\/edge\/management\/v1$/);
    assert.ok(alive(controller.pid), `${controller.id} is running`);
    assert.ok(demo.output().includes(controller.managementApi), `${controller.id}'s URLs are printed`);
    assert.ok(demo.output().includes(controller.clientApi));
  }
  assert.equal(new Set(state.controllers.map((controller) => new URL(controller.managementApi).port)).size, 3, 'each controller has its own port');
  assert.equal(new Set(state.controllers.map((controller) => controller.pid)).size, 3);
  assert.ok(demo.output().includes(state.admin.passwordFile), 'where the password is, is printed');

  // The routers: demo.json's entries (exactly the contract's keys), their files, and what they print.
  assert.equal(state.routers.length, 2);
  const controlAddresses = state.controllers.map((controller) => (parseYaml(readFileSync(controller.config, 'utf8')) as { ctrl: { listener: string } }).ctrl.listener);
  for (const [index, router] of state.routers.entries()) {
    const name = routerNames[index]!;
    assert.deepEqual(Object.keys(router).sort(), routerKeys);
    assert.match(router.id, /^[0-9a-zA-Z.-]+$/);
    assert.equal(router.config, join(data, name, 'router.yml'));
    assert.match(router.healthChecks, /^https:\/\/127\.0\.0\.1:\d+\/health-checks$/);
    assert.ok(alive(router.pid), `${name} is running`);
    const config = parseYaml(readFileSync(router.config, 'utf8')) as { ctrl: { endpoints: string[]; endpointsFile: string } };
    assert.deepEqual(config.ctrl.endpoints, controlAddresses, `${name} is configured with the three controllers`);
    assert.equal(config.ctrl.endpointsFile, router.endpointsFile);
    const endpoints = parseYaml(readFileSync(router.endpointsFile, 'utf8')) as { endpoints: string[] };
    assert.deepEqual([...endpoints.endpoints].sort(), [...controlAddresses].sort(), `${name}'s endpoints file names the cluster's members`);
    const logFile = join(dirname(router.config), 'router.log');
    assert.match(readFileSync(logFile, 'utf8'), /"msg":"control channel established"/, `${name} logs to ${logFile}`);
    assert.ok(demo.output().includes(logFile), `${name}'s log file is printed`);
    assert.ok(demo.output().includes(router.healthChecks), `${name}'s health checks URL is printed`);
    assert.match(demo.output(), new RegExp(`created edge router ${name} \\(id ${router.id}\\)`));
    assert.match(demo.output(), new RegExp(`enrolled ${name} `));
  }
  assert.notEqual(state.routers[0]!.id, state.routers[1]!.id);
  assert.equal(new Set(state.routers.map((router) => router.healthChecks)).size, 2, 'each router has its own health port');

  // The data plane: demo.json's keys, the summary's lines, and traffic over the link from router1 to router2.
  assert.deepEqual(Object.keys(state.dataPlane).sort(), ['proxy', 'sdkIdentity', 'sdkIdentityFile', 'sdkProxy', 'service', 'upstream']);
  assert.equal(state.dataPlane.service, 'demo-echo');
  assert.match(state.dataPlane.proxy, /^127\.0\.0\.1:\d+$/);
  assert.match(state.dataPlane.upstream, /^127\.0\.0\.1:\d+$/);
  assert.ok(demo.output().includes(state.dataPlane.proxy), 'the proxy address is printed');
  await checkDataPlane(state, 'first-start');

  // The SDK path: an identity enrolled by the demo into an OpenZiti identity file, and `tunnel run` with it.
  assert.equal(state.dataPlane.sdkIdentity, 'demo-client');
  assert.equal(state.dataPlane.sdkIdentityFile, join(data, 'demo-client', 'demo-client.json'));
  assert.equal(statSync(state.dataPlane.sdkIdentityFile).mode & 0o777, 0o600, 'the identity file holds a key: mode 0600');
  const identityFile = JSON.parse(readFileSync(state.dataPlane.sdkIdentityFile, 'utf8')) as { ztAPI: string; ztAPIs: string[]; id: { key: string; cert: string; ca: string } };
  assert.ok(state.controllers.some((controller) => controller.clientApi.startsWith(identityFile.ztAPI)), `ztAPI ${identityFile.ztAPI} is a controller of the demo`);
  assert.equal(identityFile.ztAPIs.length, 3);
  assert.match(identityFile.id.key, /^pem:-----BEGIN PRIVATE KEY-----/);
  assert.match(state.dataPlane.sdkProxy, /^127\.0\.0\.1:\d+$/);
  assert.notEqual(state.dataPlane.sdkProxy, state.dataPlane.proxy);
  assert.ok(demo.output().includes(state.dataPlane.sdkProxy), 'the tunnel\'s address is printed');
  assert.match(demo.output(), /enrolled identity demo-client \(\S+\) at https:\/\/127\.0\.0\.1:\d+: /);
  assert.match(demo.output(), /the SDK path carries demo-echo: 127\.0\.0\.1:\d+ \(\.\/edgeward tunnel run as demo-client\)/);
  await checkSdkPath(state, 'first-start');
  assert.match(readFileSync(join(data, 'demo-client', 'tunnel.log'), 'utf8'), /"msg":"tunnel logged in".*"identity":"demo-client"/, 'the tunnel logs in as demo-client');
  assert.match(demo.output(), /created the admin identity 'admin'/);
  assert.match(demo.output(), /added ctrl2 .* to the cluster/);
  assert.match(demo.output(), /added ctrl3 .* to the cluster/);

  const rows = await formedCluster(state);
  assert.deepEqual(rows.map((row) => row.id).sort(), ids);

  assert.equal(statSync(state.admin.passwordFile).mode & 0o777, 0o600);
  password = readFileSync(state.admin.passwordFile, 'utf8').trim();
  assert.ok(password.length >= 20);
  for (const controller of state.controllers) assert.ok(!readFileSync(controller.logFile, 'utf8').includes(password), 'the password is never logged');
  assert.ok(!demo.output().includes(password));

  await loginEverywhere(state, password);
  const http = new HttpsClient(readFileSync(state.caBundle, 'utf8'));
  try {
    for (const controller of state.controllers) {
      const health = await http.get(controller.healthChecks);
      assert.equal(health.json.data.healthy, true, controller.id);
      const metrics = await http.get(controller.metrics);
      assert.match(metrics.text, /edgeward_raft_applied_index/);
    }
    // Both routers, over HTTPS with the CA bundle: controllerPing passing and a link to the other (demo.json was
    // written only once they were).
    for (const [router, other] of [
      [state.routers[0]!, state.routers[1]!],
      [state.routers[1]!, state.routers[0]!],
    ]) {
      const report = (await http.get(router.healthChecks)).json.data as RouterHealth;
      assert.equal(report.checks.find((check) => check.id === 'controllerPing')?.healthy, true, `${router.id}: controllerPing`);
      const links = report.checks.find((check) => check.id === 'link.health')!;
      assert.equal(links.healthy, true);
      assert.ok(links.details!.some((link) => link.destRouterId === other.id), `${router.id} is linked to ${other.id}`);
    }
  } finally {
    http.close();
  }

  // Online on the management API under their names, and nothing else there.
  const edgeRouters = await edgeRoutersOnline(state);
  assert.deepEqual(
    edgeRouters.map((row) => [row.name, row.id, row.isVerified]).sort(),
    [
      ['router1', state.routers[0]!.id, true],
      ['router2', state.routers[1]!.id, true],
    ],
  );
  // As OpenZiti's quick start: #all edge router and service edge router policies.
  const policyHttp = new HttpsClient(readFileSync(state.caBundle, 'utf8'));
  try {
    const headers = await adminSession(state, policyHttp);
    const erps = await policyHttp.get(`${state.controllers[0]!.managementApi}/edge-router-policies?filter=${encodeURIComponent('isSystem=false')}`, { headers });
    assert.deepEqual(erps.json.data.map((row: { name: string; identityRoles: string[]; edgeRouterRoles: string[] }) => [row.name, row.identityRoles, row.edgeRouterRoles]), [['allEdgeRouters', ['#all'], ['#all']]]);
    const serps = await policyHttp.get(`${state.controllers[0]!.managementApi}/service-edge-router-policies`, { headers });
    assert.deepEqual(serps.json.data.map((row: { name: string; serviceRoles: string[]; edgeRouterRoles: string[] }) => [row.name, row.serviceRoles, row.edgeRouterRoles]), [['allSvcAllRouters', ['#all'], ['#all']]]);
  } finally {
    policyHttp.close();
  }
  await observabilityStackUp(state, demo.output());
  await statusPageUp(state, demo.output());
});

test('the status page shows the demo cluster in Chromium: three controllers, one leader, lag, events and charts', async () => {
  const state = readState();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    await page.goto(state.dashboard.url);
    await page.waitForSelector('[data-testid="connection"]:has-text("live")', { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="member-row"]').length === 3, undefined, { timeout: 30_000 });
    const cards = await page.$$eval('[data-testid="controller-card"]', (elements) => elements.map((element) => [element.getAttribute('data-controller-id'), element.getAttribute('data-role')]));
    assert.deepEqual(cards.map(([id]) => id).sort(), ids);
    assert.equal(cards.filter(([, role]) => role === 'leader').length, 1, 'exactly one leader');
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="lag-entries"]')].length === 3 && [...document.querySelectorAll('[data-testid="lag-entries"]')].every((cell) => /^\d[\d,]*$/.test(cell.textContent ?? '')), undefined, { timeout: 30_000 });
    assert.ok((await page.$$('[data-testid="event-row"]')).length > 0, 'cluster events are listed');
    await page.waitForFunction(() => document.querySelectorAll('svg.recharts-surface path.recharts-line-curve').length > 0, undefined, { timeout: 30_000 });
    const routers = await page.$$eval('[data-testid="router-row"]', (rows) => rows.length);
    assert.equal(routers, 2, 'both routers are listed');
    // The circuits view: both routers report their circuits (every 15 s), and router1 has carried the first test's
    // requests into the overlay.
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="circuit-row"]').length === 2, undefined, { timeout: 60_000 });
    const ingress = state.routers[0]!.id;
    await page.waitForFunction((id) => /[1-9]/.test(document.querySelector(`[data-testid="circuit-row"][data-router-id="${id}"] [data-testid="circuit-bytes-in"]`)?.textContent ?? ''), ingress, { timeout: 60_000 });
    assert.match((await page.textContent('[data-testid="circuit-totals"]')) ?? '', /since the controllers started: [1-9][\d,]* created/);
    const shot = screenshotPath(artifactDir('demo'), 'status-page');
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`status page screenshot: ${shot}`);
  } finally {
    await browser.close();
  }
});

test('every query of every Grafana panel returns series from the demo\'s Prometheus', async () => {
  const state = readState();
  const runner = new PanelQueryRunner(new PrometheusClient(state.prometheus.url), { cluster: 'demo', controller: allValue, router: allValue, __rate_interval: '1m', __interval: '15s', __range: '5m' });
  const targets = panelTargets();
  // Rates need two scrapes (15 s apart in the demo) inside their window: series may take a little while to appear.
  assert.deepEqual(await runner.untilSeries(targetsWhen(targets, 'always', 'routers', 'router-links'), 120_000), [], 'panel queries that returned no series');
  // Those that have series only under a fault (a controller down, an alert firing) parse and run.
  for (const target of targetsWhen(targets, 'controller-down', 'alert-firing', 'daemon-alert-firing')) {
    const answer = await runner.run(target);
    assert.ok(answer.ok, `${target.where}: ${answer.ok ? '' : answer.error}`);
  }
});

test('edgeward edge drives the demo\'s management API: login, an identity with a password, a service, a Dial policy, a filtered list, MFA reset, delete', async () => {
  const state = readState();
  await runEdgeCliScenario({ managementUrl: state.controllers[0]!.managementApi, caFile: state.caBundle, admin: { username: state.admin.username, password } });
});

interface RouteConfig {
  receiver: string;
  group_by?: string[];
  matchers?: string[];
  group_wait?: string;
  group_interval?: string;
  repeat_interval?: string;
  routes?: RouteConfig[];
}

/** What an alertmanager.yml routes where (Alertmanager reports its configuration with every default filled in). */
function routing(yaml: string) {
  const config = parseYaml(yaml) as {
    route: RouteConfig;
    inhibit_rules: { source_matchers: string[]; target_matchers: string[]; equal: string[] }[];
    receivers: { name: string; webhook_configs: { url: string; send_resolved: boolean }[] }[];
  };
  const route = ({ receiver, group_by, matchers, group_wait, group_interval, repeat_interval, routes }: RouteConfig): unknown => ({
    receiver,
    group_by,
    matchers,
    group_wait,
    group_interval,
    repeat_interval,
    routes: routes?.map(route),
  });
  return {
    route: route(config.route),
    inhibit: config.inhibit_rules.map(({ source_matchers, target_matchers, equal }) => ({ source_matchers, target_matchers, equal })),
    receivers: config.receivers.map(({ name, webhook_configs }) => ({ name, webhooks: webhook_configs.map(({ url, send_resolved }) => ({ url, send_resolved })) })),
  };
}

/** Prometheus scrapes every controller and the alerts daemon with the edgeward rules loaded, Alertmanager runs the
 * generated routing to the pager receiver, and the pager log is there: all as demo.json and the summary say. */
async function observabilityStackUp(state: State, output: string): Promise<void> {
  assert.deepEqual(Object.keys(state.prometheus), ['url']);
  assert.deepEqual(Object.keys(state.alertmanager), ['url']);
  assert.deepEqual(Object.keys(state.alerts).sort(), ['metrics', 'pid']);
  assert.deepEqual(Object.keys(state.pager), ['log']);
  assert.match(state.prometheus.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(state.alertmanager.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(state.alerts.metrics, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  assert.equal(state.pager.log, join(data, 'pager', 'pager.jsonl'));
  assert.ok(alive(state.alerts.pid), 'the alerts daemon is running');
  for (const shown of [state.prometheus.url, state.alertmanager.url, state.alerts.metrics, state.pager.log]) assert.ok(output.includes(shown), `${shown} is printed`);

  const targets = await until(
    'every controller and the alerts daemon up in Prometheus',
    async () => {
      const active = await prometheusTargets(state.prometheus.url);
      const up = (job: string, controller?: string) => active.some((target) => target.labels['job'] === job && target.labels['cluster'] === 'demo' && (controller === undefined || target.labels['controller'] === controller) && target.health === 'up');
      return ids.every((id) => up('edgeward-controller', id)) && up('edgeward-alerts') ? active : undefined;
    },
    60_000,
  );
  assert.deepEqual(
    targets.filter((target) => target.labels['job'] === 'edgeward-controller').map((target) => target.labels['instance']).sort(),
    state.controllers.map((controller) => new URL(controller.metrics).host).sort(),
    'Prometheus scrapes each controller\'s /metrics',
  );
  assert.ok(targets.some((target) => target.labels['instance'] === new URL(state.alerts.metrics).host));
  const groups = await prometheusRuleGroups(state.prometheus.url);
  assert.deepEqual(groups.map((group) => group.name).sort(), ['edgeward.alerts', 'edgeward.recording']);
  for (const group of groups) assert.equal(group.file, join(data, 'prometheus', 'edgeward-rules.yml'));
  assert.ok(groups.find((group) => group.name === 'edgeward.alerts')!.rules.some((rule) => rule.name === 'EdgewardClusterLeaderless'));

  const ready = await fetch(`${state.alertmanager.url}/-/ready`);
  assert.equal(ready.status, 200, 'Alertmanager is ready');
  const pagerUrl = /pager receiver on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
  assert.ok(pagerUrl, 'the pager receiver\'s URL is printed');
  assert.deepEqual(
    routing(await alertmanagerConfigLoaded(state.alertmanager.url)),
    routing(alertmanagerConfig({ pager: { kind: 'webhook', url: `${pagerUrl}/pager` }, warningUrl: `${pagerUrl}/warnings` })),
    'Alertmanager runs the generated routing, to the pager receiver',
  );
  assert.ok(await answers(`${pagerUrl}/health`), 'the pager receiver answers');
  assert.ok(existsSync(state.pager.log), 'the pager log exists');
}

/** The status page answers at demo.json's URL (printed in the summary), with its pid, and its data shows the cluster. */
async function statusPageUp(state: State, output: string): Promise<void> {
  assert.deepEqual(Object.keys(state.dashboard).sort(), ['pid', 'url']);
  assert.match(state.dashboard.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.ok(output.includes(state.dashboard.url), 'the status page\'s URL is printed');
  assert.ok(alive(state.dashboard.pid), 'the status page is running');
  const health = await fetch(`${state.dashboard.url}/api/health`);
  assert.equal(health.status, 200);
  await until(
    'the status page to see three reachable controllers and one leader',
    async () => {
      const response = await fetch(`${state.dashboard.url}/api/state`, { signal: AbortSignal.timeout(5000) });
      if (response.status !== 200) return undefined;
      const body = (await response.json()) as { snapshot?: { controllers?: { id: string; reachable: boolean; role: string }[] } };
      const controllers = body.snapshot?.controllers ?? [];
      return controllers.length === 3 && controllers.every((controller) => controller.reachable) && controllers.filter((controller) => controller.role === 'leader').length === 1;
    },
    60_000,
  );
}

test('SIGKILL of a controller: the supervisor restarts it with a new pid in demo.json and it rejoins', async () => {
  const victim = firstState.controllers.find((controller) => controller.id === 'ctrl2')!;
  process.kill(victim.pid, 'SIGKILL');
  const restarted = await until('ctrl2 restarted with a new pid in demo.json', async () => {
    const current = readState().controllers.find((controller) => controller.id === 'ctrl2')!;
    return current.pid !== victim.pid && alive(current.pid) ? current : undefined;
  });
  pidsSeen.add(restarted.pid);
  assert.match(running!.output(), /controller ctrl2 exited \(signal SIGKILL\); restarting it in 1 s/);
  assert.match(running!.output(), new RegExp(`controller ctrl2 restarted \\(pid ${restarted.pid}\\)`));
  assert.equal(alive(victim.pid), false);

  const state = readState();
  const others = state.controllers.filter((controller) => controller.id !== 'ctrl2');
  assert.deepEqual(
    others.map((controller) => controller.pid),
    firstState.controllers.filter((controller) => controller.id !== 'ctrl2').map((controller) => controller.pid),
    'the others were left alone',
  );
  const rows = await formedCluster(state);
  assert.ok(rows.find((row) => row.id === 'ctrl2')?.connected, 'ctrl2 is connected again');
  await until('ctrl2 to know the leader', async () => (await clusterList(restarted.agentSocket)).some((row) => row.leader));
  await loginEverywhere(state, password);
});

test('SIGKILL of a router: the supervisor restarts it with a new pid in demo.json and the two link up again', async () => {
  const victim = readState().routers[1]!;
  process.kill(victim.pid, 'SIGKILL');
  const restarted = await until('router2 restarted with a new pid in demo.json', async () => {
    const current = readState().routers.find((router) => router.id === victim.id)!;
    return current.pid !== victim.pid && alive(current.pid) ? current : undefined;
  });
  pidsSeen.add(restarted.pid);
  assert.match(running!.output(), /router router2 exited \(signal SIGKILL\); restarting it in 1 s/);
  assert.match(running!.output(), new RegExp(`router router2 restarted \\(pid ${restarted.pid}\\)`));
  const state = readState();
  assert.equal(state.routers[0]!.pid, firstState.routers[0]!.pid, 'router1 was left alone');
  await routersLinked(state);
  // The restarted router2 hosts the demo service again: traffic flows once its terminator is back.
  await until('the data plane back through the restarted router2', async () => {
    await checkDataPlane(state, 'after-router-restart');
    return true;
  });
});

test('SIGKILL of the tunnel: the supervisor restarts ./edgeward tunnel run and the SDK path carries traffic again', async () => {
  const identityFile = readState().dataPlane.sdkIdentityFile;
  const tunnelPids = () => processesOfThisTest().filter((pid) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return args.includes('tunnel') && args.includes(identityFile);
    } catch {
      return false;
    }
  });
  const [victim, ...more] = tunnelPids();
  assert.ok(victim !== undefined && more.length === 0, 'one tunnel process runs with the identity file');
  process.kill(victim, 'SIGKILL');
  const restarted = await until('the tunnel restarted', async () => tunnelPids().find((pid) => pid !== victim));
  pidsSeen.add(restarted);
  assert.match(running!.output(), /tunnel demo-client exited \(signal SIGKILL\); restarting it in 1 s/);
  await until('the restarted tunnel to say it carries demo-echo again', async () => running!.output().includes('the tunnel of demo-client carries demo-echo again'));
  assert.match(running!.output(), new RegExp(`tunnel demo-client restarted \\(pid ${restarted}\\)`));
  await checkSdkPath(readState(), 'after-tunnel-restart');
});

test('SIGINT stops every controller, router and process of the stack and removes the agent sockets', async () => {
  const state = readState();
  assert.equal(await stopDemo(running!, 'SIGINT'), 0);
  assert.match(running!.output(), /stopped\./);
  for (const pid of pidsSeen) assert.equal(alive(pid), false, `pid ${pid} is gone`);
  assert.deepEqual(processesOfThisTest(), [], 'nothing the demo started is left');
  for (const url of [state.prometheus.url, state.alertmanager.url, state.alerts.metrics, state.dashboard.url]) assert.equal(await answers(url), false, `${url} no longer answers`);
  for (const router of state.routers) assert.equal(alive(router.pid), false, `${router.id} is stopped`);
  for (const controller of state.controllers) assert.equal(existsSync(controller.agentSocket), false, `${controller.id}'s agent socket is removed`);
});

test('a second start reuses the data, the password and the routers: the same cluster, not initialized again, and no new edge router', async () => {
  const again = await runDemo();
  const state = readState();
  assert.equal(readFileSync(state.admin.passwordFile, 'utf8').trim(), password);
  assert.doesNotMatch(again.output(), /created the admin identity|initialized a new cluster|added ctrl/);
  assert.deepEqual(
    state.controllers.map((controller) => controller.managementApi),
    firstState.controllers.map((controller) => controller.managementApi),
    'the controllers keep their ports',
  );
  for (const controller of state.controllers) assert.ok(alive(controller.pid));
  const rows = await formedCluster(state);
  assert.deepEqual(rows.map((row) => row.id).sort(), ids);
  await loginEverywhere(state, password);

  // The same routers, on the same ports, neither created nor enrolled again, linked and online again.
  assert.doesNotMatch(again.output(), /created edge router|enrolled router/);
  assert.deepEqual(
    state.routers.map(({ id, config, healthChecks, endpointsFile }) => ({ id, config, healthChecks, endpointsFile })),
    firstState.routers.map(({ id, config, healthChecks, endpointsFile }) => ({ id, config, healthChecks, endpointsFile })),
  );
  for (const router of state.routers) assert.ok(alive(router.pid), `${router.id} is running`);
  await routersLinked(state);
  const edgeRouters = await edgeRoutersOnline(state);
  assert.deepEqual(edgeRouters.map((row) => row.id).sort(), state.routers.map((router) => router.id).sort(), 'no new edge router');
  assert.deepEqual(state.dataPlane, firstState.dataPlane, 'the data plane keeps its ports');
  await checkDataPlane(state, 'second-start');
  // The SDK path's identity file is reused, not enrolled again (its enrollment was used: it could not be).
  assert.match(again.output(), /identity demo-client logs in with \S+demo-client\.json; reusing it/);
  assert.doesNotMatch(again.output(), /enrolled identity demo-client/);
  await checkSdkPath(state, 'second-start');

  // The same stack on the same ports, the daemon resuming where it stopped.
  assert.deepEqual(
    { prometheus: state.prometheus, alertmanager: state.alertmanager, metrics: state.alerts.metrics, pager: state.pager },
    { prometheus: firstState.prometheus, alertmanager: firstState.alertmanager, metrics: firstState.alerts.metrics, pager: firstState.pager },
  );
  assert.notEqual(state.alerts.pid, firstState.alerts.pid);
  await observabilityStackUp(state, again.output());
  assert.equal(state.dashboard.url, firstState.dashboard.url, 'the status page keeps its port');
  await statusPageUp(state, again.output());
  const starts = readFileSync(join(data, 'alerts', 'alerts.log'), 'utf8').split('\n').filter((line) => line.includes('"alerts daemon started"'));
  assert.equal(starts.length, 2);
  assert.match(starts[1]!, /"resumed":true/, 'the daemon resumed from its saved state');

  assert.equal(await stopDemo(again, 'SIGTERM'), 0);
  assert.deepEqual(processesOfThisTest(), [], 'nothing the demo started is left');
  for (const controller of state.controllers) {
    assert.equal(alive(controller.pid), false);
    assert.equal(existsSync(controller.agentSocket), false);
  }
  for (const router of state.routers) assert.equal(alive(router.pid), false, `${router.id} is stopped`);
});

// The generated Grafana dashboards against a real Prometheus scraping a real cluster: three controllers, the alerts
// daemon and two routers (scripted over the control channel, reporting what a real router reports). After logins
// good and bad, writes and a wrong MFA code, every query of every panel of the committed dashboards runs through
// Prometheus's HTTP API with the template variables filled in as Grafana would, and must parse and return series.
// Queries whose series exist only under a fault are then checked under it: a follower frozen with SIGSTOP (its
// target down, and Prometheus's generated rules firing, their hold times set to 0 s so that they fire at the next
// evaluation) and a peer TLS handshake without a certificate (an alert the daemon raises from the log line).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { queryCatalogue } from '../grafana/queries/query-catalogue.ts';
import { routerMetrics } from '../grafana/queries/router-metric-names.ts';
import { allValue, clusterVariable, controllerVariable, expandTemplateVariables, routerVariable } from '../grafana/queries/template-variables.ts';
import { buildRouterMetrics } from '../router/run/router-metrics.ts';
import { pkiPaths } from '../common/pki/pki-directory.ts';
import { routerSeries } from '../server/routers/router-metric-series.ts';
import { threeControllerCluster, until } from './support/cluster-helpers.ts';
import { adminCredentials, type ControllerFixture } from './support/controller-fixture.ts';
import { freePort } from './support/free-port.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import { PrometheusServer, controllerScrapeJob, testPrometheusGlobal } from './support/prometheus-server.ts';
import { PanelQueryRunner, panelTargets, targetsWhen } from './support/dashboard-panel-queries.ts';
import { enrollRouter, ScriptedRouter, type EnrolledRouter } from './support/scripted-router.ts';

const cliEntry = fileURLToPath(new URL('../server/cli/main.ts', import.meta.url));
const tsxLoader = new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const rulesFile = fileURLToPath(new URL('../alerts/generated/edgeward-rules.yml', import.meta.url));

const clusterName = 'grafana-live';
/** What Grafana puts in place of each variable: the cluster, `All` of the multi-value ones, and its intervals. */
const variableValues = { cluster: clusterName, controller: allValue, router: allValue, __rate_interval: '1m', __interval: '5s', __range: '1m' };

const root = mkdtempSync(join(tmpdir(), 'edgeward-grafana-live-'));
let nodes: ControllerFixture[] = [];
let prometheus: PrometheusServer | undefined;
let daemon: ChildProcess | undefined;
let daemonOutput = '';
const routers: ScriptedRouter[] = [];
let reporting: NodeJS.Timeout | undefined;
let frozen: ControllerFixture | undefined;

/** Runs the panels' queries against this test's Prometheus, once it is up. */
const panels = () => new PanelQueryRunner(prometheus!, variableValues);

async function instantValue(expr: string): Promise<number | undefined> {
  const answer = await prometheus!.query(expr);
  if (!answer.ok || answer.series.length === 0) return undefined;
  return Number(answer.series[0]!.value![1]);
}

async function startDaemon(listenPort: number): Promise<void> {
  const configFile = join(root, 'alerts.yml');
  const deadPort = await freePort();
  writeFileSync(
    configFile,
    stringify({
      cluster: clusterName,
      controllers: nodes.map((node) => ({ id: node.id, logFile: node.logFile, eventsFile: node.eventsFile })),
      // Nothing listens there: delivery fails and queues, which the dashboards do not mind.
      alertmanager: { urls: [`http://127.0.0.1:${deadPort}`] },
      stateDir: join(root, 'alerts-state'),
      listen: `127.0.0.1:${listenPort}`,
    }),
  );
  const child = spawn(process.execPath, ['--import', tsxLoader, cliEntry, 'alerts', 'run', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  daemon = child;
  child.stdout!.on('data', (chunk: Buffer) => (daemonOutput += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (daemonOutput += chunk.toString()));
  await until('the alerts daemon to start', () => {
    if (child.exitCode !== null) throw new Error(`the alerts daemon exited with ${child.exitCode}:\n${daemonOutput}`);
    return daemonOutput.includes('alerts daemon started');
  }, 30_000);
}

function prometheusConfig(daemonPort: number): string {
  // The generated rules with every hold time at 0 s: a fault fires at the next evaluation instead of minutes later.
  const fastRules = join(root, 'edgeward-rules.yml');
  writeFileSync(fastRules, readFileSync(rulesFile, 'utf8').replace(/^(\s+for:) \S+$/gm, '$1 0s'));
  return stringify({
    global: testPrometheusGlobal,
    rule_files: [fastRules],
    scrape_configs: [
      controllerScrapeJob(nodes, pkiPaths(join(root, 'pki')).bundle, clusterName),
      { job_name: 'edgeward-alerts', static_configs: [{ targets: [`127.0.0.1:${daemonPort}`], labels: { cluster: clusterName } }] },
    ],
  });
}

async function createRouter(node: ControllerFixture, name: string): Promise<{ id: string; token: string }> {
  const headers = { 'zt-session': await node.adminToken() };
  const created = await node.http.post(`${node.managementApi}/edge-routers`, { headers, body: { name } });
  assert.equal(created.status, 201, created.text);
  const detail = await node.http.get(`${node.managementApi}/edge-routers/${created.json.data.id}`, { headers });
  return { id: detail.json.data.id, token: detail.json.data.enrollmentToken };
}

/** Two routers with one link between them, each on its own controller, reporting every second as a router does. */
async function connectRouters(): Promise<void> {
  const workbench = new OpensslWorkbench(join(root, 'router-certs'));
  const enrolled: EnrolledRouter[] = [];
  for (const name of ['live-router-a', 'live-router-b']) {
    const { id, token } = await createRouter(nodes[0]!, name);
    enrolled.push(await enrollRouter(nodes[0]!, workbench, id, token));
  }
  for (const [index, router] of enrolled.entries()) {
    const node = nodes[index]!;
    await until(`router ${router.id} known to ${node.id}`, async () => (await node.http.get(`${node.managementApi}/edge-routers/${router.id}`, { headers: { 'zt-session': await node.adminToken() } })).status === 200);
    const channel = await ScriptedRouter.connect(node.ctrlAddress, node.caPem, router);
    channel.hello(router.id);
    await channel.next('ctrl.welcome', 10_000);
    routers.push(channel);
  }
  const [a, b] = enrolled;
  // Counts that grow as a busy router's do, so that rate() has something to show.
  let reports = 0;
  const link = (destRouterId: string) => ({ id: 'live-link-1', destRouterId, latencyMs: 2.5, localAddr: '127.0.0.1:4101', remoteAddr: '127.0.0.1:4102', bytesSent: 4096 * reports, bytesReceived: 2048 * reports });
  const report = () => {
    reports++;
    routers.forEach((channel, index) => {
      for (const heartbeat of channel.take('hb')) channel.send({ type: 'hbAck', sentAt: heartbeat.sentAt });
      const memory = process.memoryUsage();
      channel.send(
        buildRouterMetrics({
          routerId: enrolled[index]!.id,
          now: Date.now(),
          links: [link(index === 0 ? b!.id : a!.id)],
          ctrlLatencyMs: 1.25,
          ctrlConnected: true,
          heapUsedBytes: memory.heapUsed,
          rssBytes: memory.rss,
          metricsDropped: 0,
          circuits: { circuits: 2, created: 3 * reports, failed: reports, dialFailures: reports, bytesIn: 65536 * reports, bytesOut: 32768 * reports },
          edge: { channels: 1, connections: 2 },
        }),
      );
    });
  };
  report();
  reporting = setInterval(report, 1000);
}

/** Logins good and bad on every controller, writes through the leader and a follower, a wrong MFA code. */
async function produceActivity(): Promise<void> {
  for (const node of nodes) {
    await node.adminToken();
    const refused = await node.http.post(`${node.managementApi}/authenticate?method=password`, { body: { username: adminCredentials.username, password: 'not-the-password' } });
    assert.equal(refused.status, 401, refused.text);
    assert.equal((await node.http.get(`${node.origin}/no-such-path`)).status, 404);
  }
  for (const [index, node] of nodes.slice(0, 2).entries()) {
    const headers = { 'zt-session': await node.adminToken() };
    for (const n of [1, 2]) {
      const created = await node.http.post(`${node.managementApi}/identities`, { headers, body: { name: `live-identity-${index}-${n}`, type: 'User', isAdmin: false } });
      assert.equal(created.status, 201, created.text);
    }
  }
  const first = nodes[0]!;
  const headers = { 'zt-session': await first.login(adminCredentials.username, adminCredentials.password, 'client') };
  const started = await first.http.post(`${first.clientApi}/current-identity/mfa`, { headers, body: {} });
  assert.equal(started.status, 201, started.text);
  const wrong = await first.http.post(`${first.clientApi}/current-identity/mfa/verify`, { headers, body: { code: '000000' } });
  assert.notEqual(wrong.status, 200, 'a wrong code is refused');
}

before(async () => {
  nodes = await threeControllerCluster(join(root, 'pki'));
  const daemonPort = await freePort();
  await startDaemon(daemonPort);
  const configFile = join(root, 'prometheus.yml');
  writeFileSync(configFile, prometheusConfig(daemonPort));
  prometheus = await PrometheusServer.start(configFile);
  await connectRouters();
  await produceActivity();
  await until('Prometheus scraping the three controllers and the daemon, the wrong MFA code and the router reports', async () =>
    (await instantValue(`count(up{cluster="${clusterName}"} == 1)`)) === 4 &&
    ((await instantValue(`sum(edgeward_mfa_code_failures_total{cluster="${clusterName}"})`)) ?? 0) > 0 &&
    (await instantValue(`count(edgeward_router_link_latency_seconds{cluster="${clusterName}"})`)) === 2,
  60_000);
}, { timeout: 240_000 });

after(async () => {
  clearInterval(reporting);
  if (frozen) frozen.child?.kill('SIGCONT');
  for (const channel of routers) channel.close();
  daemon?.kill('SIGKILL');
  await prometheus?.stop();
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(root, { recursive: true, force: true });
});

test('the router gauges the dashboards read are the names a router report becomes on a controller', () => {
  const report = buildRouterMetrics({
    routerId: 'r1',
    now: 0,
    links: [{ id: 'L1', destRouterId: 'r2', latencyMs: 1, localAddr: 'a:1', remoteAddr: 'b:2', bytesSent: 1, bytesReceived: 1 }],
    ctrlLatencyMs: 1,
    ctrlConnected: true,
    heapUsedBytes: 1,
    rssBytes: 1,
    metricsDropped: 0,
    circuits: { circuits: 1, created: 1, failed: 1, dialFailures: 1, bytesIn: 1, bytesOut: 1, windowOverruns: 1, limitRefusals: 1, linkReadPauses: 1, bufferedBytes: 1 },
    edge: { channels: 1, connections: 1 },
  });
  const exposed = Object.keys(report.gauges).map((name) => `edgeward_${routerSeries(name, 1)!.metric.replaceAll('.', '_')}`);
  assert.deepEqual(exposed.sort(), Object.keys(routerMetrics).sort());
});

test('the dashboards\' variables list the cluster, its controllers and its routers', async () => {
  const labelValues = (variable: typeof clusterVariable) => prometheus!.labelValues(variable.labelName, expandTemplateVariables(variable.selector, variableValues));
  assert.deepEqual(await labelValues(clusterVariable), [clusterName]);
  assert.deepEqual(await labelValues(controllerVariable), nodes.map((node) => node.id).sort());
  assert.equal((await labelValues(routerVariable)).length, 2);
});

test('every query of every panel parses and returns series on a live cluster with routers', { timeout: 120_000 }, async (t) => {
  const targets = panelTargets();
  const quiet = await prometheus!.query('ALERTS');
  t.diagnostic(`alerts before any fault: ${quiet.ok ? JSON.stringify(quiet.series.map((series) => series.metric)) : quiet.error}`);
  assert.ok(targets.length >= queryCatalogue.length, `${targets.length} panel queries, ${queryCatalogue.length} in the catalogue`);
  const empty = await panels().untilSeries(targetsWhen(targets, 'always', 'routers', 'router-links'), 60_000);
  assert.deepEqual(empty, [], 'panel queries that returned no series');
  // The fault-only ones must at least parse and run now; their series come with the fault (next test).
  for (const target of targetsWhen(targets, 'controller-down', 'alert-firing', 'daemon-alert-firing')) {
    const answer = await panels().run(target);
    assert.ok(answer.ok, `${target.where}: ${answer.ok ? '' : answer.error}`);
  }
});

test('fault-only queries return series under their fault: a frozen follower, a peer handshake without a certificate', { timeout: 120_000 }, async () => {
  const targets = panelTargets();
  const leaderId = await until('a leader in Prometheus', async () => {
    const answer = await prometheus!.query(`edgeward_raft_is_leader{cluster="${clusterName}"} == 1`);
    return answer.ok && answer.series.length === 1 ? answer.series[0]!.metric['controller'] : undefined;
  });
  const leader = nodes.find((node) => node.id === leaderId)!;
  frozen = nodes.find((node) => node.id !== leaderId)!;

  // A peer TLS handshake with no client certificate: the controller logs it, the daemon raises EdgewardPeerTlsFailure.
  const [, host, port] = /^tls:([^:]+):(\d+)$/.exec(leader.ctrlAddress)!;
  await new Promise<void>((resolve) => {
    const socket = tlsConnect({ host, port: Number(port), rejectUnauthorized: false });
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
    socket.on('secureConnect', () => socket.end());
  });
  frozen.child!.kill('SIGSTOP');
  try {
    const empty = await panels().untilSeries(targetsWhen(targets, 'controller-down', 'alert-firing', 'daemon-alert-firing'), 60_000);
    assert.deepEqual(empty, [], 'fault-only queries that returned no series under their fault');
    const tile = (alert: string, source: string) => expandTemplateVariables(queryCatalogue.find((query) => query.id === `alerts.${alert}.${source}`)!.expr, variableValues);
    await until('the EdgewardScrapeTargetDown tile counting the frozen follower', async () => (await instantValue(tile('EdgewardScrapeTargetDown', 'prometheus'))) === 1, 20_000);
    await until('the EdgewardPeerTlsFailure tile counting the daemon\'s alert', async () => (await instantValue(tile('EdgewardPeerTlsFailure', 'daemon'))) === 1, 20_000);
    const down = await prometheus!.query(expandTemplateVariables(queryCatalogue.find((query) => query.id === 'cluster.membersDown')!.expr, variableValues));
    assert.ok(down.ok);
    assert.deepEqual(down.series.map((series) => series.metric['controller']), [frozen.id]);
  } finally {
    frozen.child!.kill('SIGCONT');
    frozen = undefined;
  }
});

// Alerting end to end on a real cluster: three controllers (each behind a TCP proxy, warnWhenLeaderlessFor 10s,
// entity changes written by every controller), Debian's Prometheus with the generated rules, Debian's
// Alertmanager with the generated routing, the alerts daemon with its default windows, and a webhook receiver this
// test runs in place of the pager (pages on /pager, warnings on /warnings). The scenarios share the cluster and run
// in order: a rolling restart pages nothing, a flapping peer warns without paging, a version mismatch pages
// read-only until the versions match, and a frozen majority pages until it is thawed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { MemberRow } from '../server/cluster/cluster-service.ts';
import { layOutObservabilityStack, type ObservabilityStack } from '../server/demo/observability-stack.ts';
import { initPki, pkiPaths } from '../common/pki/pki-directory.ts';
import { agent, memberList, until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { freePort } from './support/free-port.ts';
import { LogWatch } from './support/log-watch.ts';
import { alertmanagerAlerts, prometheusAlerts, prometheusRuleGroups, prometheusTargets } from './support/prometheus-api.ts';
import { localTcpPortsOf } from './support/socket-owner.ts';
import { StackProcesses } from './support/stack-processes.ts';
import { TcpProxy } from './support/tcp-proxy.ts';
import { WebhookReceiver, type ReceivedAlertNotice } from './support/webhook-receiver.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-alerting-cluster-'));
const pkiDir = join(root, 'pki');
const clusterName = 'e2e';
const ids = ['ctrl1', 'ctrl2', 'ctrl3'] as const;
const warnWhenLeaderlessForMs = 10_000;
const pagePath = '/pager';
const warningPath = '/warnings';
/** How long after a disturbance a page could still come: the generated rules' `for: 1m` (and the daemon's longest
 * default window, leaderlessTolerance 1m), a few 2 s evaluations, Alertmanager's 1 s group_wait and delivery. */
const quietAfterMs = 75_000;

const receiver = new WebhookReceiver();
const stack = new StackProcesses();
const nodes: ControllerFixture[] = [];
const proxies = new Map<string, TcpProxy>();
/** Controllers stopped with SIGSTOP: continued before anything else is done with them. */
const frozen = new Set<number>();
let layout: ObservabilityStack;

after(async () => {
  for (const pid of frozen) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // already gone
    }
  }
  await stack.stopAll();
  await Promise.all(nodes.map((node) => node.dispose()));
  await Promise.all([...proxies.values()].map((proxy) => proxy.stop()));
  await receiver.stop();
  rmSync(root, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** The controller's config as these tests want it: the leaderless warning at its minimum, entity changes from every
 * controller (the daemon's commit lag), and peers reaching it through its proxy. */
function tuned(yaml: string, proxyPort: number): string {
  const edits: [RegExp | string, string][] = [
    ['warnWhenLeaderlessFor: 1m', `warnWhenLeaderlessFor: ${warnWhenLeaderlessForMs / 1000}s`],
    [/propagateAlways: false/, 'propagateAlways: true'],
    [/(\n {2}options:\n)/, `$1    advertiseAddress: tls:127.0.0.1:${proxyPort}\n`],
  ];
  return edits.reduce((text, [from, to]) => {
    const next = text.replace(from, to);
    assert.notEqual(next, text, `the controller config has ${String(from)}`);
    return next;
  }, yaml);
}

async function startController(id: string): Promise<ControllerFixture> {
  const proxyPort = await freePort();
  let proxy: TcpProxy | undefined;
  const node = await ControllerFixture.create({
    pkiDir,
    id,
    initAdmin: id === ids[0],
    editConfig: (yaml) => {
      proxy = new TcpProxy(Number(/listener: "?tls:127\.0\.0\.1:(\d+)"?/.exec(yaml)![1]));
      return tuned(yaml, proxyPort);
    },
  });
  nodes.push(node);
  await proxy!.start(proxyPort);
  proxies.set(id, proxy!);
  return node;
}

const proxied = (node: ControllerFixture) => `tls:127.0.0.1:${proxies.get(node.id)!.port}`;

/** Once the leader sees every controller as a connected voter and every controller names it: the leader. */
async function healthyCluster(what: string, timeoutMs = 60_000): Promise<ControllerFixture> {
  return until(
    what,
    async () => {
      const views = await Promise.all(nodes.map(memberList));
      const named = new Set(views.map((rows) => rows.find((row) => row.leader)?.id));
      const leader = nodes.find((node) => named.size === 1 && named.has(node.id));
      if (!leader) return undefined;
      const rows: MemberRow[] = views[nodes.indexOf(leader)]!;
      return rows.length === ids.length && rows.every((row) => row.voter && row.connected) ? leader : undefined;
    },
    timeoutMs,
  );
}

/** Cuts every connection into and out of the controller: its own proxy, and its connections into its peers'. Each
 * direction between two controllers is a channel of its own and one open channel keeps a peer connected, so cutting
 * only the connections into it would leave it connected through its own. */
function isolate(node: ControllerFixture): void {
  const pid = node.child!.pid!;
  proxies.get(node.id)!.cut();
  for (const [id, proxy] of proxies) if (id !== node.id) proxy.cutClients((client) => localTcpPortsOf(pid).has(client.remotePort ?? -1));
}

function reconnect(node: ControllerFixture): void {
  proxies.get(node.id)!.heal();
  for (const [id, proxy] of proxies) if (id !== node.id) proxy.healClients();
}

const pagesSince = (since: number) => receiver.alerts(pagePath).filter((alert) => alert.at >= since);
const named = (alertname: string) => (alert: ReceivedAlertNotice) => alert.labels['alertname'] === alertname;

/** True once every alert that fired among `notices` has been sent resolved after it. */
function allResolved(notices: readonly ReceivedAlertNotice[]): boolean {
  const latest = new Map<string, string>();
  for (const notice of notices) latest.set(notice.fingerprint, notice.status);
  return latest.size > 0 && [...latest.values()].every((status) => status === 'resolved');
}

before(
  async () => {
    await initPki(pkiDir, { trustDomain: 'edgeward.test' });
    for (const id of ids) await startController(id);
    const [first, second, third] = nodes as [ControllerFixture, ControllerFixture, ControllerFixture];
    for (const node of [second, third]) await agent(first, 'cluster.add', { address: proxied(node), voter: true });
    await healthyCluster('three connected voters under one leader');

    await receiver.start();
    layout = layOutObservabilityStack({
      cluster: clusterName,
      controllers: nodes.map((node) => ({ id: node.id, origin: node.origin, logFile: node.logFile, eventsFile: node.eventsFile })),
      caBundle: pkiPaths(pkiDir).bundle,
      dataDir: join(root, 'stack'),
      ports: { prometheus: await freePort(), alertmanager: await freePort(), alertsDaemon: await freePort() },
      scrapeInterval: '2s',
      receivers: { pagerUrl: receiver.url(pagePath), warningUrl: receiver.url(warningPath) },
      pageTiming: { groupWait: '1s', groupInterval: '5s', repeatInterval: '1h' },
      warningTiming: { groupWait: '2s', groupInterval: '5s', repeatInterval: '1h' },
      // The default windows, but metrics polled every 5 s (15 s by default): a read-only page whose controller
      // restarted (and so never logs leaving it) resolves from the polls 15 s after its last record; and read-only
      // held 10 s before it pages (5m by default, as the Prometheus rule), so the stray below pages within the test.
      alertsDaemon: { rules: { metricsPollInterval: '5s', readOnlyFor: '10s' } },
    });
    await stack.start(layout.commands.alertmanager);
    await stack.start(layout.commands.prometheus!);
    await stack.start(layout.commands.alertsDaemon);
  },
  { timeout: 180_000 },
);

test('the stack watches the cluster: Prometheus scrapes every controller, the daemon and Alertmanager with the edgeward rules, and the daemon reads every controller\'s entity changes', { timeout: 120_000 }, async () => {
  const prometheus = layout.urls.prometheus;
  await until(
    'every target up in Prometheus',
    async () => {
      const targets = await prometheusTargets(prometheus);
      const up = (job: string, controller?: string) =>
        targets.some((target) => target.labels['job'] === job && target.labels['cluster'] === clusterName && (controller === undefined || target.labels['controller'] === controller) && target.health === 'up');
      return ids.every((id) => up('edgeward-controller', id)) && up('edgeward-alerts') && up('alertmanager');
    },
    60_000,
  );
  const groups = await until('the edgeward rules evaluated', async () => {
    const loaded = await prometheusRuleGroups(prometheus);
    return loaded.length === 2 && loaded.every((group) => group.rules.every((rule) => rule.health === 'ok')) ? loaded : undefined;
  });
  assert.deepEqual(groups.map((group) => group.name).sort(), ['edgeward.alerts', 'edgeward.recording']);

  // A write: every controller writes its entity change event, and the daemon follows each one's commit lag.
  const leader = await healthyCluster('a leader');
  const created = await leader.http.post(`${leader.managementApi}/identities`, { headers: { 'zt-session': await leader.adminToken() }, body: { name: 'e2e-probe', isAdmin: false } });
  assert.equal(created.status, 201, created.text);
  await until(
    'commit lag for every controller on the daemon\'s /metrics',
    async () => {
      const text = await (await fetch(layout.urls.alertsMetrics)).text();
      return ids.every((id) => text.includes(`edgeward_alerts_commit_lag_entries{controller="${id}"} 0`));
    },
    30_000,
  );
  assert.deepEqual(receiver.alerts(), [], 'a healthy cluster pages and warns nothing');
  assert.deepEqual(receiver.refused, []);
});

test('a planned rolling restart of each controller in turn, waiting for health between them, pages nothing at all', { timeout: 280_000 }, async (t) => {
  const since = Date.now();
  let settledAt = since;
  for (const node of [...nodes]) {
    const stopped = Date.now();
    await node.stop('SIGTERM');
    await node.start();
    const leader = await healthyCluster(`the cluster healthy again after restarting ${node.id}`);
    settledAt = Date.now();
    t.diagnostic(`${node.id} restarted and the cluster healthy again (leader ${leader.id}) in ${seconds(settledAt - stopped)} s`);
  }
  await sleep(settledAt + quietAfterMs - Date.now());
  assert.deepEqual(pagesSince(since), [], `no page; received:\n${receiver.describe(since)}`);
  const inPrometheus = await prometheusAlerts(layout.urls.prometheus);
  assert.deepEqual(
    inPrometheus.filter((alert) => alert.labels['severity'] === 'critical'),
    [],
    'nothing critical pending or firing in Prometheus',
  );
  const held = (await alertmanagerAlerts(layout.urls.alertmanager)).filter((alert) => alert.labels['severity'] === 'critical');
  assert.deepEqual(held, [], 'nothing critical in Alertmanager');
  const warnings = receiver.alerts(warningPath).filter((alert) => alert.at >= since);
  t.diagnostic(
    `checked ${seconds(Date.now() - settledAt)} s after the last restart; warnings received: ${warnings.map((alert) => alert.labels['alertname']).join(', ') || 'none'}; ` +
      `in Prometheus: ${inPrometheus.map((alert) => `${alert.labels['alertname']} ${alert.state}`).join(', ') || 'nothing'}`,
  );
});

test('a peer flapped through a TCP proxy raises EdgewardPeerFlapping as a warning and pages nothing', { timeout: 240_000 }, async (t) => {
  const since = Date.now();
  const leader = await healthyCluster('a leader before the flapping');
  // A follower flaps: the leader keeps its quorum with the third controller.
  const flapped = nodes.find((node) => node !== leader)!;
  const leaderLog = new LogWatch(leader.logFile);
  const mark = leaderLog.mark();
  const peerLines = (msg: string) => leaderLog.since(mark).filter((record) => record['msg'] === msg && record['peerId'] === flapped.id).length;

  // Three cuts of a second each, the channel back up between them: the flapping window's default count.
  let thirdCutAt = 0;
  let lastHealAt = 0;
  for (let cut = 1; cut <= 3; cut++) {
    isolate(flapped);
    await until(`${leader.id} to log ${flapped.id} disconnected (cut ${cut})`, () => peerLines('peer disconnected') >= cut || undefined, 15_000);
    thirdCutAt = Date.now();
    await sleep(1000);
    reconnect(flapped);
    lastHealAt = Date.now();
    await until(`${leader.id} to log ${flapped.id} connected again (cut ${cut})`, () => peerLines('peer connected') >= cut || undefined, 30_000);
  }
  t.diagnostic(`${flapped.id} flapped ${peerLines('peer disconnected')} times as the leader ${leader.id} saw it`);

  const warning = await receiver.waitFor(
    'EdgewardPeerFlapping warning',
    (r) => r.alerts(warningPath).find((alert) => alert.at >= since && named('EdgewardPeerFlapping')(alert) && alert.status === 'firing' && alert.labels['controller'] === leader.id),
    60_000,
  );
  assert.equal(warning.receiver, 'edgeward-warnings');
  assert.deepEqual(
    { ...warning.labels },
    { alertname: 'EdgewardPeerFlapping', cluster: clusterName, controller: leader.id, peer_id: flapped.id, severity: 'warning' },
  );
  t.diagnostic(`warning received ${seconds(warning.at - thirdCutAt)} s after the third disconnect`);

  await sleep(lastHealAt + quietAfterMs - Date.now());
  assert.deepEqual(pagesSince(since), [], `no page; received:\n${receiver.describe(since)}`);
  // Prometheus' rule sees the same flapping in the controllers' metrics, with the same labels.
  const fromRules = (await prometheusAlerts(layout.urls.prometheus)).filter((alert) => alert.labels['alertname'] === 'EdgewardPeerFlapping' && alert.state === 'firing');
  assert.ok(
    fromRules.some((alert) => alert.labels['controller'] === leader.id && alert.labels['peer_id'] === flapped.id && alert.labels['severity'] === 'warning'),
    `Prometheus fires EdgewardPeerFlapping for ${leader.id}/${flapped.id}: ${JSON.stringify(fromRules)}`,
  );
});

test('a controller restarted as another version pages read-only, and the page resolves when it runs the cluster\'s version again', { timeout: 240_000 }, async (t) => {
  const since = Date.now();
  const leader = await healthyCluster('a leader before the upgrade');
  const stray = nodes.find((node) => node !== leader)!;
  await stray.stop('SIGTERM');
  const strayStartedAt = Date.now();
  await stray.start({ EDGEWARD_VERSION: 'v0.0.0-e2e-stray' });
  const page = await receiver.waitFor(
    'the read-only page',
    (r) => r.alerts(pagePath).find((alert) => alert.at >= since && named('EdgewardClusterReadOnly')(alert) && alert.status === 'firing'),
    60_000,
  );
  assert.equal(page.receiver, 'edgeward-pager');
  assert.equal(page.labels['severity'], 'critical');
  assert.equal(page.labels['cluster'], clusterName);
  t.diagnostic(`read-only page ${seconds(page.at - strayStartedAt)} s after ${stray.id} started as another version (for ${page.labels['controller']})`);

  await stray.stop('SIGTERM');
  const matchedAt = Date.now();
  await stray.start();
  await receiver.waitFor('every read-only page resolved', (r) => (allResolved(r.alerts(pagePath).filter((alert) => alert.at >= since && named('EdgewardClusterReadOnly')(alert))) ? true : undefined), 90_000);
  const resolvedAt = Date.now();
  t.diagnostic(`every read-only page resolved ${seconds(resolvedAt - matchedAt)} s after ${stray.id} went back to the cluster's version`);
  assert.deepEqual(
    [...new Set(pagesSince(since).map((alert) => alert.labels['alertname']))],
    ['EdgewardClusterReadOnly'],
    `only read-only paged; received:\n${receiver.describe(since)}`,
  );
  await healthyCluster('the cluster healthy after the versions match again');
});

test('two of three controllers frozen with SIGSTOP page within the leaderless threshold plus 30 s, and the page resolves after SIGCONT', { timeout: 240_000 }, async (t) => {
  const leader = await healthyCluster('a leader before the freeze');
  const [follower, survivor] = nodes.filter((node) => node !== leader) as [ControllerFixture, ControllerFixture];
  const frozenAt = Date.now();
  for (const node of [leader, follower]) {
    process.kill(node.child!.pid!, 'SIGSTOP');
    frozen.add(node.child!.pid!);
  }
  const page = await receiver.waitFor(
    'a page after the freeze',
    (r) => r.alerts(pagePath).find((alert) => alert.at >= frozenAt && alert.status === 'firing'),
    warnWhenLeaderlessForMs + 30_000,
  );
  assert.equal(page.receiver, 'edgeward-pager');
  assert.deepEqual({ ...page.labels }, { alertname: 'EdgewardClusterLeaderless', cluster: clusterName, controller: survivor.id, severity: 'critical' });
  t.diagnostic(`${page.labels['alertname']} paged ${seconds(page.at - frozenAt)} s after ${leader.id} and ${follower.id} were frozen`);

  for (const node of [leader, follower]) {
    process.kill(node.child!.pid!, 'SIGCONT');
    frozen.delete(node.child!.pid!);
  }
  const thawedAt = Date.now();
  await receiver.waitFor('every page since the freeze resolved', () => (allResolved(pagesSince(frozenAt)) ? true : undefined), 120_000);
  t.diagnostic(`every page resolved ${seconds(Date.now() - thawedAt)} s after SIGCONT; pages: ${[...new Set(pagesSince(frozenAt).map((alert) => alert.labels['alertname']))].join(', ')}`);
  await healthyCluster('the cluster healthy after the thaw');
});

// No one can page the on-call with a crafted string. A real two-controller cluster writes its log; the real alerts
// daemon (`./edgeward alerts run`) tails ctrl1's log file; Debian's Alertmanager routes with the generated config to
// a webhook receiver this test runs (pages on /pager, warnings on /warnings). Then:
// - a control-port connection with a client certificate of the network's CA whose first frame's `type` is the
//   leaderless line's text, another whose type is "entering read-only mode", and an unauthenticated ext-jwt login
//   whose token header says `alg: "ClusterHasNoLeaderError"` are each refused and logged by the controller (the
//   texts are in its log, in fields), and raise nothing: the daemon matched no rule, Alertmanager holds no alert,
//   the receiver got nothing;
// - the control: ctrl2 stops, ctrl1 loses its leader and, after warnWhenLeaderlessFor, writes the real leaderless
//   line, which pages (its description quotes the rule's text); a write refused for want of a leader raises its
//   warning in Alertmanager.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connect } from 'node:tls';
import { encodeJsonFrame } from '../common/framing/frame-codec.ts';
import { base64url } from '../server/auth/ext-jwt/test-signing-keys.ts';
import { layOutObservabilityStack, type ObservabilityStack } from '../server/demo/observability-stack.ts';
import { createClientCertificate } from '../common/pki/client-certificate.ts';
import { initPki, loadIssuer, pkiPaths } from '../common/pki/pki-directory.ts';
import { agent, memberList, until } from './support/cluster-helpers.ts';
import { adminCredentials, ControllerFixture } from './support/controller-fixture.ts';
import { freePort } from './support/free-port.ts';
import { LogWatch } from './support/log-watch.ts';
import { alertmanagerAlerts } from './support/prometheus-api.ts';
import { parseExposition } from './support/prometheus-text.ts';
import { StackProcesses } from './support/stack-processes.ts';
import { WebhookReceiver } from './support/webhook-receiver.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-alerting-crafted-'));
const pkiDir = join(root, 'pki');
const clusterName = 'crafted';
const leaderlessText = 'cluster running without leader for longer than configured threshold';
const readOnlyText = 'entering read-only mode';
const pagePath = '/pager';
const warningPath = '/warnings';

const receiver = new WebhookReceiver();
const stack = new StackProcesses();
const nodes: ControllerFixture[] = [];
let ctrl1: ControllerFixture;
let ctrl2: ControllerFixture;
let layout: ObservabilityStack;

after(async () => {
  await stack.stopAll();
  await Promise.all(nodes.map((node) => node.dispose()));
  await receiver.stop();
  rmSync(root, { recursive: true, force: true });
});

/** The leaderless warning at its minimum, so the control needs seconds, not a minute. */
const quickLeaderless = (yaml: string) => {
  const next = yaml.replace('warnWhenLeaderlessFor: 1m', 'warnWhenLeaderlessFor: 10s');
  assert.notEqual(next, yaml, 'the controller config has warnWhenLeaderlessFor');
  return next;
};

/** A sample of the daemon's /metrics (0 when it has none). */
async function daemonMetric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const families = parseExposition(await (await fetch(layout.urls.alertsMetrics)).text());
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)) return sample.value;
    }
  }
  return 0;
}

/** Complete lines in ctrl1's log now: the daemon reads it from its start, so once it has read this many it has
 * handled every one of them. */
const ctrl1Lines = () => readFileSync(ctrl1.logFile, 'utf8').split('\n').length - 1;

/** A TLS connection to ctrl1's control port with a client certificate of the network's CA (any name: not a router
 * the controller knows) whose first frame is `frame`; resolves once the controller has closed it. */
async function firstFrame(frame: object): Promise<void> {
  const client = await createClientCertificate(await loadIssuer(pkiDir), { commonName: 'any-client' });
  const port = Number(ctrl1.ctrlAddress.split(':').pop());
  const socket = connect({ host: '127.0.0.1', port, cert: client.chainPem, key: client.keyPem, ca: readFileSync(pkiPaths(pkiDir).bundle), checkServerIdentity: () => undefined });
  socket.on('error', () => undefined);
  socket.resume();
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(encodeJsonFrame(JSON.stringify(frame)));
  const timer = setTimeout(() => socket.destroy(), 10_000);
  await closed;
  clearTimeout(timer);
}

before(
  async () => {
    await initPki(pkiDir, { trustDomain: 'edgeward.test' });
    ctrl1 = await ControllerFixture.create({ pkiDir, id: 'ctrl1', editConfig: quickLeaderless });
    nodes.push(ctrl1);
    ctrl2 = await ControllerFixture.create({ pkiDir, id: 'ctrl2', initAdmin: false, editConfig: quickLeaderless });
    nodes.push(ctrl2);
    await agent(ctrl1, 'cluster.add', { address: ctrl2.ctrlAddress, voter: true });
    await until('two connected voters', async () => (await memberList(ctrl1)).filter((row) => row.voter && row.connected).length === 2);

    await receiver.start();
    layout = layOutObservabilityStack({
      cluster: clusterName,
      // ctrl1's log only: no events file (the page below can only come from the log line), no scrape, no polls.
      controllers: [{ id: 'ctrl1', logFile: ctrl1.logFile, eventsFile: join(root, 'no-events', 'events.jsonl') }],
      dataDir: join(root, 'stack'),
      ports: { prometheus: await freePort(), alertmanager: await freePort(), alertsDaemon: await freePort() },
      receivers: { pagerUrl: receiver.url(pagePath), warningUrl: receiver.url(warningPath) },
      pageTiming: { groupWait: '1s', groupInterval: '5s', repeatInterval: '1h' },
      warningTiming: { groupWait: '1s', groupInterval: '5s', repeatInterval: '1h' },
      // From the start: every line the controller wrote is read, its start-up included.
      // Read-only at once (rules.readOnlyFor 0s), so a crafted line that matched would page within the test.
      alertsDaemon: { files: { initialPosition: 'start' }, alertmanager: { retryInitialBackoff: '100ms' }, rules: { readOnlyFor: '0s' } },
    });
    assert.equal(layout.commands.prometheus, undefined, 'nothing to scrape');
    await stack.start(layout.commands.alertmanager);
    await stack.start(layout.commands.alertsDaemon);
  },
  { timeout: 180_000 },
);

test('a crafted first frame type and a crafted ext-jwt alg reach the log and raise nothing in Alertmanager', { timeout: 120_000 }, async () => {
  const watch = new LogWatch(ctrl1.logFile);
  const mark = watch.mark();

  await firstFrame({ type: leaderlessText });
  await firstFrame({ type: readOnlyText });
  const header = base64url({ alg: 'ClusterHasNoLeaderError', typ: 'JWT' });
  const token = `${header}.${base64url({ sub: 'someone', iss: 'https://issuer.example', exp: Math.floor(Date.now() / 1000) + 600 })}.c2lnbmF0dXJl`;
  const login = await ctrl1.http.post(`${ctrl1.clientApi}/authenticate?method=ext-jwt`, { headers: { authorization: `Bearer ${token}` }, rawBody: '' });
  assert.equal(login.status, 401, login.text);

  // The controller logged each, with the crafted text in a field (escaped), never in msg.
  const refusals = await until('both refusals in the log', () => {
    const lines = watch.since(mark).filter((line) => line.msg === 'router connection refused');
    return lines.length >= 2 && lines;
  }, 10_000);
  assert.deepEqual(
    refusals.map((line) => [line.component, line.certificate, line.reason]),
    [
      ['routers', 'any-client', `expected router.hello as the first frame, got ${JSON.stringify(leaderlessText)}`],
      ['routers', 'any-client', `expected router.hello as the first frame, got ${JSON.stringify(readOnlyText)}`],
    ],
  );
  const extJwt = await watch.waitFor(mark, (line) => line.msg === 'ext-jwt authentication failed');
  assert.equal(extJwt.component, 'auth');
  assert.match(String(extJwt.detail), /ClusterHasNoLeaderError/);
  const crafted = [leaderlessText, readOnlyText, 'ClusterHasNoLeaderError'];
  for (const text of crafted) assert.ok(readFileSync(ctrl1.logFile, 'utf8').includes(text), `the log holds "${text}"`);
  assert.deepEqual(watch.since(mark).filter((line) => crafted.some((text) => String(line.msg).includes(text))), [], 'no msg quotes them');

  // The daemon has read every line the controller wrote, including these; it matched none of the rules they mimic.
  const written = ctrl1Lines();
  await until(`the daemon to have read ${written} lines`, async () => (await daemonMetric('edgeward_alerts_lines_read_total', { file_kind: 'log' })) >= written, 20_000);
  for (const rule of ['leaderless-log', 'read-only-entered-log', 'writes-refused-no-leader']) {
    assert.equal(await daemonMetric('edgeward_alerts_rule_matches_total', { rule }), 0, `${rule} matched`);
  }
  // While the controller's own line when ctrl2 joined did match its rule (it alerts on nothing by itself).
  assert.ok((await daemonMetric('edgeward_alerts_rule_matches_total', { rule: 'peer-connected-log' })) >= 1, 'the real peer connected line matched');
  // Long enough for a delivery and Alertmanager's 1 s group wait, had anything fired.
  await new Promise((resolve) => setTimeout(resolve, 4000));
  assert.equal(await daemonMetric('edgeward_alerts_delivery_queue'), 0);
  assert.deepEqual((await alertmanagerAlerts(layout.urls.alertmanager)).map((alert) => alert.labels), [], 'Alertmanager holds no alert');
  assert.deepEqual(receiver.notifications, [], 'no page, no warning');
});

test('the control: the real leaderless line pages, and a write refused for want of a leader warns', { timeout: 120_000 }, async () => {
  const stoppedAt = Date.now();
  await ctrl2.stop();
  const page = await receiver.waitFor(
    'the leaderless page for ctrl1',
    (r) => r.alerts(pagePath).find((alert) => alert.status === 'firing' && alert.labels['alertname'] === 'EdgewardClusterLeaderless' && alert.labels['controller'] === 'ctrl1'),
    60_000,
  );
  assert.ok(page.at - stoppedAt >= 10_000, `paged ${page.at - stoppedAt} ms after ctrl2 stopped (warnWhenLeaderlessFor 10s)`);
  assert.equal(page.labels['severity'], 'critical');
  // What the daemon saw, in the rule's words, then the catalogue's.
  assert.ok(page.annotations['description']!.startsWith(`Cluster ${clusterName}: ctrl1: log line "${leaderlessText}". `), page.annotations['description']);
  const line = JSON.parse(readFileSync(ctrl1.logFile, 'utf8').split('\n').find((text) => text.includes(`"msg":"${leaderlessText}"`))!);
  assert.equal(line.component, 'cluster');
  assert.ok((await daemonMetric('edgeward_alerts_rule_matches_total', { rule: 'peer-disconnected-log' })) >= 1, 'the real peer disconnected line matched');

  // A login (it writes an API session) through ctrl1 now: 503 CLUSTER_NO_LEADER, and its `request refused` line warns.
  const login = await ctrl1.http.post(`${ctrl1.managementApi}/authenticate?method=password`, { body: adminCredentials });
  assert.equal(login.status, 503, login.text);
  assert.equal(login.json.error.code, 'CLUSTER_NO_LEADER');
  // Alertmanager holds it (inhibited while the leaderless page fires, as the generated routing says).
  const warning = await until('the writes-refused warning for ctrl1 in Alertmanager', async () =>
    (await alertmanagerAlerts(layout.urls.alertmanager)).find((alert) => alert.labels['alertname'] === 'EdgewardWritesRefusedNoLeader' && alert.labels['controller'] === 'ctrl1'),
  30_000);
  assert.equal(warning.labels['severity'], 'warning');
  assert.ok((await daemonMetric('edgeward_alerts_rule_matches_total', { rule: 'writes-refused-no-leader' })) >= 1, 'the refused login matched');
  assert.equal(await daemonMetric('edgeward_alerts_rule_matches_total', { rule: 'read-only-entered-log' }), 0, 'the crafted read-only text never matched');
  assert.deepEqual(receiver.refused, []);
});

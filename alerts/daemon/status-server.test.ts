import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { systemClock } from '../../common/time/clock.ts';
import { FakeAlertmanager } from '../../test/support/fake-alertmanager.ts';
import { freePort } from '../../test/support/free-port.ts';
import { alertDefinition } from '../catalogue/alert-catalogue.ts';
import { parseAlertsConfig } from '../config/alerts-config.ts';
import { startAlertsDaemon } from './alerts-daemon.ts';
import { daemonStatus } from './daemon-status.ts';
import type { DaemonMetrics } from './daemon-metrics.ts';
import { startStatusServer } from './status-server.ts';
import type { DaemonStatus } from './daemon-status.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-alerts-status-'));
const cleanups: (() => Promise<void> | void)[] = [() => rmSync(root, { recursive: true, force: true })];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test('GET /api/v1/status: the firing page with its runbook link, commit lag and each controller\'s last health poll', { timeout: 60_000 }, async () => {
  const am = new FakeAlertmanager();
  await am.start();
  cleanups.push(() => am.stop());
  // ctrl1 answers 429 as a follower does; nothing listens on ctrl2's port: no controller is a healthy leader.
  const follower = createServer((_req, res) => res.writeHead(429, { 'content-type': 'application/json' }).end('{"data":{"healthy":true,"checks":[]},"raft":{"isRaftEnabled":true,"isLeader":false}}'));
  await new Promise<void>((resolve) => follower.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(() => new Promise<void>((resolve) => follower.close(() => resolve())));
  const followerUrl = `http://127.0.0.1:${(follower.address() as { port: number }).port}/health-checks/controller/raft`;
  const deadUrl = `http://127.0.0.1:${await freePort()}/health-checks/controller/raft`;

  const events1 = join(root, 'ctrl1-events.jsonl');
  const events2 = join(root, 'ctrl2-events.jsonl');
  for (const file of [events1, events2]) writeFileSync(file, '');
  const text = [
    'cluster: status',
    'controllers:',
    '  - id: ctrl1',
    `    eventsFile: ${events1}`,
    `    healthUrl: ${followerUrl}`,
    '  - id: ctrl2',
    `    eventsFile: ${events2}`,
    `    healthUrl: ${deadUrl}`,
    'alertmanager:',
    `  urls: [${am.url}]`,
    `stateDir: ${join(root, 'state')}`,
    'listen: 127.0.0.1:0',
    'runbookBaseUrl: https://runbooks.example/edgeward.md',
    'files:',
    '  initialPosition: start # the lines below may be written before the daemon first looks at the files',
    'rules:',
    '  noHealthyFor: 1s',
    '  healthPollInterval: 100ms',
    '  healthPollTimeout: 100ms',
  ].join('\n');
  const { config, problems } = parseAlertsConfig(text, { file: join(root, 'alerts.yml'), env: {} });
  assert.deepEqual(problems, []);
  const daemon = await startAlertsDaemon(config!, { clock: systemClock, logger: createMemoryLogger() });
  cleanups.push(() => daemon.stop());
  const url = `http://${daemon.address.host}:${daemon.address.port}/api/v1/status`;

  appendFileSync(events1, `${JSON.stringify({ namespace: 'entityChange', timestamp: new Date().toISOString(), raftIndex: 12 })}\n`);
  appendFileSync(events2, `${JSON.stringify({ namespace: 'entityChange', timestamp: new Date().toISOString(), raftIndex: 9 })}\n`);

  let status: DaemonStatus | undefined;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const response = await fetch(url);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    status = (await response.json()) as DaemonStatus;
    const lagSeen = status.commitLag.find((lag) => lag.controller === 'ctrl2')?.entries === 3;
    if (status.alerts.length > 0 && lagSeen) break;
    assert.ok(Date.now() < deadline, `the page and the lag within 15 s; last status: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  assert.equal(status.cluster, 'status');
  assert.ok(Math.abs(Date.parse(status.generatedAt) - Date.now()) < 5000);
  const page = status.alerts.find((alert) => alert.alertname === 'EdgewardNoControllerHealthy');
  assert.ok(page, JSON.stringify(status.alerts));
  assert.equal(page.severity, 'critical');
  assert.deepEqual(page.labels, { alertname: 'EdgewardNoControllerHealthy', severity: 'critical', cluster: 'status', controller: 'all' });
  assert.equal(page.annotations.summary, alertDefinition('EdgewardNoControllerHealthy').summary);
  assert.match(page.annotations.description, /^Cluster status: /);
  assert.equal(page.annotations.runbook_url, 'https://runbooks.example/edgeward.md#edgewardnocontrollerhealthy');
  assert.ok(Date.parse(page.startsAt) <= Date.now());

  const lags = Object.fromEntries(status.commitLag.map((lag) => [lag.controller, lag]));
  assert.equal(lags.ctrl1?.entries, 0);
  assert.equal(lags.ctrl1?.seconds, 0);
  assert.equal(lags.ctrl2?.entries, 3);
  assert.ok((lags.ctrl2?.seconds ?? -1) >= 0);

  const controllers = Object.fromEntries(status.controllers.map((controller) => [controller.id, controller]));
  assert.deepEqual({ ...controllers.ctrl1, checkedAt: typeof controllers.ctrl1?.checkedAt }, { id: 'ctrl1', reachable: true, raftHealthOk: false, healthStatus: 429, checkedAt: 'string' });
  assert.deepEqual({ ...controllers.ctrl2, checkedAt: typeof controllers.ctrl2?.checkedAt }, { id: 'ctrl2', reachable: false, raftHealthOk: false, healthStatus: 'unreachable', checkedAt: 'string' });

  // The other paths still answer, and an unknown one names the three.
  assert.equal((await fetch(`http://${daemon.address.host}:${daemon.address.port}/health`)).status, 200);
  const missing = await fetch(`http://${daemon.address.host}:${daemon.address.port}/api/v1/nothing`);
  assert.equal(missing.status, 404);
  assert.match(await missing.text(), /\/api\/v1\/status/);
});

test('the status lists pages before warnings, oldest first, and controllers never polled as unknown', () => {
  const status = daemonStatus(
    { cluster: 'c', runbookBaseUrl: 'docs/runbooks.md', controllers: [{ id: 'ctrl1', preferredLeader: false }, { id: 'ctrl2', preferredLeader: false }] },
    [
      { alert: 'EdgewardPeerFlapping', labels: { controller: 'ctrl1', peer_id: 'ctrl2' }, startsAt: 1000, detail: 'ctrl2 flapped.', value: 3 },
      { alert: 'EdgewardClusterLeaderless', labels: { controller: 'ctrl2' }, startsAt: 3000, detail: 'no leader.' },
      { alert: 'EdgewardQuorumLost', labels: { controller: 'all' }, startsAt: 2000, detail: 'one of three.', value: Number.NaN },
    ],
    { ctrl1: { seconds: 0 } },
    { ctrl1: { status: 503, at: 5000 } },
    10_000,
  );
  assert.deepEqual(status.alerts.map((alert) => [alert.alertname, alert.severity]), [
    ['EdgewardQuorumLost', 'critical'],
    ['EdgewardClusterLeaderless', 'critical'],
    ['EdgewardPeerFlapping', 'warning'],
  ]);
  assert.equal(status.alerts[0]!.value, undefined, 'a value that is not a finite number is left out (JSON has no NaN)');
  assert.equal(status.alerts[2]!.value, 3);
  assert.equal(status.alerts[2]!.annotations.runbook_url, 'docs/runbooks.md#edgewardpeerflapping');
  assert.equal(status.alerts[2]!.labels.peer_id, 'ctrl2');
  assert.deepEqual(status.commitLag, [{ controller: 'ctrl1', entries: null, seconds: 0 }]);
  assert.deepEqual(status.controllers, [
    { id: 'ctrl1', reachable: false, raftHealthOk: false, healthStatus: 503, checkedAt: new Date(5000).toISOString() },
    { id: 'ctrl2', reachable: null, raftHealthOk: null, healthStatus: null, checkedAt: null },
  ]);
  assert.equal(status.generatedAt, new Date(10_000).toISOString());
});

/** GET with the Host header the test chooses (fetch always sends the URL's own). */
function getWithHost(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    });
    req.on('error', reject);
    req.end();
  });
}

test('on loopback the status API answers 421 to a Host that is not its own (DNS rebinding), and serves its own names', async () => {
  const metrics = { contentType: 'text/plain', exposition: async () => 'edgeward_alerts_up 1\n' } as unknown as DaemonMetrics;
  const status = () => daemonStatus({ cluster: 'c', runbookBaseUrl: 'docs/runbooks.md', controllers: [] }, [], {}, {}, 0);
  const server = await startStatusServer({ host: '127.0.0.1', port: 0 }, metrics, () => ({}), status);
  cleanups.push(() => server.close());
  const port = server.address.port;
  for (const path of ['/api/v1/status', '/metrics', '/health']) {
    for (const host of ['rebound.attacker.example', `rebound.attacker.example:${port}`, `127.0.0.1:${port + 1}`]) {
      assert.equal(await getWithHost(port, path, host), 421, `${path} with Host ${host}`);
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) assert.equal(await getWithHost(port, path, host), 200, `${path} with Host ${host}`);
  }
});

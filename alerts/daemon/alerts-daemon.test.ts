import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { systemClock } from '../../common/time/clock.ts';
import { FakeAlertmanager } from '../../test/support/fake-alertmanager.ts';
import { parseAlertsConfig } from '../config/alerts-config.ts';
import { startAlertsDaemon } from './alerts-daemon.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-alerts-inproc-'));
const cleanups: (() => Promise<void> | void)[] = [() => rmSync(root, { recursive: true, force: true })];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function get(url: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url);
  return { status: response.status, text: await response.text() };
}

test('the daemon in one process: a follower-only cluster pages, bad lines are counted and skipped, commit lag is exported', { timeout: 60_000 }, async () => {
  const am = new FakeAlertmanager();
  await am.start();
  cleanups.push(() => am.stop());
  // Both controllers answer 429, as followers do: no leader anywhere.
  const controllers = createServer((_req, res) => res.writeHead(429, { 'content-type': 'application/json' }).end('{"data":{"raft":{"isRaftEnabled":true,"isLeader":false}}}'));
  await new Promise<void>((resolve) => controllers.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(() => new Promise<void>((resolve) => controllers.close(() => resolve())));
  const health = `http://127.0.0.1:${(controllers.address() as { port: number }).port}/health-checks/controller/raft`;

  const log = join(root, 'ctrl1.log');
  const events1 = join(root, 'ctrl1-events.jsonl');
  const events2 = join(root, 'ctrl2-events.jsonl');
  for (const file of [log, events1, events2]) writeFileSync(file, '');
  const text = [
    'cluster: inproc',
    'controllers:',
    '  - id: ctrl1',
    `    logFile: ${log}`,
    `    eventsFile: ${events1}`,
    `    healthUrl: ${health}`,
    '  - id: ctrl2',
    `    eventsFile: ${events2}`,
    `    healthUrl: ${health}`,
    'alertmanager:',
    `  urls: [${am.url}]`,
    `stateDir: ${join(root, 'state')}`,
    'listen: 127.0.0.1:0',
    'files:',
    '  maxLineBytes: 4096',
    'rules:',
    '  noHealthyFor: 1s',
    '  healthPollInterval: 100ms',
    '  healthPollTimeout: 100ms',
  ].join('\n');
  const { config, problems } = parseAlertsConfig(text, { file: join(root, 'alerts.yml'), env: {} });
  assert.deepEqual(problems, []);
  const logger = createMemoryLogger();
  const daemon = await startAlertsDaemon(config!, { clock: systemClock, logger });
  cleanups.push(() => daemon.stop());
  const base = `http://${daemon.address.host}:${daemon.address.port}`;

  await am.waitFor((posts) => posts.some((post) => post.alerts.some((alert) => alert.labels.alertname === 'EdgewardNoControllerHealthy')), 10_000, 'the no-healthy page');
  const page = am.accepted.find((alert) => alert.labels.alertname === 'EdgewardNoControllerHealthy')!;
  assert.deepEqual(page.labels, { alertname: 'EdgewardNoControllerHealthy', severity: 'critical', cluster: 'inproc', controller: 'all' });

  appendFileSync(log, '{"msg":"peer disconnected" and then garbage\n');
  appendFileSync(log, `{"msg":"raft node stopped after a failure","pad":"${'x'.repeat(10_000)}"}\n`);
  appendFileSync(log, '{"level":"warn","msg":"peer TLS handshake failed: tls: error decrypting message","component":"peers","controllerId":"ctrl1"}\n');
  appendFileSync(events1, `${JSON.stringify({ namespace: 'entityChange', timestamp: new Date().toISOString(), raftIndex: 10 })}\n`);
  appendFileSync(events2, `${JSON.stringify({ namespace: 'entityChange', timestamp: new Date().toISOString(), raftIndex: 7 })}\nnot json\n`);
  await am.waitFor((posts) => posts.some((post) => post.alerts.some((alert) => alert.labels.alertname === 'EdgewardPeerTlsFailure')), 10_000, 'the TLS warning');
  assert.equal(am.accepted.filter((alert) => alert.labels.alertname === 'EdgewardRaftNodeFailed').length, 0, 'the oversized line is skipped, not matched');

  // The commit lag gauges are set on the tick.
  const deadline = Date.now() + 5000;
  let exposition = '';
  while (!exposition.includes('edgeward_alerts_commit_lag_entries{controller="ctrl2"} 3')) {
    assert.ok(Date.now() < deadline, `no commit lag in\n${exposition}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    exposition = (await get(`${base}/metrics`)).text;
  }
  assert.match(exposition, /^edgeward_alerts_records_skipped_total\{file_kind="log",reason="not-json"\} 1$/m);
  assert.match(exposition, /^edgeward_alerts_records_skipped_total\{file_kind="log",reason="oversized"\} 1$/m);
  assert.match(exposition, /^edgeward_alerts_lines_read_total\{file_kind="log"\} 3$/m);
  assert.match(exposition, /^edgeward_alerts_lines_read_total\{file_kind="events"\} 3$/m);
  assert.match(exposition, /^edgeward_alerts_rule_matches_total\{rule="peer-tls-failure"\} 1$/m);
  assert.match(exposition, /^edgeward_alerts_commit_lag_entries\{controller="ctrl1"\} 0$/m);
  assert.match(exposition, /^edgeward_alerts_controller_reachable\{controller="ctrl1"\} 1$/m);
  assert.match(exposition, /^edgeward_alerts_controller_raft_health_ok\{controller="ctrl1"\} 0$/m);
  assert.match(exposition, /^edgeward_alerts_firing\{alertname="EdgewardNoControllerHealthy",severity="critical"\} 1$/m);

  const healthAnswer = await get(`${base}/health`);
  assert.equal(healthAnswer.status, 200);
  assert.equal(JSON.parse(healthAnswer.text).status, 'ok');
  assert.equal((await get(`${base}/nothing`)).status, 404);

  await daemon.stop();
  assert.ok(existsSync(join(root, 'state', 'alerts-state.json')));
  assert.ok(logger.lines.some((line) => line.msg === 'alerts daemon stopped'));
});

// The generated routing in a real Alertmanager (Debian's prometheus-alertmanager, clustering off) with the local
// pager receiver behind both receivers: pages arrive within seconds, a cluster without a leader holds back the
// warnings that follow from it, alerts are grouped per cluster, and resolutions are sent.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { LogWatch } from '../../test/support/log-watch.ts';
import { startAlertmanager, type AlertmanagerProcess } from '../../test/support/prometheus-tools.ts';
import { startPagerServer, type PagerServer } from '../pager/pager-server.ts';
import { alertmanagerConfig, receiverNames, type AlertmanagerConfigOptions } from './alertmanager-config.ts';

interface ApiAlert {
  readonly fingerprint: string;
  readonly labels: Record<string, string>;
  readonly status: { readonly state: string; readonly inhibitedBy: string[] };
}

const dir = mkdtempSync(join(tmpdir(), 'edgeward-alertmanager-live-'));
const configFile = join(dir, 'alertmanager.yml');
const pagerLog = new LogWatch(join(dir, 'pager.jsonl'));
let pager: PagerServer;
let alertmanager: AlertmanagerProcess;

function receivers(port: number): AlertmanagerConfigOptions {
  return { pager: { kind: 'webhook', url: `http://127.0.0.1:${port}/pager` }, warningUrl: `http://127.0.0.1:${port}/warnings` };
}

before(async () => {
  pager = await startPagerServer({ host: '127.0.0.1', port: 0, logFile: join(dir, 'pager.jsonl') });
  writeFileSync(configFile, alertmanagerConfig(receivers(pager.port)));
  alertmanager = await startAlertmanager(configFile);
});

after(async () => {
  await alertmanager?.stop();
  await pager?.close();
  rmSync(dir, { recursive: true, force: true });
});

const quorumLost = { alertname: 'EdgewardQuorumLost', severity: 'critical', cluster: 'demo', controller: 'all' };
const flappingDemo = { alertname: 'EdgewardPeerFlapping', severity: 'warning', cluster: 'demo', controller: 'ctrl1', peer_id: 'ctrl2' };
const flappingOther = { alertname: 'EdgewardPeerFlapping', severity: 'warning', cluster: 'other', controller: 'ctrl1', peer_id: 'ctrl2' };
const queueDemo = { alertname: 'EdgewardRateLimiterQueueSustained', severity: 'warning', cluster: 'demo', controller: 'ctrl1' };

async function postAlerts(alerts: readonly { labels: Record<string, string>; endsAt?: string }[]): Promise<void> {
  const body = alerts.map((alert) => ({
    labels: alert.labels,
    annotations: { summary: `${alert.labels['alertname']} in a test`, runbook_url: `docs/runbooks.md#${alert.labels['alertname']!.toLowerCase()}` },
    startsAt: new Date(Date.now() - 60_000).toISOString(),
    ...(alert.endsAt ? { endsAt: alert.endsAt } : {}),
  }));
  const response = await fetch(`${alertmanager.url}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(response.status, 200, await response.text());
}

async function apiAlerts(): Promise<ApiAlert[]> {
  const response = await fetch(`${alertmanager.url}/api/v2/alerts`);
  assert.equal(response.status, 200);
  return (await response.json()) as ApiAlert[];
}

const same = (labels: Record<string, string>) => (alert: ApiAlert) => JSON.stringify(alert.labels) === JSON.stringify(Object.fromEntries(Object.entries(labels).sort()));

test('a page reaches the pager receiver within 15 seconds of Alertmanager receiving it', async () => {
  const mark = pagerLog.mark();
  const sent = Date.now();
  await postAlerts([{ labels: quorumLost }]);
  const line = await pagerLog.waitFor(mark, (record) => record['alertname'] === 'EdgewardQuorumLost' && record['status'] === 'firing', 15_000);
  assert.ok(Date.now() - sent < 15_000);
  assert.equal(line['receiver'], receiverNames.pager);
  assert.equal(line['severity'], 'critical');
  assert.equal(line['cluster'], 'demo');
  assert.equal(line['controller'], 'all');
});

test('lost quorum holds back the peer flapping warning of its own cluster, not of another cluster nor other warnings', async () => {
  await postAlerts([{ labels: flappingDemo }, { labels: flappingOther }, { labels: queueDemo }]);
  const deadline = Date.now() + 15_000;
  let alerts = await apiAlerts();
  while (!alerts.some((alert) => same(flappingDemo)(alert) && alert.status.state === 'suppressed') && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    alerts = await apiAlerts();
  }
  const source = alerts.find(same(quorumLost))!;
  const inhibited = alerts.find(same(flappingDemo))!;
  assert.equal(inhibited.status.state, 'suppressed', JSON.stringify(alerts, null, 1));
  assert.deepEqual(inhibited.status.inhibitedBy, [source.fingerprint]);
  assert.equal(alerts.find(same(flappingOther))!.status.state, 'active');
  assert.equal(alerts.find(same(queueDemo))!.status.state, 'active');
  assert.equal(source.status.state, 'active');
});

test('alerts are grouped per cluster and alert name', async () => {
  const response = await fetch(`${alertmanager.url}/api/v2/alerts/groups`);
  const groups = (await response.json()) as { labels: Record<string, string>; receiver: { name: string }; alerts: ApiAlert[] }[];
  const summary = groups.map((group) => `${group.labels['cluster']}/${group.labels['alertname']} -> ${group.receiver.name} (${group.alerts.length})`).sort();
  assert.deepEqual(summary, [
    `demo/EdgewardPeerFlapping -> ${receiverNames.warnings} (1)`,
    `demo/EdgewardQuorumLost -> ${receiverNames.pager} (1)`,
    `demo/EdgewardRateLimiterQueueSustained -> ${receiverNames.warnings} (1)`,
    `other/EdgewardPeerFlapping -> ${receiverNames.warnings} (1)`,
  ]);
  for (const group of groups) assert.deepEqual(Object.keys(group.labels).sort(), ['alertname', 'cluster']);
});

test('a resolved page is sent to the pager receiver', async () => {
  // A short group_interval, so that the resolution (sent at the group's next turn) arrives within the test.
  writeFileSync(configFile, alertmanagerConfig({ ...receivers(pager.port), pageTiming: { groupWait: '1s', groupInterval: '2s', repeatInterval: '1h' } }));
  const reload = await fetch(`${alertmanager.url}/-/reload`, { method: 'POST' });
  assert.equal(reload.status, 200, await reload.text());
  const mark = pagerLog.mark();
  await postAlerts([{ labels: quorumLost, endsAt: new Date().toISOString() }]);
  const line = await pagerLog.waitFor(mark, (record) => record['alertname'] === 'EdgewardQuorumLost' && record['status'] === 'resolved', 15_000);
  assert.equal(line['receiver'], receiverNames.pager);
  assert.notEqual(line['endsAt'], '0001-01-01T00:00:00Z');
});

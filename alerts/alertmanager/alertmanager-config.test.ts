import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { amtool, runToolForCode } from '../../test/support/prometheus-tools.ts';
import { alertmanagerConfig, alertmanagerConfigProblems, defaultPagerUrl, receiverNames, type AlertmanagerConfigOptions } from './alertmanager-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'edgeward-alertmanager-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function writeConfig(name: string, options: AlertmanagerConfigOptions = {}): string {
  const file = join(dir, name);
  writeFileSync(file, alertmanagerConfig(options));
  return file;
}

async function routesTo(file: string, labels: readonly string[]): Promise<string> {
  const run = await runToolForCode(amtool, ['config', 'routes', 'test', `--config.file=${file}`, ...labels]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  return run.stdout.trim();
}

test('amtool check-config accepts the webhook, PagerDuty and Opsgenie variants', async () => {
  for (const [name, options] of [
    ['webhook.yml', {}],
    ['pagerduty.yml', { pager: { kind: 'pagerduty', routingKeyFile: '/etc/prometheus/edgeward-pagerduty-routing-key' } }],
    ['opsgenie.yml', { pager: { kind: 'opsgenie', apiKeyFile: '/etc/prometheus/edgeward-opsgenie-api-key' } }],
  ] as const) {
    const check = await runToolForCode(amtool, ['check-config', writeConfig(name, options)]);
    assert.equal(check.code, 0, `${name}: ${check.stdout}${check.stderr}`);
    assert.match(check.stdout, /SUCCESS/);
    assert.match(check.stdout, /1 inhibit rules/);
  }
});

test('critical alerts route to the pager receiver, warnings and anything else to the warnings receiver', async () => {
  const file = writeConfig('routes.yml');
  assert.equal(await routesTo(file, ['alertname=EdgewardQuorumLost', 'severity=critical', 'cluster=demo', 'controller=all']), receiverNames.pager);
  assert.equal(await routesTo(file, ['alertname=EdgewardClusterLeaderless', 'severity=critical', 'cluster=demo', 'controller=ctrl2']), receiverNames.pager);
  assert.equal(await routesTo(file, ['alertname=EdgewardPeerFlapping', 'severity=warning', 'cluster=demo', 'controller=ctrl1']), receiverNames.warnings);
  assert.equal(await routesTo(file, ['alertname=Watchdog']), receiverNames.warnings);
  const wrong = await runToolForCode(amtool, ['config', 'routes', 'test', `--config.file=${file}`, `--verify.receivers=${receiverNames.pager}`, 'severity=warning']);
  assert.notEqual(wrong.code, 0, 'amtool reports a warning routed to the pager');
});

test('alerts are grouped by cluster and alert name; pages are sent within seconds and warnings gathered longer', () => {
  const config = parse(alertmanagerConfig()) as {
    route: { group_by: string[]; routes: { receiver: string; group_wait: string; group_interval: string; repeat_interval: string }[] };
    receivers: { name: string; webhook_configs?: { url: string; send_resolved: boolean }[] }[];
  };
  assert.deepEqual(config.route.group_by, ['cluster', 'alertname']);
  const page = config.route.routes.find((route) => route.receiver === receiverNames.pager)!;
  const warning = config.route.routes.find((route) => route.receiver === receiverNames.warnings)!;
  // A page must reach the receiver within 10 to 15 s of Alertmanager receiving it.
  assert.ok(seconds(page.group_wait) <= 10, page.group_wait);
  assert.ok(seconds(warning.group_wait) > seconds(page.group_wait));
  assert.ok(seconds(page.repeat_interval) < seconds(warning.repeat_interval));
  for (const receiver of config.receivers) {
    assert.ok(receiver.webhook_configs!.every((webhook) => webhook.send_resolved), `${receiver.name} sends resolutions`);
  }
  assert.equal(config.receivers.find((receiver) => receiver.name === receiverNames.pager)!.webhook_configs![0]!.url, defaultPagerUrl);
});

test('the PagerDuty and Opsgenie pagers read their keys from files and send resolutions', () => {
  const pagerduty = parse(alertmanagerConfig({ pager: { kind: 'pagerduty', routingKeyFile: '/keys/pd' } })) as { receivers: Record<string, unknown[]>[] };
  assert.deepEqual(Object.keys(pagerduty.receivers[0]!), ['name', 'pagerduty_configs']);
  assert.equal((pagerduty.receivers[0]!['pagerduty_configs']![0] as Record<string, unknown>)['routing_key_file'], '/keys/pd');
  assert.equal((pagerduty.receivers[0]!['pagerduty_configs']![0] as Record<string, unknown>)['send_resolved'], true);
  const opsgenie = parse(alertmanagerConfig({ pager: { kind: 'opsgenie', apiKeyFile: '/keys/og' } })) as { receivers: Record<string, unknown[]>[] };
  assert.equal((opsgenie.receivers[0]!['opsgenie_configs']![0] as Record<string, unknown>)['api_key_file'], '/keys/og');
  assert.equal((opsgenie.receivers[0]!['opsgenie_configs']![0] as Record<string, unknown>)['priority'], 'P1');
});

test('bad URLs and durations are reported together', () => {
  assert.deepEqual(
    alertmanagerConfigProblems({ pager: { kind: 'webhook', url: 'localhost:9096' }, warningUrl: 'ftp://x', pageTiming: { groupWait: '0s', groupInterval: '1m', repeatInterval: 'soon' } }),
    [
      'pager URL "localhost:9096" is not an http or https URL',
      'warning URL "ftp://x" is not an http or https URL',
      'page groupWait "0s" is not a positive duration such as 30s',
      'page repeatInterval "soon" is not a positive duration such as 30s',
    ],
  );
  assert.throws(() => alertmanagerConfig({ warningUrl: '' }), /warning URL "" is not an http or https URL/);
});

function seconds(duration: string): number {
  const units: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };
  return [...duration.matchAll(/(\d+)(ms|s|m|h|d)/g)].reduce((total, [, value, unit]) => total + Number(value) * units[unit!]!, 0);
}

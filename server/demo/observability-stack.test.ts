import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { parseAlertsConfig } from '../../alerts/config/alerts-config.ts';
import { rulesFileText } from '../../alerts/rules/rules-files.ts';
import { amtool, promtool, runToolForCode } from '../../test/support/prometheus-tools.ts';
import { cliEntry } from './child-process.ts';
import { layOutObservabilityStack, storedStackPorts, type ObservabilityStackOptions } from './observability-stack.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-observability-stack-'));
after(() => rmSync(root, { recursive: true, force: true }));

const caBundle = join(root, 'ca-bundle.pem');
writeFileSync(caBundle, '');
const ports = { prometheus: 19090, alertmanager: 19093, alertsDaemon: 19105, pager: 19096 };

function cluster(dataDir: string): ObservabilityStackOptions {
  return {
    cluster: 'demo',
    controllers: ['ctrl1', 'ctrl2', 'ctrl3'].map((id, index) => ({
      id,
      origin: `https://127.0.0.1:${1280 + index}`,
      logFile: join(root, id, 'controller.log'),
      eventsFile: join(root, id, 'events.jsonl'),
    })),
    caBundle,
    dataDir,
    ports,
  };
}

interface ScrapeConfig {
  job_name: string;
  scheme?: string;
  tls_config?: { ca_file: string };
  static_configs: { targets: string[]; labels: Record<string, string> }[];
}

test('lays out a cluster\'s stack that promtool, amtool and the alerts daemon accept, with the commands that run it', async () => {
  const dataDir = join(root, 'cluster');
  const stack = layOutObservabilityStack(cluster(dataDir));

  const prometheus = parseYaml(readFileSync(stack.files.prometheusConfig, 'utf8')) as { rule_files: string[]; scrape_configs: ScrapeConfig[]; alerting: { alertmanagers: { static_configs: { targets: string[] }[] }[] } };
  const job = (name: string) => prometheus.scrape_configs.find((config) => config.job_name === name)!;
  assert.deepEqual(
    job('edgeward-controller').static_configs.map((config) => [config.targets[0], config.labels['controller']]),
    [
      ['127.0.0.1:1280', 'ctrl1'],
      ['127.0.0.1:1281', 'ctrl2'],
      ['127.0.0.1:1282', 'ctrl3'],
    ],
  );
  assert.equal(job('edgeward-controller').tls_config?.ca_file, caBundle);
  assert.deepEqual(job('edgeward-alerts').static_configs[0]!.targets, ['127.0.0.1:19105']);
  assert.deepEqual(job('alertmanager').static_configs[0]!.targets, ['127.0.0.1:19093']);
  assert.deepEqual(prometheus.alerting.alertmanagers[0]!.static_configs[0]!.targets, ['127.0.0.1:19093']);
  assert.deepEqual(prometheus.rule_files, [stack.files.rules]);
  assert.equal(readFileSync(stack.files.rules, 'utf8'), rulesFileText(), 'the generated rules, as committed');
  const checked = await runToolForCode(promtool, ['check', 'config', stack.files.prometheusConfig]);
  assert.equal(checked.code, 0, checked.stdout + checked.stderr);

  const alertmanager = parseYaml(readFileSync(stack.files.alertmanagerConfig, 'utf8')) as { receivers: { name: string; webhook_configs: { url: string }[] }[] };
  assert.deepEqual(
    alertmanager.receivers.map((receiver) => [receiver.name, receiver.webhook_configs[0]!.url]),
    [
      ['edgeward-pager', 'http://127.0.0.1:19096/pager'],
      ['edgeward-warnings', 'http://127.0.0.1:19096/warnings'],
    ],
  );
  const amChecked = await runToolForCode(amtool, ['check-config', stack.files.alertmanagerConfig]);
  assert.equal(amChecked.code, 0, amChecked.stdout + amChecked.stderr);

  const { config, problems } = parseAlertsConfig(readFileSync(stack.files.alertsConfig, 'utf8'), { file: stack.files.alertsConfig, env: {} });
  assert.deepEqual(problems, []);
  assert.equal(config!.cluster, 'demo');
  assert.deepEqual(config!.controllers[1], {
    id: 'ctrl2',
    logFile: join(root, 'ctrl2', 'controller.log'),
    eventsFile: [join(root, 'ctrl2', 'events.jsonl')],
    healthUrl: 'https://127.0.0.1:1281/health-checks/controller/raft',
    metricsUrl: 'https://127.0.0.1:1281/metrics',
    preferredLeader: false,
  });
  assert.equal(config!.caBundle, caBundle);
  assert.deepEqual(config!.alertmanager.urls, ['http://127.0.0.1:19093']);
  assert.deepEqual(config!.listen, { host: '127.0.0.1', port: 19105 });
  assert.equal(config!.stateDir, join(dataDir, 'alerts', 'state'));
  assert.ok(existsSync(stack.files.pagerLog), 'the pager log is there before the first page');

  const { prometheus: runPrometheus, alertmanager: runAlertmanager, alertsDaemon, pager } = stack.commands;
  assert.equal(runPrometheus?.file, '/usr/bin/prometheus');
  assert.deepEqual(runPrometheus?.args, [
    `--config.file=${stack.files.prometheusConfig}`,
    `--storage.tsdb.path=${join(dataDir, 'prometheus', 'data')}`,
    '--web.listen-address=127.0.0.1:19090',
    '--web.enable-lifecycle',
  ]);
  assert.equal(runPrometheus?.readyUrl, 'http://127.0.0.1:19090/-/ready');
  assert.equal(runAlertmanager.file, '/usr/bin/prometheus-alertmanager');
  assert.ok(runAlertmanager.args.includes('--cluster.listen-address='), 'clustering off');
  assert.ok(runAlertmanager.args.includes('--web.listen-address=127.0.0.1:19093'));
  assert.deepEqual(alertsDaemon.args.slice(-4), [cliEntry, 'alerts', 'run', stack.files.alertsConfig]);
  assert.equal(alertsDaemon.readyUrl, 'http://127.0.0.1:19105/health');
  assert.deepEqual(pager?.args.slice(-7), [cliEntry, 'alerts', 'pager', '--listen', '127.0.0.1:19096', '--log', stack.files.pagerLog]);
  assert.deepEqual(stack.urls, { prometheus: 'http://127.0.0.1:19090', alertmanager: 'http://127.0.0.1:19093', alertsMetrics: 'http://127.0.0.1:19105/metrics', pager: 'http://127.0.0.1:19096' });
});

test('reads back the ports of an earlier lay-out, so that a restarted stack keeps its URLs', () => {
  const dataDir = join(root, 'again');
  assert.deepEqual(storedStackPorts(dataDir), {}, 'nothing before the first lay-out');
  layOutObservabilityStack(cluster(dataDir));
  assert.deepEqual(storedStackPorts(dataDir), ports);
});

test('controllers known only by their files are followed, not scraped or polled; receivers elsewhere need no pager', () => {
  const dataDir = join(root, 'files-only');
  const stack = layOutObservabilityStack({
    cluster: 'lines',
    controllers: [{ id: 'ctrl1', logFile: join(root, 'ctrl1.log'), eventsFile: join(root, 'ctrl1.jsonl'), preferredLeader: true }],
    dataDir,
    ports: { prometheus: 19190, alertmanager: 19193, alertsDaemon: 19195 },
    receivers: { pagerUrl: 'http://127.0.0.1:19199/p', warningUrl: 'http://127.0.0.1:19199/w' },
  });
  assert.equal(stack.commands.prometheus, undefined);
  assert.equal(stack.commands.pager, undefined);
  assert.equal(existsSync(stack.files.prometheusConfig), false);
  const { config, problems } = parseAlertsConfig(readFileSync(stack.files.alertsConfig, 'utf8'), { file: stack.files.alertsConfig, env: {} });
  assert.deepEqual(problems, []);
  assert.deepEqual(config!.controllers, [{ id: 'ctrl1', logFile: join(root, 'ctrl1.log'), eventsFile: [join(root, 'ctrl1.jsonl')], preferredLeader: true }]);
  assert.equal(config!.caBundle, undefined);
});

test('refuses what it cannot write: no receiver at all, a path the daemon would expand, HTTPS without a CA bundle', () => {
  const base = cluster(join(root, 'refused'));
  assert.throws(() => layOutObservabilityStack({ ...base, ports: { prometheus: 1, alertmanager: 2, alertsDaemon: 3 } }), /give the pager receiver a port, or receivers/);
  assert.throws(() => layOutObservabilityStack({ ...base, dataDir: join(root, '$HOME') }), /contains "\$"/);
  const { caBundle: _unused, ...withoutCa } = base;
  assert.throws(() => layOutObservabilityStack(withoutCa), /caBundle is needed/);
});

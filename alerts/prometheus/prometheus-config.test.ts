import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { promtool, runToolForCode } from '../../test/support/prometheus-tools.ts';
import { rulesFileName, rulesFileText } from '../rules/rules-files.ts';
import { prometheusConfig, prometheusConfigProblems, type PrometheusConfigOptions } from './prometheus-config.ts';
import { scrapeNames } from './scrape-names.ts';

const dir = mkdtempSync(join(tmpdir(), 'edgeward-prometheus-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const demo: PrometheusConfigOptions = {
  cluster: 'demo',
  controllers: [
    { id: 'ctrl1', target: '127.0.0.1:1280' },
    { id: 'ctrl2', target: '127.0.0.1:1281' },
    { id: 'ctrl3', target: '127.0.0.1:1282' },
  ],
  caFile: join(dir, 'ca-bundle.pem'),
  alertsDaemonTargets: ['127.0.0.1:9105'],
  alertmanagerUrls: ['http://127.0.0.1:9093'],
  ruleFiles: [join(dir, rulesFileName)],
  scrapeInterval: '15s',
  evaluationInterval: '15s',
};

interface ScrapeConfig {
  job_name: string;
  scheme?: string;
  metrics_path?: string;
  tls_config?: { ca_file: string };
  static_configs: { targets: string[]; labels: Record<string, string> }[];
}

function parsed(options: PrometheusConfigOptions) {
  return parse(prometheusConfig(options)) as {
    global: Record<string, string>;
    alerting?: { alertmanagers: { scheme: string; path_prefix?: string; static_configs: { targets: string[] }[] }[] };
    rule_files?: string[];
    scrape_configs: ScrapeConfig[];
  };
}

test('controllers are scraped over HTTPS with the cluster CA, each labelled with the cluster and its id', () => {
  const config = parsed(demo);
  const controllers = config.scrape_configs.find((job) => job.job_name === scrapeNames.jobs.controller)!;
  assert.equal(controllers.scheme, 'https');
  assert.equal(controllers.metrics_path, '/metrics');
  assert.equal(controllers.tls_config?.ca_file, demo.caFile);
  assert.deepEqual(controllers.static_configs, [
    { targets: ['127.0.0.1:1280'], labels: { cluster: 'demo', controller: 'ctrl1' } },
    { targets: ['127.0.0.1:1281'], labels: { cluster: 'demo', controller: 'ctrl2' } },
    { targets: ['127.0.0.1:1282'], labels: { cluster: 'demo', controller: 'ctrl3' } },
  ]);
});

test('the alerts daemon is scraped over plain HTTP with the cluster label; rules and Alertmanager are configured', () => {
  const config = parsed(demo);
  const daemon = config.scrape_configs.find((job) => job.job_name === scrapeNames.jobs.alertsDaemon)!;
  assert.equal(daemon.scheme, 'http');
  assert.deepEqual(daemon.static_configs, [{ targets: ['127.0.0.1:9105'], labels: { cluster: 'demo' } }]);
  assert.deepEqual(config.global, { scrape_interval: '15s', evaluation_interval: '15s' });
  assert.deepEqual(config.rule_files, demo.ruleFiles);
  assert.deepEqual(config.alerting?.alertmanagers, [{ scheme: 'http', api_version: 'v2', static_configs: [{ targets: ['127.0.0.1:9093'] }] }]);
});

test('Alertmanager and Prometheus themselves can be scraped too, and extra jobs are appended', () => {
  const config = parsed({
    ...demo,
    alertmanagerUrls: ['https://am.example.com/alertmanager/', 'https://am2.example.com/alertmanager'],
    scrapeAlertmanagers: true,
    prometheusTarget: '127.0.0.1:9090',
    extraScrapeConfigs: [{ job_name: 'node', static_configs: [{ targets: ['127.0.0.1:9100'] }] }],
  });
  assert.deepEqual(
    config.scrape_configs.map((job) => job.job_name),
    [scrapeNames.jobs.controller, scrapeNames.jobs.alertsDaemon, scrapeNames.jobs.alertmanager, scrapeNames.jobs.prometheus, 'node'],
  );
  const alertmanager = config.scrape_configs.find((job) => job.job_name === scrapeNames.jobs.alertmanager)!;
  assert.equal(alertmanager.metrics_path, '/alertmanager/metrics');
  assert.deepEqual(alertmanager.static_configs, [{ targets: ['am.example.com:443', 'am2.example.com:443'], labels: { cluster: 'demo' } }]);
  assert.deepEqual(config.alerting?.alertmanagers[0], { scheme: 'https', path_prefix: '/alertmanager', api_version: 'v2', static_configs: [{ targets: ['am.example.com:443', 'am2.example.com:443'] }] });
});

test('every problem with the options is reported at once, naming the option', () => {
  const problems = prometheusConfigProblems({
    ...demo,
    cluster: '',
    controllers: [
      { id: 'ctrl1', target: 'localhost' },
      { id: 'ctrl1', target: '127.0.0.1:99999' },
    ],
    alertmanagerUrls: ['ftp://x', 'not a url'],
    scrapeInterval: '15 seconds',
    extraScrapeConfigs: [{ job_name: scrapeNames.jobs.controller }],
  });
  assert.deepEqual(problems, [
    'cluster: must be a non-empty single line',
    'controllers[0].target: "localhost" is not host:port',
    'controllers[1].id: "ctrl1" is listed twice',
    'controllers[1].target: "127.0.0.1:99999" is not host:port',
    'alertmanagerUrls: "ftp://x" is not http or https',
    'alertmanagerUrls: "not a url" is not a URL',
    'scrapeInterval: "15 seconds" is not a Prometheus duration such as 15s',
    'extraScrapeConfigs[0].job_name: "edgeward-controller" is already a job',
  ]);
  assert.throws(() => prometheusConfig({ ...demo, controllers: [] }), /controllers: at least one controller is needed/);
});

test('promtool check config accepts the written configuration with the generated rules', async () => {
  writeFileSync(join(dir, rulesFileName), rulesFileText());
  const file = join(dir, 'prometheus.yml');
  writeFileSync(file, prometheusConfig({ ...demo, scrapeAlertmanagers: true, prometheusTarget: '127.0.0.1:9090' }));
  const check = await runToolForCode(promtool, ['check', 'config', file]);
  assert.equal(check.code, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /SUCCESS: \d+ rule files found/);
});

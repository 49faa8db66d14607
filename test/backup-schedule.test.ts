// The backup schedule on a real controller, watched by a real Prometheus under the generated rules: with
// `cluster.backup.interval: 2s` and `retain: 3` it writes a backup every couple of seconds into its backup folder
// (mode 0700), keeps the newest three and nothing of anyone else's is deleted; every backup (scheduled, or asked for
// with POST /database/snapshot) is counted on /metrics. EdgewardBackupsStopped stays quiet while backups are
// written; once the backup folder cannot be written (a plain file where the folder was: root ignores a chmod),
// each scheduled backup fails and is logged, the controller keeps serving, and the alert fires in Prometheus. Once
// the folder is back, the next scheduled backup succeeds.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { initPki, pkiPaths } from '../common/pki/pki-directory.ts';
import { isBackupFileName } from '../server/store/model-backup-file.ts';
import { until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { prometheusAlerts, prometheusRuleGroups } from './support/prometheus-api.ts';
import { PrometheusServer, controllerScrapeJob, testPrometheusGlobal } from './support/prometheus-server.ts';
import { parseExposition } from './support/prometheus-text.ts';
import { promtoolAccepts } from './support/prometheus-tools.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-backup-schedule-'));
const backupDir = join(root, 'backups');
let controller: ControllerFixture;
let prometheus: PrometheusServer | undefined;

/** The example config's `cluster.backup` block with a 2 s interval, 3 kept, in `backupDir`. */
function quickBackups(yaml: string): string {
  const edited = yaml.replace(/\n {4}interval: 6h[^\n]*\n {4}# dir:[^\n]*\n {4}retain: 8[^\n]*\n/, `\n    interval: 2s\n    dir: ${JSON.stringify(backupDir)}\n    retain: 3\n`);
  assert.notEqual(edited, yaml, 'the controller config has the cluster.backup block');
  return edited;
}

async function metrics(): Promise<{ text: string; value: (name: string, labels?: Record<string, string>) => number | undefined }> {
  const response = await controller.http.get(`${controller.origin}/metrics`);
  assert.equal(response.status, 200);
  const families = parseExposition(response.text);
  return {
    text: response.text,
    value: (name, labels = {}) => families.get(name)?.samples.find((sample) => Object.entries(labels).every(([key, expected]) => sample.labels[key] === expected))?.value,
  };
}

const backups = () => readdirSync(backupDir).filter(isBackupFileName).sort();
const logLines = () =>
  readFileSync(controller.logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

before(async () => {
  const pkiDir = join(root, 'pki');
  await initPki(pkiDir, { trustDomain: 'edgeward.test' });
  controller = await ControllerFixture.create({ pkiDir, id: 'ctrl1', editConfig: quickBackups });
  const configFile = join(root, 'prometheus.yml');
  const rulesFile = join(root, 'rules.yml');
  // The generated rules with their hold times at 0 s, so an alert fires at the first evaluation past its threshold.
  writeFileSync(rulesFile, readFileSync(new URL('../alerts/generated/edgeward-rules.yml', import.meta.url), 'utf8').replace(/^(\s+for:) \S+$/gm, '$1 0s'));
  writeFileSync(configFile, stringify({ global: testPrometheusGlobal, rule_files: [rulesFile], scrape_configs: [controllerScrapeJob([controller], pkiPaths(pkiDir).bundle, 'backups')] }));
  prometheus = await PrometheusServer.start(configFile);
});

after(async () => {
  await prometheus?.stop();
  await controller?.dispose();
  rmSync(root, { recursive: true, force: true });
});

test('scheduled backups every interval into a private folder, the newest three kept and nothing else deleted; each backup counted on /metrics', { timeout: 120_000 }, async () => {
  writeFileSync(join(backupDir, 'operator-notes.txt'), 'not a backup');
  const written = await until('six scheduled backups', async () => {
    const { value } = await metrics();
    const count = value('edgeward_backups_total', { trigger: 'schedule', result: 'success' }) ?? 0;
    return count >= 6 ? count : undefined;
  }, 60_000);
  assert.ok(written >= 6);
  assert.equal(statSync(backupDir).mode & 0o777, 0o700, 'the backup folder is the controller\'s alone');
  await until('the oldest beyond three deleted', () => backups().length === 3, 10_000);
  assert.ok(readdirSync(backupDir).includes('operator-notes.txt'), 'a file that is not a backup is left alone');
  assert.ok(logLines().some((line) => line.msg === 'old backup deleted'));

  const { value, text } = await metrics();
  assert.equal(value('edgeward_backup_interval_seconds'), 2);
  assert.ok(Math.abs(Date.now() / 1000 - value('edgeward_backup_last_success_timestamp_seconds')!) < 10, 'the last backup is seconds old');
  const newest = backups().at(-1)!;
  assert.ok(value('edgeward_backup_last_size_bytes')! > 0);
  assert.ok(Math.abs(value('edgeward_backup_last_size_bytes')! - statSync(join(backupDir, newest)).size) < 1024 * 1024, 'the size is a backup file\'s');
  assert.equal(value('edgeward_backups_total', { trigger: 'schedule', result: 'failure' }), 0);
  await promtoolAccepts(text);

  // A backup asked for over the API counts under trigger="request".
  const admin = { 'zt-session': await controller.adminToken() };
  const answer = await controller.http.post(`${controller.managementApi}/database/snapshot`, { headers: admin, body: {} });
  assert.equal(answer.status, 200, answer.text);
  assert.equal((await metrics()).value('edgeward_backups_total', { trigger: 'request', result: 'success' }), 1);
});

test('a backup folder that cannot be written: each scheduled backup fails and is logged, the controller serves on, EdgewardBackupsStopped fires; the folder back, backups resume', { timeout: 120_000 }, async () => {
  const stopped = async (state: 'firing' | 'pending') =>
    (await prometheusAlerts(prometheus!.url)).filter((alert) => alert.labels.alertname === 'EdgewardBackupsStopped' && alert.state === state);
  await until('Prometheus scraping the backup gauges', async () => {
    const answer = await prometheus!.query('edgeward_backup_interval_seconds{cluster="backups"}');
    return answer.ok && answer.series[0]?.value?.[1] === '2';
  }, 30_000);
  const rule = (await prometheusRuleGroups(prometheus!.url)).flatMap((group) => group.rules).find((candidate) => candidate.name === 'EdgewardBackupsStopped');
  assert.equal(rule?.health, 'ok', `the rule evaluates: ${rule?.lastError ?? 'not loaded'}`);
  assert.deepEqual([...(await stopped('firing')), ...(await stopped('pending'))], [], 'quiet while backups are written');

  // Where the folder was, a plain file: nothing can be written there, whoever the controller runs as.
  const moved = join(root, 'backups-moved');
  renameSync(backupDir, moved);
  writeFileSync(backupDir, 'not a folder');
  const failuresBefore = (await metrics()).value('edgeward_backups_total', { trigger: 'schedule', result: 'failure' }) ?? 0;
  await until('two scheduled backups failed', async () => ((await metrics()).value('edgeward_backups_total', { trigger: 'schedule', result: 'failure' }) ?? 0) >= failuresBefore + 2, 20_000);
  const failed = logLines().find((line) => line.msg === 'scheduled backup failed');
  assert.equal(failed?.level, 'warn');
  assert.match(String(failed?.error), /E(NOTDIR|EXIST)/, 'the error says why');
  assert.equal((await controller.http.get(`${controller.origin}/health-checks`)).status, 200, 'the controller serves on');

  const alerts = await until('EdgewardBackupsStopped firing', async () => {
    const found = await stopped('firing');
    return found.length > 0 ? found : undefined;
  }, 30_000);
  assert.equal(alerts.length, 1);
  assert.equal(alerts[0]!.labels.controller, 'ctrl1');
  assert.equal(alerts[0]!.labels.severity, 'warning');
  assert.match(alerts[0]!.annotations.runbook_url ?? '', /#edgewardbackupsstopped$/, 'the runbook section of the alert');

  rmSync(backupDir);
  renameSync(moved, backupDir);
  const successes = (await metrics()).value('edgeward_backups_total', { trigger: 'schedule', result: 'success' }) ?? 0;
  await until('a scheduled backup written again', async () => ((await metrics()).value('edgeward_backups_total', { trigger: 'schedule', result: 'success' }) ?? 0) > successes, 20_000);
  await until('EdgewardBackupsStopped resolved', async () => (await stopped('firing')).length === 0, 30_000);
});

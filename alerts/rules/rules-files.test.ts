import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { alertCatalogue, runbookUrl } from '../catalogue/alert-catalogue.ts';
import { promtool, runToolForCode } from '../../test/support/prometheus-tools.ts';
import { prometheusAlerts } from './alert-rules.ts';
import { rulesFileName, rulesFileText, rulesTestFileName, rulesTestFileText } from './rules-files.ts';

interface RuleYaml {
  readonly alert?: string;
  readonly record?: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function writeRules(): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgeward-rules-'));
  dirs.push(dir);
  writeFileSync(join(dir, rulesFileName), rulesFileText());
  writeFileSync(join(dir, rulesTestFileName), rulesTestFileText());
  return dir;
}

function rules(): RuleYaml[] {
  const file = parse(rulesFileText()) as { groups: { name: string; rules: RuleYaml[] }[] };
  return file.groups.flatMap((group) => group.rules);
}

test('promtool accepts the generated rules and every unit test passes', async () => {
  const dir = writeRules();
  const check = await runToolForCode(promtool, ['check', 'rules', rulesFileName], { cwd: dir });
  assert.equal(check.code, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /SUCCESS: \d+ rules found/);
  const run = await runToolForCode(promtool, ['test', 'rules', rulesTestFileName], { cwd: dir, timeoutMs: 120_000 });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout + run.stderr, /SUCCESS/);
});

test('promtool test rules fails when a rule no longer behaves as its tests say', async () => {
  const dir = writeRules();
  // Without its `for:`, a leaderless controller pages on the single election of a rolling restart.
  const broken = rulesFileText().replace(/(alert: EdgewardClusterLeaderless\n(?:.*\n)*?\s+for: )1m/, '$10s');
  assert.notEqual(broken, rulesFileText());
  writeFileSync(join(dir, rulesFileName), broken);
  const run = await runToolForCode(promtool, ['test', 'rules', rulesTestFileName], { cwd: dir, timeoutMs: 120_000 });
  assert.notEqual(run.code, 0);
  assert.match(run.stdout + run.stderr, /a rolling restart of three controllers/);
});

test('there is one alert rule for every catalogue alert Prometheus raises, named as the catalogue names it', () => {
  const alerts = rules().filter((rule) => rule.alert !== undefined);
  assert.deepEqual(
    alerts.map((rule) => rule.alert),
    prometheusAlerts().map((alert) => alert.name),
  );
  const daemonOnly = alertCatalogue.filter((alert) => !(alert.sources as readonly string[]).includes('prometheus')).map((alert) => alert.name);
  for (const name of daemonOnly) assert.ok(!alerts.some((rule) => rule.alert === name), `${name} is raised by the alerts daemon only`);
});

test('every alert carries its severity, cluster and controller labels, a static summary, a description with labels and a runbook link', () => {
  for (const rule of rules().filter((candidate) => candidate.alert !== undefined)) {
    const definition = alertCatalogue.find((alert) => alert.name === rule.alert)!;
    assert.match(rule.alert!, /^Edgeward[A-Z][A-Za-z]+$/);
    assert.equal(rule.labels?.['severity'], definition.severity, rule.alert);
    if (definition.scope === 'cluster') assert.equal(rule.labels?.['controller'], 'all', rule.alert);
    assert.equal(rule.annotations?.['summary'], definition.summary);
    assert.doesNotMatch(rule.annotations!['summary']!, /\{\{/, 'the summary is static');
    assert.match(rule.annotations!['description']!, /\{\{ \$labels\.cluster \}\}/);
    assert.ok(rule.annotations!['description']!.endsWith(definition.description), rule.alert);
    assert.equal(rule.annotations?.['runbook_url'], runbookUrl(definition.name));
    assert.match(rule.for ?? '', /^\d+[smh]$/, `${rule.alert} has a for: duration`);
  }
});

test('every alert a test expects has exactly the severity, cluster and controller labels (promtool compares them all)', () => {
  const file = parse(rulesTestFileText()) as { tests: { alert_rule_test?: { alertname: string; exp_alerts: { exp_labels: Record<string, string> }[] }[] }[] };
  const checked = new Set<string>();
  for (const check of file.tests.flatMap((group) => group.alert_rule_test ?? [])) {
    for (const expected of check.exp_alerts) {
      const definition = alertCatalogue.find((alert) => alert.name === check.alertname)!;
      assert.equal(expected.exp_labels['severity'], definition.severity);
      assert.equal(expected.exp_labels['cluster'], 'demo');
      assert.ok(expected.exp_labels['controller'], `${check.alertname} names a controller`);
      if (definition.scope === 'cluster') assert.equal(expected.exp_labels['controller'], 'all');
      checked.add(check.alertname);
    }
  }
  assert.deepEqual([...checked].sort(), prometheusAlerts().map((alert) => alert.name).sort());
});

test('pages wait out a single election: every critical alert holds for at least a minute', () => {
  for (const rule of rules().filter((candidate) => candidate.labels?.['severity'] === 'critical')) {
    assert.match(rule.for!, /^([1-9]\d*m|\d+h)$/, `${rule.alert} for: ${rule.for}`);
  }
});

test('recording rules are named level:metric:operations, per controller (edgeward:) or per cluster (cluster:)', () => {
  const records = rules().filter((rule) => rule.record !== undefined);
  assert.ok(records.length > 0);
  for (const rule of records) assert.match(rule.record!, /^(edgeward|cluster):[a-z_]+(:[a-z0-9_]+)?$/, rule.record);
});

test('the output is the same on every run', () => {
  assert.equal(rulesFileText(), rulesFileText());
  assert.equal(rulesTestFileText(), rulesTestFileText());
});

test('a runbook base changes every runbook_url, in the rules and in their tests alike', () => {
  const base = 'https://git.example.com/edgeward/blob/main/docs/runbooks.md';
  for (const text of [rulesFileText({ runbookBase: base }), rulesTestFileText({ runbookBase: base })]) {
    for (const alert of prometheusAlerts()) assert.ok(text.includes(`runbook_url: ${base}#${alert.name.toLowerCase()}`), alert.name);
    assert.ok(!text.includes('runbook_url: docs/runbooks.md'));
  }
});

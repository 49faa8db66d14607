import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { rulesFileText, rulesTestFileText } from '../../alerts/rules/rules-files.ts';
import { runGenCommand } from './gen-command.ts';

const cliEntry = fileURLToPath(new URL('./main.ts', import.meta.url));
const tsxLoader = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const dir = mkdtempSync(join(tmpdir(), 'edgeward-gen-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function gen(args: string[]) {
  const out = { stdout: '', stderr: '' };
  const code = await runGenCommand(args, { stdout: (text) => void (out.stdout += text), stderr: (text) => void (out.stderr += text) });
  return { code, ...out };
}

test('gen rules writes the rules and their promtool tests into a new folder, with the runbook base given', async () => {
  const target = join(dir, 'rules', 'nested');
  const base = 'https://git.example.com/edgeward/blob/main/docs/runbooks.md';
  const result = await gen(['rules', target, '--runbook-base', base]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, `wrote ${join(target, 'edgeward-rules.yml')}\nwrote ${join(target, 'edgeward-rules.test.yml')}\n`);
  assert.equal(readFileSync(join(target, 'edgeward-rules.yml'), 'utf8'), rulesFileText({ runbookBase: base }));
  assert.equal(readFileSync(join(target, 'edgeward-rules.test.yml'), 'utf8'), rulesTestFileText({ runbookBase: base }));
});

test('gen rules with no base points every runbook_url at the status page\'s runbooks page, absolute', async () => {
  const target = join(dir, 'rules-default');
  const result = await gen(['rules', target]);
  assert.equal(result.code, 0, result.stderr);
  const rules = parse(readFileSync(join(target, 'edgeward-rules.yml'), 'utf8')) as { groups: { rules: { alert?: string; annotations?: Record<string, string> }[] }[] };
  const alerts = rules.groups.flatMap((group) => group.rules).filter((rule) => rule.alert);
  assert.ok(alerts.length > 0);
  for (const rule of alerts) assert.equal(rule.annotations!['runbook_url'], `http://127.0.0.1:9110/runbooks#${rule.alert!.toLowerCase()}`);
});

test('gen alertmanager takes the receivers and timings from its options', async () => {
  const target = join(dir, 'am');
  const result = await gen(['alertmanager', target, '--pager', 'pagerduty', '--pager-key-file=/etc/prometheus/pd-key', '--warning-url', 'https://hooks.example.com/edgeward', '--page-timing', '10s,2m,4h']);
  assert.equal(result.code, 0, result.stderr);
  const config = parse(readFileSync(join(target, 'alertmanager.yml'), 'utf8')) as {
    route: { routes: { receiver: string; group_wait: string; group_interval: string; repeat_interval: string }[] };
    receivers: Record<string, { routing_key_file?: string; url?: string }[]>[];
  };
  assert.equal(config.receivers[0]!['pagerduty_configs']![0]!.routing_key_file, '/etc/prometheus/pd-key');
  assert.equal(config.receivers[1]!['webhook_configs']![0]!.url, 'https://hooks.example.com/edgeward');
  const page = config.route.routes[0]!;
  assert.deepEqual([page.group_wait, page.group_interval, page.repeat_interval], ['10s', '2m', '4h']);
});

test('bad arguments are a clear message and exit code 2, and nothing is written', async () => {
  for (const [args, message] of [
    [['bogus', dir], /^edgeward gen: unknown subcommand 'bogus'; one of rules, alertmanager, dashboards\n/],
    [['rules'], /^edgeward gen rules: missing <dir>\n/],
    [['rules', 'a', 'b'], /^edgeward gen rules: unexpected argument 'b'\n/],
    [['rules', dir, '--pager-url', 'http://x'], /^edgeward gen rules: unknown flag --pager-url/],
    [['rules', dir, '--runbook-base'], /--runbook-base needs a value/],
    [['rules', dir, '--runbook-base', 'https://status.example.com/runbooks#top'], /--runbook-base ".*" must be a URL without spaces or a #fragment/],
    [['rules', dir, '--runbook-base', 'https://status.example.com/run books'], /--runbook-base ".*" must be a URL without spaces or a #fragment/],
    [['alertmanager', dir, '--pager', 'sms'], /--pager must be webhook, pagerduty or opsgenie, not "sms"/],
    [['alertmanager', dir, '--pager', 'opsgenie'], /--pager opsgenie needs --pager-key-file/],
    [['alertmanager', dir, '--pager-url', 'localhost:9096'], /pager URL "localhost:9096" is not an http or https URL/],
    [['alertmanager', dir, '--page-timing', '5s,1m'], /--page-timing takes <group_wait>,<group_interval>,<repeat_interval>/],
    [['alertmanager', dir, '--warning-timing', '5s,1m,never'], /warning repeatInterval "never" is not a positive duration/],
  ] as const) {
    const result = await gen([...args]);
    assert.equal(result.code, 2, args.join(' '));
    assert.match(result.stderr, message);
    assert.match(result.stderr, /\nRun '\.\/edgeward gen( \w+)? --help' for usage\.\n$/);
    assert.equal(result.stdout, '');
  }
  assert.equal((await gen([])).code, 2);
  const help = await gen(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /rules <dir>/);
  assert.match(help.stdout, /alertmanager <dir>/);
});

test('./edgeward gen runs from the command line', async () => {
  const target = join(dir, 'cli');
  const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
    execFile(process.execPath, ['--import', tsxLoader, cliEntry, 'gen', 'alertmanager', target, '--pager-url', 'http://127.0.0.1:19096/pager'], { timeout: 60_000 }, (error, out, err) =>
      error ? reject(new Error(`${error.message}\n${err}`)) : resolve({ stdout: out }),
    ),
  );
  assert.equal(stdout, `wrote ${join(target, 'alertmanager.yml')}\n`);
  assert.match(readFileSync(join(target, 'alertmanager.yml'), 'utf8'), /url: http:\/\/127\.0\.0\.1:19096\/pager/);
});

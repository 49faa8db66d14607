import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { edgewardDatasource } from '../dashboards/datasource.ts';
import { genCommand } from '../../alerts/cli/generator.ts';
import { dashboardsGenerator } from './dashboards-generator.ts';
import { generatedFiles } from './write-dashboards.ts';

const runGenCommand = genCommand([dashboardsGenerator]).run;

const dir = mkdtempSync(join(tmpdir(), 'edgeward-gen-dashboards-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function gen(args: string[]) {
  const out = { stdout: '', stderr: '' };
  const code = await runGenCommand(['dashboards', ...args], { stdout: (text) => void (out.stdout += text), stderr: (text) => void (out.stderr += text) });
  return { code, ...out };
}

test('gen dashboards writes one JSON file per dashboard and the two provisioning files into a new folder', async () => {
  const target = join(dir, 'out', 'nested');
  const result = await gen([target]);
  assert.equal(result.code, 0, result.stderr);
  const files = generatedFiles();
  assert.deepEqual(
    files.map((file) => file.path),
    [
      'dashboards/edgeward-cluster-overview.json',
      'dashboards/edgeward-raft-internals.json',
      'dashboards/edgeward-api-authentication.json',
      'dashboards/edgeward-routers.json',
      'dashboards/edgeward-runtime.json',
      'provisioning/datasources/edgeward.yml',
      'provisioning/dashboards/edgeward.yml',
    ],
  );
  assert.equal(result.stdout, files.map((file) => `wrote ${join(target, file.path)}\n`).join(''));
  for (const file of files) assert.equal(readFileSync(join(target, file.path), 'utf8'), file.text);
  const overview = JSON.parse(readFileSync(join(target, 'dashboards/edgeward-cluster-overview.json'), 'utf8'));
  assert.equal(overview.uid, 'edgeward-cluster-overview');
});

test('the options set the datasource URL, the runbook links and the folder Grafana loads the dashboards from', async () => {
  const target = join(dir, 'options');
  const base = 'https://git.example.com/edgeward/blob/main/docs/runbooks.md';
  const result = await gen([target, '--datasource-url', 'https://prometheus.example.com:9090', `--runbook-base=${base}`, '--dashboards-path', '/srv/grafana/edgeward']);
  assert.equal(result.code, 0, result.stderr);
  const datasources = parse(readFileSync(join(target, 'provisioning/datasources/edgeward.yml'), 'utf8'));
  assert.deepEqual(datasources.datasources[0], {
    name: edgewardDatasource.name,
    uid: edgewardDatasource.uid,
    type: 'prometheus',
    access: 'proxy',
    url: 'https://prometheus.example.com:9090',
    isDefault: false,
    editable: false,
    jsonData: { timeInterval: '15s', httpMethod: 'POST' },
  });
  const providers = parse(readFileSync(join(target, 'provisioning/dashboards/edgeward.yml'), 'utf8'));
  assert.equal(providers.providers[0].type, 'file');
  assert.equal(providers.providers[0].folder, 'edgeward');
  assert.equal(providers.providers[0].options.path, '/srv/grafana/edgeward');
  const overview = readFileSync(join(target, 'dashboards/edgeward-cluster-overview.json'), 'utf8');
  assert.ok(overview.includes(`"url": "${base}#edgewardclusterleaderless"`));
  assert.ok(!overview.includes('"docs/runbooks.md'));
});

test('bad arguments are a clear message and exit code 2, and nothing is written', async () => {
  const never = join(dir, 'never');
  for (const [args, message] of [
    [[], /missing <dir>/],
    [['a', 'b'], /unexpected argument 'b'/],
    [[never, '--pager-url', 'x'], /unknown flag --pager-url \(flags: --datasource-url, --runbook-base, --dashboards-path\)/],
    [[never, '--datasource-url'], /--datasource-url needs a value/],
    [[never, '--datasource-url', 'localhost:9090'], /--datasource-url "localhost:9090" is not an http or https URL/],
    [[never, '--runbook-base', 'https://x/runbooks.md#top'], /--runbook-base .* without spaces or a #fragment/],
    [[never, '--dashboards-path', 'relative/dir'], /--dashboards-path "relative\/dir" must be an absolute path/],
    [[never, '--runbook-base', 'a', '--runbook-base', 'b'], /--runbook-base is given more than once/],
  ] as const) {
    const result = await gen([...args]);
    assert.equal(result.code, 2, args.join(' '));
    assert.match(result.stderr, message);
    assert.match(result.stderr, /^edgeward gen dashboards: .*\nRun '\.\/edgeward gen dashboards --help' for usage\.\n$/);
    assert.equal(result.stdout, '');
  }
  assert.equal(existsSync(never), false);
  const help = await gen(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: \.\/edgeward gen dashboards <dir>/);
});

test('a folder that cannot be made is exit code 1 with the reason', async () => {
  const file = join(dir, 'a-file');
  writeFileSync(file, '');
  const result = await gen([join(file, 'out')]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /^edgeward gen: ENOTDIR/);
});

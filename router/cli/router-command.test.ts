// `./edgeward router validate` as a user runs it: a child process, its output and its exit code.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

const edgeward = new URL('../../edgeward', import.meta.url).pathname;

function run(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(edgeward, [...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'edgeward-router-cli-'));
  writeFileSync(join(dir, 'router.cert'), '');
  writeFileSync(join(dir, 'router.key'), '');
});
after(() => rmSync(dir, { recursive: true, force: true }));

const good = [
  'v: 3',
  'identity:',
  '  cert: router.cert',
  '  key: router.key',
  '  ca: ca.pem',
  'ctrl:',
  '  endpoint: tls:${CTRL_HOST}:6262',
  'healthCheck:',
  '  port: 8081',
  'metrics:',
  '  reportInterval: 30s',
  '',
].join('\n');

const broken = [
  'v: "3"',
  'identity:',
  '  cert: router.cert',
  'ctrl:',
  '  endpoint: ctrl.example.com:6262',
  'forwarder:',
  '  linkDialWorkerCount: 20000',
  'link:',
  '  dialers:',
  '    - binding: transport',
  '      healthyDialBackoff:',
  '        retryBackoffFactor: 0',
  '',
].join('\n');

describe('./edgeward router validate', () => {
  it('prints each warning as file:line with its key path, says the file is valid, and exits 0', async () => {
    const file = join(dir, 'good.yml');
    writeFileSync(file, good);
    const { code, stdout, stderr } = await run(['router', 'validate', file], { CTRL_HOST: 'ctrl.example.com' });
    assert.equal(code, 0, stderr);
    assert.equal(stdout, `${file}: valid (6 warning(s))\n`);
    assert.deepEqual(stderr.trimEnd().split('\n'), [
      `${file}:1: warning: dialers: no dialers section: the router cannot terminate services (rule: missing-section)`,
      `${file}:1: warning: edge: no edge section: fabric-only, no SDK connectivity and no edge functionality (rule: missing-section)`,
      `${file}:1: warning: link: no link section: the router neither dials nor accepts other routers (rule: missing-section)`,
      `${file}:1: warning: listeners: no listeners section: external on-ramp connections are not accepted (rule: missing-section)`,
      `${file}:5: warning: identity.ca: file "${join(dir, 'ca.pem')}" does not exist (enrollment writes it) (rule: file-missing)`,
      `${file}:8: warning: healthCheck: unknown key "healthCheck" (did you mean "healthChecks"?) (rule: unknown-key)`,
    ]);
  });

  it('prints every error in one run, in file order, and exits 1', async () => {
    const file = join(dir, 'broken.yml');
    writeFileSync(file, broken);
    const { code, stdout, stderr } = await run(['router', 'validate', file]);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    const lines = stderr.trimEnd().split('\n');
    assert.deepEqual(lines.filter((line) => line.includes(': error: ')), [
      `${file}:1: error: v: must be an integer, got string "3" (rule: type)`,
      `${file}:2: error: identity.key: is required (the private key) (rule: required)`,
      `${file}:5: error: ctrl.endpoint: "ctrl.example.com:6262": missing protocol; expected tls:<host>:<port> (rule: address)`,
      `${file}:7: error: forwarder.linkDialWorkerCount: must be at most 10000 (rule: max)`,
      `${file}:12: error: link.dialers[0].healthyDialBackoff.retryBackoffFactor: must be at least 1 (rule: min)`,
    ]);
    assert.equal(lines[lines.length - 1], `${file}: 5 error(s), 3 warning(s); the file is not valid`);
  });

  it('with --effective prints the config with defaults filled in as YAML on stdout', async () => {
    const file = join(dir, 'good.yml');
    writeFileSync(file, good);
    const { code, stdout, stderr } = await run(['router', 'validate', '--effective', file], { CTRL_HOST: 'ctrl.example.com' });
    assert.equal(code, 0, stderr);
    assert.match(stderr, /valid \(6 warning\(s\)\)\n$/);
    assert.ok(stdout.startsWith(`# effective router configuration of ${file}, defaults filled in\n`));
    const effective = parse(stdout) as Record<string, Record<string, unknown>>;
    assert.deepEqual(effective.ctrl?.endpoints, ['tls:ctrl.example.com:6262']);
    assert.equal(effective.ctrl?.defaultRequestTimeout, '5s');
    assert.equal(effective.ctrl?.endpointsFile, join(dir, 'endpoints'));
    assert.deepEqual(effective.metrics, { reportInterval: '30s', messageQueueSize: 10, intervalAgeThreshold: '80s' });
    assert.deepEqual(effective.healthChecks, { ctrlPingCheck: { interval: '30s', timeout: '15s', initialDelay: '15s' }, linkCheck: { interval: '5s', initialDelay: '1s', minLinks: 0 } });
    assert.equal((effective.forwarder as Record<string, unknown>).xgressDialWorkerCount, 128);
    assert.equal(effective.healthCheck, undefined);
  });

  // A file with problems on many lines, some on the same line, found by different checks (schema, files, rules).
  const several = [
    'v: 3',
    'identity:',
    '  cert: router.cert',
    '  key: router.key',
    '  ca: missing-ca.pem',
    'ctrl:',
    '  endpoint: tls:ctrl.example.com:6262',
    'colour: blue',
    'forwarder: {linkDialWorkerCount: 20000, xgressDialWorkerCount: 0, shade: dark}',
    'metrics:',
    '  reportInterval: soon',
    'healthChecks:',
    '  ctrlPingCheck:',
    '    intervall: 5s',
    '',
  ].join('\n');

  it('prints the problems of a file in file order, by line and then key path, as lines and as JSON', async () => {
    const file = join(dir, 'several.yml');
    writeFileSync(file, several);
    const text = await run(['router', 'validate', file]);
    assert.equal(text.code, 1);
    const lines = text.stderr.trimEnd().split('\n').slice(0, -1);
    const where = lines.map((line) => /^.*?:(\d+): (error|warning): ([^:]*): /.exec(line)!.slice(1, 4).join(' '));
    assert.deepEqual(where, [
      '1 warning dialers',
      '1 warning edge',
      '1 warning link',
      '1 warning listeners',
      '8 warning colour',
      '9 error forwarder.linkDialWorkerCount',
      '9 warning forwarder.shade',
      '9 error forwarder.xgressDialWorkerCount',
      '11 error metrics.reportInterval',
      '14 warning healthChecks.ctrlPingCheck.intervall',
    ]);

    const json = await run(['router', 'validate', '--json', file]);
    assert.equal(json.code, 1);
    assert.equal(json.stderr, '');
    const report = JSON.parse(json.stdout) as { file: string; problems: { severity: string; path: string; line: number; rule: string; message: string; value: unknown }[]; summary: Record<string, unknown> };
    assert.equal(report.file, file);
    assert.deepEqual(report.problems.map((problem) => `${problem.line} ${problem.severity} ${problem.path}`), where);
    assert.deepEqual(report.summary, { valid: false, errors: 3, warnings: 7 });
    const interval = report.problems.find((problem) => problem.path === 'metrics.reportInterval')!;
    assert.deepEqual(Object.keys(interval), ['severity', 'path', 'line', 'rule', 'message', 'value']);
    assert.equal(interval.value, 'soon');
    assert.equal(report.problems.find((problem) => problem.path === 'dialers')!.value, null);
  });

  it('with --strict reports unknown keys as errors', async () => {
    const file = join(dir, 'unknown-keys.yml');
    writeFileSync(file, good.replace('healthCheck:\n  port: 8081\n', 'healthChecks:\n  linkCheck:\n    minLinkz: 1\ncolour: blue\n'));
    const lenient = await run(['router', 'validate', file, '--json'], { CTRL_HOST: 'ctrl.example.com' });
    assert.equal(lenient.code, 0, lenient.stdout);
    const strict = await run(['router', 'validate', file, '--json', '--strict'], { CTRL_HOST: 'ctrl.example.com' });
    assert.equal(strict.code, 1);
    const report = JSON.parse(strict.stdout) as { problems: { severity: string; path: string; rule: string }[]; summary: Record<string, unknown> };
    assert.deepEqual(
      report.problems.filter((problem) => problem.rule === 'unknown-key').map((problem) => `${problem.severity} ${problem.path}`),
      ['error healthChecks.linkCheck.minLinkz', 'error colour'],
    );
    assert.deepEqual(report.summary, { valid: false, errors: 2, warnings: 5 });
    const text = await run(['router', 'validate', file, '--strict'], { CTRL_HOST: 'ctrl.example.com' });
    assert.equal(text.code, 1);
    assert.match(text.stderr, /:11: error: colour: unknown key "colour" \(rule: unknown-key\)/);
  });

  it('with --effective --json adds the effective configuration to the JSON report', async () => {
    const file = join(dir, 'good.yml');
    writeFileSync(file, good);
    const { code, stdout, stderr } = await run(['router', 'validate', '--effective', '--json', file], { CTRL_HOST: 'ctrl.example.com' });
    assert.equal(code, 0, stderr);
    assert.equal(stderr, '');
    const report = JSON.parse(stdout) as { summary: { valid: boolean }; effective: Record<string, Record<string, unknown>> };
    assert.equal(report.summary.valid, true);
    assert.deepEqual(report.effective.ctrl?.endpoints, ['tls:ctrl.example.com:6262']);
  });

  it('exits 2 on misuse and 1 on a file that cannot be read', async () => {
    const misuse = await run(['router', 'validate']);
    assert.equal(misuse.code, 2);
    assert.equal(misuse.stderr, "edgeward router validate: missing <router.yml>\nRun './edgeward router validate --help' for usage.\n");
    const flag = await run(['router', 'validate', join(dir, 'good.yml'), '--effectve']);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /unknown flag --effectve/);
    const missing = await run(['router', 'validate', join(dir, 'nope.yml')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /nope\.yml: error: cannot read the config file: no such file \(rule: read\)/);
  });
});

describe('router run and router enroll: arguments and refusals', () => {
  const call = async (args: readonly string[]) => {
    const { runRouterCommand } = await import('./router-command.ts');
    let stdout = '';
    let stderr = '';
    const code = await runRouterCommand(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) }, { CTRL_HOST: 'ctrl.example.com' });
    return { code, stdout, stderr };
  };

  it('lists run and enroll in its usage', async () => {
    const help = await call(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /run <router\.yml>/);
    assert.match(help.stdout, /enroll <router\.yml> --jwt <jwt-file>/);
  });

  it('exits 2 when enroll has no --jwt or run has no single file', async () => {
    const file = join(dir, 'good.yml');
    assert.match((await call(['enroll', file])).stderr, /^edgeward router enroll: --jwt is required\n/);
    assert.equal((await call(['enroll', file, '--jwt'])).code, 2);
    assert.equal((await call(['run'])).code, 2);
    assert.match((await call(['run', file, '--effective'])).stderr, /unknown flag --effective/);
  });

  it('exits 1 when the JWT file cannot be read', async () => {
    writeFileSync(join(dir, 'good.yml'), good);
    const result = await call(['enroll', join(dir, 'good.yml'), `--jwt=${join(dir, 'missing.jwt')}`]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /cannot read the enrollment JWT .*missing\.jwt: no such file/);
  });

  it('refuses to run with a missing identity file, as an error with its line, and points to router enroll', async () => {
    writeFileSync(join(dir, 'good.yml'), good);
    const result = await call(['run', join(dir, 'good.yml')]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /good\.yml:5: error: identity\.ca: file ".*ca\.pem" does not exist \(enrollment writes it\) \(rule: file-missing\)/);
    assert.match(result.stderr, /enroll it first with \.\/edgeward router enroll .*good\.yml --jwt <jwt-file>/);
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runDashboardCommand } from './dashboard-command.ts';

const dir = mkdtempSync(join(tmpdir(), 'edgeward-dashboard-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runDashboardCommand(args, { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
}

test('validate: a valid file says what it watches; an invalid one prints each problem with its line and exits 1', async () => {
  const good = join(dir, 'good.yml');
  writeFileSync(good, 'listen: 0.0.0.0:9110\ntls: {cert: cert.pem, key: key.pem}\ncontrollers:\n  - {id: ctrl1, url: "http://127.0.0.1:1280"}\nalertsDaemon: {url: "http://127.0.0.1:9105"}\n');
  const valid = await run('validate', good);
  assert.equal(valid.code, 0, valid.stderr);
  assert.equal(valid.stdout, `${good}: valid (1 controller(s), 0 router(s), alerts daemon http://127.0.0.1:9105; listens on 0.0.0.0:9110, login required)\n`);

  const bad = join(dir, 'bad.yml');
  writeFileSync(bad, 'listen: 10.1.2.3:9110\nauth: loopback-only\ncontrollers:\n  - {id: ctrl1, url: "http://127.0.0.1:1280"}\npollInterval: 3s\n');
  const invalid = await run('validate', bad);
  assert.equal(invalid.code, 1);
  assert.equal(invalid.stdout, '');
  assert.match(invalid.stderr, new RegExp(`^${bad}:2: error: auth: cannot be loopback-only.*\\(rule: login-required\\)$`, 'm'));
  assert.match(invalid.stderr, new RegExp(`^${bad}:5: error: pollInterval: .*\\(rule: max\\)$`, 'm'));
  assert.match(invalid.stderr, /2 error\(s\); the file is not valid\n$/);

  // A login over the network without TLS would take passwords in clear text.
  const clear = join(dir, 'clear.yml');
  writeFileSync(clear, 'listen: 0.0.0.0:9110\nauth: required\ncontrollers:\n  - {id: ctrl1, url: "http://127.0.0.1:1280"}\n');
  const refused = await run('validate', clear);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, new RegExp(`^${clear}:2: error: auth: a login on 0\\.0\\.0\\.0, which other machines can reach, needs tls .*\\(rule: login-needs-tls\\)$`, 'm'));

  const missing = await run('run', join(dir, 'nope.yml'));
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /cannot read the config file: no such file[\s\S]*the status page did not start/);
});

test('a wrong command line prints the usage and exits 2', async () => {
  assert.equal((await run()).code, 2);
  assert.equal((await run('--help')).code, 0);
  const wrong = await run('launch', 'x.yml');
  assert.equal(wrong.code, 2);
  assert.equal(wrong.stderr, "edgeward dashboard: unknown subcommand 'launch'; one of validate, run, build\nRun './edgeward dashboard --help' for usage.\n");
  assert.equal((await run('validate')).code, 2);
  assert.equal((await run('build', '--fast')).code, 2);
});

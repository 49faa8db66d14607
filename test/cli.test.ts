// The command line as an operator uses it: ./edgeward with real files, exit codes and messages.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { controllerConfigExample } from '../server/config/controller-config.ts';
import { controllerPaths, initPki, issueControllerCertificate, pkiPaths } from '../common/pki/pki-directory.ts';

const edgeward = fileURLToPath(new URL('../edgeward', import.meta.url));
const run = (...args: string[]) => spawnSync(edgeward, args, { encoding: 'utf8', timeout: 60_000, env: { ...process.env, EDGEWARD_AGENT_REGISTRY: join(root, 'agents') } });

let root: string;
let goodConfig: string;
before(async () => {
  root = mkdtempSync(join(tmpdir(), 'edgeward-cli-'));
  const pkiDir = join(root, 'pki');
  await initPki(pkiDir, { trustDomain: 'edgeward.test' });
  await issueControllerCertificate(pkiDir, { id: 'cli-ctrl', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const certificate = controllerPaths(pkiDir, 'cli-ctrl');
  goodConfig = join(root, 'good.yml');
  writeFileSync(
    goodConfig,
    controllerConfigExample({ id: 'cli-ctrl', dataDir: join(root, 'good-data'), identity: { cert: certificate.chain, key: certificate.key, ca: pkiPaths(pkiDir).bundle }, webAddress: '127.0.0.1:1', ctrlAddress: 'tls:127.0.0.1:2' }),
  );
});
after(() => rmSync(root, { recursive: true, force: true }));

test('--help lists the commands; an unknown command exits 2', () => {
  const help = run('--help');
  assert.equal(help.status, 0);
  for (const command of ['demo', 'test', 'controller run', 'controller validate', 'agent status', 'pki']) assert.ok(help.stdout.includes(command), command);
  const unknown = run('frobnicate');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown command 'frobnicate'/);
});

test('controller validate accepts a good file and names the controller', () => {
  const result = run('controller', 'validate', goodConfig);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /valid \(controller cli-ctrl\)/);
});

test('controller validate prints every problem at once with key path, line and rule', () => {
  const bad = join(root, 'bad.yml');
  writeFileSync(
    bad,
    [
      'v: 3',
      'identity:',
      '  cert: /nope/cert.pem',
      '  key: /nope/key.pem',
      'ctrl:',
      '  listener: udp:127.0.0.1:6262',
      'cluster:',
      '  dataDir: ./data',
      '  warnWhenLeaderlessFor: 2s',
      'edge:',
      '  api:',
      '    sessionTimeout: soon',
      'web:',
      '  - name: api',
      '    bindPoints:',
      '      - interface: 127.0.0.1:99999',
      '        address: 127.0.0.1:1280',
      '    apis:',
      '      - binding: edge-client',
      '      - binding: telepathy',
      'colour: blue',
      '',
    ].join('\n'),
  );
  const result = run('controller', 'validate', bad);
  assert.equal(result.status, 1);
  const lines = result.stderr.split('\n').filter((line) => line.includes(': error: '));
  const expect = (path: string, line: number) =>
    assert.ok(lines.some((text) => text.startsWith(`${bad}:${line}: error: ${path}`) && /\(rule: [a-z-]+\)$/.test(text)), `${path} at line ${line} in:\n${lines.join('\n')}`);
  expect('identity.ca', 2);
  expect('ctrl.listener', 6);
  expect('cluster.warnWhenLeaderlessFor', 9);
  expect('edge.api.sessionTimeout', 12);
  expect('web[0].bindPoints[0].interface', 16);
  expect('web[0].apis[1].binding', 20);
  expect('colour', 21);
  assert.ok(lines.length >= 7);
});

test('controller run refuses a bad config before touching the data directory', () => {
  const dataDir = join(root, 'untouched-data');
  const bad = join(root, 'bad-run.yml');
  writeFileSync(bad, `v: 3\nidentity:\n  cert: /nope/c.pem\n  key: /nope/k.pem\n  ca: /nope/ca.pem\nctrl:\n  listener: tls:127.0.0.1:6262\ncluster:\n  dataDir: ${dataDir}\nweb:\n  - name: api\n    bindPoints:\n      - interface: 127.0.0.1:1280\n        address: 127.0.0.1:1280\n    apis:\n      - binding: edge-client\n`);
  const result = run('controller', 'run', bad);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /identity\.(server_)?cert: cannot read \/nope\/c\.pem/);
  assert.match(result.stderr, /the controller did not start/);
  assert.equal(existsSync(dataDir), false);

  const missing = run('controller', 'run', join(root, 'no-such.yml'));
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /cannot read the config file: no such file/);
  const usage = run('controller', 'launch');
  assert.equal(usage.status, 2);
});

test('controller run exits (releasing everything) when its web port is taken', async () => {
  const { createServer } = await import('node:net');
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
  const taken = (blocker.address() as { port: number }).port;
  const { freePort } = await import('./support/free-port.ts');
  const pkiDir = join(root, 'pki');
  const certificate = controllerPaths(pkiDir, 'cli-ctrl');
  const config = join(root, 'port-taken.yml');
  writeFileSync(config, controllerConfigExample({ id: 'cli-ctrl', dataDir: join(root, 'port-taken-data'), identity: { cert: certificate.chain, key: certificate.key, ca: pkiPaths(pkiDir).bundle }, webAddress: `127.0.0.1:${taken}`, ctrlAddress: `tls:127.0.0.1:${await freePort()}`, agentSocket: join(root, 'port-taken.sock') }));
  try {
    const result = spawnSync(edgeward, ['controller', 'run', config], { encoding: 'utf8', timeout: 45_000 });
    assert.equal(result.status, 1, `exit ${result.status} signal ${result.signal}: ${result.stderr.slice(-500)}`);
    assert.match(result.stderr, /the controller did not start: .*EADDRINUSE/);
  } finally {
    blocker.close();
  }
});

test('controller run exits at once, with the reason, when its MFA key file is malformed', async () => {
  const { freePort } = await import('./support/free-port.ts');
  const pkiDir = join(root, 'pki');
  const certificate = controllerPaths(pkiDir, 'cli-ctrl');
  const keyFile = join(root, 'bad-mfa.key');
  writeFileSync(keyFile, 'not a key\n');
  const config = join(root, 'bad-mfa-key.yml');
  writeFileSync(config, controllerConfigExample({ id: 'cli-ctrl', dataDir: join(root, 'bad-mfa-data'), identity: { cert: certificate.chain, key: certificate.key, ca: pkiPaths(pkiDir).bundle }, webAddress: `127.0.0.1:${await freePort()}`, ctrlAddress: `tls:127.0.0.1:${await freePort()}`, agentSocket: join(root, 'bad-mfa.sock'), totpSecretKeyFile: keyFile }));
  const started = Date.now();
  const result = spawnSync(edgeward, ['controller', 'run', config], { encoding: 'utf8', timeout: 45_000 });
  assert.equal(result.status, 1, `exit ${result.status} signal ${result.signal}: ${result.stderr.slice(-500)}`);
  assert.match(result.stderr, /the controller did not start: the MFA key file .* must hold 64 hex characters/);
  assert.ok(Date.now() - started < 20_000);
});

test('agent commands explain what is wrong when no controller is running', () => {
  const status = run('agent', 'status');
  assert.equal(status.status, 2);
  assert.match(status.stderr, /no running controller found/);
  const socket = run('agent', 'status', '--socket', join(root, 'nothing.sock'));
  assert.equal(socket.status, 1);
  assert.match(socket.stderr, /cannot reach the agent socket/);
  const init = run('agent', 'controller', 'init', '--username', 'admin');
  assert.equal(init.status, 2);
  assert.match(init.stderr, /--password-file is required/);
  const flag = run('agent', 'status', '--colour', 'blue');
  assert.equal(flag.status, 2);
  assert.match(flag.stderr, /unknown flag --colour/);
});

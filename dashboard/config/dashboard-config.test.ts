import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { formatProblems } from '../../common/config/format-problems.ts';
import { dashboardConfigExample } from './dashboard-config-example.ts';
import { readDashboardConfig } from './dashboard-config-file.ts';
import { isLoopbackHost } from './dashboard-config-schema.ts';
import { parseDashboardConfig } from './dashboard-config.ts';

const file = '/etc/edgeward/dashboard.yml';
const parse = (text: string, env: Record<string, string> = {}) => parseDashboardConfig(text, { file, env });
const minimal = ['controllers:', '  - id: ctrl1', '    url: http://127.0.0.1:1280'].join('\n');
const rules = (text: string) => parse(text).problems.map((problem) => `${problem.line ?? '-'} ${problem.severity} ${problem.path} ${problem.rule}`);

describe('dashboard config', () => {
  test('a minimal file gets every default: loopback listen, no login, 1 s polls, 10 minutes of history', () => {
    const { config, problems } = parse(minimal);
    assert.deepEqual(problems, []);
    assert.deepEqual(config, {
      listen: { host: '127.0.0.1', port: 9110 },
      auth: 'loopback-only',
      controllers: [{ id: 'ctrl1', url: 'http://127.0.0.1:1280' }],
      routers: [],
      pollInterval: 1000,
      history: 600_000,
      timeouts: { request: 1500, login: 10_000 },
      session: { ttl: 12 * 3600_000, idleTimeout: 30 * 60_000, maxSessions: 100 },
      loginThrottle: { maxFailuresPerAddress: 10, maxFailures: 40, reservedForKnown: 8, window: 5 * 60_000 },
      events: { shown: 50, backlogBytes: 1024 * 1024, maxLineBytes: 1024 * 1024 },
      runbookBaseUrl: '/runbooks',
      log: { level: 'info' },
    });
    assert.ok(Object.isFrozen(config));
  });

  test('every key, with relative paths resolved against the file and ${VAR} substituted', () => {
    const text = [
      'listen: 0.0.0.0:8443',
      'auth: required',
      'tls: {cert: tls/cert.pem, key: tls/key.pem}',
      'controllers:',
      '  - id: ctrl1',
      '    url: https://ctrl1.example.com:1280/',
      '    eventsFile: /var/lib/edgeward/ctrl1/events.jsonl',
      'routers:',
      '  - {id: r1, name: router1, healthUrl: "https://r1.example.com:8081/health-checks"}',
      'caBundle: pki/ca-bundle.pem',
      'alertsDaemon: {url: "http://127.0.0.1:9105"}',
      'credentials: {username: admin, passwordFile: "${SECRETS}/admin-password"}',
      'pollInterval: 500ms',
      'history: 15m',
      'timeouts: {request: 800ms, login: 5s}',
      'session: {ttl: 8h, idleTimeout: 15m, maxSessions: 20}',
      'events: {shown: 100, backlogBytes: 65536, maxLineBytes: 8192}',
      'loginThrottle: {maxFailuresPerAddress: 5, maxFailures: 20, reservedForKnown: 4, window: 10m}',
      'runbookBaseUrl: https://git.example.com/ops/edgeward/blob/main/docs/runbooks.md',
      'log: {level: debug, file: dashboard.log}',
    ].join('\n');
    const { config, problems } = parse(text, { SECRETS: '/run/secrets' });
    assert.deepEqual(problems, []);
    assert.equal(config!.auth, 'required');
    assert.deepEqual(config!.listen, { host: '0.0.0.0', port: 8443 });
    assert.deepEqual(config!.tls, { cert: '/etc/edgeward/tls/cert.pem', key: '/etc/edgeward/tls/key.pem' });
    assert.equal(config!.controllers[0]!.url, 'https://ctrl1.example.com:1280', 'the trailing slash of an origin is dropped');
    assert.equal(config!.caBundle, '/etc/edgeward/pki/ca-bundle.pem');
    assert.deepEqual(config!.credentials, { username: 'admin', passwordFile: '/run/secrets/admin-password' });
    assert.deepEqual(config!.routers, [{ id: 'r1', name: 'router1', healthUrl: 'https://r1.example.com:8081/health-checks' }]);
    assert.equal(config!.pollInterval, 500);
    assert.deepEqual(config!.session, { ttl: 8 * 3600_000, idleTimeout: 15 * 60_000, maxSessions: 20 });
    assert.equal(config!.log.file, '/etc/edgeward/dashboard.log');
    assert.deepEqual(config!.loginThrottle, { maxFailuresPerAddress: 5, maxFailures: 20, reservedForKnown: 4, window: 10 * 60_000 });
    assert.deepEqual(rules(`loginThrottle: {maxFailuresPerAddress: 50, maxFailures: 20}\n${minimal}`), ['1 error loginThrottle.maxFailuresPerAddress address-within-page']);
  });

  test('the address decides whether a login is asked when auth is not set', () => {
    assert.equal(parse(`listen: 0.0.0.0:9110\ntls: {cert: c.pem, key: k.pem}\n${minimal}`).config!.auth, 'required');
    assert.equal(parse(`listen: "[::1]:9110"\n${minimal}`).config!.auth, 'loopback-only');
    assert.equal(parse(`listen: localhost:0\n${minimal}`).config!.auth, 'loopback-only');
    assert.equal(parse(`listen: 127.0.0.1:0\nauth: required\n${minimal}`).config!.auth, 'required', 'a login can be asked on loopback too');
    assert.deepEqual(parse(`listen: 127.0.0.1:0\n${minimal}`).config!.listen, { host: '127.0.0.1', port: 0 }, 'port 0 takes a free port');
  });

  test('a page reachable from other machines cannot go without a login', () => {
    assert.deepEqual(rules(`listen: 10.0.0.5:9110\nauth: loopback-only\n${minimal}`), ['2 error auth login-required']);
  });

  test('a login on an address other machines reach without tls is an error at auth (or at listen when auth is left out)', () => {
    assert.deepEqual(rules(`listen: 10.0.0.5:9110\nauth: required\n${minimal}`), ['2 error auth login-needs-tls']);
    assert.deepEqual(rules(`listen: 0.0.0.0:9110\n${minimal}`), ['1 error listen login-needs-tls']);
    const problem = parse(`listen: 0.0.0.0:9110\n${minimal}`).problems[0]!;
    assert.match(problem.message, /needs tls/);
    assert.equal(parse(`listen: 0.0.0.0:9110\n${minimal}`).config, undefined, 'the page does not start');
    assert.deepEqual(rules(`listen: 0.0.0.0:9110\nauth: required\ntls: {cert: c.pem, key: k.pem}\n${minimal}`), []);
    assert.deepEqual(rules(`listen: 127.0.0.1:9110\nauth: required\n${minimal}`), [], 'on loopback the password never leaves the machine');
  });

  test('every problem at once, with its line, key path and rule; unknown keys are errors', () => {
    const text = [
      'listen: nowhere',
      'controllers:',
      '  - id: ctrl1',
      '    url: https://ctrl1:1280/health-checks',
      '  - id: ctrl1',
      '    url: ftp://ctrl2:1280',
      '    colour: blue',
      'pollInterval: 5s',
      'session: {ttl: 1h, idleTimeout: 2h}',
      'alertsDaemon: {}',
      'logg: {}',
    ].join('\n');
    assert.deepEqual(rules(text), [
      '- error caBundle required',
      '1 error listen address',
      '4 error controllers[0].url origin',
      '5 error controllers[1].id unique-id',
      '6 error controllers[1].url url',
      '7 error controllers[1].colour unknown-key',
      '8 error pollInterval max',
      '9 error session.idleTimeout idle-within-ttl',
      '10 error alertsDaemon.url required',
      '11 error logg unknown-key',
    ]);
    const printed = formatProblems(parse(text).problems, 'dashboard.yml');
    assert.match(printed, /^dashboard\.yml:8: error: pollInterval: .* \(rule: max\)$/m);
  });

  test('an https URL needs the CA bundle', () => {
    assert.deepEqual(rules('controllers:\n  - {id: ctrl1, url: "https://127.0.0.1:1280"}'), ['- error caBundle required']);
    assert.deepEqual(rules('controllers:\n  - {id: ctrl1, url: "http://127.0.0.1:1280"}\nalertsDaemon: {url: "https://alerts:9105"}'), ['- error caBundle required']);
  });

  test('no controllers, the same URL twice, and two controllers sharing an event file are refused', () => {
    assert.deepEqual(rules('controllers: []'), ['1 error controllers min-items']);
    assert.deepEqual(rules('listen: 127.0.0.1:1'), ['- error controllers required']);
    const text = ['controllers:', '  - {id: a, url: "http://h:1", eventsFile: /e.jsonl}', '  - {id: b, url: "http://h:1", eventsFile: /e.jsonl}'].join('\n');
    assert.deepEqual(rules(text), ['3 error controllers[1].url unique-url', '3 error controllers[1].eventsFile unique-file']);
  });

  test('the example writer makes valid files, and a file is read from disk with its problems', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeward-dashboard-config-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const text = dashboardConfigExample({
      listen: '127.0.0.1:0',
      auth: 'required',
      controllers: [{ id: 'ctrl1', url: 'https://127.0.0.1:1280', eventsFile: join(dir, 'events.jsonl') }],
      routers: [{ id: 'r1', name: 'router1', healthUrl: 'https://127.0.0.1:8081/health-checks' }],
      caBundle: join(dir, 'ca.pem'),
      alertsDaemonUrl: 'http://127.0.0.1:9105',
      credentials: { username: 'admin', passwordFile: join(dir, 'pw') },
      pollInterval: '500ms',
    });
    writeFileSync(join(dir, 'dashboard.yml'), text);
    const read = await readDashboardConfig(join(dir, 'dashboard.yml'));
    assert.deepEqual(read.problems, []);
    assert.equal(read.config!.auth, 'required');
    assert.equal(read.config!.pollInterval, 500);
    assert.equal(read.config!.routers.length, 1);
    const missing = await readDashboardConfig(join(dir, 'nope.yml'));
    assert.equal(missing.config, undefined);
    assert.match(missing.problems[0]!.message, /no such file/);
    assert.throws(() => dashboardConfigExample({ listen: '127.0.0.1:0', controllers: [{ id: 'ctrl1', url: 'https://x:1' }] }), /caBundle/);
  });

  test('loopback addresses', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', 'localhost', 'LOCALHOST', 'status.localhost']) assert.equal(isLoopbackHost(host), true, host);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', '128.0.0.1']) assert.equal(isLoopbackHost(host), false, host);
  });
});

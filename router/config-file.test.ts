import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { checkRouterFiles, readRouterConfig } from './config-file.ts';

function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'edgeward-router-config-'));
  return run(dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

const router = ['v: 3', 'identity:', '  cert: pki/router.cert', '  key: pki/router.key', '  ca: "pem:-----BEGIN CERTIFICATE-----"', 'ctrl:', '  endpoint: tls:${CTRL}:6262', ''].join('\n');

describe('readRouterConfig', () => {
  it('reads a file, resolving relative paths against it and expanding the environment it is given', () =>
    withDir(async (dir) => {
      const file = join(dir, 'router.yml');
      writeFileSync(file, router);
      const { config, problems, file: absolute } = await readRouterConfig(relative(process.cwd(), file), { CTRL: 'ctrl.example.com' });
      assert.equal(absolute, file);
      assert.deepEqual(problems.filter((p) => p.severity === 'error'), []);
      assert.equal(config?.identity.cert, join(dir, 'pki', 'router.cert'));
      assert.equal(config?.edge, undefined);
      assert.equal(config?.ctrl.endpointsFile, join(dir, 'endpoints'));
      assert.deepEqual(config?.ctrl.endpoints, [{ protocol: 'tls', host: 'ctrl.example.com', port: 6262 }]);
    }));

  it('sets TMPDIR, TMP and TEMP to the OS temp dir, as OpenZiti does', () =>
    withDir(async (dir) => {
      const file = join(dir, 'router.yml');
      writeFileSync(file, `${router}trace:\n  path: $TMPDIR/ctrl.trace\n`);
      const { config } = await readRouterConfig(file, { CTRL: 'c', TMPDIR: '/elsewhere' });
      assert.equal(config?.trace?.path, join(tmpdir(), 'ctrl.trace'));
    }));

  it('reports a missing file as a problem instead of throwing', async () => {
    const { config, problems } = await readRouterConfig(join(tmpdir(), 'edgeward-no-such-dir', 'router.yml'), {});
    assert.equal(config, undefined);
    assert.deepEqual(problems, [{ severity: 'error', path: '', rule: 'read', message: 'cannot read the config file: no such file' }]);
  });
});

describe('checkRouterFiles', () => {
  it('reports each missing identity file once, at the key naming it, with what enrollment does about it', () =>
    withDir(async (dir) => {
      const file = join(dir, 'router.yml');
      writeFileSync(file, router);
      writeFileSync(join(dir, 'present.cert'), '');
      const { config, lineOf } = await readRouterConfig(file, { CTRL: 'c' });
      assert.ok(config);
      const warnings = checkRouterFiles(config, { severity: 'warning', lineOf });
      // server_cert/server_key default to cert/key: the same files, reported once; the inline PEM ca is no file.
      assert.deepEqual(warnings, [
        { severity: 'warning', path: 'identity.cert', line: 3, rule: 'file-missing', message: `file "${join(dir, 'pki/router.cert')}" does not exist (enrollment writes it)`, value: join(dir, 'pki/router.cert') },
        { severity: 'warning', path: 'identity.key', line: 4, rule: 'file-missing', message: `file "${join(dir, 'pki/router.key')}" does not exist (enrollment generates it)`, value: join(dir, 'pki/router.key') },
      ]);
      assert.deepEqual(checkRouterFiles(config, { severity: 'error', lineOf }).map((p) => p.severity), ['error', 'error']);
      assert.deepEqual(checkRouterFiles(config, { severity: 'error', lineOf, exists: () => true }), []);
    }));

  it('checks alternate and web identities, and an endpoints file that must stand in for ctrl endpoints', () =>
    withDir(async (dir) => {
      const file = join(dir, 'router.yml');
      writeFileSync(
        file,
        [
          'v: 3',
          'identity: { cert: c.pem, key: k.pem, alt_server_certs: [{ server_cert: alt.pem, server_key: alt.key }] }',
          'ctrl: { endpointsFile: state/endpoints }',
          'web:',
          '  - name: health',
          '    bindPoints: [{ interface: "127.0.0.1:8081", address: "127.0.0.1:8081" }]',
          '    identity: { cert: web.pem, key: k.pem }',
          '    apis: [{ binding: health-checks }]',
        ].join('\n'),
      );
      const { config, lineOf } = await readRouterConfig(file, {});
      assert.ok(config);
      const present = new Set([join(dir, 'c.pem'), join(dir, 'k.pem')]);
      const problems = checkRouterFiles(config, { severity: 'warning', lineOf, exists: (path) => present.has(path) });
      assert.deepEqual(problems.map((p) => [p.path, p.line, p.rule]), [
        ['identity.alt_server_certs[0].server_cert', 2, 'file-missing'],
        ['identity.alt_server_certs[0].server_key', 2, 'file-missing'],
        ['web[0].identity.cert', 7, 'file-missing'],
        ['ctrl.endpointsFile', 3, 'no-controller'],
      ]);
      assert.equal(problems[2]!.message, `file "${join(dir, 'web.pem')}" does not exist`);
      assert.equal(problems[3]!.message, `no controller address: ctrl gives none and endpointsFile "${join(dir, 'state/endpoints')}" does not exist`);
    }));

  it('does not count a controller endpoint that router run would not dial (not tls:)', () =>
    withDir(async (dir) => {
      const file = join(dir, 'router.yml');
      writeFileSync(file, ['v: 3', 'identity: { cert: c.pem, key: k.pem }', 'ctrl:', '  endpoints: [wss:ctrl.example.com:443]'].join('\n'));
      const { config, problems: parsed, lineOf } = await readRouterConfig(file, {});
      assert.ok(config);
      assert.deepEqual(parsed.filter((p) => p.rule === 'ctrl-not-tls').map((p) => [p.path, p.line, p.severity]), [['ctrl.endpoints[0]', 4, 'warning']]);
      const problems = checkRouterFiles(config, { severity: 'warning', lineOf, exists: () => true });
      assert.deepEqual(problems, []);
      const withoutFile = checkRouterFiles(config, { severity: 'warning', lineOf, exists: (path) => path !== join(dir, 'endpoints') });
      assert.deepEqual(withoutFile.map((p) => [p.path, p.line, p.rule, p.message]), [
        ['ctrl.endpointsFile', 3, 'no-controller', `no controller address: ctrl gives no tls: address and endpointsFile "${join(dir, 'endpoints')}" does not exist`],
      ]);
    }));
});

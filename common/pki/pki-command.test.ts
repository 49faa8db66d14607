import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { opensslOk } from './openssl-cli.ts';
import { runPkiCommand } from './pki-command.ts';
import { controllerPaths, pkiPaths } from './pki-directory.ts';
import { fingerprintOf } from './spiffe-id.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(...args: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runPkiCommand(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

async function modeOf(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

describe('pki command', () => {
  let base: string;
  let dir: string;
  before(async () => {
    base = await mkdtemp(join(tmpdir(), 'edgeward-pki-cli-'));
    dir = join(base, 'pki');
  });
  after(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('init creates the PKI, and running it again changes nothing', async () => {
    const first = await run('init', '--dir', dir);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /created PKI for trust domain "edgeward\.local"/);
    const rootCert = await readFile(pkiPaths(dir).rootCert, 'utf8');
    const rootKey = await readFile(pkiPaths(dir).rootKey, 'utf8');

    const second = await run('init', '--dir', dir);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /already exists.*nothing changed/);
    assert.equal(await readFile(pkiPaths(dir).rootCert, 'utf8'), rootCert);
    assert.equal(await readFile(pkiPaths(dir).rootKey, 'utf8'), rootKey);
    for (const key of [pkiPaths(dir).rootKey, pkiPaths(dir).intermediateKey]) assert.equal(await modeOf(key), 0o600, key);
  });

  it('controller issues with default SANs localhost and 127.0.0.1, key 0600', async () => {
    const result = await run('controller', '--dir', dir, '--id', 'ctrl-1');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /spiffe:\/\/edgeward\.local\/controller\/ctrl-1/);
    const paths = controllerPaths(dir, 'ctrl-1');
    assert.equal(await modeOf(paths.key), 0o600);
    const text = opensslOk(['x509', '-noout', '-text', '-in', paths.cert]);
    assert.match(text, /DNS:localhost, IP Address:127\.0\.0\.1, URI:spiffe:\/\/edgeward\.local\/controller\/ctrl-1/);
  });

  it('controller takes repeated --dns and --ip, and --flag=value', async () => {
    const result = await run('controller', `--dir=${dir}`, '--id', 'ctrl-2', '--dns', 'a.test', '--dns', 'b.test', '--ip', '10.0.0.2', '--ip=::1');
    assert.equal(result.code, 0, result.stderr);
    const text = opensslOk(['x509', '-noout', '-text', '-in', controllerPaths(dir, 'ctrl-2').cert]);
    assert.match(text, /DNS:a\.test, DNS:b\.test, IP Address:10\.0\.0\.2, IP Address:0:0:0:0:0:0:0:1,/);
  });

  it('controller refuses to overwrite an existing certificate without --force (exit 1)', async () => {
    const original = await readFile(controllerPaths(dir, 'ctrl-1').cert, 'utf8');
    const refused = await run('controller', '--dir', dir, '--id', 'ctrl-1');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /refusing to overwrite .*--force/);
    assert.equal(await readFile(controllerPaths(dir, 'ctrl-1').cert, 'utf8'), original);
    const forced = await run('controller', '--dir', dir, '--id', 'ctrl-1', '--force');
    assert.equal(forced.code, 0, forced.stderr);
    assert.notEqual(await readFile(controllerPaths(dir, 'ctrl-1').cert, 'utf8'), original);
  });

  it('client writes <prefix>.cert.pem and <prefix>.key.pem that verify for TLS clients', async () => {
    const prefix = join(base, 'alice');
    const result = await run('client', '--dir', dir, '--name', 'Alice', '--out', prefix);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(await modeOf(`${prefix}.key.pem`), 0o600);
    const verified = opensslOk([
      'verify', '-CAfile', pkiPaths(dir).rootCert, '-untrusted', pkiPaths(dir).intermediateCert, '-purpose', 'sslclient', `${prefix}.cert.pem`,
    ]);
    assert.match(verified, /: OK/);
  });

  it('show prints subject, issuer, serial, validity, SANs, SPIFFE id and fingerprint', async () => {
    const certFile = controllerPaths(dir, 'ctrl-2').cert;
    const result = await run('show', certFile);
    assert.equal(result.code, 0, result.stderr);
    const fingerprint = fingerprintOf(await readFile(certFile, 'utf8'));
    for (const line of [
      /^subject: +CN=ctrl-2$/m,
      /^issuer: +CN=edgeward\.local intermediate CA$/m,
      /^serial: +[0-9a-f]{40}$/m,
      /^not before: +\d{4}-\d\d-\d\dT/m,
      /^not after: +\d{4}-\d\d-\d\dT/m,
      /^SANs: +DNS:a\.test, DNS:b\.test, IP:10\.0\.0\.2, IP:::1, URI:spiffe:\/\/edgeward\.local\/controller\/ctrl-2$/m,
      /^SPIFFE id: +spiffe:\/\/edgeward\.local\/controller\/ctrl-2$/m,
      new RegExp(`^fingerprint: +${fingerprint}$`, 'm'),
      /^usage: +serverAuth, clientAuth$/m,
    ]) {
      assert.match(result.stdout, line);
    }
  });

  it('show describes every certificate of a chain, leaf first', async () => {
    const result = await run('show', controllerPaths(dir, 'ctrl-2').chain);
    assert.equal(result.code, 0, result.stderr);
    const subjects = [...result.stdout.matchAll(/^subject: +(.*)$/gm)].map((match) => match[1]);
    assert.deepEqual(subjects, ['CN=ctrl-2', 'CN=edgeward.local intermediate CA']);
  });

  it('names an unknown flag and exits 2 with usage', async () => {
    const result = await run('init', '--dir', dir, '--trust-domian', 'x.test');
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^edgeward pki init: unknown flag --trust-domian \(did you mean --trust-domain\?\)\n/);
    assert.match(result.stderr, /\nRun '\.\/edgeward pki init --help' for usage\.\n$/);
    assert.equal(result.stdout, '');
  });

  it('exits 2 with a clear message for every kind of bad command line', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /missing a subcommand/],
      [['frobnicate'], /unknown subcommand 'frobnicate'/],
      [['init'], /--dir is required/],
      [['init', '--dir'], /--dir needs a value/],
      [['init', '--dir', dir, '--dir', dir], /--dir is given more than once/],
      [['init', '--dir', dir, '--force=yes'], /--force takes true or false, not 'yes'/],
      [['init', '--dir', dir, '--trust-domain', 'Bad_Domain'], /invalid trust domain "Bad_Domain"/],
      [['init', '--dir', dir, 'extra'], /takes no arguments, not 'extra'/],
      [['init', '-d', dir], /unknown flag -d/],
      [['controller', '--dir', dir, '--id', '..'], /invalid controller id "\.\."/],
      [['controller', '--dir', dir, '--id', 'a/b'], /invalid controller id "a\/b"/],
      [['controller', '--dir', dir, '--id', 'c', '--ip', '999.1.1.1'], /invalid IP address "999\.1\.1\.1"/],
      [['controller', '--dir', dir, '--id', 'c', '--dns', 'bad name'], /invalid DNS name "bad name"/],
      [['client', '--dir', dir, '--out', join(base, 'x')], /--name is required/],
      [['show'], /missing <cert\.pem>/],
    ];
    for (const [args, message] of cases) {
      const result = await run(...args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, args.join(' '));
      assert.match(result.stderr, /^edgeward pki( \w+)?: .*\nRun '\.\/edgeward pki( \w+)? --help' for usage\.\n$/);
    }
  });

  it('exits 1 with a message when the operation fails', async () => {
    const missing = await run('show', join(base, 'nope.pem'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read .*nope\.pem: no such file/);
    const notPem = await run('show', pkiPaths(dir).trustDomain);
    assert.equal(notPem.code, 1);
    assert.match(notPem.stderr, /no "BEGIN CERTIFICATE" block/);
    const folder = await run('show', dir);
    assert.equal(folder.code, 1);
    assert.match(folder.stderr, /^error: /);
    const uninitialized = await run('controller', '--dir', join(base, 'empty'), '--id', 'c');
    assert.equal(uninitialized.code, 1);
    assert.match(uninitialized.stderr, /no PKI in .*pki init/);
  });

  it('prints help on --help and exits 0', async () => {
    const general = await run('--help');
    assert.equal(general.code, 0);
    for (const command of ['init', 'controller', 'client', 'show']) assert.match(general.stdout, new RegExp(`edgeward pki ${command} `));
    const specific = await run('controller', '--help');
    assert.equal(specific.code, 0);
    assert.match(specific.stdout, /usage: edgeward pki controller --dir <dir> --id <id>/);
    assert.equal((await run('pki', '--help')).code, 0, 'a leading "pki" word is accepted');
  });
});

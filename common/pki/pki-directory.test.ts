import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { opensslOk } from './openssl-cli.ts';
import { controllerPaths, initPki, issueControllerCertificate, loadIssuer, loadTrustDomain, pkiPaths } from './pki-directory.ts';
import { isPkiError } from './pki-error-assertions.ts';
import { spiffeIdOf } from './spiffe-id.ts';

async function modeOf(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

describe('PKI directory', () => {
  let base: string;
  let counter = 0;
  const freshDir = () => join(base, `pki-${++counter}`);
  before(async () => {
    base = await mkdtemp(join(tmpdir(), 'edgeward-pki-dir-'));
  });
  after(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('lays out root, intermediate, bundle and trust domain with private keys 0600 in 0700 folders', async () => {
    const dir = freshDir();
    const pki = await initPki(dir, { trustDomain: 'example.org' });
    const paths = pkiPaths(dir);
    assert.equal(pki.created, true);
    assert.equal(await readFile(paths.rootCert, 'utf8'), pki.root.certPem);
    assert.equal(await readFile(paths.intermediateKey, 'utf8'), pki.intermediate.keyPem);
    assert.equal(await readFile(paths.bundle, 'utf8'), pki.intermediate.certPem + pki.root.certPem);
    assert.equal(await readFile(paths.trustDomain, 'utf8'), 'example.org\n');
    assert.equal(await modeOf(paths.rootKey), 0o600);
    assert.equal(await modeOf(paths.intermediateKey), 0o600);
    assert.equal(await modeOf(paths.rootCert), 0o644);
    for (const folder of [dir, join(dir, 'root'), join(dir, 'intermediate')]) assert.equal(await modeOf(folder), 0o700, folder);
    assert.match(opensslOk(['verify', '-CAfile', paths.rootCert, paths.intermediateCert]), /OK/);
  });

  it('loads an existing PKI on a second init without touching any file', async () => {
    const dir = freshDir();
    const first = await initPki(dir, { trustDomain: 'example.org' });
    const rootStat = await stat(pkiPaths(dir).rootCert);
    const second = await initPki(dir, {});
    assert.equal(second.created, false);
    assert.equal(second.trustDomain, 'example.org', 'the stored trust domain is used');
    assert.deepEqual(second.root, first.root);
    assert.deepEqual(second.intermediate, first.intermediate);
    assert.equal((await stat(pkiPaths(dir).rootCert)).mtimeMs, rootStat.mtimeMs);
    assert.deepEqual(await loadIssuer(dir), first.intermediate);
    assert.equal(await loadTrustDomain(dir), 'example.org');
  });

  it('refuses to reuse a PKI for another trust domain unless forced, then replaces every CA', async () => {
    const dir = freshDir();
    const first = await initPki(dir, { trustDomain: 'example.org' });
    await assert.rejects(initPki(dir, { trustDomain: 'other.test' }), isPkiError('TRUST_DOMAIN_MISMATCH', /other\.test/));
    const forced = await initPki(dir, { trustDomain: 'other.test', force: true });
    assert.equal(forced.created, true);
    assert.notEqual(forced.root.certPem, first.root.certPem);
    assert.equal(await loadTrustDomain(dir), 'other.test');
    assert.equal(await modeOf(pkiPaths(dir).rootKey), 0o600);
  });

  it('reports a PKI with missing CA files instead of silently replacing part of it', async () => {
    const dir = freshDir();
    await initPki(dir, {});
    await unlink(pkiPaths(dir).intermediateKey);
    await assert.rejects(initPki(dir, {}), isPkiError('INCOMPLETE_PKI', /intermediate[/\\]ca\.key\.pem/));
    await assert.rejects(loadIssuer(dir), isPkiError('INCOMPLETE_PKI'));
  });

  it('restores a deleted bundle but refuses a bundle holding other CAs', async () => {
    const dir = freshDir();
    const pki = await initPki(dir, {});
    await unlink(pkiPaths(dir).bundle);
    await initPki(dir, {});
    assert.equal(await readFile(pkiPaths(dir).bundle, 'utf8'), pki.bundlePem);
    const stranger = await initPki(freshDir(), {});
    await writeFile(pkiPaths(dir).bundle, stranger.bundlePem);
    await assert.rejects(initPki(dir, {}), isPkiError('INCOMPLETE_PKI', /ca-bundle\.pem/));
  });

  it('refuses an intermediate that the root did not sign', async () => {
    const dir = freshDir();
    await initPki(dir, {});
    const other = await initPki(freshDir(), {});
    await writeFile(pkiPaths(dir).intermediateCert, other.intermediate.certPem);
    await writeFile(pkiPaths(dir).intermediateKey, other.intermediate.keyPem);
    await assert.rejects(initPki(dir, {}), isPkiError('INVALID_ISSUER', /not signed by/));
  });

  it('issues a controller certificate into controllers/<id> in the stored trust domain, once unless forced', async () => {
    const dir = freshDir();
    const pki = await initPki(dir, { trustDomain: 'example.org' });
    const issued = await issueControllerCertificate(dir, { id: 'ctrl-1', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const paths = controllerPaths(dir, 'ctrl-1');
    assert.deepEqual(issued.paths, paths);
    assert.equal(await readFile(paths.cert, 'utf8'), issued.certPem);
    assert.equal(await readFile(paths.chain, 'utf8'), issued.certPem + pki.intermediate.certPem);
    assert.equal(await modeOf(paths.key), 0o600);
    assert.equal(await modeOf(paths.dir), 0o700);
    assert.equal(await modeOf(join(dir, 'controllers')), 0o700);
    assert.deepEqual(spiffeIdOf(issued.certPem), { trustDomain: 'example.org', kind: 'controller', id: 'ctrl-1' });
    assert.match(opensslOk(['verify', '-CAfile', pkiPaths(dir).rootCert, '-untrusted', pkiPaths(dir).bundle, paths.cert]), /OK/);

    await assert.rejects(
      issueControllerCertificate(dir, { id: 'ctrl-1', dnsNames: ['localhost'], ipAddresses: [] }),
      isPkiError('ALREADY_EXISTS', /key\.pem.*--force/),
    );
    assert.equal(await readFile(paths.cert, 'utf8'), issued.certPem, 'nothing was overwritten');
    const rotated = await issueControllerCertificate(dir, { id: 'ctrl-1', dnsNames: ['localhost'], ipAddresses: [], force: true });
    assert.equal(await readFile(paths.cert, 'utf8'), rotated.certPem);
    assert.equal(await modeOf(paths.key), 0o600);
  });

  it('refuses ids that would escape the controllers folder, and directories with no PKI', async () => {
    const dir = freshDir();
    await initPki(dir, {});
    await assert.rejects(issueControllerCertificate(dir, { id: '..', dnsNames: ['localhost'], ipAddresses: [] }), isPkiError('INVALID_ARGUMENT'));
    await assert.rejects(issueControllerCertificate(dir, { id: 'a/../../b', dnsNames: ['x'], ipAddresses: [] }), isPkiError('INVALID_ARGUMENT'));
    await assert.rejects(loadIssuer(freshDir()), isPkiError('NOT_INITIALIZED', /pki init/));
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { certificateFingerprint, fingerprintOfPem } from './certificate-fingerprint.ts';
import { CLIENT_EXTENSIONS, OpensslTestPki, type TestCertificate } from './openssl-test-pki.ts';

describe('certificate fingerprint', () => {
  let pki: OpensslTestPki;
  let root: TestCertificate;
  let leaf: TestCertificate;

  before(() => {
    pki = new OpensslTestPki();
    root = pki.selfSigned('Fingerprint Root');
    leaf = pki.issue('fingerprinted', root, CLIENT_EXTENSIONS);
  });
  after(() => pki.dispose());

  it('is the SHA-1 that `openssl x509 -fingerprint -sha1` prints, in lowercase hex without colons', () => {
    const printed = pki.opensslFingerprint(leaf); // "sha1 Fingerprint=AB:CD:..."
    const expected = printed.slice(printed.indexOf('=') + 1).replaceAll(':', '').toLowerCase();
    assert.equal(certificateFingerprint(leaf.der), expected);
    assert.match(expected, /^[0-9a-f]{40}$/);
  });

  it('reads the first certificate of a PEM chain, ignoring text around it', () => {
    const bundle = `subject=CN = fingerprinted\n${leaf.certPem}${root.certPem}`;
    assert.equal(fingerprintOfPem(bundle), certificateFingerprint(leaf.der));
  });

  it('throws a clear error when the PEM holds no certificate', () => {
    assert.throws(() => fingerprintOfPem('hello'), /no "BEGIN CERTIFICATE" block/);
    const keyOnly = '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n';
    assert.throws(() => fingerprintOfPem(keyOnly), /no "BEGIN CERTIFICATE" block/);
  });
});

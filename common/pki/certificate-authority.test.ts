import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../time/clock.ts';
import { createIntermediateCa, createRootCa } from './certificate-authority.ts';
import { createClientCertificate } from './client-certificate.ts';
import { openssl, opensslOk } from './openssl-cli.ts';
import { isPkiError } from './pki-error-assertions.ts';

const hourMs = 60 * 60 * 1000;
const dayMs = 24 * hourMs;

describe('certificate authority', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgeward-ca-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('makes a self-signed root that openssl accepts as a CA with path length 1 and the trust domain URI', async () => {
    const root = await createRootCa({ commonName: 'test root CA', trustDomain: 'example.org' });
    const rootFile = join(dir, 'root.pem');
    await writeFile(rootFile, root.certPem);
    assert.match(opensslOk(['verify', '-CAfile', rootFile, rootFile]), /OK/);
    const text = opensslOk(['x509', '-in', rootFile, '-noout', '-text']);
    assert.match(text, /Basic Constraints: critical\s+CA:TRUE, pathlen:1/);
    assert.match(text, /Key Usage: critical\s+Certificate Sign, CRL Sign/);
    assert.match(text, /URI:spiffe:\/\/example\.org\s/);
    assert.match(text, /Subject: CN ?= ?test root CA/);
    const ski = /Subject Key Identifier:\s+([0-9A-F:]+)/.exec(text)?.[1];
    const aki = /Authority Key Identifier:\s+(?:keyid:)?([0-9A-F:]+)/.exec(text)?.[1];
    assert.ok(ski);
    assert.equal(aki, ski);
  });

  it('stores the key as PKCS#8 "PRIVATE KEY" PEM holding a P-256 key', async () => {
    const root = await createRootCa({ commonName: 'test root CA', trustDomain: 'example.org' });
    assert.match(root.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
    const key = createPrivateKey(root.keyPem);
    assert.equal(key.asymmetricKeyType, 'ec');
    assert.equal(key.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  });

  it('makes an intermediate that chains to the root, with path length 0 and the root key as authority key id', async () => {
    const root = await createRootCa({ commonName: 'test root CA', trustDomain: 'example.org' });
    const intermediate = await createIntermediateCa(root, { commonName: 'test intermediate CA' });
    const rootFile = join(dir, 'root-2.pem');
    const intermediateFile = join(dir, 'intermediate-2.pem');
    await writeFile(rootFile, root.certPem);
    await writeFile(intermediateFile, intermediate.certPem);
    assert.match(opensslOk(['verify', '-CAfile', rootFile, intermediateFile]), /OK/);
    const text = opensslOk(['x509', '-in', intermediateFile, '-noout', '-text']);
    assert.match(text, /CA:TRUE, pathlen:0/);
    assert.match(text, /Certificate Sign, CRL Sign/);
    assert.match(text, /URI:spiffe:\/\/example\.org\s/, 'inherits the trust domain');
    const rootSki = /Subject Key Identifier:\s+([0-9A-F:]+)/.exec(opensslOk(['x509', '-in', rootFile, '-noout', '-text']))?.[1];
    assert.equal(/Authority Key Identifier:\s+(?:keyid:)?([0-9A-F:]+)/.exec(text)?.[1], rootSki);
  });

  it('gives every certificate a distinct positive 20-octet random serial', async () => {
    const serials = await Promise.all(
      [1, 2, 3].map(async () => new X509Certificate((await createRootCa({ commonName: 'r', trustDomain: 'example.org' })).certPem).serialNumber),
    );
    for (const serial of serials) {
      assert.equal(serial.length, 40, serial);
      assert.ok(Number.parseInt(serial[0]!, 16) < 8, `serial ${serial} must be positive`);
    }
    assert.equal(new Set(serials).size, serials.length);
  });

  it('starts validity an hour in the past and keeps an intermediate inside its root', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const root = await createRootCa({ commonName: 'r', trustDomain: 'example.org', validityDays: 30, clock });
    const rootCert = new X509Certificate(root.certPem);
    assert.equal(new Date(rootCert.validFrom).getTime(), clock.now() - hourMs);
    assert.equal(new Date(rootCert.validTo).getTime(), clock.now() + 30 * dayMs);

    clock.advance(dayMs);
    const intermediate = await createIntermediateCa(root, { commonName: 'i', validityDays: 365, clock });
    const intermediateCert = new X509Certificate(intermediate.certPem);
    assert.equal(new Date(intermediateCert.validFrom).getTime(), clock.now() - hourMs);
    assert.equal(intermediateCert.validTo, rootCert.validTo, 'cut to the root expiry');
  });

  it('rejects bad names and validity with INVALID_ARGUMENT', async () => {
    await assert.rejects(createRootCa({ commonName: 'r', trustDomain: 'Not A Domain' }), isPkiError('INVALID_ARGUMENT', /trust domain/));
    await assert.rejects(createRootCa({ commonName: '', trustDomain: 'example.org' }), isPkiError('INVALID_ARGUMENT', /common name/));
    await assert.rejects(createRootCa({ commonName: 'r', trustDomain: 'example.org', validityDays: 0 }), isPkiError('INVALID_ARGUMENT', /validity/));
  });

  it('refuses issuers that are not CAs, whose key does not match, or that have expired', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const root = await createRootCa({ commonName: 'r', trustDomain: 'example.org', validityDays: 10, clock });
    const other = await createRootCa({ commonName: 'o', trustDomain: 'example.org', clock });
    const leaf = await createClientCertificate(root, { commonName: 'leaf', clock });
    await assert.rejects(createIntermediateCa(leaf, { commonName: 'i', clock }), isPkiError('INVALID_ISSUER', /not a CA/));
    const intermediate = await createIntermediateCa(root, { commonName: 'i', clock });
    await assert.rejects(createIntermediateCa(intermediate, { commonName: 'ii', clock }), isPkiError('INVALID_ISSUER', /path length 0/));
    await assert.rejects(
      createIntermediateCa({ certPem: root.certPem, keyPem: other.keyPem }, { commonName: 'i', clock }),
      isPkiError('INVALID_ISSUER', /does not belong/),
    );
    await assert.rejects(createIntermediateCa({ certPem: 'nonsense', keyPem: root.keyPem }, { commonName: 'i', clock }), isPkiError('INVALID_CERTIFICATE'));
    await assert.rejects(createIntermediateCa({ certPem: root.certPem, keyPem: 'nonsense' }, { commonName: 'i', clock }), isPkiError('INVALID_KEY'));
    clock.advance(11 * dayMs);
    await assert.rejects(createIntermediateCa(root, { commonName: 'i', clock }), isPkiError('ISSUER_EXPIRED', /expired/));
  });

  it('defaults the root to ten years of validity', async () => {
    const root = await createRootCa({ commonName: 'r', trustDomain: 'example.org' });
    assert.equal(openssl(['x509', '-noout', '-checkend', String(Math.round(9.9 * 365 * 86400))], root.certPem).status, 0);
    assert.equal(openssl(['x509', '-noout', '-checkend', String(Math.round(10.1 * 365 * 86400))], root.certPem).status, 1);
  });
});

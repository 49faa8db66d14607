import assert from 'node:assert/strict';
import { X509Certificate, webcrypto } from 'node:crypto';
import { test } from 'node:test';
import { ecdsaP256, ecdsaWithSha256, x509 } from '../pki/x509-runtime.ts';
import { commonNameOf, fingerprintOf, normaliseFingerprint, spiffeClaimOf, subjectAltNameEntries, trustDomainsOfBundle, uriNamesOf } from './presented-certificate.ts';
import { parseSpiffeId } from './spiffe-id.ts';

async function selfSigned(name: string, sans: x509.JsonGeneralName[]): Promise<X509Certificate> {
  const keys = (await webcrypto.subtle.generateKey(ecdsaP256, true, ['sign', 'verify'])) as CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    name,
    keys,
    signingAlgorithm: ecdsaWithSha256,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 3_600_000),
    extensions: sans.length > 0 ? [new x509.SubjectAlternativeNameExtension(sans)] : [],
  });
  return new X509Certificate(certificate.toString('pem'));
}

test("Node's subjectAltName text is read entry by entry; a quoted value with a comma cannot forge a second entry", () => {
  assert.deepEqual(subjectAltNameEntries('DNS:a.example, IP Address:127.0.0.1, URI:spiffe://t.example/router/r1'), [
    { type: 'DNS', value: 'a.example' },
    { type: 'IP Address', value: '127.0.0.1' },
    { type: 'URI', value: 'spiffe://t.example/router/r1' },
  ]);
  assert.deepEqual(subjectAltNameEntries('URI:"spiffe://x/controller/c, URI:spiffe://x/router/r"'), [{ type: 'URI', value: 'spiffe://x/controller/c, URI:spiffe://x/router/r' }]);
  assert.deepEqual(subjectAltNameEntries(undefined), []);
  assert.deepEqual(subjectAltNameEntries(''), []);
});

test('a certificate names its holder by one SPIFFE id; none, several or a malformed one are told apart', async () => {
  const one = await selfSigned('CN=c1', [{ type: 'dns', value: 'c1.example' }, { type: 'url', value: 'spiffe://edgeward.test/controller/c1' }]);
  assert.deepEqual(spiffeClaimOf(one), { kind: 'one', id: { trustDomain: 'edgeward.test', kind: 'controller', id: 'c1' } });
  assert.equal(commonNameOf(one), 'c1');
  assert.deepEqual(uriNamesOf(one), ['spiffe://edgeward.test/controller/c1']);
  assert.deepEqual(spiffeClaimOf(await selfSigned('CN=r1', [{ type: 'url', value: 'https://example.test/x' }])), { kind: 'none' });
  const two = await selfSigned('CN=r1', [{ type: 'url', value: 'spiffe://edgeward.test/router/r1' }, { type: 'url', value: 'spiffe://edgeward.test/controller/c1' }]);
  assert.equal(spiffeClaimOf(two).kind, 'unreadable');
  assert.equal(spiffeClaimOf(await selfSigned('CN=r1', [{ type: 'url', value: 'spiffe://edgeward.test/router/r1/extra' }])).kind, 'unreadable');
  assert.equal(commonNameOf(await selfSigned('O=no common name', [])), undefined);
});

test('fingerprints are lowercase SHA-1 hex; operators may write them with colons and in capitals', async () => {
  const certificate = await selfSigned('CN=x', []);
  const fingerprint = fingerprintOf(certificate);
  assert.match(fingerprint, /^[0-9a-f]{40}$/);
  assert.equal(normaliseFingerprint(certificate.fingerprint), fingerprint);
  assert.equal(normaliseFingerprint('not a fingerprint'), undefined);
});

test('a CA bundle declares the trust domains of its certificates', async () => {
  const root = await selfSigned('CN=root', [{ type: 'url', value: 'spiffe://edgeward.test' }]);
  const other = await selfSigned('CN=other', []);
  assert.deepEqual(trustDomainsOfBundle(`${root.toString()}${other.toString()}junk`), ['edgeward.test']);
  assert.deepEqual(trustDomainsOfBundle(other.toString()), []);
});

test('SPIFFE ids parse only in the two-segment form with valid parts', () => {
  assert.deepEqual(parseSpiffeId('spiffe://edgeward.test/router/r1'), { trustDomain: 'edgeward.test', kind: 'router', id: 'r1' });
  for (const bad of ['spiffe://Edgeward.test/router/r1', 'spiffe://edgeward.test/router/..', 'spiffe://edgeward.test/router', 'https://edgeward.test/router/r1', 'spiffe://edgeward.test/router/r 1']) {
    assert.equal(parseSpiffeId(bad), undefined, bad);
  }
});

import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { test } from 'node:test';
import { PkiError } from './pki-error.ts';
import { requestedSubjectAltNames } from './requested-names.ts';
import { ecdsaP256, ecdsaWithSha256, x509 } from './x509-runtime.ts';

async function csr(names: x509.JsonGeneralName[] | undefined): Promise<string> {
  const keys = (await webcrypto.subtle.generateKey(ecdsaP256, true, ['sign', 'verify'])) as CryptoKeyPair;
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name: 'CN=router',
    keys,
    signingAlgorithm: ecdsaWithSha256,
    extensions: names ? [new x509.SubjectAlternativeNameExtension(names)] : [],
  });
  return request.toString('pem');
}

test('the DNS names and IP addresses a CSR asks for are read; other name types are not', async () => {
  const pem = await csr([
    { type: 'dns', value: 'router.example.test' },
    { type: 'ip', value: '127.0.0.1' },
    { type: 'email', value: 'ops@example.test' },
    { type: 'dns', value: 'localhost' },
    { type: 'ip', value: '::1' },
    { type: 'url', value: 'spiffe://x/router/r1' },
  ]);
  const names = requestedSubjectAltNames(pem);
  assert.deepEqual(names.dnsNames, ['router.example.test', 'localhost']);
  assert.equal(names.ipAddresses.length, 2);
  assert.equal(names.ipAddresses[0], '127.0.0.1');
  assert.match(names.ipAddresses[1]!, /^(::1|0:0:0:0:0:0:0:1)$/);
});

test('a CSR without a SAN extension asks for no names; text that is no CSR is an INVALID_CSR error', async () => {
  assert.deepEqual(requestedSubjectAltNames(await csr(undefined)), { dnsNames: [], ipAddresses: [] });
  assert.throws(() => requestedSubjectAltNames('hello'), (error: unknown) => error instanceof PkiError && error.code === 'INVALID_CSR');
});

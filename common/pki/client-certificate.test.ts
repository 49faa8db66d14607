import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createIntermediateCa, createRootCa, type CertificateIssuer } from './certificate-authority.ts';
import { createClientCertificate, signCertificateRequest } from './client-certificate.ts';
import { openssl, opensslOk } from './openssl-cli.ts';
import { isPkiError } from './pki-error-assertions.ts';
import { ManualClock } from '../time/clock.ts';
import { spiffeIdOf } from './spiffe-id.ts';

describe('client certificate and CSR signing', () => {
  let dir: string;
  let intermediate: CertificateIssuer;
  let chainArgs: string[];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgeward-client-'));
    const root = await createRootCa({ commonName: 'test root CA', trustDomain: 'edgeward.local' });
    intermediate = await createIntermediateCa(root, { commonName: 'test intermediate CA' });
    await writeFile(join(dir, 'root.pem'), root.certPem);
    await writeFile(join(dir, 'intermediate.pem'), intermediate.certPem);
    chainArgs = ['-CAfile', join(dir, 'root.pem'), '-untrusted', join(dir, 'intermediate.pem')];
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function verify(certPem: string, purpose: 'sslclient' | 'sslserver'): Promise<number> {
    const file = join(dir, `leaf-${Math.random().toString(36).slice(2)}.pem`);
    await writeFile(file, certPem);
    return openssl(['verify', ...chainArgs, '-purpose', purpose, file]).status;
  }

  /** A P-256 CSR made by openssl, as a router or SDK would make it. */
  async function opensslCsr(name: string, extraArgs: string[] = []): Promise<{ csrPem: string; keyFile: string; csrFile: string }> {
    const keyFile = join(dir, `${name}.key.pem`);
    const csrFile = join(dir, `${name}.csr.pem`);
    opensslOk([
      'req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', keyFile, '-out', csrFile, '-subj', `/CN=${name}`, ...extraArgs,
    ]);
    return { csrPem: await readFile(csrFile, 'utf8'), keyFile, csrFile };
  }

  it('issues a client certificate that openssl accepts for TLS clients only', async () => {
    const issued = await createClientCertificate(intermediate, { commonName: 'alice', spiffeId: 'spiffe://edgeward.local/identity/alice' });
    assert.equal(await verify(issued.certPem, 'sslclient'), 0);
    assert.notEqual(await verify(issued.certPem, 'sslserver'), 0);
    const text = opensslOk(['x509', '-noout', '-text'], issued.certPem);
    assert.match(text, /Subject: CN ?= ?alice\n/);
    assert.match(text, /Extended Key Usage: \n\s+TLS Web Client Authentication\n/);
    assert.deepEqual(spiffeIdOf(issued.certPem), { trustDomain: 'edgeward.local', kind: 'identity', id: 'alice' });
    assert.equal(issued.chainPem, issued.certPem + intermediate.certPem);
  });

  it('keeps a common name with DN syntax as one literal CN', async () => {
    const issued = await createClientCertificate(intermediate, { commonName: 'bob, O=evil "x"' });
    const subject = opensslOk(['x509', '-noout', '-subject', '-nameopt', 'multiline'], issued.certPem);
    assert.equal(subject, 'subject=\n    commonName                = bob, O=evil "x"\n');
  });

  it('signs an openssl CSR for both TLS roles with the names we choose, certifying the CSR key', async () => {
    const { csrPem, keyFile, csrFile } = await opensslCsr('router-7', ['-addext', 'subjectAltName=DNS:evil.example']);
    const signed = await signCertificateRequest(intermediate, csrPem, {
      usage: 'both',
      dnsNames: ['router7.edgeward.test'],
      ipAddresses: ['10.0.0.7'],
      spiffeId: 'spiffe://edgeward.local/router/router-7',
    });
    assert.equal(await verify(signed.certPem, 'sslserver'), 0);
    assert.equal(await verify(signed.certPem, 'sslclient'), 0);
    const text = opensslOk(['x509', '-noout', '-text'], signed.certPem);
    assert.match(text, /Subject: CN ?= ?router-7\n/, 'the CN comes from the CSR when none is given');
    assert.match(text, /DNS:router7\.edgeward\.test, IP Address:10\.0\.0\.7, URI:spiffe:\/\/edgeward\.local\/router\/router-7/);
    assert.doesNotMatch(text, /evil\.example/, 'names the requester asked for are not copied');
    const certKey = opensslOk(['x509', '-noout', '-pubkey'], signed.certPem);
    assert.equal(certKey, opensslOk(['req', '-noout', '-pubkey', '-in', csrFile]));
    assert.equal(certKey, opensslOk(['pkey', '-pubout', '-in', keyFile]));
    assert.equal(signed.chainPem, signed.certPem + intermediate.certPem);
  });

  it('limits a CSR signed for one role to that role, and lets the caller set the CN', async () => {
    const { csrPem } = await opensslCsr('sdk-1');
    const server = await signCertificateRequest(intermediate, csrPem, { usage: 'server', commonName: 'svc', dnsNames: ['svc.test'] });
    assert.equal(await verify(server.certPem, 'sslserver'), 0);
    assert.notEqual(await verify(server.certPem, 'sslclient'), 0);
    assert.match(opensslOk(['x509', '-noout', '-subject'], server.certPem), /CN ?= ?svc/);
    const client = await signCertificateRequest(intermediate, csrPem, { usage: 'client' });
    assert.equal(await verify(client.certPem, 'sslclient'), 0);
    assert.notEqual(await verify(client.certPem, 'sslserver'), 0);
  });

  it('rejects garbage, a tampered signature and a weak key with PkiError', async () => {
    await assert.rejects(signCertificateRequest(intermediate, 'not a csr', { usage: 'client' }), isPkiError('INVALID_CSR'));
    const armoredGarbage = '-----BEGIN CERTIFICATE REQUEST-----\nZ2FyYmFnZSBpbiwgZ2FyYmFnZSBvdXQ=\n-----END CERTIFICATE REQUEST-----\n';
    await assert.rejects(signCertificateRequest(intermediate, armoredGarbage, { usage: 'client' }), isPkiError('INVALID_CSR', /PKCS#10/));

    const { csrFile } = await opensslCsr('tampered');
    const base64 = (await readFile(csrFile, 'utf8')).replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
    const bytes = Buffer.from(base64, 'base64');
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0x01; // flip a bit of the signature's last integer
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${bytes.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    await assert.rejects(signCertificateRequest(intermediate, tampered, { usage: 'client' }), isPkiError('CSR_SIGNATURE_INVALID'));

    const weakCsr = opensslOk(['req', '-new', '-newkey', 'rsa:1024', '-nodes', '-keyout', join(dir, 'weak.key'), '-subj', '/CN=weak']);
    await assert.rejects(signCertificateRequest(intermediate, weakCsr, { usage: 'client' }), isPkiError('UNSUPPORTED_KEY', /RSA 1024/));
  });

  it('rejects bad options before signing', async () => {
    const { csrPem } = await opensslCsr('options');
    const usage = 'everything' as unknown as 'both';
    await assert.rejects(signCertificateRequest(intermediate, csrPem, { usage }), isPkiError('INVALID_ARGUMENT', /usage/));
    await assert.rejects(signCertificateRequest(intermediate, csrPem, { usage: 'server', ipAddresses: ['nope'] }), isPkiError('INVALID_ARGUMENT'));
    await assert.rejects(
      signCertificateRequest(intermediate, csrPem, { usage: 'client', spiffeId: 'spiffe://other.test/router/x' }),
      isPkiError('TRUST_DOMAIN_MISMATCH'),
    );
    await assert.rejects(
      signCertificateRequest(intermediate, csrPem, { usage: 'client', spiffeId: 'https://edgeward.local/x' }),
      isPkiError('INVALID_ARGUMENT', /SPIFFE id/),
    );
  });
  it('an issuer used once is still judged on every use: another issuer signs as itself, an expired one and a foreign key are refused', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const { csrPem } = await opensslCsr('issuers');
    const first = await createRootCa({ commonName: 'first CA', trustDomain: 'first.test', validityDays: 10, clock });
    const second = await createRootCa({ commonName: 'second CA', trustDomain: 'second.test', clock });
    const signed = async (issuer: CertificateIssuer, spiffeId: string) => {
      const { certPem, chainPem } = await signCertificateRequest(issuer, csrPem, { usage: 'client', commonName: 'r1', spiffeId, clock });
      const certificate = new X509Certificate(certPem);
      return { certificate, chainPem };
    };
    const fromFirst = await signed(first, 'spiffe://first.test/router/r1');
    const fromSecond = await signed(second, 'spiffe://second.test/router/r1');
    assert.equal(fromFirst.certificate.issuer, 'CN=first CA');
    assert.ok(fromFirst.certificate.verify(new X509Certificate(first.certPem).publicKey));
    assert.equal(fromSecond.certificate.issuer, 'CN=second CA');
    assert.ok(fromSecond.certificate.verify(new X509Certificate(second.certPem).publicKey));
    assert.ok(fromSecond.chainPem.endsWith(new X509Certificate(second.certPem).toString()), 'the chain ends with the issuer that signed');
    // Each issuer's own trust domain, not the one asked before.
    await assert.rejects(signed(second, 'spiffe://first.test/router/r1'), isPkiError('TRUST_DOMAIN_MISMATCH', /second\.test/));
    await assert.rejects(signCertificateRequest({ certPem: first.certPem, keyPem: second.keyPem }, csrPem, { usage: 'client', clock }), isPkiError('INVALID_ISSUER', /does not belong/));
    clock.advance(11 * 24 * 60 * 60 * 1000);
    await assert.rejects(signCertificateRequest(first, csrPem, { usage: 'client', clock }), isPkiError('ISSUER_EXPIRED'));
    await signed(second, 'spiffe://second.test/router/r1');
  });
});

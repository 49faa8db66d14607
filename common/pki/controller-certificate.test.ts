import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as tls from 'node:tls';
import { createIntermediateCa, createRootCa, type CertificateIssuer } from './certificate-authority.ts';
import { createControllerCertificate, type IssuedCertificate } from './controller-certificate.ts';
import { openssl, opensslOk } from './openssl-cli.ts';
import { isPkiError } from './pki-error-assertions.ts';

interface TestPki {
  root: CertificateIssuer;
  intermediate: CertificateIssuer;
  bundlePem: string;
}

// Same names and trust domain in both PKIs: only the keys differ, as with two operators' default setups.
async function makePki(): Promise<TestPki> {
  const root = await createRootCa({ commonName: 'edgeward.local root CA', trustDomain: 'edgeward.local' });
  const intermediate = await createIntermediateCa(root, { commonName: 'edgeward.local intermediate CA' });
  return { root, intermediate, bundlePem: intermediate.certPem + root.certPem };
}

function controller(pki: TestPki, id: string): Promise<IssuedCertificate> {
  return createControllerCertificate(pki.intermediate, {
    id,
    trustDomain: 'edgeward.local',
    dnsNames: ['localhost', `${id}.edgeward.test`],
    ipAddresses: ['127.0.0.1', '::1'],
  });
}

interface TlsIdentity {
  key: string;
  cert: string;
  ca: string;
}

interface HandshakeOutcome {
  /** The client's CN, when the server accepted it. */
  serverPeer: string | undefined;
  /** Why the server's certificate check failed (only observable with `enforce: false`). */
  serverVerifyError: string | undefined;
  serverError: Error | undefined;
  clientReceived: string;
  clientError: Error | undefined;
}

/**
 * One mutual-TLS exchange on 127.0.0.1: the server answers "hello" to a client it accepts. With `enforce: false`
 * the server completes the handshake regardless, so a test can read why it would have refused the client.
 */
async function mutualTls(server: TlsIdentity, client: TlsIdentity, enforce = true): Promise<HandshakeOutcome> {
  const tlsServer = tls.createServer({ ...server, requestCert: true, rejectUnauthorized: enforce });
  type ServerSide = Pick<HandshakeOutcome, 'serverPeer' | 'serverVerifyError' | 'serverError'>;
  const serverSide = new Promise<ServerSide>((resolve) => {
    tlsServer.on('secureConnection', (socket) => {
      const serverPeer = socket.authorized ? String(socket.getPeerCertificate().subject.CN) : undefined;
      resolve({ serverPeer, serverVerifyError: socket.authorizationError?.toString(), serverError: undefined });
      socket.end(socket.authorized ? 'hello' : '');
    });
    tlsServer.on('tlsClientError', (error) => resolve({ serverPeer: undefined, serverVerifyError: undefined, serverError: error }));
  });
  await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = tlsServer.address() as AddressInfo;
    const clientSide = new Promise<Pick<HandshakeOutcome, 'clientReceived' | 'clientError'>>((resolve) => {
      let received = '';
      let clientError: Error | undefined;
      const socket = tls.connect({ host: '127.0.0.1', port, ...client, rejectUnauthorized: true });
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (received += chunk));
      socket.on('error', (error) => (clientError = error));
      socket.on('close', () => resolve({ clientReceived: received, clientError }));
    });
    const [serverResult, clientResult] = await Promise.all([serverSide, clientSide]);
    return { ...serverResult, ...clientResult };
  } finally {
    await new Promise((resolve) => tlsServer.close(resolve));
  }
}

function identity(pki: TestPki, issued: IssuedCertificate): TlsIdentity {
  return { key: issued.keyPem, cert: issued.chainPem, ca: pki.bundlePem };
}

describe('controller certificate', () => {
  let dir: string;
  let pki: TestPki;
  let otherPki: TestPki;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgeward-controller-'));
    [pki, otherPki] = await Promise.all([makePki(), makePki()]);
    await writeFile(join(dir, 'root.pem'), pki.root.certPem);
    await writeFile(join(dir, 'intermediate.pem'), pki.intermediate.certPem);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('verifies with openssl from root through intermediate, for both the TLS server and TLS client purpose', async () => {
    const issued = await controller(pki, 'ctrl-1');
    const leaf = join(dir, 'ctrl-1.pem');
    await writeFile(leaf, issued.certPem);
    const chainArgs = ['-CAfile', join(dir, 'root.pem'), '-untrusted', join(dir, 'intermediate.pem')];
    assert.match(opensslOk(['verify', ...chainArgs, leaf]), /: OK/);
    assert.match(opensslOk(['verify', ...chainArgs, '-purpose', 'sslserver', leaf]), /: OK/);
    assert.match(opensslOk(['verify', ...chainArgs, '-purpose', 'sslclient', leaf]), /: OK/);
    assert.notEqual(openssl(['verify', '-CAfile', join(dir, 'root.pem'), leaf]).status, 0, 'needs the intermediate');
  });

  it('names the controller by CN, DNS, IP and SPIFFE URI SANs', async () => {
    const issued = await controller(pki, 'ctrl-2');
    const text = opensslOk(['x509', '-noout', '-text'], issued.certPem);
    assert.match(text, /Subject: CN ?= ?ctrl-2\n/);
    assert.match(text, /DNS:localhost, DNS:ctrl-2\.edgeward\.test, IP Address:127\.0\.0\.1, IP Address:0:0:0:0:0:0:0:1, URI:spiffe:\/\/edgeward\.local\/controller\/ctrl-2/);
    assert.match(text, /Extended Key Usage: \n\s+TLS Web Server Authentication, TLS Web Client Authentication/);
    assert.match(text, /Key Usage: critical\n\s+Digital Signature\n/);
    assert.match(text, /Basic Constraints: critical\n\s+CA:FALSE/);
  });

  it('puts the leaf then the intermediate in the chain', async () => {
    const issued = await controller(pki, 'ctrl-3');
    assert.equal(issued.chainPem, issued.certPem + pki.intermediate.certPem);
    assert.match(issued.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
  });

  it('lets two controllers of one PKI complete a mutual-TLS handshake', async () => {
    const [server, client] = await Promise.all([controller(pki, 'ctrl-a'), controller(pki, 'ctrl-b')]);
    const outcome = await mutualTls(identity(pki, server), identity(pki, client));
    assert.equal(outcome.serverError, undefined);
    assert.equal(outcome.clientError, undefined);
    assert.equal(outcome.serverPeer, 'ctrl-b');
    assert.equal(outcome.serverVerifyError, undefined);
    assert.equal(outcome.clientReceived, 'hello');
  });

  it('makes the server reject a client certificate from another PKI', async () => {
    const [server, stranger] = await Promise.all([controller(pki, 'ctrl-a'), controller(otherPki, 'ctrl-x')]);
    const outcome = await mutualTls(identity(pki, server), { ...identity(otherPki, stranger), ca: pki.bundlePem });
    assert.equal(outcome.serverPeer, undefined);
    assert.ok(outcome.serverError, 'the server drops the connection');
    assert.equal(outcome.clientReceived, '');
    const diagnosed = await mutualTls(identity(pki, server), { ...identity(otherPki, stranger), ca: pki.bundlePem }, false);
    assert.equal(diagnosed.serverPeer, undefined);
    assert.match(String(diagnosed.serverVerifyError), /UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY|CERT_SIGNATURE_FAILURE/);
  });

  it('makes the client reject a server certificate from another PKI', async () => {
    const [stranger, client] = await Promise.all([controller(otherPki, 'ctrl-x'), controller(pki, 'ctrl-b')]);
    const outcome = await mutualTls({ ...identity(otherPki, stranger), ca: pki.bundlePem }, identity(pki, client));
    assert.equal(outcome.serverPeer, undefined);
    assert.ok(outcome.clientError, 'the client refuses the server');
    assert.match(String((outcome.clientError as NodeJS.ErrnoException).code), /UNABLE_TO_VERIFY|CERT_SIGNATURE_FAILURE|UNABLE_TO_GET_ISSUER/);
  });

  it('rejects a controller with no DNS name or IP address, bad names, or another trust domain', async () => {
    const base = { id: 'c', trustDomain: 'edgeward.local', dnsNames: ['localhost'], ipAddresses: [] };
    await assert.rejects(createControllerCertificate(pki.intermediate, { ...base, dnsNames: [] }), isPkiError('INVALID_ARGUMENT', /at least one DNS name or IP/));
    await assert.rejects(createControllerCertificate(pki.intermediate, { ...base, id: '../x' }), isPkiError('INVALID_ARGUMENT', /controller id/));
    await assert.rejects(createControllerCertificate(pki.intermediate, { ...base, ipAddresses: ['300.1.1.1'] }), isPkiError('INVALID_ARGUMENT', /IP address/));
    await assert.rejects(createControllerCertificate(pki.intermediate, { ...base, dnsNames: ['bad_name'] }), isPkiError('INVALID_ARGUMENT', /DNS name/));
    await assert.rejects(createControllerCertificate(pki.intermediate, { ...base, trustDomain: 'other.test' }), isPkiError('TRUST_DOMAIN_MISMATCH'));
  });
});

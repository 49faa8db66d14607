import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { webcrypto } from 'node:crypto';
import { ManualClock } from '../../common/time/clock.ts';
import { createIntermediateCa, createRootCa, type CertificateIssuer } from '../../common/pki/certificate-authority.ts';
import { x509 } from '../../common/pki/x509-runtime.ts';
import { type Identity } from '../model/entities.ts';
import { openTestModel } from '../model/model-test-harness.ts';
import { ApiSessionCertificates, apiSessionCertificateLifetimeMs } from './api-session-certificates.ts';
import { ApiSessionService } from './api-session-service.ts';
import { ModelWriter } from './model-writer.ts';

let signer: CertificateIssuer;
let csrPem: string;

before(async () => {
  const root = await createRootCa({ commonName: 'root', trustDomain: 'unit.test' });
  signer = await createIntermediateCa(root, { commonName: 'edge signer' });
  const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  csrPem = (await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=client', keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } })).toString('pem');
});

async function setup() {
  const { store, node, close } = await openTestModel({ prefix: 'edgeward-session-certs-' });
  const clock = new ManualClock(Date.now());
  const writer = new ModelWriter(node);
  const sessions = new ApiSessionService(store, writer, clock, { timeoutMs: 30 * 60_000, activityBatchSize: 250 });
  const certificates = new ApiSessionCertificates(store, writer, clock, { signer, caBundlePem: signer.certPem });
  const at = new Date(clock.now()).toISOString();
  const identity: Identity = {
    id: 'ident-1', createdAt: at, updatedAt: at, tags: {}, name: 'grace', typeId: 'Default', isAdmin: false, isDefaultAdmin: false,
    authPolicyId: 'default', externalId: null, roleAttributes: [], disabledAt: null, disabledUntil: null,
  };
  await writer.write({ type: 'identity.create', identity });
  const open = async () => (await sessions.create({ identity, authenticatorId: 'auth-1', authMethod: 'password', ipAddress: '127.0.0.1', configTypes: [], authQueries: [], isMfaRequired: false })).session;
  return { clock, sessions, certificates, open, close };
}

test('a certificate is found by fingerprint, as its session and identity, only while the session lives', async () => {
  const { sessions, certificates, open, close } = await setup();
  try {
    const session = await open();
    const { certificate } = await certificates.create(session, csrPem);
    assert.deepEqual(certificates.findByFingerprint(certificate.fingerprint.toUpperCase()), { identityId: 'ident-1', apiSessionId: session.id, certificate });
    assert.deepEqual(certificates.list(session), [certificate]);
    await sessions.end([session.id], 'logout');
    assert.equal(certificates.findByFingerprint(certificate.fingerprint), undefined, 'ended with its session');
  } finally {
    await close();
  }
});

test('a deleted or expired certificate no longer proves anything', async () => {
  const { clock, certificates, open, close } = await setup();
  try {
    const session = await open();
    const first = (await certificates.create(session, csrPem)).certificate;
    const second = (await certificates.create(session, csrPem)).certificate;
    await certificates.delete(session, first.id);
    assert.equal(certificates.findByFingerprint(first.fingerprint), undefined);
    assert.equal(certificates.findByFingerprint(second.fingerprint)?.apiSessionId, session.id);
    clock.advance(apiSessionCertificateLifetimeMs + 1000);
    assert.equal(certificates.findByFingerprint(second.fingerprint), undefined, 'past its 12 hours');
    assert.deepEqual(certificates.list(session), []);
  } finally {
    await close();
  }
});

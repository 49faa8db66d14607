import assert from 'node:assert/strict';
import { webcrypto, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openTestModel } from '../model/model-test-harness.ts';
import { decodeJwt } from 'jose';
import { ManualClock } from '../../common/time/clock.ts';
import { fingerprintOfPem } from '../auth/cert/certificate-fingerprint.ts';
import { controllerPaths, initPki, issueControllerCertificate, loadIssuer } from '../../common/pki/pki-directory.ts';
import { ecdsaP256, ecdsaWithSha256, x509 } from '../../common/pki/x509-runtime.ts';
import { EdgeError } from './edge-error.ts';
import { EdgeRouterService, type RouterEnrollmentSettings } from './edge-router-service.ts';
import { ModelWriter } from './model-writer.ts';

let root: string;
let settings: RouterEnrollmentSettings;

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'edgeward-router-service-'));
  const pki = join(root, 'pki');
  await initPki(pki, { trustDomain: 'edgeward.test' });
  await issueControllerCertificate(pki, { id: 'c1', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  settings = {
    signer: await loadIssuer(pki),
    jwtKey: { keyPem: readFileSync(controllerPaths(pki, 'c1').key, 'utf8') },
    issuer: 'https://ctrl.example.test:1280',
    controllers: ['https://ctrl.example.test:1280'],
    controlAddresses: () => ['tls:ctrl1.example.test:6262', 'tls:ctrl2.example.test:6262'],
    durationMs: 60 * 60_000,
    caBundlePem: 'the bundle',
  };
});
// The harness closes the models first: its end-of-file hook was registered when it was imported.
after(() => rmSync(root, { recursive: true, force: true }));

async function service(overrides: Partial<RouterEnrollmentSettings> = {}) {
  const { store, node } = await openTestModel({ prefix: 'model-', parentDir: root });
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  return { clock, routers: new EdgeRouterService(store, new ModelWriter(node), clock, { ...settings, ...overrides }) };
}

const settingsOf = (name: string) => ({ name, roleAttributes: [], isTunnelerEnabled: false, cost: 0, noTraversal: false, disabled: false, appData: {}, tags: {} });

async function csr(names: x509.JsonGeneralName[] = []): Promise<string> {
  const keys = (await webcrypto.subtle.generateKey(ecdsaP256, true, ['sign', 'verify'])) as CryptoKeyPair;
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name: 'CN=asked',
    keys,
    signingAlgorithm: ecdsaWithSha256,
    extensions: names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : [],
  });
  return request.toString('pem');
}

const invalidToken = (reason: RegExp) => (error: unknown) => error instanceof EdgeError && error.code === 'INVALID_ENROLLMENT_TOKEN' && reason.test((error.cause as { reason: string }).reason);

test('a new router has an erott enrollment whose JWT names it, its token and the cluster, expiring after the duration', async () => {
  const { routers, clock } = await service();
  const { id } = await routers.create(settingsOf('r'));
  const router = routers.get(id);
  const claims = decodeJwt(router.enrollmentJwt!);
  assert.equal(claims.sub, id);
  assert.equal(claims.jti, router.enrollmentToken);
  assert.equal(claims.em, 'erott');
  assert.equal(claims.iss, 'https://ctrl.example.test:1280');
  assert.deepEqual(claims.ctrls, ['https://ctrl.example.test:1280']);
  assert.deepEqual(claims.ctrlAddresses, ['tls:ctrl1.example.test:6262', 'tls:ctrl2.example.test:6262']);
  assert.equal(claims.exp, Math.floor(clock.now() / 1000) + 3600);
  assert.equal(router.enrollmentExpiresAt, new Date(clock.now() + 3600_000).toISOString());
  assert.equal(router.isVerified, false);
});

test('enrolling signs both CSRs for the router id, grants the requested names on the server certificate only, once', async () => {
  const { routers } = await service();
  const { id } = await routers.create(settingsOf('r'));
  const token = routers.get(id).enrollmentToken!;
  const certs = await routers.enroll(token, { certCsr: await csr([{ type: 'dns', value: 'not-for-client.example' }]), serverCertCsr: await csr([{ type: 'dns', value: 'edge.example.test' }, { type: 'ip', value: '10.0.0.5' }]) });
  const client = new X509Certificate(certs.cert);
  const server = new X509Certificate(certs.serverCert);
  assert.equal(client.subject, `CN=${id}`);
  assert.equal(server.subject, `CN=${id}`);
  assert.equal(client.subjectAltName, `URI:spiffe://edgeward.test/router/${id}`, 'the client certificate carries only its router SPIFFE id');
  assert.equal(server.subjectAltName, `DNS:edge.example.test, IP Address:10.0.0.5, URI:spiffe://edgeward.test/router/${id}`);
  assert.equal(certs.ca, 'the bundle');
  const enrolled = routers.get(id);
  assert.equal(enrolled.fingerprint, fingerprintOfPem(certs.cert));
  assert.equal(enrolled.enrollmentToken, null);
  await assert.rejects(routers.enroll(token, { certCsr: await csr(), serverCertCsr: await csr() }), invalidToken(/unknown or already used/));

  await routers.reEnroll(id);
  const reopened = routers.get(id);
  assert.equal(reopened.fingerprint, null);
  assert.notEqual(reopened.enrollmentToken, token);
});

test('an expired token is refused and stays unused; a bad server name is a CSR error naming serverCertCsr', async () => {
  const { routers, clock } = await service();
  const { id } = await routers.create(settingsOf('r'));
  const token = routers.get(id).enrollmentToken!;
  await assert.rejects(
    routers.enroll(token, { certCsr: await csr(), serverCertCsr: await csr([{ type: 'dns', value: 'bad_name!' }]) }),
    (error: unknown) => error instanceof EdgeError && error.code === 'COULD_NOT_PROCESS_CSR' && (error.cause as { field: string }).field === 'serverCertCsr',
  );
  clock.advance(3600_000);
  await assert.rejects(routers.enroll(token, { certCsr: await csr(), serverCertCsr: await csr() }), invalidToken(/expired/));
  assert.equal(routers.get(id).enrollmentToken, token);
});

test('16 routers enrolling at once all get their own certificates, each signed by the enrollment CA, and each token works once', async () => {
  const { routers } = await service();
  const ids = await Promise.all(Array.from({ length: 16 }, (_, i) => routers.create(settingsOf(`r${i}`)).then((created) => created.id)));
  const tokens = ids.map((id) => routers.get(id).enrollmentToken!);
  const requests = await Promise.all(ids.map(async (_, i) => ({ certCsr: await csr(), serverCertCsr: await csr([{ type: 'dns', value: `r${i}.routers.example.test` }]) })));
  const issued = await Promise.all(tokens.map((token, i) => routers.enroll(token, requests[i]!)));
  const ca = new X509Certificate(settings.signer!.certPem);
  const serials = new Set<string>();
  for (const [i, certs] of issued.entries()) {
    const client = new X509Certificate(certs.cert);
    const server = new X509Certificate(certs.serverCert);
    assert.equal(client.subject, `CN=${ids[i]}`);
    assert.ok(client.verify(ca.publicKey) && server.verify(ca.publicKey), 'signed by the enrollment CA');
    assert.equal(server.subjectAltName, `DNS:r${i}.routers.example.test, URI:spiffe://edgeward.test/router/${ids[i]}`);
    assert.equal(routers.get(ids[i]!).fingerprint, fingerprintOfPem(certs.cert));
    serials.add(client.serialNumber).add(server.serialNumber);
  }
  assert.equal(serials.size, 32, 'every certificate has its own serial');
  assert.equal(new Set(ids.map((id) => routers.get(id).fingerprint)).size, 16);
  const again = await Promise.allSettled(tokens.map((token, i) => routers.enroll(token, requests[i]!)));
  assert.ok(again.every((outcome) => outcome.status === 'rejected' && invalidToken(/unknown or already used/)(outcome.reason)));
});

test('two routers asking at once for the same server name: one gets it, the other is refused, in log order', async () => {
  const { routers } = await service();
  const ids = await Promise.all(['a', 'b'].map((name) => routers.create(settingsOf(name)).then((created) => created.id)));
  const asked = [{ type: 'dns', value: 'shared.routers.example.test' }] as x509.JsonGeneralName[];
  const outcomes = await Promise.allSettled(ids.map(async (id) => routers.enroll(routers.get(id).enrollmentToken!, { certCsr: await csr(), serverCertCsr: await csr(asked) })));
  assert.deepEqual(outcomes.map((outcome) => outcome.status).sort(), ['fulfilled', 'rejected']);
  const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
  assert.ok(refused.reason instanceof EdgeError && refused.reason.code === 'COULD_NOT_PROCESS_CSR');
  assert.equal(ids.filter((id) => routers.get(id).isVerified).length, 1);
});

test('without an enrollment CA a router cannot be created: there would be no way to enroll it', async () => {
  const { routers } = await service({ signer: undefined });
  await assert.rejects(routers.create(settingsOf('r')), (error: unknown) => error instanceof EdgeError && error.code === 'COULD_NOT_VALIDATE');
  assert.deepEqual(routers.list(), []);
});

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fingerprintOf } from '../../common/certificates/presented-certificate.ts';
import { createClientCertificate } from '../../common/pki/client-certificate.ts';
import { createControllerCertificate } from '../../common/pki/controller-certificate.ts';
import { initPki, type Pki } from '../../common/pki/pki-directory.ts';
import { controllerTrustOf, describeControllerTrust, verifyControllerCertificate } from './controller-identity.ts';

let dir: string;
let pki: Pki;
let controller: X509Certificate;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgeward-ctrl-identity-'));
  pki = await initPki(dir, { trustDomain: 'edgeward.test' });
  const issued = await createControllerCertificate(pki.intermediate, { id: 'ctrl-1', trustDomain: 'edgeward.test', dnsNames: ['ctrl1.example.test'], ipAddresses: [] });
  controller = new X509Certificate(issued.certPem);
});
after(() => rm(dir, { recursive: true, force: true }));

test("a controller certificate of the CA bundle's trust domain is a controller, named by its SPIFFE id", () => {
  const trust = controllerTrustOf(pki.bundlePem);
  assert.deepEqual(trust.trustDomains, ['edgeward.test']);
  assert.deepEqual(verifyControllerCertificate(controller, trust), { ok: true, controllerId: 'ctrl-1' });
  assert.deepEqual(describeControllerTrust(trust), { rule: 'controller SPIFFE id', trustDomains: ['edgeward.test'] });
});

test('a router or identity certificate of the same CA, a controller of another trust domain, or no certificate is refused', async () => {
  const trust = controllerTrustOf(pki.bundlePem);
  const router = new X509Certificate((await createClientCertificate(pki.intermediate, { commonName: 'r1', spiffeId: 'spiffe://edgeward.test/router/r1' })).certPem);
  const identity = new X509Certificate((await createClientCertificate(pki.intermediate, { commonName: 'alice' })).certPem);
  const verdicts = [
    verifyControllerCertificate(router, trust),
    verifyControllerCertificate(identity, trust),
    verifyControllerCertificate(controller, { trustDomains: ['other.test'], pinnedFingerprints: [] }),
    verifyControllerCertificate(undefined, trust),
  ];
  assert.deepEqual(
    verdicts.map((verdict) => (verdict.ok ? 'ok' : verdict.reason)),
    [
      "its certificate is a router's (spiffe://edgeward.test/router/r1), not a controller's",
      "its certificate (common name alice) carries no SPIFFE id, so it is not a controller's",
      'its controller certificate is of trust domain "edgeward.test", not this router\'s (other.test)',
      'it presented no certificate',
    ],
  );
  // A bundle that declares no trust domain takes a controller SPIFFE id of any.
  assert.equal(verifyControllerCertificate(controller, { trustDomains: [], pinnedFingerprints: [] }).ok, true);
});

test('pinned fingerprints replace the SPIFFE rule: only those certificates are controllers', async () => {
  const router = new X509Certificate((await createClientCertificate(pki.intermediate, { commonName: 'r1' })).certPem);
  const pinnedRouter = controllerTrustOf(pki.bundlePem, [fingerprintOf(router)]);
  assert.deepEqual(verifyControllerCertificate(router, pinnedRouter), { ok: true, controllerId: undefined });
  const verdict = verifyControllerCertificate(controller, pinnedRouter);
  assert.equal(verdict.ok, false);
  assert.match(verdict.ok ? '' : verdict.reason, /^its certificate \(fingerprint [0-9a-f]{40}, common name ctrl-1\) is not one of ctrl\.controllerFingerprints$/);
  assert.deepEqual(verifyControllerCertificate(controller, controllerTrustOf(pki.bundlePem, [fingerprintOf(controller)])), { ok: true, controllerId: 'ctrl-1' });
});

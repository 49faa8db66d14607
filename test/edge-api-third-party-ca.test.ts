// Third-party CAs: registration, proof of possession, and method=cert login (with auto-enrollment) by certificates
// they sign, against a real controller process over HTTPS; the CAs and clients are made with the openssl CLI and
// the logins are `curl --cert`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { assertApiError, CertAuthClient } from './support/cert-auth-client.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { caExtensions, type CertFiles } from './support/openssl-workbench.ts';

let controller: ControllerFixture;
let kit: CertAuthClient;
before(async () => {
  controller = await ControllerFixture.create();
  kit = await CertAuthClient.create(controller);
});
after(async () => controller?.dispose());

function caBody(name: string, certPem: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, certPem, isAutoCaEnrollmentEnabled: true, isOttCaEnrollmentEnabled: false, isAuthEnabled: true, identityRoles: [], ...overrides };
}

/** A new openssl root CA registered (and, unless told otherwise, verified) on the controller. */
async function registeredCa(name: string, overrides: Record<string, unknown> = {}, verify = true): Promise<{ ca: any; files: CertFiles }> {
  const files = await kit.workbench.rootCa(name, `${name} Root`);
  const ca = await kit.createCa(caBody(name, files.certPem, overrides));
  if (verify) await kit.proveCa(ca, files, `${name}-proof`);
  return { ca, files };
}

test('POST /cas registers a CA: the detail has its fingerprint, isVerified false, a verification token and a verify link', async () => {
  const files = await kit.workbench.rootCa('detail-ca', 'Detail Root');
  const created = await controller.http.post(kit.mgmt('/cas'), {
    headers: kit.admin,
    body: caBody('detail-ca', files.certPem, { identityRoles: ['from-detail'], identityNameFormat: '[caName]/[commonName]', isAutoCaEnrollmentEnabled: false, tags: { team: 'pki' } }),
  });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  assert.deepEqual(created.json, { data: { id, _links: { self: { href: `./cas/${id}` } } }, meta: {} });

  const detail = await controller.http.get(kit.mgmt(`/cas/${id}`), { headers: kit.admin });
  assert.equal(detail.status, 200);
  const ca = detail.json.data;
  assert.equal(ca.name, 'detail-ca');
  assert.equal(ca.fingerprint, await kit.workbench.fingerprint(files.certFile));
  assert.equal(ca.isVerified, false);
  assert.match(ca.verificationToken, /^[0-9A-Za-z.-]{6,}$/);
  assert.equal(ca._links.verify.href, `./cas/${id}/verify`);
  assert.equal(ca.isAutoCaEnrollmentEnabled, false);
  assert.equal(ca.isOttCaEnrollmentEnabled, false);
  assert.equal(ca.isAuthEnabled, true);
  assert.deepEqual(ca.identityRoles, ['from-detail']);
  assert.equal(ca.identityNameFormat, '[caName]/[commonName]');
  assert.deepEqual(ca.tags, { team: 'pki' });
  assert.match(ca.certPem, /-----BEGIN CERTIFICATE-----/);

  const defaults = await kit.createCa(caBody('default-format-ca', (await kit.workbench.rootCa('default-format-ca')).certPem));
  assert.equal(defaults.identityNameFormat, '[caName]-[commonName]');
});

test('POST /cas/<id>/verify: not PEM, a wrong CN, or another CA\'s signature are 400s; the right proof is 200, and only once', async () => {
  const files = await kit.workbench.rootCa('verify-ca');
  const ca = await kit.createCa(caBody('verify-ca', files.certPem));
  const other = await kit.workbench.rootCa('verify-other-ca');

  assertApiError(await kit.verifyCa(ca.id, 'this is not a certificate'), 400, 'EXPECTED_PEM_CERTIFICATE');
  assertApiError(await kit.verifyCa(ca.id, readFileSync(files.keyFile, 'utf8')), 400, 'EXPECTED_PEM_CERTIFICATE');
  const wrongName = await kit.workbench.issue('verify-wrong-cn', files, { commonName: 'not-the-verification-token' });
  assertApiError(await kit.verifyCa(ca.id, wrongName.certPem), 400, 'INVALID_COMMON_NAME');
  const wrongSigner = await kit.workbench.issue('verify-wrong-signer', other, { commonName: ca.verificationToken });
  assertApiError(await kit.verifyCa(ca.id, wrongSigner.certPem), 400, 'CERTIFICATE_FAILED_VALIDATION');
  const asJson = await controller.http.post(kit.mgmt(`/cas/${ca.id}/verify`), { headers: kit.admin, body: { certPem: wrongName.certPem } });
  assertApiError(asJson, 415, 'UNSUPPORTED_MEDIA_TYPE');
  assert.equal((await controller.http.get(kit.mgmt(`/cas/${ca.id}`), { headers: kit.admin })).json.data.isVerified, false, 'failed proofs verify nothing');

  await kit.proveCa(ca, files, 'verify-right');
  const verified = (await controller.http.get(kit.mgmt(`/cas/${ca.id}`), { headers: kit.admin })).json.data;
  assert.equal(verified.isVerified, true);
  assert.equal(verified._links.verify, undefined);

  const proofAgain = await kit.workbench.issue('verify-again', files, { commonName: ca.verificationToken });
  assertApiError(await kit.verifyCa(ca.id, proofAgain.certPem), 409, 'CA_ALREADY_VERIFIED');
  assertApiError(await kit.verifyCa('no-such-ca', proofAgain.certPem), 404, 'NOT_FOUND');
});

test('an unverified CA\'s certificate is refused and creates nothing; once verified, the first login auto-enrolls [caName]-[commonName] with the CA\'s roles, and the second finds it', async () => {
  const { ca, files } = await registeredCa('auto-ca', { identityRoles: ['contractors', 'vpn'] }, false);
  const alice = await kit.workbench.issue('auto-alice', files, { commonName: 'alice' });
  const identitiesBefore = await kit.count('identities');

  await kit.expectRefused(alice, /unknown-issuer.*chains to third-party CA [^ ]+ \(auto-ca\), which is not verified/);
  assert.equal(await kit.count('identities'), identitiesBefore);
  assert.equal(await kit.identityByName('auto-ca-alice'), undefined);

  await kit.proveCa(ca, files, 'auto-ca-proof');
  const mark = kit.log.mark();
  const first = await kit.expectLogin(alice, undefined, { body: '{}' });
  assert.equal(first.identity.name, 'auto-ca-alice');
  const enrolledLine = await kit.log.waitFor(mark, (line) => line.msg === 'identity auto-enrolled by third-party CA');
  assert.equal(enrolledLine.caId, ca.id);
  assert.equal(enrolledLine.identityId, first.identityId);

  const identity = await kit.identity(first.identityId);
  assert.equal(identity.name, 'auto-ca-alice');
  assert.equal(identity.isAdmin, false);
  assert.deepEqual([...identity.roleAttributes].sort(), ['contractors', 'vpn']);
  assert.equal(identity.authenticators.cert.fingerprint, await kit.workbench.fingerprint(alice.certFile));
  assert.equal(identity.authenticators.updb, undefined);
  assert.equal(await kit.count('identities'), identitiesBefore + 1);

  const second = await kit.expectLogin(alice, first.identityId, { api: 'management' });
  assert.notEqual(second.token, first.token);
  assert.equal(await kit.count('identities'), identitiesBefore + 1, 'the second login created nothing');
  const me = await controller.http.get(kit.client('/current-identity'), { headers: { 'zt-session': first.token } });
  assert.equal(me.status, 200);
  assert.equal(me.json.data.name, 'auto-ca-alice');
});

test('identityNameFormat tp-[commonName] names the identities a CA auto-enrolls', async () => {
  const { files } = await registeredCa('format-ca', { identityNameFormat: 'tp-[commonName]', identityRoles: ['formatted'] });
  const bob = await kit.workbench.issue('format-bob', files, { commonName: 'bob' });
  const session = await kit.expectLogin(bob);
  assert.equal(session.identity.name, 'tp-bob');
  const identity = await kit.identityByName('tp-bob');
  assert.equal(identity?.id, session.identityId);
  assert.deepEqual(identity.roleAttributes, ['formatted']);
});

test('isAuthEnabled false refuses the CA\'s certificates, even for an identity it enrolled; true accepts them again', async () => {
  const { ca, files } = await registeredCa('switch-ca');
  const carol = await kit.workbench.issue('switch-carol', files, { commonName: 'carol' });
  const enrolled = await kit.expectLogin(carol);

  const off = await controller.http.patch(kit.mgmt(`/cas/${ca.id}`), { headers: kit.admin, body: { isAuthEnabled: false } });
  assert.equal(off.status, 200, off.text);
  const detail = (await controller.http.get(kit.mgmt(`/cas/${ca.id}`), { headers: kit.admin })).json.data;
  assert.equal(detail.isAuthEnabled, false);
  assert.equal(detail.isVerified, true, 'PATCH leaves the verification alone');
  await kit.expectRefused(carol, /unknown-issuer.*which is not enabled for authentication/);
  const dave = await kit.workbench.issue('switch-dave', files, { commonName: 'dave' });
  const identitiesBefore = await kit.count('identities');
  await kit.expectRefused(dave, /unknown-issuer/);
  assert.equal(await kit.count('identities'), identitiesBefore, 'a disabled CA enrolls nobody');

  const on = await controller.http.patch(kit.mgmt(`/cas/${ca.id}`), { headers: kit.admin, body: { isAuthEnabled: true } });
  assert.equal(on.status, 200, on.text);
  await kit.expectLogin(carol, enrolled.identityId);
});

test('a verified CA with auto-enrollment off refuses a certificate that no identity holds', async () => {
  const { files } = await registeredCa('manual-ca', { isAutoCaEnrollmentEnabled: false });
  const erin = await kit.workbench.issue('manual-erin', files, { commonName: 'erin' });
  const identitiesBefore = await kit.count('identities');
  await kit.expectRefused(erin, /no identity has the certificate/);
  assert.equal(await kit.count('identities'), identitiesBefore);
  assert.equal(await kit.identityByName('manual-ca-erin'), undefined);
});

test('a leaf sent with its intermediate (leaf first) chains to a registered third-party root; the leaf alone does not', async () => {
  const { files: root } = await registeredCa('chain-ca');
  const intermediate = await kit.workbench.issue('chain-intermediate', root, { commonName: 'Chain Intermediate', extensions: caExtensions });
  const leaf = await kit.workbench.issue('chain-leaf', intermediate, { commonName: 'frank' });

  await kit.expectRefused(leaf, /unknown-issuer/);
  assert.equal(await kit.identityByName('chain-ca-frank'), undefined);

  const bundle = { certFile: kit.workbench.write('chain-leaf.bundle.pem', leaf.certPem + intermediate.certPem), keyFile: leaf.keyFile };
  const session = await kit.expectLogin(bundle);
  assert.equal(session.identity.name, 'chain-ca-frank');
  const identity = await kit.identity(session.identityId);
  assert.equal(identity.authenticators.cert.fingerprint, await kit.workbench.fingerprint(leaf.certFile), 'the leaf is the credential, not the intermediate');
  await kit.expectLogin(bundle, session.identityId);
});

test('bad POST /cas bodies are 400 in the error envelope and create nothing', async () => {
  const existing = await registeredCa('existing-ca', {}, false);
  const leafIssuer = await kit.workbench.rootCa('leaf-issuer');
  const leaf = await kit.workbench.issue('not-a-ca', leafIssuer, { commonName: 'just a client' });
  const fresh = await kit.workbench.rootCa('fresh-ca');
  const casBefore = await kit.count('cas');

  const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['a leaf certificate', caBody('leaf-as-ca', leaf.certPem), 'certPem', /is not a CA certificate/],
    ['garbage inside PEM armour', caBody('garbage-ca', '-----BEGIN CERTIFICATE-----\n!!not base64!!\n-----END CERTIFICATE-----\n'), 'certPem', /malformed: the CERTIFICATE block does not hold valid base64/],
    ['text that is not PEM', caBody('text-ca', 'hello, I am a CA'), 'certPem', /found no PEM text/],
    ['a private key', caBody('key-ca', readFileSync(fresh.keyFile, 'utf8')), 'certPem', /found a PRIVATE KEY block/],
    ['a certificate already registered', caBody('duplicate-cert-ca', existing.files.certPem), 'certPem', /already registered/],
    ['a name already taken', caBody('existing-ca', fresh.certPem), 'name', /duplicate value 'existing-ca'/],
    ['no isAuthEnabled', (({ isAuthEnabled: _ignored, ...rest }) => rest)(caBody('partial-ca', fresh.certPem)), 'isAuthEnabled', /required/],
    ['an externalIdClaim missing members', caBody('claim-ca', fresh.certPem, { externalIdClaim: { location: 'SAN_URI' } }), 'externalIdClaim.matcher', /required/],
    ['an externalIdClaim location not in the spec', caBody('claim-ca', fresh.certPem, { externalIdClaim: { location: 'SUBJECT', matcher: 'ALL', matcherCriteria: null, parser: 'NONE', parserCriteria: null, index: 0 } }), 'externalIdClaim.location', /allowed values/],
  ];
  for (const [label, body, field, reason] of cases) {
    const response = await controller.http.post(kit.mgmt('/cas'), { headers: kit.admin, body });
    assertApiError(response, 400, 'COULD_NOT_VALIDATE');
    assert.equal(response.json.error.cause?.field, field, `${label}: ${response.text}`);
    assert.match(String(response.json.error.cause?.reason), reason, label);
  }
  assert.equal(await kit.count('cas'), casBefore, 'nothing was created');
  const names = (await controller.http.get(kit.mgmt('/cas?limit=500'), { headers: kit.admin })).json.data.map((ca: any) => ca.name);
  assert.deepEqual(names.filter((name: string) => name === 'existing-ca'), ['existing-ca']);
  const claim = { location: 'SAN_URI', matcher: 'SCHEME', matcherCriteria: 'spiffe', parser: 'NONE', parserCriteria: null, index: 0 };
  const accepted = await kit.createCa(caBody('fresh-ca', fresh.certPem, { externalIdClaim: { ...claim, extra: 'not stored' } }));
  assert.equal(accepted.fingerprint, await kit.workbench.fingerprint(fresh.certFile), 'the good certificate is accepted');
  assert.deepEqual(accepted.externalIdClaim, claim, 'the claim as the spec has it, without members it does not have');
  assert.equal('externalIdClaim' in existing.ca, false, 'no claim set: none shown');
});

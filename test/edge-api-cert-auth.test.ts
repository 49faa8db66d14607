// One-time enrollment (ott and updb), the EST CA bundle, and method=cert login with `curl --cert`, against a real
// controller process over HTTPS, with keys, CSRs and certificates made by the openssl CLI.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect as tlsConnect } from 'node:tls';
import { after, before, test } from 'node:test';
import { decodeProtectedHeader, importX509, jwtVerify } from 'jose';
import { assertApiError, CertAuthClient, type ClientCredentials } from './support/cert-auth-client.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { pemCertificates } from './support/openssl-workbench.ts';

let controller: ControllerFixture;
let kit: CertAuthClient;
before(async () => {
  controller = await ControllerFixture.create();
  kit = await CertAuthClient.create(controller);
});
after(async () => controller?.dispose());

const minute = 60_000;

async function createIdentity(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const response = await controller.http.post(kit.mgmt('/identities'), { headers: kit.admin, body: { name, type: 'User', isAdmin: false, ...extra } });
  assert.equal(response.status, 201, response.text);
  return response.json.data.id as string;
}

/** POST /enroll/ott?token= with the CSR as a PEM body, as `ziti edge enroll` does. */
function enrollOttPem(token: string | undefined, csrPem: string, accept = 'application/x-pem-file', path = '/enroll/ott') {
  const query = token === undefined ? '' : `?token=${encodeURIComponent(token)}`;
  return controller.http.post(kit.client(`${path}${query}`), { headers: { 'content-type': 'application/x-pem-file', accept }, rawBody: csrPem });
}

interface Enrolled extends ClientCredentials {
  readonly identityId: string;
}

/** An identity created with {ott: true}, enrolled with an openssl CSR; its certificate chain is written to disk. */
async function enrolledIdentity(name: string): Promise<Enrolled> {
  const identityId = await createIdentity(name, { enrollment: { ott: true } });
  const token = (await kit.identity(identityId)).enrollment.ott.token as string;
  const { keyFile, csrPem } = await kit.workbench.keyAndCsr(name, `${name}-requested`);
  const response = await enrollOttPem(token, csrPem);
  assert.equal(response.status, 200, response.text);
  const certFile = kit.workbench.write(`${name}.chain.pem`, response.text);
  return { identityId, certFile, keyFile };
}

/** The controller's own certificate, as any TLS client sees it. */
function controllerCertificatePem(): Promise<string> {
  const url = new URL(controller.origin);
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca: controller.caPem }, () => {
      const raw = socket.getPeerCertificate().raw;
      socket.end();
      resolve(new X509Certificate(raw).toString());
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error('TLS handshake timed out')));
    socket.on('error', reject);
  });
}

function policyBody(name: string, cert: { allowed: boolean; allowExpiredCerts: boolean }) {
  return {
    name,
    primary: {
      cert,
      updb: { allowed: true, minPasswordLength: 5, requireSpecialChar: false, requireNumberChar: false, requireMixedCase: false, maxAttempts: 0, lockoutDurationMinutes: 0 },
      extJwt: { allowed: true, allowedSigners: [] },
    },
    secondary: { requireTotp: false, requireExtJwtSigner: null },
  };
}

async function createPolicy(name: string, cert: { allowed: boolean; allowExpiredCerts: boolean }): Promise<string> {
  const response = await controller.http.post(kit.mgmt('/auth-policies'), { headers: kit.admin, body: policyBody(name, cert) });
  assert.equal(response.status, 201, response.text);
  return response.json.data.id as string;
}

async function setPolicy(identityId: string, authPolicyId: string): Promise<void> {
  const response = await controller.http.patch(kit.mgmt(`/identities/${identityId}`), { headers: kit.admin, body: { authPolicyId } });
  assert.equal(response.status, 200, response.text);
  assert.equal((await kit.identity(identityId)).authPolicyId, authPolicyId);
}

test('an ott identity carries a one-time JWT signed with the controller key: em, sub, jti, iss, exp, ctrls', async () => {
  const before = Date.now();
  const identityId = await createIdentity('ott-jwt', { enrollment: { ott: true } });
  const detail = await kit.identity(identityId);
  const ott = detail.enrollment.ott;
  assert.deepEqual(Object.keys(ott).sort(), ['expiresAt', 'id', 'jwt', 'token']);
  assert.equal(detail.enrollment.updb, undefined);
  const expiresAt = Date.parse(ott.expiresAt);
  assert.ok(expiresAt >= before + 179 * minute && expiresAt <= Date.now() + 181 * minute, `expires ${ott.expiresAt}: 180 minutes by default`);

  assert.equal(decodeProtectedHeader(ott.jwt).alg, 'ES256');
  const key = await importX509(await controllerCertificatePem(), 'ES256');
  const { payload } = await jwtVerify(ott.jwt, key, { issuer: controller.origin });
  assert.equal(payload.em, 'ott');
  assert.equal(payload.sub, identityId);
  assert.equal(payload.jti, ott.token);
  assert.equal(payload.iss, controller.origin);
  assert.equal(payload.exp, Math.floor(expiresAt / 1000));
  assert.ok(Array.isArray(payload.ctrls) && (payload.ctrls as string[]).includes(controller.origin), JSON.stringify(payload.ctrls));

  // The signature is really checked: the same claims with another subject do not verify.
  const [header, , signature] = ott.jwt.split('.');
  const forged = Buffer.from(JSON.stringify({ ...payload, sub: 'someone-else' })).toString('base64url');
  await assert.rejects(jwtVerify(`${header}.${forged}.${signature}`, key), /signature verification failed/);

  const listed = await controller.http.get(kit.mgmt(`/identities/${identityId}/enrollments`), { headers: kit.admin });
  assert.equal(listed.status, 200);
  assert.deepEqual(
    listed.json.data.map((row: any) => [row.id, row.method, row.token]),
    [[ott.id, 'ott', ott.token]],
  );
});

test('ott: a PEM CSR is signed for the identity (CN = identity id); curl --cert then logs in on both APIs; the token works once', async () => {
  const identityId = await createIdentity('ott-pem', { enrollment: { ott: true } });
  const token = (await kit.identity(identityId)).enrollment.ott.token as string;
  const { keyFile, csrPem } = await kit.workbench.keyAndCsr('ott-pem', 'a-name-the-client-asked-for');

  const response = await enrollOttPem(token, csrPem);
  assert.equal(response.status, 200, response.text);
  assert.match(String(response.headers['content-type']), /^application\/x-pem-file/);
  const chain = pemCertificates(response.text);
  assert.ok(chain.length >= 2, `the leaf and its issuing CA: ${chain.length} certificates`);
  const certFile = kit.workbench.write('ott-pem.chain.pem', response.text);
  const leafFile = kit.workbench.write('ott-pem.leaf.pem', chain[0]!);

  assert.equal(await kit.workbench.commonName(leafFile), identityId, 'the CN is the identity id, whatever the CSR asked for');
  const verified = await kit.workbench.openssl(['verify', '-CAfile', kit.caFile, '-purpose', 'sslclient', leafFile]);
  assert.match(verified, /: OK/);
  const fingerprint = await kit.workbench.fingerprint(leafFile);

  const detail = await kit.identity(identityId);
  assert.deepEqual(detail.enrollment, {}, 'the used enrollment is gone');
  assert.equal(detail.authenticators.cert.fingerprint, fingerprint);

  const credentials = { certFile, keyFile };
  const clientSession = await kit.expectLogin(credentials, identityId, { body: '{}' });
  assert.equal(clientSession.identity.name, 'ott-pem');
  assert.equal(clientSession.authenticatorId, detail.authenticators.cert.id);
  const managementSession = await kit.expectLogin(credentials, identityId, { api: 'management' });
  assert.notEqual(managementSession.token, clientSession.token);
  const me = await controller.http.get(kit.client('/current-identity'), { headers: { 'zt-session': clientSession.token } });
  assert.equal(me.status, 200);
  assert.equal(me.json.data.id, identityId);
  // A non-admin's session is real but not an admin's.
  const denied = await controller.http.get(kit.mgmt('/identities'), { headers: { 'zt-session': managementSession.token } });
  assert.equal(denied.status, 401);

  const again = await enrollOttPem(token, (await kit.workbench.keyAndCsr('ott-pem-again')).csrPem);
  assertApiError(again, 400, 'INVALID_ENROLLMENT_TOKEN');
  assert.equal((await kit.identity(identityId)).authenticators.cert.fingerprint, fingerprint, 'the second attempt changed nothing');
});

test('ott: the JSON form {token, clientCsr} answers {data: {cert, ca}} and the certificate logs in', async () => {
  const identityId = await createIdentity('ott-json', { enrollment: { ott: true } });
  const token = (await kit.identity(identityId)).enrollment.ott.token as string;
  const { keyFile, csrPem } = await kit.workbench.keyAndCsr('ott-json');
  const response = await controller.http.post(kit.client('/enroll/ott'), { body: { token, clientCsr: csrPem } });
  assert.equal(response.status, 200, response.text);
  assert.deepEqual(Object.keys(response.json.data).sort(), ['ca', 'cert']);
  assert.deepEqual(pemCertificates(response.json.data.ca), pemCertificates(controller.caPem), 'ca is the bundle that trusts the controller');
  const certFile = kit.workbench.write('ott-json.chain.pem', response.json.data.cert);
  await kit.expectLogin({ certFile, keyFile }, identityId);
});

test('POST /enroll?token= dispatches on the token: a CSR for ott, a password for updb', async () => {
  const ottId = await createIdentity('dispatch-ott', { enrollment: { ott: true } });
  const ottToken = (await kit.identity(ottId)).enrollment.ott.token as string;
  const { keyFile, csrPem } = await kit.workbench.keyAndCsr('dispatch-ott');
  const ott = await enrollOttPem(ottToken, csrPem, 'application/json', '/enroll');
  assert.equal(ott.status, 200, ott.text);
  const certFile = kit.workbench.write('dispatch-ott.chain.pem', ott.json.data.cert);
  await kit.expectLogin({ certFile, keyFile }, ottId);

  const updbId = await createIdentity('dispatch-updb', { enrollment: { updb: 'dispatch-user' } });
  const updbToken = (await kit.identity(updbId)).enrollment.updb.token as string;
  const updb = await controller.http.post(kit.client(`/enroll?token=${encodeURIComponent(updbToken)}`), { body: { password: 'dispatch-password' } });
  assert.equal(updb.status, 200, updb.text);
  assert.deepEqual(updb.json, { data: {}, meta: {} });
  const login = await controller.http.post(kit.client('/authenticate?method=password'), { body: { username: 'dispatch-user', password: 'dispatch-password' } });
  assert.equal(login.status, 200, login.text);
  assert.equal(login.json.data.identityId, updbId);
});

test('updb: the JWT says em=updb; the client picks the password for the username the admin chose; once only', async () => {
  const identityId = await createIdentity('updb-enrollee', { enrollment: { updb: 'updb-chosen-name' } });
  const updb = (await kit.identity(identityId)).enrollment.updb;
  for (const key of ['id', 'token', 'jwt', 'expiresAt']) assert.equal(typeof updb[key], 'string', key);
  const key = await importX509(await controllerCertificatePem(), 'ES256');
  const { payload } = await jwtVerify(updb.jwt, key, { issuer: controller.origin });
  assert.equal(payload.em, 'updb');
  assert.equal(payload.sub, identityId);
  assert.equal(payload.jti, updb.token);

  const credentials = { username: 'updb-chosen-name', password: 'my-own-password' };
  const early = await controller.http.post(kit.client('/authenticate?method=password'), { body: credentials });
  assertApiError(early, 401, 'INVALID_AUTH');

  // An updb token is not an ott token.
  const wrongKind = await enrollOttPem(updb.token, (await kit.workbench.keyAndCsr('updb-as-ott')).csrPem);
  assertApiError(wrongKind, 400, 'INVALID_ENROLLMENT_TOKEN');

  const enrolled = await controller.http.post(kit.client(`/enroll/updb?token=${encodeURIComponent(updb.token)}`), { body: { password: credentials.password } });
  assert.equal(enrolled.status, 200, enrolled.text);
  assert.deepEqual(enrolled.json, { data: {}, meta: {} });

  const detail = await kit.identity(identityId);
  assert.equal(detail.authenticators.updb.username, 'updb-chosen-name');
  assert.deepEqual(detail.enrollment, {});
  const session = await controller.http.post(kit.client('/authenticate?method=password'), { body: credentials });
  assert.equal(session.status, 200, session.text);
  assert.equal(session.json.data.identityId, identityId);

  const again = await controller.http.post(kit.client(`/enroll/updb?token=${encodeURIComponent(updb.token)}`), { body: { password: 'another-password' } });
  assertApiError(again, 400, 'INVALID_ENROLLMENT_TOKEN');
  const oldPassword = await controller.http.post(kit.client('/authenticate?method=password'), { body: credentials });
  assert.equal(oldPassword.status, 200, 'the refused second use did not change the password');
});

test('enrollment refusals: bad CSR, missing token, unknown token, and a token past its expiry', async () => {
  const identityId = await createIdentity('ott-refusals', { enrollment: { ott: true } });
  const token = (await kit.identity(identityId)).enrollment.ott.token as string;

  assertApiError(await enrollOttPem(token, 'this is not a certificate request'), 400, 'COULD_NOT_PROCESS_CSR');
  const broken = '-----BEGIN CERTIFICATE REQUEST-----\nTUlJQ2JqQ0NBVllDQVFBd0tURW5NQ1VHQTFVRUF3d2VZUzF1WVcxbA==\n-----END CERTIFICATE REQUEST-----\n';
  assertApiError(await controller.http.post(kit.client('/enroll/ott'), { body: { token, clientCsr: broken } }), 400, 'COULD_NOT_PROCESS_CSR');

  const { keyFile, csrPem } = await kit.workbench.keyAndCsr('ott-refusals');
  const missing = await enrollOttPem(undefined, csrPem);
  assertApiError(missing, 400, 'COULD_NOT_VALIDATE');
  assert.equal(missing.json.error.cause.field, 'token');
  assertApiError(await enrollOttPem('no-such-token', csrPem), 400, 'INVALID_ENROLLMENT_TOKEN');

  // None of the failures used the token up.
  const ok = await enrollOttPem(token, csrPem);
  assert.equal(ok.status, 200, ok.text);
  await kit.expectLogin({ certFile: kit.workbench.write('ott-refusals.chain.pem', ok.text), keyFile }, identityId);

  const lateId = await createIdentity('ott-late');
  const expiresAt = new Date(Date.now() + 2_000).toISOString();
  const created = await controller.http.post(kit.mgmt('/enrollments'), { headers: kit.admin, body: { method: 'ott', identityId: lateId, expiresAt } });
  assert.equal(created.status, 201, created.text);
  const enrollment = (await controller.http.get(kit.mgmt(`/enrollments/${created.json.data.id}`), { headers: kit.admin })).json.data;
  assert.equal(Date.parse(enrollment.expiresAt), Date.parse(expiresAt));
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now()) + 300));
  const late = await enrollOttPem(enrollment.token, (await kit.workbench.keyAndCsr('ott-late')).csrPem);
  assertApiError(late, 400, 'INVALID_ENROLLMENT_TOKEN');
  assert.match(late.json.error.cause.reason, /expired/);
  assert.equal((await kit.identity(lateId)).authenticators.cert, undefined, 'no certificate was issued');

  const past = await controller.http.post(kit.mgmt('/enrollments'), { headers: kit.admin, body: { method: 'updb', identityId: lateId, username: 'late-user', expiresAt: new Date(Date.now() - minute).toISOString() } });
  assertApiError(past, 400, 'COULD_NOT_VALIDATE');
});

test('management /enrollments: create, list, get, delete (the token dies with it), 409 for a second of one method', async () => {
  const identityId = await createIdentity('enrollments-crud');
  const ott = await controller.http.post(kit.mgmt('/enrollments'), { headers: kit.admin, body: { method: 'ott', identityId } });
  assert.equal(ott.status, 201, ott.text);
  const ottId = ott.json.data.id as string;
  assert.deepEqual(ott.json, { data: { id: ottId, _links: { self: { href: `./enrollments/${ottId}` } } }, meta: {} });

  const duplicate = await controller.http.post(kit.mgmt('/enrollments'), { headers: kit.admin, body: { method: 'ott', identityId } });
  assertApiError(duplicate, 409, 'ENROLLMENT_EXISTS');
  const updb = await controller.http.post(kit.mgmt('/enrollments'), { headers: kit.admin, body: { method: 'updb', identityId, username: 'crud-user' } });
  assert.equal(updb.status, 201, updb.text);
  assertApiError(await controller.http.post(kit.mgmt('/enrollments'), { headers: kit.admin, body: { method: 'ott', identityId: 'no-such-identity' } }), 400, 'COULD_NOT_VALIDATE');

  const list = await controller.http.get(kit.mgmt('/enrollments?limit=500'), { headers: kit.admin });
  assert.equal(list.status, 200);
  const mine = list.json.data.filter((row: any) => row.identityId === identityId).map((row: any) => [row.id, row.method]).sort();
  assert.deepEqual(mine, [[ottId, 'ott'], [updb.json.data.id, 'updb']].sort());

  const detail = await controller.http.get(kit.mgmt(`/enrollments/${ottId}`), { headers: kit.admin });
  assert.equal(detail.status, 200);
  const row = detail.json.data;
  assert.equal(row.method, 'ott');
  assert.equal(row.identityId, identityId);
  assert.equal(row.identity.name, 'enrollments-crud');
  assert.equal(typeof row.token, 'string');
  assert.equal(typeof row.jwt, 'string');
  assert.deepEqual(Object.keys((await kit.identity(identityId)).enrollment).sort(), ['ott', 'updb']);

  const deleted = await controller.http.delete(kit.mgmt(`/enrollments/${ottId}`), { headers: kit.admin });
  assert.equal(deleted.status, 200);
  assert.deepEqual(deleted.json, { data: {}, meta: {} });
  assertApiError(await controller.http.get(kit.mgmt(`/enrollments/${ottId}`), { headers: kit.admin }), 404, 'NOT_FOUND');
  assertApiError(await enrollOttPem(row.token, (await kit.workbench.keyAndCsr('enrollments-crud')).csrPem), 400, 'INVALID_ENROLLMENT_TOKEN');
  assert.deepEqual(Object.keys((await kit.identity(identityId)).enrollment), ['updb']);
});

test('GET /.well-known/est/cacerts (root and client API) is base64 PKCS#7 that openssl reads as the CA bundle', async () => {
  const expected = pemCertificates(controller.caPem).map(derBase64).sort();
  assert.ok(expected.length >= 2);
  for (const [index, url] of [`${controller.origin}/.well-known/est/cacerts`, kit.client('/.well-known/est/cacerts')].entries()) {
    const response = await controller.http.get(url, { headers: { accept: '*/*' } });
    assert.equal(response.status, 200, `${url}: ${response.text.slice(0, 200)}`);
    assert.match(String(response.headers['content-type']), /^application\/pkcs7-mime/);
    assert.match(response.text.trim(), /^[A-Za-z0-9+/=\r\n]+$/, 'base64 text');
    const derFile = kit.workbench.write(`cacerts-${index}.p7b`, Buffer.from(response.text, 'base64'));
    const printed = await kit.workbench.openssl(['pkcs7', '-inform', 'DER', '-in', derFile, '-print_certs']);
    assert.deepEqual(pemCertificates(printed).map(derBase64).sort(), expected);
  }
});

test('method=cert refuses a request with no client certificate', async () => {
  await kit.expectRefused(undefined, /no client certificate/);
});

test('method=cert refuses a self-signed client certificate', async () => {
  const selfSigned = await kit.workbench.selfSignedClient('self-signed-client');
  await kit.expectRefused({ certFile: selfSigned.certFile, keyFile: selfSigned.keyFile }, /self-signed/);
});

test('method=cert refuses a certificate from a CA the controller does not know', async () => {
  const rogue = await kit.workbench.rootCa('rogue-ca');
  const client = await kit.workbench.issue('rogue-client', rogue);
  await kit.expectRefused({ certFile: client.certFile, keyFile: client.keyFile }, /unknown-issuer/);
});

test('method=cert refuses a certificate whose authenticator was deleted (revoked)', async () => {
  const enrolled = await enrolledIdentity('revoked-cert');
  await kit.expectLogin(enrolled, enrolled.identityId);
  const authenticatorId = (await kit.identity(enrolled.identityId)).authenticators.cert.id as string;
  const deleted = await controller.http.delete(kit.mgmt(`/authenticators/${authenticatorId}`), { headers: kit.admin });
  assert.equal(deleted.status, 200, deleted.text);
  assert.equal((await kit.identity(enrolled.identityId)).authenticators.cert, undefined);
  const leafFile = kit.workbench.write('revoked-cert.leaf.pem', readFileSync(enrolled.certFile, 'utf8').split('-----END CERTIFICATE-----')[0] + '-----END CERTIFICATE-----\n');
  const record = await kit.expectRefused(enrolled, /no identity has the certificate/);
  assert.match(String(record.reason), new RegExp(await kit.workbench.fingerprint(leafFile)), 'the log names the certificate');
});

test('method=cert refuses a disabled identity and accepts it again once enabled', async () => {
  const enrolled = await enrolledIdentity('disabled-cert');
  const session = await kit.expectLogin(enrolled, enrolled.identityId);
  const disabled = await controller.http.post(kit.mgmt(`/identities/${enrolled.identityId}/disable`), { headers: kit.admin, body: { durationMinutes: 0 } });
  assert.equal(disabled.status, 200, disabled.text);
  assert.equal((await kit.identity(enrolled.identityId)).disabled, true);
  const record = await kit.expectRefused(enrolled, /disabled/);
  assert.equal(record.identityId, enrolled.identityId);
  const ended = await controller.http.get(kit.client('/current-api-session'), { headers: { 'zt-session': session.token } });
  assert.equal(ended.status, 401, 'disabling ended the open session');

  const enabled = await controller.http.post(kit.mgmt(`/identities/${enrolled.identityId}/enable`), { headers: kit.admin });
  assert.equal(enabled.status, 200, enabled.text);
  await kit.expectLogin(enrolled, enrolled.identityId);
});

test('method=cert refuses an identity whose auth policy does not allow certificates', async () => {
  const enrolled = await enrolledIdentity('policy-no-cert');
  const policyId = await createPolicy('no-certificates', { allowed: false, allowExpiredCerts: true });
  await setPolicy(enrolled.identityId, policyId);
  const record = await kit.expectRefused(enrolled, /does not allow certificate authentication/);
  assert.equal(record.identityId, enrolled.identityId);
  await setPolicy(enrolled.identityId, 'default');
  await kit.expectLogin(enrolled, enrolled.identityId);
});

test('method=cert refuses an expired certificate when the policy says allowExpiredCerts: false (the default policy allows it)', async () => {
  // A third-party CA signs the expired certificate: the enrollment CA only issues current ones.
  const caFiles = await kit.workbench.rootCa('expiry-ca');
  const ca = await kit.createCa({ name: 'expiry-ca', certPem: caFiles.certPem, isAutoCaEnrollmentEnabled: false, isOttCaEnrollmentEnabled: false, isAuthEnabled: true, identityRoles: [] });
  await kit.proveCa(ca, caFiles, 'expiry-ca-proof');

  const expired = await kit.workbench.issue('expired-client', caFiles, { validity: { startDate: '20200101000000Z', endDate: '20210101000000Z' } });
  const current = await kit.workbench.issue('current-client', caFiles);
  const notAfter = await kit.workbench.openssl(['x509', '-in', expired.certFile, '-noout', '-enddate']);
  assert.match(notAfter, /2021/);

  const strict = await createPolicy('no-expired-certificates', { allowed: true, allowExpiredCerts: false });
  const identities: Record<string, string> = {};
  for (const [name, files] of [['expired-holder', expired], ['current-holder', current]] as const) {
    const identityId = await createIdentity(name, { authPolicyId: strict });
    const registered = await controller.http.post(kit.mgmt('/authenticators'), { headers: kit.admin, body: { method: 'cert', identityId, certPem: files.certPem } });
    assert.equal(registered.status, 201, registered.text);
    const authenticator = (await controller.http.get(kit.mgmt(`/authenticators/${registered.json.data.id}`), { headers: kit.admin })).json.data;
    assert.equal(authenticator.method, 'cert');
    assert.equal(authenticator.fingerprint, await kit.workbench.fingerprint(files.certFile));
    identities[name] = identityId;
  }

  const record = await kit.expectRefused(expired, /certificate expired/);
  assert.equal(record.identityId, identities['expired-holder']);
  await kit.expectLogin(current, identities['current-holder'], { body: '{}' });

  await setPolicy(identities['expired-holder']!, 'default');
  await kit.expectLogin(expired, identities['expired-holder']);
});

function derBase64(pem: string): string {
  return pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');
}

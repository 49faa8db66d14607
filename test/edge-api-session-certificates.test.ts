// `/current-api-session/certificates` against a real controller: an identity that logs in with a password sends a
// CSR and gets a short-lived (12 hour) client certificate for its identity from the edge signer, which openssl
// verifies against the controller's CA bundle; the session lists, reads and deletes only its own; bad CSRs are
// refused; a session holds at most 16 at once.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, test } from 'node:test';
import { assertApiError, CertAuthClient } from './support/cert-auth-client.ts';
import { ControllerFixture } from './support/controller-fixture.ts';

let controller: ControllerFixture;
let kit: CertAuthClient;
let identityId: string;
let csrPem: string;

before(async () => {
  controller = await ControllerFixture.create();
  kit = await CertAuthClient.create(controller);
  const created = await controller.http.post(kit.mgmt('/identities'), { headers: kit.admin, body: { name: 'session-cert-user', type: 'User', isAdmin: false } });
  assert.equal(created.status, 201, created.text);
  identityId = created.json.data.id;
  const authenticator = await controller.http.post(kit.mgmt('/authenticators'), { headers: kit.admin, body: { method: 'updb', identityId, username: 'session-cert-user', password: 'session-cert-password' } });
  assert.equal(authenticator.status, 201, authenticator.text);
  csrPem = (await kit.workbench.keyAndCsr('session-cert', 'asked-for-name')).csrPem;
});
after(async () => controller?.dispose());

const login = () => controller.login('session-cert-user', 'session-cert-password');
const certificates = (path = '') => kit.client(`/current-api-session/certificates${path}`);

test('a password session gets a 12-hour client certificate for its identity, which chains to the controller CA bundle', async () => {
  const token = await login();
  const created = await controller.http.post(certificates(), { headers: { 'zt-session': token }, body: { csr: csrPem } });
  assert.equal(created.status, 201, created.text);
  const { id, certificate, cas, _links } = created.json.data;
  assert.equal(_links.self.href, `./current-api-session/certificates/${id}`);
  assert.match(cas, /BEGIN CERTIFICATE/);
  const chainFile = kit.workbench.write('session-cert.chain.pem', certificate);
  const leaf = new X509Certificate(certificate);
  assert.equal(leaf.subject, `CN=${identityId}`, 'the identity id, whatever the CSR asked for');
  // notAfter is 12 hours from issue (notBefore is back-dated for clock skew, as every certificate the CA issues).
  const leftMs = Date.parse(leaf.validTo) - Date.now();
  assert.ok(leftMs > 12 * 3_600_000 - 5 * 60_000 && leftMs <= 12 * 3_600_000, `valid for 12 hours from issue: until ${leaf.validTo}`);
  assert.ok(Date.parse(leaf.validFrom) <= Date.now());
  assert.match(leaf.subjectAltName ?? '', new RegExp(`URI:spiffe://edgeward\\.test/identity/${identityId}/apiSession/[^/]+/apiSessionCertificate/${id}`));
  assert.match(leaf.keyUsage?.join(',') ?? '', /1\.3\.6\.1\.5\.5\.7\.3\.2/, 'TLS client authentication');
  const verified = await kit.workbench.openssl(['verify', '-CAfile', kit.caFile, '-untrusted', chainFile, chainFile]);
  assert.match(verified, /OK/);

  const fingerprint = await kit.workbench.fingerprint(chainFile);
  const detail = await controller.http.get(certificates(`/${id}`), { headers: { 'zt-session': token } });
  assert.equal(detail.status, 200, detail.text);
  assert.deepEqual(
    { ...detail.json.data, createdAt: undefined, updatedAt: undefined, validFrom: undefined, validTo: undefined },
    { id, createdAt: undefined, updatedAt: undefined, tags: {}, _links, subject: `CN=${identityId}`, fingerprint, validFrom: undefined, validTo: undefined, certificate },
  );
  assert.equal(Date.parse(detail.json.data.validTo), Date.parse(leaf.validTo));
  const listed = await controller.http.get(certificates(), { headers: { 'zt-session': token } });
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(listed.json.data.map((row: { fingerprint: string }) => row.fingerprint), [fingerprint]);
  assert.equal(listed.json.meta.pagination.totalCount, 1);

  // Another session of the same identity sees none of them, and cannot read or delete this one.
  const other = { 'zt-session': await login() };
  assert.deepEqual((await controller.http.get(certificates(), { headers: other })).json.data, []);
  assertApiError(await controller.http.get(certificates(`/${id}`), { headers: other }), 404, 'NOT_FOUND');
  assertApiError(await controller.http.delete(certificates(`/${id}`), { headers: other }), 404, 'NOT_FOUND');

  // Deleted by its own session: gone.
  const deleted = await controller.http.delete(certificates(`/${id}`), { headers: { 'zt-session': token } });
  assert.equal(deleted.status, 200, deleted.text);
  assertApiError(await controller.http.get(certificates(`/${id}`), { headers: { 'zt-session': token } }), 404, 'NOT_FOUND');
  assert.deepEqual((await controller.http.get(certificates(), { headers: { 'zt-session': token } })).json.data, []);
});

test('the routes need a session, a CSR that parses, and answer at the controller root too', async () => {
  assertApiError(await controller.http.get(certificates()), 401, 'UNAUTHORIZED');
  assertApiError(await controller.http.post(certificates(), { body: { csr: csrPem } }), 401, 'UNAUTHORIZED');
  const headers = { 'zt-session': await login() };
  assertApiError(await controller.http.post(certificates(), { headers, body: {} }), 400, 'COULD_NOT_VALIDATE');
  const garbage = await controller.http.post(certificates(), { headers, body: { csr: 'not a certificate request' } });
  assertApiError(garbage, 400, 'COULD_NOT_PROCESS_CSR');
  assertApiError(await controller.http.get(certificates('/no-such-certificate'), { headers }), 404, 'NOT_FOUND');
  const atRoot = await controller.http.post(`${controller.origin}/current-api-session/certificates`, { headers, body: { csr: csrPem } });
  assert.equal(atRoot.status, 201, atRoot.text);
  assert.equal((await controller.http.get(certificates(), { headers })).json.data[0].id, atRoot.json.data.id);
});

test('a session holds at most 16 unexpired certificates; deleting one makes room', async () => {
  const headers = { 'zt-session': await login() };
  const ids: string[] = [];
  for (let n = 0; n < 16; n += 1) {
    const created = await controller.http.post(certificates(), { headers, body: { csr: csrPem } });
    assert.equal(created.status, 201, created.text);
    ids.push(created.json.data.id);
  }
  const refused = await controller.http.post(certificates(), { headers, body: { csr: csrPem } });
  assertApiError(refused, 400, 'COULD_NOT_VALIDATE');
  assert.match(refused.json.error.cause.reason, /already holds 16 unexpired certificates/);
  assert.equal((await controller.http.delete(certificates(`/${ids[0]}`), { headers })).status, 200);
  assert.equal((await controller.http.post(certificates(), { headers, body: { csr: csrPem } })).status, 201);
  assert.equal((await controller.http.get(certificates('?limit=100'), { headers })).json.meta.pagination.totalCount, 16);
});

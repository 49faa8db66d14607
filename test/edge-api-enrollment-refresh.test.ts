// POST /enrollments/{id}/refresh over HTTPS: a new expiry, a new token and JWT; the old JWT no longer enrolls, the new
// one does; a bad expiry or an unknown enrollment is refused and changes nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodeJwt } from 'jose';
import { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas } from './support/edge-api-schemas.ts';

let controller: ControllerFixture;
let admin: { 'zt-session': string };
const schemas = EdgeApiSchemas.load('management');
const mgmt = (path: string) => `${controller.managementApi}${path}`;

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
});
after(async () => controller?.dispose());

test('a refreshed enrollment has the new expiry and a new JWT: the old token no longer enrolls, the new one does', async () => {
  const identity = await controller.http.post(mgmt('/identities'), { headers: admin, body: { name: 'refresh-user', type: 'User', isAdmin: false, enrollment: { updb: 'refresh-user' } } });
  assert.equal(identity.status, 201, identity.text);
  const enrollment = (await controller.http.get(mgmt(`/identities/${identity.json.data.id}/enrollments`), { headers: admin })).json.data[0];
  const before = (await controller.http.get(mgmt(`/enrollments/${enrollment.id}`), { headers: admin })).json.data;

  const expiresAt = new Date(Date.now() + 2 * 3_600_000).toISOString();
  const refreshed = await controller.http.post(mgmt(`/enrollments/${enrollment.id}/refresh`), { headers: admin, body: { expiresAt } });
  assert.equal(refreshed.status, 200, refreshed.text);
  assert.deepEqual(schemas.problems('POST', `/enrollments/${enrollment.id}/refresh`, 200, refreshed.json), []);
  assert.equal(refreshed.json.data.id, enrollment.id);

  const after = (await controller.http.get(mgmt(`/enrollments/${enrollment.id}`), { headers: admin })).json.data;
  assert.equal(Date.parse(after.expiresAt), Date.parse(expiresAt));
  assert.notEqual(after.token, before.token);
  assert.notEqual(after.jwt, before.jwt);
  assert.equal(decodeJwt(after.jwt).exp, Math.floor(Date.parse(expiresAt) / 1000));
  assert.equal(decodeJwt(after.jwt).jti, after.token);

  const stale = await controller.http.post(`${controller.clientApi}/enroll/updb?token=${before.token}`, { body: { password: 'Refresh-Pass-42' } });
  assert.equal(stale.status, 400, stale.text);
  assert.equal(stale.json.error.code, 'INVALID_ENROLLMENT_TOKEN');
  const fresh = await controller.http.post(`${controller.clientApi}/enroll/updb?token=${after.token}`, { body: { password: 'Refresh-Pass-42' } });
  assert.equal(fresh.status, 200, fresh.text);
});

test('a missing, malformed or past expiresAt is 400 and changes nothing; an unknown enrollment is 404', async () => {
  const identity = await controller.http.post(mgmt('/identities'), { headers: admin, body: { name: 'refresh-other', type: 'User', isAdmin: false, enrollment: { updb: 'refresh-other' } } });
  assert.equal(identity.status, 201, identity.text);
  const enrollment = (await controller.http.get(mgmt(`/identities/${identity.json.data.id}/enrollments`), { headers: admin })).json.data[0];
  const before = (await controller.http.get(mgmt(`/enrollments/${enrollment.id}`), { headers: admin })).json.data;
  for (const body of [{}, { expiresAt: 'tomorrow' }, { expiresAt: new Date(Date.now() - 60_000).toISOString() }]) {
    const refused = await controller.http.post(mgmt(`/enrollments/${enrollment.id}/refresh`), { headers: admin, body });
    assert.equal(refused.status, 400, `${JSON.stringify(body)}: ${refused.text}`);
    assert.equal(refused.json.error.code, 'COULD_NOT_VALIDATE');
  }
  const unchanged = (await controller.http.get(mgmt(`/enrollments/${enrollment.id}`), { headers: admin })).json.data;
  assert.deepEqual([unchanged.token, unchanged.expiresAt], [before.token, before.expiresAt]);
  const unknown = await controller.http.post(mgmt('/enrollments/no-such-enrollment/refresh'), { headers: admin, body: { expiresAt: new Date(Date.now() + 60_000).toISOString() } });
  assert.equal(unknown.status, 404, unknown.text);
  const anonymous = await controller.http.post(mgmt(`/enrollments/${enrollment.id}/refresh`), { body: { expiresAt: new Date(Date.now() + 60_000).toISOString() } });
  assert.equal(anonymous.status, 401);
});

// `GET /identities/{id}/failed-service-requests` over HTTPS against a real controller: a Dial session refused for an
// MFA posture check is recorded for that identity with the service, the policy and the failing check (what the
// session had, what the check wants), in the spec's shape; other identities have none; the record is bounded.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas } from './support/edge-api-schemas.ts';
import { openSession, OverlaySetup } from './support/overlay-setup.ts';

const schemas = EdgeApiSchemas.load('management');
let controller: ControllerFixture;
let setup: OverlaySetup;
const password = 'failed-requests-password';

before(async () => {
  controller = await ControllerFixture.create();
  setup = await OverlaySetup.create(controller);
});
after(async () => controller?.dispose());

async function failedRequests(identityId: string) {
  const response = await controller.http.get(`${controller.managementApi}/identities/${identityId}/failed-service-requests`, { headers: setup.adminHeaders });
  if (response.status === 200) assert.deepEqual(schemas.problems('GET', `/identities/${identityId}/failed-service-requests`, 200, response.json), []);
  return response;
}

test('a session refused for posture is recorded with its policy and failing check', async () => {
  const guarded = await setup.mfaGuardedService('fsr-web', 'fsr-users', 300);
  const aliceId = await setup.createUser('fsr-alice', password, { roleAttributes: ['fsr-users'] });
  const bobId = await setup.createUser('fsr-bob', password);
  const token = await controller.login('fsr-alice', password);

  assert.deepEqual((await failedRequests(aliceId)).json.data, [], 'nothing refused yet');
  const refused = await openSession(controller, token, guarded.serviceId, 'Dial');
  assert.equal(refused.json.error?.code, 'INVALID_POSTURE', refused.text);

  const response = await failedRequests(aliceId);
  assert.equal(response.status, 200, response.text);
  assert.equal(response.json.data.length, 1);
  const [request] = response.json.data;
  const session = await controller.http.get(`${controller.clientApi}/current-api-session`, { headers: { 'zt-session': token } });
  assert.equal(request.apiSessionId, session.json.data.id);
  assert.equal(request.serviceId, guarded.serviceId);
  assert.equal(request.serviceName, 'fsr-web');
  assert.equal(request.sessionType, 'Dial');
  assert.ok(Math.abs(Date.parse(request.when) - Date.now()) < 60_000);
  assert.deepEqual(request.policyFailures.map((failure: { policyId: string; policyName: string }) => [failure.policyId, failure.policyName]), [[guarded.policyId, 'fsr-web-dial']]);
  const [check] = request.policyFailures[0].checks;
  assert.equal(check.postureCheckId, guarded.checkId);
  assert.equal(check.postureCheckName, 'fsr-web-mfa');
  assert.equal(check.postureCheckType, 'MFA');
  assert.equal(check.actualValue.passedMfa, false);
  assert.equal(check.expectedValue.passedMfa, true);
  assert.equal(check.criteria.timeoutSeconds, 300);
  assert.equal(check.criteria.timeoutRemainingSeconds, 0);

  assert.deepEqual((await failedRequests(bobId)).json.data, [], "another identity's list is its own");
  const unknown = await failedRequests('no-such-identity');
  assert.equal(unknown.status, 404, unknown.text);
});

test('each identity keeps its newest 50 refused requests', async () => {
  const guarded = await setup.mfaGuardedService('fsr-many', 'fsr-many-users');
  const id = await setup.createUser('fsr-carol', password, { roleAttributes: ['fsr-many-users'] });
  const token = await controller.login('fsr-carol', password);
  for (let attempt = 0; attempt < 53; attempt++) {
    const refused = await openSession(controller, token, guarded.serviceId, 'Dial');
    assert.equal(refused.json.error?.code, 'INVALID_POSTURE', refused.text);
  }
  const kept = (await failedRequests(id)).json.data as Array<{ when: string }>;
  assert.equal(kept.length, 50);
  const times = kept.map((request) => Date.parse(request.when));
  assert.deepEqual(times, [...times].sort((a, b) => a - b), 'oldest first');
});

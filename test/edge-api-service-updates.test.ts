// `GET /current-api-session/service-updates` over HTTPS against a real controller: `lastChangeAt` holds still while
// nothing the caller's service list shows changes (another identity's service, repeated polls) and moves forward
// when a policy grants or stops granting a service, the service or its config changes, or a posture check now
// guards it. Each answer validates against client.yml.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas } from './support/edge-api-schemas.ts';
import { OverlaySetup } from './support/overlay-setup.ts';

const schemas = EdgeApiSchemas.load('client');
let controller: ControllerFixture;
let setup: OverlaySetup;
let user: { 'zt-session': string };
const password = 'service-updates-password';

before(async () => {
  controller = await ControllerFixture.create();
  setup = await OverlaySetup.create(controller);
  await setup.createUser('upd-alice', password, { roleAttributes: ['upd'] });
  user = { 'zt-session': await controller.login('upd-alice', password) };
});
after(async () => controller?.dispose());

async function lastChangeAt(): Promise<string> {
  // Timestamps have millisecond precision: a change right after the previous answer must still show as later.
  await sleep(5);
  const response = await controller.http.get(`${controller.clientApi}/current-api-session/service-updates`, { headers: user });
  assert.equal(response.status, 200, response.text);
  assert.deepEqual(schemas.problems('GET', '/current-api-session/service-updates', 200, response.json), []);
  return response.json.data.lastChangeAt as string;
}

const mgmt = (path: string) => `${controller.managementApi}${path}`;

test("lastChangeAt moves only when the caller's service list could change", async () => {
  const first = await lastChangeAt();
  assert.ok(!Number.isNaN(Date.parse(first)));
  assert.equal(await lastChangeAt(), first, 'polling again changes nothing');

  await setup.createService('upd-other');
  assert.equal(await lastChangeAt(), first, "a service the caller may not use is not the caller's change");

  const serviceId = await setup.createService('upd-web', ['upd-web']);
  assert.equal(await lastChangeAt(), first);
  const policyId = await setup.createPolicy({ name: 'upd-dial', type: 'Dial', identityRoles: ['#upd'], serviceRoles: ['#upd-web'] });
  const granted = await lastChangeAt();
  assert.ok(granted > first, `a new grant moves it (${first} → ${granted})`);
  assert.equal(await lastChangeAt(), granted);

  const renamed = await controller.http.patch(mgmt(`/services/${serviceId}`), { headers: setup.adminHeaders, body: { name: 'upd-web-2' } });
  assert.equal(renamed.status, 200, renamed.text);
  const afterRename = await lastChangeAt();
  assert.ok(afterRename > granted, 'a change to a service the caller uses moves it');

  await setup.createMfaCheck('upd-mfa', { roleAttributes: ['upd-mfa'] });
  assert.equal(await lastChangeAt(), afterRename, 'a posture check no policy of the caller selects changes nothing');
  const guarded = await controller.http.patch(mgmt(`/service-policies/${policyId}`), { headers: setup.adminHeaders, body: { postureCheckRoles: ['#upd-mfa'] } });
  assert.equal(guarded.status, 200, guarded.text);
  const afterGuard = await lastChangeAt();
  assert.ok(afterGuard > afterRename, 'a posture check now guarding the service moves it');

  const removed = await controller.http.delete(mgmt(`/service-policies/${policyId}`), { headers: setup.adminHeaders });
  assert.equal(removed.status, 200, removed.text);
  assert.ok((await lastChangeAt()) > afterGuard, 'losing the grant moves it');
});

test('service updates need a fully authenticated session', async () => {
  const response = await controller.http.get(`${controller.clientApi}/current-api-session/service-updates`);
  assert.equal(response.status, 401, response.text);
  assert.equal(response.json.error.code, 'UNAUTHORIZED');
});

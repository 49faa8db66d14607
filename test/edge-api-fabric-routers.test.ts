// `/routers` and `/transit-routers` over HTTPS against a real controller: the fabric's views of the routers list
// edgeward's edge routers in the spec's routerDetail shape: one not enrolled (fingerprint "", offline) and one
// enrolled and connected on the control channel (its certificate's fingerprint, online).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { managementPoster, welcomedScriptedRouter } from './support/circuit-routers.ts';
import { until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas } from './support/edge-api-schemas.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import type { ScriptedRouter } from './support/scripted-router.ts';

const schemas = EdgeApiSchemas.load('management');
let controller: ControllerFixture;
let admin: Record<string, string>;
let channel: ScriptedRouter | undefined;
let pendingId: string;
let onlineId: string;

async function get(path: string, headers = admin) {
  const response = await controller.http.get(`${controller.managementApi}${path}`, { headers });
  if (response.status < 300) assert.deepEqual(schemas.problems('GET', path.split('?')[0]!, response.status, response.json), [], `GET ${path}`);
  return response;
}

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  pendingId = await managementPoster(controller, admin)('/edge-routers', { name: 'not-enrolled', cost: 7 });
  const online = await welcomedScriptedRouter(controller, admin, new OpensslWorkbench(join(controller.root, 'router-certs')), 'enrolled', {});
  channel = online.channel;
  onlineId = online.enrolled.id;
});
after(async () => {
  channel?.close();
  await controller?.dispose();
});

test('/routers and /transit-routers list the edge routers, enrolled or not, online or not', async () => {
  const fingerprint = (await get(`/edge-routers/${onlineId}`)).json.data.fingerprint as string;
  assert.match(fingerprint, /^[0-9a-f]{40}$/);
  for (const collection of ['routers', 'transit-routers']) {
    const rows = await until(`${collection} with the enrolled router online`, async () => {
      const response = await get(`/${collection}`);
      assert.equal(response.status, 200, response.text);
      const data = response.json.data as any[];
      return data.find((row) => row.id === onlineId)?.isOnline ? data : undefined;
    }, 10_000);
    const pending = rows.find((row) => row.id === pendingId);
    assert.deepEqual([pending.name, pending.isVerified, pending.isOnline, pending.fingerprint, pending.cost], ['not-enrolled', false, false, '', 7]);
    const online = (await get(`/${collection}/${onlineId}`)).json.data;
    assert.deepEqual([online.name, online.isVerified, online.isOnline, online.fingerprint], ['enrolled', true, true, fingerprint]);
    assert.equal(online._links.self.href, `./${collection}/${onlineId}`);
    assert.equal((await get(`/${collection}/no-such-router`)).status, 404);
    assert.equal((await get(`/${collection}`, {})).status, 401);
    assert.equal((await get(`/${collection}?filter=${encodeURIComponent('isOnline = true')}`)).json.data.length, 1);
  }
});

// The demo's SDK client identity against a real controller: enrolled into an OpenZiti identity file on the first
// start, the file reused on the next, and a file that no longer logs in replaced by a new enrollment (the first one
// was used and cannot be used again). The whole demo (test/demo.test.ts) runs the tunnel with it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { EdgeSdk } from '../sdk/edge-sdk.ts';
import { demoClientName, ensureDemoClient, planSdkClient, type SdkClientPlan } from '../server/demo/demo-sdk-client.ts';
import type { ManagementApi } from '../server/demo/demo-routers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';

let controller: ControllerFixture;
let api: ManagementApi;
let plan: SdkClientPlan;
let root: string;

before(async () => {
  controller = await ControllerFixture.create();
  const token = await controller.adminToken();
  api = {
    base: controller.managementApi,
    request: async (method, path, body) => {
      const answer = await controller.http.request(method, `${controller.managementApi}${path}`, { headers: { 'zt-session': token }, ...(body === undefined ? {} : { body }) });
      return { status: answer.status, text: answer.text, data: (answer.json as { data?: unknown } | undefined)?.data };
    },
    logout: async () => undefined,
  };
  const service = await api.request('POST', '/services', { name: 'demo-echo', encryptionRequired: true });
  assert.equal(service.status, 201, service.text);
  root = mkdtempSync(join(tmpdir(), 'demo-sdk-client-'));
  plan = planSdkClient(root, 8481);
});
after(async () => {
  await controller?.dispose();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function ensure(): Promise<string[]> {
  const lines: string[] = [];
  await ensureDemoClient(api, plan, [new URL(controller.managementApi).origin], (line) => lines.push(line));
  return lines;
}

async function loginWithFile(): Promise<string> {
  const sdk = EdgeSdk.fromIdentityFile(plan.identityFile);
  try {
    return (await sdk.login()).name;
  } finally {
    sdk.close();
  }
}

async function certAuthenticators(identityId: string): Promise<number> {
  const listed = await api.request('GET', `/identities/${identityId}/authenticators`);
  return (listed.data as { method: string }[]).filter((row) => row.method === 'cert').length;
}

test('first start enrolls demo-client into a 0600 identity file granted Dial on demo-echo; the next start reuses it', async () => {
  const first = await ensure();
  assert.ok(first.some((line) => /^enrolled identity demo-client \(\S+\) at https:\/\/127\.0\.0\.1:\d+: /.test(line)), first.join('\n'));
  assert.equal(statSync(plan.identityFile).mode & 0o777, 0o600);
  assert.equal(await loginWithFile(), demoClientName);
  const sdk = EdgeSdk.fromIdentityFile(plan.identityFile);
  try {
    assert.deepEqual((await sdk.services()).map((service) => service.name), ['demo-echo'], 'the identity may dial the demo service');
  } finally {
    sdk.close();
  }

  const second = await ensure();
  assert.ok(second.some((line) => line.includes('logs in with') && line.endsWith('reusing it')), second.join('\n'));
  assert.ok(!second.some((line) => line.startsWith('enrolled identity')), 'not enrolled again');
  const identities = await api.request('GET', `/identities?filter=${encodeURIComponent(`name = "${demoClientName}"`)}`);
  assert.equal((identities.data as unknown[]).length, 1, 'one identity, not a second one');
  const policies = await api.request('GET', `/service-policies?filter=${encodeURIComponent('name = "demo-echo-sdk-dial"')}`);
  assert.equal((policies.data as unknown[]).length, 1);
});

test('a file that no longer logs in is replaced: the old certificate goes and a new ott enrollment is used', async () => {
  const identity = (await api.request('GET', `/identities?filter=${encodeURIComponent(`name = "${demoClientName}"`)}`)).data as { id: string }[];
  const identityId = identity[0]!.id;
  assert.equal(await certAuthenticators(identityId), 1);
  writeFileSync(plan.identityFile, '{"ztAPI": "https://127.0.0.1:1", "id": {}}\n', { mode: 0o600 });
  const lines = await ensure();
  assert.ok(lines.some((line) => line.startsWith(`enrolling identity demo-client into ${plan.identityFile} (it does not log in:`)), lines.join('\n'));
  assert.ok(lines.some((line) => line.startsWith(`enrolled identity demo-client (${identityId})`)), lines.join('\n'));
  assert.equal(await loginWithFile(), demoClientName);
  assert.equal(await certAuthenticators(identityId), 1, 'the old certificate was replaced, not kept beside the new one');
  assert.equal(statSync(plan.identityFile).mode & 0o777, 0o600);

  rmSync(plan.identityFile);
  const again = await ensure();
  assert.ok(again.some((line) => line.includes('(there is none yet)')), again.join('\n'));
  assert.equal(await loginWithFile(), demoClientName);
});

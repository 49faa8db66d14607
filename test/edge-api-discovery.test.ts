// What clients and tools ask first, over HTTPS against a real three-controller cluster: `/controllers` on both Edge
// APIs lists every member with the addresses of its APIs (each member answers for itself; one that stops is still
// listed, offline), the network JWT (signed with the key of the certificate `/controllers` shows), and the
// catalogues: identity types, posture check types, enumerated capabilities and the client API's protocols. Every 2xx body validates against the spec's response schema.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createPublicKey } from 'node:crypto';
import { jwtVerify } from 'jose';
import { managementPoster } from './support/circuit-routers.ts';
import { threeControllerCluster, until } from './support/cluster-helpers.ts';
import type { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas } from './support/edge-api-schemas.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-discovery-'));
const schemas = { management: EdgeApiSchemas.load('management'), client: EdgeApiSchemas.load('client') };
let nodes: ControllerFixture[];
let admin: Record<string, string>;

/** A GET on `node`'s `api` at `path`; a 2xx body must validate against the spec. */
async function get(node: ControllerFixture, api: 'client' | 'management', path: string, headers: Record<string, string> = {}) {
  const response = await node.http.get(`${api === 'client' ? node.clientApi : node.managementApi}${path}`, { headers });
  if (response.status < 300) assert.deepEqual(schemas[api].problems('GET', path.split('?')[0]!, response.status, response.json), [], `${api} GET ${path}`);
  return response;
}

before(async () => {
  nodes = await threeControllerCluster(join(root, 'pki'));
  admin = { 'zt-session': await nodes[0]!.adminToken() };
  const post = managementPoster(nodes[0]!, admin);
  const identityId = await post('/identities', { name: 'viewer', type: 'User', isAdmin: false });
  await post('/authenticators', { method: 'updb', identityId, username: 'viewer', password: 'viewer-password-1' });
});

after(async () => {
  await Promise.all((nodes ?? []).map((node) => node.dispose()));
  rmSync(root, { recursive: true, force: true });
});

test('/controllers lists every member with its API addresses, asked of any controller, on both APIs', async () => {
  const expected = nodes.map((node) => ({
    id: node.id,
    ctrlAddress: node.ctrlAddress,
    client: `${node.clientApi}`,
    management: `${node.managementApi}`,
  }));
  for (const node of nodes) {
    const headers = { 'zt-session': await node.adminToken() };
    const listed = await until(`${node.id} hears from every member`, async () => {
      const response = await get(node, 'management', '/controllers', headers);
      assert.equal(response.status, 200, response.text);
      const rows = response.json.data as any[];
      return rows.length === 3 && rows.every((row) => row.isOnline) ? rows : undefined;
    }, 20_000);
    assert.deepEqual(
      listed.map((row) => ({ id: row.id, ctrlAddress: row.ctrlAddress, client: row.apiAddresses['edge-client'][0].url, management: row.apiAddresses['edge-management'][0].url })),
      expected,
      `as ${node.id} lists them`,
    );
    for (const row of listed) {
      assert.match(row.certPem, /BEGIN CERTIFICATE/);
      assert.match(row.fingerprint, /^[0-9a-f]{40}$/);
      assert.equal(row.apiAddresses['edge-client'][0].version, 'v1');
    }
  }
  const viewer = await nodes[1]!.login('viewer', 'viewer-password-1');
  const client = await get(nodes[1]!, 'client', '/controllers', { 'zt-session': viewer });
  assert.equal(client.status, 200, client.text);
  assert.deepEqual((client.json.data as any[]).map((row) => row.id), nodes.map((node) => node.id));
  assert.equal((await get(nodes[1]!, 'client', '/controllers')).status, 401, 'a session is needed');
  assert.equal((await get(nodes[1]!, 'management', '/controllers', { 'zt-session': await nodes[1]!.login('viewer', 'viewer-password-1', 'management') })).status, 401, 'an admin on the management API');
});

test('a stopped member is still listed, offline', async () => {
  await nodes[2]!.stop();
  try {
    const rows = await until('ctrl3 offline on ctrl1', async () => {
      const response = await get(nodes[0]!, 'management', '/controllers', admin);
      const rows = response.json.data as any[];
      return rows.find((row) => row.id === nodes[2]!.id)?.isOnline === false ? rows : undefined;
    }, 20_000);
    assert.deepEqual(rows.map((row) => [row.id, row.isOnline]), [[nodes[0]!.id, true], [nodes[1]!.id, true], [nodes[2]!.id, false]]);
    assert.equal(rows[2].ctrlAddress, nodes[2]!.ctrlAddress);
  } finally {
    await nodes[2]!.start();
  }
});

test('identity types, posture check types, enumerated capabilities and protocols', async () => {
  const node = nodes[0]!;
  const types = await get(node, 'management', '/identity-types', admin);
  assert.equal(types.status, 200, types.text);
  assert.deepEqual((types.json.data as any[]).map((row) => row.name), ['Default', 'Router']);
  assert.equal((await get(node, 'management', '/identity-types/Default', admin)).json.data.name, 'Default');
  assert.equal((await get(node, 'management', '/identity-types/Nope', admin)).status, 404);
  assert.equal((await get(node, 'management', '/identity-types')).status, 401);
  // The identity representation's type reference now leads somewhere.
  const identity = (await get(node, 'management', '/identities?filter=name%3D%22viewer%22', admin)).json.data[0];
  assert.equal((await get(node, 'management', `/identity-types/${identity.type.id}`, admin)).status, 200);

  const posture = await get(node, 'management', '/posture-check-types?limit=2', admin);
  assert.equal(posture.status, 200, posture.text);
  assert.equal(posture.json.meta.pagination.totalCount, 6);
  assert.deepEqual((posture.json.data as any[]).map((row) => row.id), ['DOMAIN', 'MAC']);
  const os = (await get(node, 'management', '/posture-check-types/OS', admin)).json.data;
  assert.deepEqual(os.operatingSystems.map((item: any) => item.type).sort(), ['Android', 'Linux', 'Windows', 'WindowsServer', 'iOS', 'macOS']);
  assert.equal((await get(node, 'management', '/posture-check-types/NOPE', admin)).status, 404);

  for (const api of ['client', 'management'] as const) {
    const capabilities = await get(node, api, '/enumerated-capabilities');
    assert.equal(capabilities.status, 200, capabilities.text);
    assert.deepEqual(capabilities.json.data, ['OIDC_AUTH', 'HA_CONTROLLER']);
  }
  const protocols = await get(node, 'client', '/protocols');
  assert.equal(protocols.status, 200, protocols.text);
  assert.deepEqual(protocols.json.data, { https: { address: new URL(node.clientApi).host } });
});

test('the network JWT is signed with the certificate /controllers shows and names the client API', async () => {
  const node = nodes[1]!;
  const me = ((await get(node, 'management', '/controllers', { 'zt-session': await node.adminToken() })).json.data as any[]).find((row) => row.id === node.id);
  for (const api of ['client', 'management'] as const) {
    const response = await get(node, api, '/network-jwts');
    assert.equal(response.status, 200, response.text);
    const [jwt] = response.json.data as Array<{ name: string; token: string }>;
    assert.equal(jwt!.name, 'default');
    const { payload } = await jwtVerify(jwt!.token, createPublicKey(me.certPem));
    assert.equal(payload.iss, new URL(node.clientApi).origin);
    assert.equal(payload.em, 'network');
    assert.deepEqual(payload.ctrls, [new URL(node.clientApi).origin]);
    assert.equal(payload.exp, undefined, 'it grants nothing, so it does not expire');
  }
});

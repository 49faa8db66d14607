// GET /fabric/v1/cluster/list-members on a real three-controller cluster over HTTPS: the member table
// `agent cluster list` prints, as each controller sees it, for administrators only; `preferredLeader` only where true.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { memberList, threeControllerCluster, until } from './support/cluster-helpers.ts';
import type { ControllerFixture } from './support/controller-fixture.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-fabric-route-'));
let nodes: ControllerFixture[] = [];
let adminToken = '';
let userToken = '';

const listMembers = (node: ControllerFixture, headers: Record<string, string> = {}) => node.http.get(`${node.origin}/fabric/v1/cluster/list-members`, { headers });

before(
  async () => {
    // ctrl1 leads and is the preferred leader, so no hand-over moves leadership while the test runs.
    nodes = await threeControllerCluster(join(root, 'pki'), {
      editConfig: (yaml, id) => (id === 'ctrl1' ? yaml.replace('preferredLeader: false', 'preferredLeader: true') : yaml),
    });
    const [first] = nodes as [ControllerFixture];
    adminToken = await first.adminToken();
    const admin = { 'zt-session': adminToken };
    const user = await first.http.post(`${first.managementApi}/identities`, { headers: admin, body: { name: 'fabric-user', type: 'User', isAdmin: false } });
    assert.equal(user.status, 201, user.text);
    const authenticator = await first.http.post(`${first.managementApi}/authenticators`, { headers: admin, body: { method: 'updb', identityId: user.json.data.id, username: 'fabric-user', password: 'fabric-user-password' } });
    assert.equal(authenticator.status, 201, authenticator.text);
    userToken = await first.login('fabric-user', 'fabric-user-password', 'management');
  },
  { timeout: 180_000 },
);

after(async () => {
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(root, { recursive: true, force: true });
});

test('an administrator gets the leader\'s member table with every column, as agent cluster list shows it', async () => {
  const [first] = nodes as [ControllerFixture];
  const response = await until('the leader to list three connected voters', async () => {
    const answer = await listMembers(first, { 'zt-session': adminToken });
    return answer.status === 200 && answer.json.data.length === 3 && answer.json.data.every((row: { connected: boolean }) => row.connected) ? answer : undefined;
  });
  assert.match(String(response.headers['content-type']), /^application\/json/);
  assert.deepEqual(response.json.meta, {});
  const rows = response.json.data as Record<string, unknown>[];
  assert.deepEqual(
    rows.map((row) => Object.keys(row).sort()),
    [
      ['address', 'connected', 'id', 'leader', 'preferredLeader', 'readOnly', 'version', 'voter'],
      ['address', 'connected', 'id', 'leader', 'readOnly', 'version', 'voter'],
      ['address', 'connected', 'id', 'leader', 'readOnly', 'version', 'voter'],
    ],
    'preferredLeader appears only on the preferred controller',
  );
  const agentRows = await memberList(first);
  assert.deepEqual(
    rows,
    agentRows.map((row) => ({ id: row.id, address: row.address, voter: row.voter, leader: row.leader, version: row.version, connected: row.connected, readOnly: false, ...(row.preferred ? { preferredLeader: true } : {}) })),
  );
  assert.deepEqual(
    rows.map((row) => [row.id, row.address, row.voter, row.leader, row.connected, row.readOnly]),
    nodes.map((node) => [node.id, node.ctrlAddress, true, node.id === 'ctrl1', true, false]),
  );
  for (const row of rows) assert.match(String(row.version), /^v\d+\.\d+\.\d+/);
  assert.equal(rows[0]!.preferredLeader, true);
});

test('a follower answers from its own view: the same leader, itself connected', async () => {
  const second = nodes[1]!;
  const response = await listMembers(second, { 'zt-session': adminToken });
  assert.equal(response.status, 200, response.text);
  const rows = response.json.data as { id: string; leader: boolean; connected: boolean }[];
  assert.deepEqual(rows.filter((row) => row.leader).map((row) => row.id), ['ctrl1']);
  assert.equal(rows.find((row) => row.id === 'ctrl2')?.connected, true);
});

test('an identity that is not an administrator is refused with 401 in the error envelope', async () => {
  const response = await listMembers(nodes[0]!, { 'zt-session': userToken });
  assert.equal(response.status, 401, response.text);
  assert.equal(response.json.error.code, 'UNAUTHORIZED');
  assert.equal(typeof response.json.error.requestId, 'string');
  assert.equal(response.json.data, undefined);
});

test('without a session the route answers 401 with the zt-session challenge', async () => {
  const response = await listMembers(nodes[0]!);
  assert.equal(response.status, 401, response.text);
  assert.equal(response.json.error.code, 'UNAUTHORIZED');
  assert.match(String(response.headers['www-authenticate']), /zt-session/);
  const unknown = await listMembers(nodes[0]!, { 'zt-session': 'not-a-token' });
  assert.equal(unknown.status, 401);
});

test('the route takes only GET (405 with Allow), and other fabric paths are 404', async () => {
  const node = nodes[0]!;
  const post = await node.http.post(`${node.origin}/fabric/v1/cluster/list-members`, { headers: { 'zt-session': adminToken }, body: {} });
  assert.equal(post.status, 405, post.text);
  assert.match(String(post.headers.allow), /GET/);
  const missing = await node.http.get(`${node.origin}/fabric/v1/cluster/no-such-route`, { headers: { 'zt-session': adminToken } });
  assert.equal(missing.status, 404);
});

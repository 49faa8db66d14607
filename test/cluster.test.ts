// A three-controller cluster of real processes over TLS: formed with the agent's cluster commands, writes through
// any controller, the leader killed with SIGKILL and replaced, and the killed one rejoining.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { MemberRow } from '../server/cluster/cluster-service.ts';
import { initPki } from '../common/pki/pki-directory.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { until, agent } from './support/cluster-helpers.ts';

const pkiRoot = mkdtempSync(join(tmpdir(), 'edgeward-cluster-pki-'));
let nodes: ControllerFixture[] = [];

before(async () => {
  await initPki(pkiRoot, { trustDomain: 'edgeward.test' });
  // ctrl1 takes join requests: ctrl3 joins through it (OpenZiti's self-join, off by default).
  const first = await ControllerFixture.create({ pkiDir: pkiRoot, id: 'ctrl1', editConfig: (yaml) => yaml.replace('allowJoinRequests: false', 'allowJoinRequests: true') });
  const second = await ControllerFixture.create({ pkiDir: pkiRoot, id: 'ctrl2', initAdmin: false });
  const third = await ControllerFixture.create({ pkiDir: pkiRoot, id: 'ctrl3', initAdmin: false });
  nodes = [first, second, third];
});
after(async () => {
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(pkiRoot, { recursive: true, force: true });
});



const leaderOf = async (node: ControllerFixture) => ((await agent(node, 'cluster.list')) as MemberRow[]).find((row) => row.leader)?.id;

test('the cluster forms: the leader adds one controller, another joins through the leader (cluster.allowJoinRequests)', async () => {
  const [first, second, third] = nodes as [ControllerFixture, ControllerFixture, ControllerFixture];
  assert.equal(await agent(first, 'cluster.add', { address: second.ctrlAddress, voter: true }), `success, added peer at ${second.ctrlAddress} to cluster`);
  assert.equal(await agent(third, 'cluster.add', { address: first.ctrlAddress, voter: true }), 'success, added self to cluster');
  const rows = await until('three connected voters', async () => {
    const list = (await agent(first, 'cluster.list')) as MemberRow[];
    return list.length === 3 && list.every((row) => row.connected && row.voter) ? list : undefined;
  });
  assert.deepEqual(rows.map((row) => row.id).sort(), ['ctrl1', 'ctrl2', 'ctrl3']);
  assert.equal(rows.filter((row) => row.leader).length, 1);
  assert.ok(rows.every((row) => row.version.startsWith('v')));
  for (const node of nodes) assert.equal(await until(`${node.id} to know the leader`, () => leaderOf(node)), 'ctrl1');
});

test('a write through a follower is forwarded to the leader and readable everywhere', async () => {
  const follower = nodes[1]!;
  const headers = { 'zt-session': await follower.adminToken() };
  const created = await follower.http.post(`${follower.managementApi}/identities`, { headers, body: { name: 'via-follower', isAdmin: false } });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  const own = await follower.http.get(`${follower.managementApi}/identities/${id}`, { headers });
  assert.equal(own.status, 200, 'the follower reads its own write at once');
  for (const node of nodes) {
    const token = await node.adminToken();
    const read = await until(`the identity on ${node.id}`, async () => {
      const response = await node.http.get(`${node.managementApi}/identities/${id}`, { headers: { 'zt-session': token } });
      return response.status === 200 ? response : undefined;
    });
    assert.equal(read.json.data.name, 'via-follower');
  }
});

test('SIGKILL of the leader: a new leader is elected and writes succeed through the survivors; the old one rejoins', async () => {
  const leaderId = await leaderOf(nodes[0]!);
  const leader = nodes.find((node) => node.id === leaderId)!;
  const survivors = nodes.filter((node) => node !== leader);
  const tokens = await Promise.all(survivors.map((node) => node.adminToken()));
  leader.child!.kill('SIGKILL');
  const started = Date.now();
  const newLeader = await until('a new leader', async () => {
    const id = await leaderOf(survivors[0]!);
    return id && id !== leaderId ? id : undefined;
  });
  const failoverMs = Date.now() - started;
  assert.ok(survivors.some((node) => node.id === newLeader));
  for (const [i, node] of survivors.entries()) {
    const created = await until(`a write through ${node.id}`, async () => {
      const response = await node.http.post(`${node.managementApi}/identities`, { headers: { 'zt-session': tokens[i]! }, body: { name: `after-kill-${node.id}`, isAdmin: false } });
      return response.status === 201 ? response : undefined;
    });
    assert.equal(created.status, 201);
  }
  assert.ok(failoverMs < 15_000, `failover took ${failoverMs} ms`);

  await leader.start();
  const token = await until('the old leader to serve logins again', async () => leader.adminToken());
  await until('the old leader to catch up', async () => {
    const response = await leader.http.get(`${leader.managementApi}/identities?filter=${encodeURIComponent('name contains "after-kill-"')}`, { headers: { 'zt-session': token } });
    return response.status === 200 && response.json.meta.pagination.totalCount === 2;
  });
});

// Snapshot catch-up across real processes: a controller added after the leader compacted its log installs the
// leader's snapshot and carries on; one that had data and missed a compaction restarts as documented and rejoins.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { callAgent } from '../server/agent/agent-client.ts';
import { initPki } from '../common/pki/pki-directory.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { until } from './support/cluster-helpers.ts';

const pkiRoot = mkdtempSync(join(tmpdir(), 'edgeward-snap-pki-'));
const fixtures: ControllerFixture[] = [];
before(() => initPki(pkiRoot, { trustDomain: 'edgeward.test' }));
after(async () => {
  await Promise.all(fixtures.map((fixture) => fixture.dispose()));
  rmSync(pkiRoot, { recursive: true, force: true });
});

const snappy = (yaml: string) => yaml.replace('snapshotInterval: 2m', 'snapshotInterval: 10s').replace('snapshotThreshold: 500', 'snapshotThreshold: 20').replace('trailingLogs: 500', 'trailingLogs: 5');


async function createMany(node: ControllerFixture, token: string, prefix: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await node.http.post(`${node.managementApi}/identities`, { headers: { 'zt-session': token }, body: { name: `${prefix}-${i}`, isAdmin: false } });
    assert.equal(response.status, 201, response.text);
  }
}

async function countOn(node: ControllerFixture, prefix: string): Promise<number> {
  const token = await node.adminToken();
  const response = await node.http.get(`${node.managementApi}/identities?filter=${encodeURIComponent(`name contains "${prefix}-"`)}`, { headers: { 'zt-session': token } });
  return response.json.meta.pagination.totalCount as number;
}

test('late joiners catch up by snapshot; a node with data that misses a compaction restarts and rejoins', async () => {
  const leader = await ControllerFixture.create({ pkiDir: pkiRoot, id: 'sn1', editConfig: snappy });
  fixtures.push(leader);
  const token = await leader.adminToken();
  await createMany(leader, token, 'early', 40);
  await until('a snapshot on the leader', () => leader.readLog().includes('raft snapshot taken'), 30_000);

  const late = await ControllerFixture.create({ pkiDir: pkiRoot, id: 'sn2', initAdmin: false, editConfig: snappy });
  fixtures.push(late);
  const added = await callAgent(leader.agentSocket, 'cluster.add', { address: late.ctrlAddress, voter: true }, 60_000);
  assert.ok(added.ok, JSON.stringify(added));
  await until('the late joiner to hold everything', async () => (await countOn(late, 'early')) === 40);
  assert.match(late.readLog(), /restored snapshot from the leader/);
  assert.doesNotMatch(late.readLog(), /restart required/, 'an empty node installs the snapshot and carries on');
  assert.match(leader.readLog(), /"msg":"raft snapshot sent".*"peerId":"sn2".*"parts":[1-9]/, 'the snapshot left in parts');

  // sn2 goes away; sn1 alone cannot commit in a two-voter cluster, so add a third voter first.
  const third = await ControllerFixture.create({ pkiDir: pkiRoot, id: 'sn3', initAdmin: false, editConfig: snappy });
  fixtures.push(third);
  assert.ok((await callAgent(leader.agentSocket, 'cluster.add', { address: third.ctrlAddress, voter: true }, 60_000)).ok);
  await until('sn3 caught up', async () => (await countOn(third, 'early')) === 40);

  assert.equal(await late.stop('SIGTERM'), 0);
  await createMany(leader, token, 'missed', 40);
  const snapshotsBefore = (leader.readLog().match(/raft snapshot taken/g) ?? []).length;
  await until('another snapshot and compaction on the leader', () => (leader.readLog().match(/raft snapshot taken/g) ?? []).length > snapshotsBefore, 30_000);

  // Restarted with data of its own, it receives the leader's snapshot, says so and exits for its supervisor: it may do
  // so before it ever answers its health check.
  await late.start().catch((error: Error) => {
    if (late.child?.exitCode !== 3) throw error;
  });
  const exitCode = await until('sn2 to exit for a restart', () => (late.child!.exitCode !== null ? late.child!.exitCode : undefined), 40_000);
  assert.equal(exitCode, 3);
  assert.match(late.output + late.readLog(), /restored snapshot to initialized system, restart required/);
  await late.start();
  await until('sn2 back with everything', async () => (await countOn(late, 'missed')) === 40);
  await until('sn2 to still hold the early ones', async () => (await countOn(late, 'early')) === 40);

  // Every member restarted at once finds the others again from its snapshot's membership (the log entries that
  // added them were compacted away).
  for (const node of [leader, late, third]) await node.stop('SIGTERM');
  for (const node of [leader, late, third]) await node.start();
  await until('a leader after a full restart', async () => {
    const response = await callAgent(leader.agentSocket, 'cluster.list', {}, 10_000);
    return response.ok && (response.result as Array<{ leader: boolean }>).some((row) => row.leader);
  });
  // A login is a write: sn3 takes it once it has heard from the new leader.
  await until('sn3 to serve everything after the restart', async () => (await countOn(third, 'missed')) === 40);
});

// Five controller processes: formed by agent commands, a leader killed with SIGKILL, writes through every
// survivor, a member removed and a voter demoted to non-voter, leadership handed over on request.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { MemberRow } from '../server/cluster/cluster-service.ts';
import { initPki } from '../common/pki/pki-directory.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { until, agent } from './support/cluster-helpers.ts';

const pkiRoot = mkdtempSync(join(tmpdir(), 'edgeward-five-pki-'));
const nodes: ControllerFixture[] = [];
after(async () => {
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(pkiRoot, { recursive: true, force: true });
});


const list = (node: ControllerFixture) => agent(node, 'cluster.list') as Promise<MemberRow[]>;

test('a five-controller cluster survives its leader, and membership changes as operators ask', async () => {
  await initPki(pkiRoot, { trustDomain: 'edgeward.test' });
  for (let i = 1; i <= 5; i++) nodes.push(await ControllerFixture.create({ pkiDir: pkiRoot, id: `c${i}`, initAdmin: i === 1 }));
  for (const node of nodes.slice(1)) await agent(nodes[0]!, 'cluster.add', { address: node.ctrlAddress, voter: true });
  await until('five connected voters', async () => (await list(nodes[0]!)).filter((row) => row.voter && row.connected).length === 5);

  // Kill the leader; four survivors elect another and every one of them takes writes.
  nodes[0]!.child!.kill('SIGKILL');
  const survivors = nodes.slice(1);
  const leaderId = await until('a new leader', async () => (await list(survivors[0]!)).find((row) => row.leader && row.id !== 'c1')?.id);
  for (const node of survivors) {
    const token = await until(`a login on ${node.id}`, () => node.adminToken());
    const created = await until(`a write through ${node.id}`, async () => {
      const response = await node.http.post(`${node.managementApi}/identities`, { headers: { 'zt-session': token }, body: { name: `five-${node.id}`, isAdmin: false } });
      return response.status === 201 ? response : undefined;
    });
    assert.equal(created.status, 201);
  }
  const leader = nodes.find((node) => node.id === leaderId)!;

  // The dead member is removed; another becomes a non-voter; leadership moves to a named voter.
  assert.equal(await agent(leader, 'cluster.remove', { id: 'c1' }), 'success, removed c1 from cluster');
  const demoted = survivors.find((node) => node.id !== leaderId)!;
  await agent(leader, 'cluster.add', { address: demoted.ctrlAddress, voter: false });
  const rows = await until('the new membership', async () => {
    const current = await list(leader);
    return current.length === 4 && current.find((row) => row.id === demoted.id)?.voter === false ? current : undefined;
  });
  assert.equal(rows.filter((row) => row.voter).length, 3);
  const target = survivors.find((node) => node.id !== leaderId && node.id !== demoted.id)!;
  assert.equal(await agent(leader, 'cluster.transfer', { id: target.id }), 'success');
  await until(`${target.id} to lead`, async () => (await list(target)).find((row) => row.leader)?.id === target.id);
  // The old leader forwards the next request: it must have heard from the new one first.
  await until(`${leader.id} to know the new leader`, async () => (await list(leader)).find((row) => row.leader)?.id === target.id);
  await assert.rejects(agent(leader, 'cluster.transfer', { id: demoted.id }), /not a voter/, 'a non-voter cannot be made leader');
});

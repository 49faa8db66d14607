// Cluster behaviour an operator watches for, with real controller processes: read-only mode on a version
// mismatch, the leaderless warning and ClusterHasNoLeaderError, and the preferred-leader hand-over, each with its
// documented log line and cluster event.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { MemberRow } from '../server/cluster/cluster-service.ts';
import { initPki } from '../common/pki/pki-directory.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { until, agent } from './support/cluster-helpers.ts';

const pkiRoot = mkdtempSync(join(tmpdir(), 'edgeward-behaviour-pki-'));
const fixtures: ControllerFixture[] = [];
before(() => initPki(pkiRoot, { trustDomain: 'edgeward.test' }));
after(async () => {
  await Promise.all(fixtures.map((fixture) => fixture.dispose()));
  rmSync(pkiRoot, { recursive: true, force: true });
});

const tuned = (preferred: boolean) => (yaml: string) =>
  yaml.replace('warnWhenLeaderlessFor: 1m', 'warnWhenLeaderlessFor: 10s').replace('preferredLeader: false', `preferredLeader: ${preferred}`);

async function controller(id: string, options: { init?: boolean; version?: string; preferred?: boolean } = {}) {
  const fixture = await ControllerFixture.create({
    pkiDir: pkiRoot,
    id,
    initAdmin: options.init ?? false,
    editConfig: tuned(options.preferred ?? false),
    ...(options.version ? { env: { EDGEWARD_VERSION: options.version } } : {}),
  });
  fixtures.push(fixture);
  return fixture;
}



const events = (node: ControllerFixture) => {
  try {
    return readFileSync(node.eventsFile, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  } catch {
    return [];
  }
};
const clusterEvent = (node: ControllerFixture, type: string) => events(node).find((event) => event.namespace === 'cluster' && event.eventType === type);

test('a member with another version makes the cluster read-only until it is removed', async () => {
  const first = await controller('rw1', { init: true });
  const stray = await controller('rw2', { version: 'v0.1.1-stray' });
  const token = await first.adminToken();
  const headers = { 'zt-session': token };

  assert.equal(await agent(first, 'cluster.add', { address: stray.ctrlAddress, voter: true }), `success, added peer at ${stray.ctrlAddress} to cluster`, 'the member with another version is added');
  await until('read-only on the first controller', () => first.readLog().includes('entering read-only mode'));
  const refused = await first.http.post(`${first.managementApi}/identities`, { headers, body: { name: 'during-ro', isAdmin: false } });
  assert.equal(refused.status, 503);
  assert.equal(refused.json.error.message, 'unable to execute command. In a readonly state: different versions detected in cluster');
  const read = await first.http.get(`${first.managementApi}/identities`, { headers });
  assert.equal(read.status, 200, 'reads keep working');
  const rows = (await agent(first, 'cluster.list')) as MemberRow[];
  assert.equal(rows.find((row) => row.id === 'rw2')?.version, 'v0.1.1-stray');
  await until('the state.ro event', () => clusterEvent(first, 'state.ro'));
  assert.ok(Number.isInteger(clusterEvent(first, 'state.ro')!.index));

  assert.equal(await agent(first, 'cluster.remove', { id: 'rw2' }), 'success, removed rw2 from cluster');
  // rw2 now has state of its own: adding it back as if it were a new controller is refused.
  await assert.rejects(agent(first, 'cluster.add', { address: stray.ctrlAddress, voter: true }), /already has state of its own/);
  await until('read-write again', () => first.readLog().includes('exiting read-only mode'));
  await until('the state.rw event', () => clusterEvent(first, 'state.rw'));
  const created = await first.http.post(`${first.managementApi}/identities`, { headers, body: { name: 'after-ro', isAdmin: false } });
  assert.equal(created.status, 201);
  assert.ok(clusterEvent(first, 'members.changed'), 'membership changes are events');
  assert.ok(clusterEvent(first, 'peer.connected'));
});

test('losing quorum: writes fail with ClusterHasNoLeaderError and the leaderless warning follows the 10s threshold', async () => {
  const first = await controller('lq1', { init: true });
  const second = await controller('lq2');
  await agent(first, 'cluster.add', { address: second.ctrlAddress, voter: true });
  await until('two connected voters', async () => ((await agent(first, 'cluster.list')) as MemberRow[]).filter((row) => row.connected).length === 2);
  const headers = { 'zt-session': await first.adminToken() };

  second.child!.kill('SIGKILL');
  const lostAt = Date.now();
  await until('the leader to step down (check-quorum)', () => clusterEvent(first, 'state.is_leaderless'));
  const refused = await first.http.post(`${first.managementApi}/identities`, { headers, body: { name: 'no-quorum', isAdmin: false } });
  assert.equal(refused.status, 503);
  assert.equal(refused.json.error.code, 'CLUSTER_NO_LEADER');
  assert.match(refused.json.error.message, /ClusterHasNoLeaderError/);
  const read = await first.http.get(`${first.managementApi}/identities`, { headers });
  assert.equal(read.status, 200, 'reads still work');
  await until('the leaderless warning', () => first.readLog().includes('cluster running without leader for longer than configured threshold'), 25_000);
  assert.ok(Date.now() - lostAt >= 9_000, 'not before the threshold');
  const raft = await first.http.get(`${first.origin}/health-checks/controller/raft`);
  assert.equal(raft.status, 429, 'a controller that is not the leader answers 429');
});

test('a non-preferred leader hands leadership to the connected preferred voter about ten seconds after winning', async () => {
  const first = await controller('pl1', { init: true });
  const preferred = await controller('pl2', { preferred: true });
  const third = await controller('pl3');
  await agent(first, 'cluster.add', { address: preferred.ctrlAddress, voter: true });
  await agent(first, 'cluster.add', { address: third.ctrlAddress, voter: true });
  await until('three connected voters', async () => ((await agent(first, 'cluster.list')) as MemberRow[]).filter((row) => row.connected).length === 3);
  const rows = (await agent(first, 'cluster.list')) as MemberRow[];
  assert.equal(rows.find((row) => row.id === 'pl2')?.preferred, true);

  assert.equal(await agent(first, 'cluster.transfer', { id: 'pl3' }), 'success');
  await until('pl3 to log its non-preferred win', () => third.readLog().includes('non-preferred controller gained leadership'));
  await until('the hand-over', () => third.readLog().includes('transferring leadership to preferred leader'), 25_000);
  const leader = await until('pl2 to lead', async () => ((await agent(first, 'cluster.list')) as MemberRow[]).find((row) => row.leader && row.id === 'pl2'), 25_000);
  assert.equal(leader.id, 'pl2');
  await until('leadership events on pl3', () => clusterEvent(third, 'leadership.gained') && clusterEvent(third, 'leadership.lost'));
});

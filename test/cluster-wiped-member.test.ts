// A member that lost its disk comes back under its old id, as an operator would do it: three controllers take some
// writes, one is stopped, its data folder is deleted and it is started again with the same id and config. The
// leader still counts it as holding what it acknowledged before; it must notice the empty log and send the wiped
// member the leader's snapshot (or the log from its start), and the member must serve every write again and follow
// new ones. The leader's log is compacted behind a snapshot, as in production, so the member installs the snapshot
// (the whole-log case, and the vote the member withholds until it caught up: server/raft/core/wiped-member.test.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ControllerFixture } from './support/controller-fixture.ts';
import { agent, threeControllerCluster, until } from './support/cluster-helpers.ts';

const fixtures: ControllerFixture[] = [];
const pkiDirs: string[] = [];
after(async () => {
  await Promise.all(fixtures.map((fixture) => fixture.dispose()));
  for (const dir of pkiDirs) rmSync(dir, { recursive: true, force: true });
});

const compacting = (yaml: string) => yaml.replace('snapshotInterval: 2m', 'snapshotInterval: 10s').replace('snapshotThreshold: 500', 'snapshotThreshold: 20').replace('trailingLogs: 500', 'trailingLogs: 5');

async function createMany(node: ControllerFixture, token: string, prefix: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await node.http.post(`${node.managementApi}/identities`, { headers: { 'zt-session': token }, body: { name: `${prefix}-${i}`, isAdmin: false } });
    assert.equal(response.status, 201, response.text);
  }
}

async function countOn(node: ControllerFixture, prefix: string): Promise<number | undefined> {
  const token = await node.adminToken().catch(() => undefined);
  if (token === undefined) return undefined;
  const response = await node.http.get(`${node.managementApi}/identities?filter=${encodeURIComponent(`name contains "${prefix}-"`)}&limit=1`, { headers: { 'zt-session': token } });
  return response.status === 200 ? (response.json.meta.pagination.totalCount as number) : undefined;
}

interface AgentStatus {
  readonly appliedIndex: number;
  readonly role: string;
  readonly leader: string | null;
}

{
  const compacted = true;
  test('a member restarted under its old id on an empty data folder catches up from the leader', async () => {
    const pkiDir = mkdtempSync(join(tmpdir(), 'edgeward-wiped-pki-'));
    pkiDirs.push(pkiDir);
    const cluster = await threeControllerCluster(pkiDir, compacted ? { editConfig: compacting } : {});
    fixtures.push(...cluster);
    const [leader, , wiped] = cluster as [ControllerFixture, ControllerFixture, ControllerFixture];
    const token = await leader.adminToken();
    await createMany(leader, token, 'before', 30);
    await until('the member to hold the writes', async () => ((await countOn(wiped, 'before')) === 30 ? true : undefined));
    if (compacted) await until('a snapshot on the leader', () => leader.readLog().includes('raft snapshot taken'), 30_000);

    assert.equal(await wiped.stop('SIGTERM'), 0);
    rmSync(wiped.dataDir, { recursive: true, force: true });
    await wiped.start();
    await createMany(leader, token, 'after', 10);

    await until('the wiped member to serve every write again', async () => ((await countOn(wiped, 'before')) === 30 && (await countOn(wiped, 'after')) === 10 ? true : undefined), 60_000);
    const leaderStatus = (await agent(leader, 'status')) as AgentStatus;
    const wipedStatus = (await agent(wiped, 'status')) as AgentStatus;
    assert.equal(wipedStatus.role, 'follower');
    assert.equal(wipedStatus.leader, leaderStatus.leader);
    assert.ok(wipedStatus.appliedIndex > 0);
    assert.match(leader.readLog(), /"msg":"raft follower lost its log; sending it the log again".*"peerId":"ctrl3"/);
    assert.doesNotMatch(wiped.output + wiped.readLog(), /restart required/, 'an empty member installs what it is sent and carries on');

    // It follows new writes as any member does.
    await createMany(leader, token, 'later', 5);
    await until('the member to follow new writes', async () => ((await countOn(wiped, 'later')) === 5 ? true : undefined));
  });
}

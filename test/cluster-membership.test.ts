// Cluster membership authorizes, with real controller processes over TLS: a certificate of the trust domain is not
// enough. A new controller's join request is refused unless the members allow it (it is added from a member); a
// removed controller that keeps running, and a controller of a second cluster built on the same PKI, are refused
// (their raft messages and requests) and named in the members' logs, and neither cluster's leader, term,
// membership or data changes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { MemberRow } from '../server/cluster/cluster-service.ts';
import { initPki } from '../common/pki/pki-directory.ts';
import { agent, memberList, until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { LogWatch, type LogRecord } from './support/log-watch.ts';
import { PeerClient } from './support/peer-client.ts';

const pkiRoot = mkdtempSync(join(tmpdir(), 'edgeward-membership-'));
const fixtures: ControllerFixture[] = [];
let ctrl1: ControllerFixture;
let ctrl2: ControllerFixture;
let ctrl3: ControllerFixture;

before(async () => {
  await initPki(pkiRoot, { trustDomain: 'edgeward.test' });
  ctrl1 = await ControllerFixture.create({ pkiDir: pkiRoot, id: 'ctrl1' });
  fixtures.push(ctrl1);
  ctrl2 = await ControllerFixture.create({ pkiDir: pkiRoot, id: 'ctrl2', initAdmin: false });
  fixtures.push(ctrl2);
  ctrl3 = await ControllerFixture.create({ pkiDir: pkiRoot, id: 'ctrl3', initAdmin: false });
  fixtures.push(ctrl3);
  await agent(ctrl1, 'cluster.add', { address: ctrl2.ctrlAddress, voter: true });
  await until('two connected voters', async () => (await memberList(ctrl1)).filter((row) => row.voter && row.connected).length === 2);
});
after(async () => {
  await Promise.all(fixtures.map((fixture) => fixture.dispose()));
  rmSync(pkiRoot, { recursive: true, force: true });
});

interface Status {
  term: number;
  leader: string | null;
}
const status = async (node: ControllerFixture) => (await agent(node, 'status')) as Status;
const voters = async (node: ControllerFixture) => (await memberList(node)).filter((row: MemberRow) => row.voter).map((row) => row.id).sort();
const refusalOf = (id: string) => (line: LogRecord) => line.msg === 'peer refused: not a member of this cluster' && line.peerId === id;

/** What a controller that may not take part sends: a forced vote (as in a leadership transfer) at a far higher term,
 * which a member would have to follow, and requests that would change the cluster. */
async function intrude(as: { pkiDir: string; id: string; address: string }, leader: ControllerFixture, follower: ControllerFixture): Promise<Array<{ ok: boolean; error?: string }>> {
  const { term } = await status(leader);
  const vote = { type: 'Vote', from: as.id, term: term + 100, lastIndex: 1_000_000_000, lastTerm: term + 100, transfer: true };
  const answers: Array<{ ok: boolean; error?: string }> = [];
  for (const target of [leader, follower]) {
    const client = await PeerClient.connect(as.pkiDir, as.id, target.ctrlAddress);
    try {
      client.raft({ ...vote, to: target.id });
      client.raft({ type: 'TimeoutNow', from: as.id, to: target.id, term });
      answers.push(await client.request({ type: 'configChange', change: { kind: 'remove', id: follower.id } }));
      answers.push(await client.request({ type: 'transfer', target: follower.id }));
      answers.push(await client.request({ type: 'propose', command: { type: 'raft.noop' } }));
    } finally {
      client.close();
    }
  }
  return answers;
}

test('a new controller asking to join is refused (cluster.allowJoinRequests is off) and told to be added from a member', async () => {
  const watch = new LogWatch(ctrl1.logFile);
  const mark = watch.mark();
  const expected = new RegExp(`cluster\\.add on ctrl3: cluster add failed: ctrl1 does not take join requests \\(cluster.allowJoinRequests is false\\): run 'agent cluster add ${ctrl3.ctrlAddress}' on a member of the cluster instead$`);
  await assert.rejects(agent(ctrl3, 'cluster.add', { address: ctrl1.ctrlAddress, voter: true }), expected);
  await assert.rejects(agent(ctrl3, 'cluster.add', { address: ctrl2.ctrlAddress, voter: true }), /ctrl2 does not take join requests/, 'a follower refuses too');
  const refused = await watch.waitFor(mark, (line) => line.msg === 'cluster join refused: not a member, and cluster.allowJoinRequests is off');
  assert.equal(refused.peerId, 'ctrl3');
  assert.deepEqual(await voters(ctrl1), ['ctrl1', 'ctrl2'], 'nothing changed');
  assert.equal((await status(ctrl3)).term, 0, 'ctrl3 is still an empty controller');

  assert.equal(await agent(ctrl1, 'cluster.add', { address: ctrl3.ctrlAddress, voter: true }), `success, added peer at ${ctrl3.ctrlAddress} to cluster`);
  await until('three connected voters', async () => (await memberList(ctrl1)).filter((row) => row.voter && row.connected).length === 3);
});

test('a removed controller keeps running: its votes and requests are refused and logged, the members keep their leader and term', async () => {
  const leaderId = (await status(ctrl1)).leader!;
  const leader = fixtures.find((node) => node.id === leaderId)!;
  const follower = [ctrl1, ctrl2].find((node) => node.id !== leaderId)!;
  // ctrl3 was just added: it takes a login once it has caught up with the log (the admin identity is in it).
  let token = '';
  await until('ctrl3 caught up enough to log in', async () => {
    token = await ctrl3.adminToken().catch(() => '');
    return token !== '';
  });
  // Watched from before the removal: ctrl3's first refused vote can come at once (one line per 30 s per peer), and a
  // slow machine may be past it by the time both members show the new configuration.
  const watches = [leader, follower].map((node) => new LogWatch(node.logFile));
  const marks = watches.map((watch) => watch.mark());
  assert.equal(await agent(leader, 'cluster.remove', { id: 'ctrl3' }), 'success, removed ctrl3 from cluster');
  await until('ctrl3 gone from both members', async () => (await voters(ctrl1)).join() === 'ctrl1,ctrl2' && (await voters(ctrl2)).join() === 'ctrl1,ctrl2');
  const before = await Promise.all([status(leader), status(follower)]);

  // The removed controller's own certificate, as a process that kept the old configuration would use it.
  const answers = await intrude({ pkiDir: pkiRoot, id: 'ctrl3', address: ctrl3.ctrlAddress }, leader, follower);
  for (const answer of answers) {
    assert.equal(answer.ok, false);
    assert.match(answer.error!, /^ctrl[12] refused the request: ctrl3 is not a member of its cluster$/);
  }
  // Writes through the removed controller's own API (with a session from before) do not reach the cluster.
  const write = await ctrl3.http.post(`${ctrl3.managementApi}/identities`, { headers: { 'zt-session': token }, body: { name: 'through-removed', isAdmin: false } });
  assert.notEqual(write.status, 201, write.text);
  assert.equal(write.status, 503, `a specific refusal, not a crash: ${write.text}`);

  // Several election timeouts (1 s each) later, nothing has moved.
  await new Promise((resolve) => setTimeout(resolve, 4000));
  assert.deepEqual(await Promise.all([status(leader), status(follower)]).then((all) => all.map(({ term, leader: id }) => ({ term, leader: id }))), before.map(({ term, leader: id }) => ({ term, leader: id })));
  assert.deepEqual(await voters(leader), ['ctrl1', 'ctrl2']);
  const headers = { 'zt-session': await leader.adminToken() };
  const listed = await leader.http.get(`${leader.managementApi}/identities?filter=${encodeURIComponent('name="through-removed"')}`, { headers });
  assert.equal(listed.json.data.length, 0, 'the write went nowhere');
  for (const [i, watch] of watches.entries()) {
    const lines = watch.since(marks[i]!).filter(refusalOf('ctrl3'));
    assert.ok(lines.length >= 1, `${[leader, follower][i]!.id} names ctrl3 in its log`);
    assert.ok(lines.length <= 2, `${lines.length} lines: one per 30 s, not one per message`);
  }
});

test('a controller of a second cluster on the same PKI is refused and logged; neither cluster changes', async () => {
  const other = await ControllerFixture.create({ pkiDir: pkiRoot, id: 'other1' });
  fixtures.push(other);
  const leaderId = (await status(ctrl1)).leader!;
  const leader = fixtures.find((node) => node.id === leaderId)!;
  const follower = [ctrl1, ctrl2].find((node) => node.id !== leaderId)!;
  const headers = { 'zt-session': await leader.adminToken() };
  const countIdentities = async () => (await leader.http.get(`${leader.managementApi}/identities`, { headers })).json.meta.pagination.totalCount as number;
  const identitiesBefore = await countIdentities();
  const [xBefore, yBefore] = await Promise.all([status(leader), status(other)]);
  const watch = new LogWatch(leader.logFile);
  const mark = watch.mark();

  // `cluster add` run the wrong way, both ways.
  await assert.rejects(agent(other, 'cluster.add', { address: leader.ctrlAddress, voter: true }), /already has state of its own/);
  await assert.rejects(agent(leader, 'cluster.add', { address: other.ctrlAddress, voter: true }), /already has state of its own/);
  // Its raft messages and requests, with its own certificate.
  const answers = await intrude({ pkiDir: pkiRoot, id: 'other1', address: other.ctrlAddress }, leader, follower);
  for (const answer of answers) assert.match(String(answer.error), /^ctrl[12] refused the request: other1 is not a member of its cluster$/);
  const client = await PeerClient.connect(pkiRoot, 'other1', leader.ctrlAddress);
  try {
    const join = await client.request({ type: 'join', id: 'other1', address: other.ctrlAddress, voter: true });
    assert.match(String(join.error), /does not take join requests/);
    assert.deepEqual(await client.request({ type: 'state' }), { ok: true, value: { initialized: true }, error: undefined }, 'the cluster add probe is open to the trust domain');
  } finally {
    client.close();
  }

  await new Promise((resolve) => setTimeout(resolve, 3000));
  const [xAfter, yAfter] = await Promise.all([status(leader), status(other)]);
  assert.deepEqual({ term: xAfter.term, leader: xAfter.leader }, { term: xBefore.term, leader: xBefore.leader });
  assert.deepEqual({ term: yAfter.term, leader: yAfter.leader }, { term: yBefore.term, leader: 'other1' });
  assert.deepEqual(await voters(leader), ['ctrl1', 'ctrl2']);
  assert.deepEqual(await voters(other), ['other1']);
  assert.equal(await countIdentities(), identitiesBefore);
  await watch.waitFor(mark, refusalOf('other1'));
});

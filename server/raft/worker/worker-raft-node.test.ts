// A raft node on the far side of a message port, as the controller's thread sees it: three nodes, each with its
// model on this side of a MessageChannel (asynchronous and ordered, as a worker's port is) and its log, snapshots
// and transport on the other. Proposals resolve with the model's results, read-your-write holds through any
// member, snapshots copy the model over the port, a model failure stops the node, and closing refuses what waits.
import assert from 'node:assert/strict';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { after, test } from 'node:test';
import { silentLogger } from '../../../common/log/logger.ts';
import { InProcessTransport } from '../node/raft-transport.ts';
import type { RaftNode } from '../node/raft-node.ts';
import { seededRandom } from '../sim/seeded-random.ts';
import { ProposalRefusedError } from '../state-machine.ts';
import { MemoryRaftStore } from '../storage/memory-raft-store.ts';
import { MemorySnapshotStore } from '../storage/memory-snapshot-store.ts';
import { hostRaftNode, RemoteStateMachine } from './raft-worker-host.ts';
import { WorkerRaftNode } from './worker-raft-node.ts';
import { KvStateMachine, waitFor } from '../node/node-test-support.ts';
import type { FromRaftThread, ToRaftThread } from './worker-protocol.ts';

interface Member {
  readonly id: string;
  readonly machine: KvStateMachine;
  readonly node: WorkerRaftNode;
  readonly raft: RaftNode;
  readonly ports: readonly MessagePort[];
}

const timing = { tickMs: 10, electionTicks: 10, heartbeatTicks: 2, commitTimeoutMs: 3000 };
const open: Member[] = [];
after(async () => {
  for (const member of open) {
    await member.node.close().catch(() => undefined);
    for (const port of member.ports) port.close();
  }
});

async function member(id: string, ids: readonly string[], transport: InProcessTransport, seed: number, threshold = 1000): Promise<Member> {
  const { port1, port2 } = new MessageChannel();
  const machine = new KvStateMachine();
  const node = new WorkerRaftNode(port1, machine, silentLogger);
  const raft = await hostRaftNode(port2, {
    id,
    appliedIndex: machine.appliedIndex(),
    store: new MemoryRaftStore(),
    snapshots: new MemorySnapshotStore(),
    transport,
    timing,
    snapshotPolicy: { intervalMs: 3_600_000, threshold, trailingLogs: 5 },
    bootstrap: { voters: [...ids], nonVoters: [] },
    random: seededRandom(seed),
    logger: silentLogger,
    statusEveryMs: 10,
  });
  await node.ready;
  const made = { id, machine, node, raft, ports: [port1, port2] };
  open.push(made);
  return made;
}

async function cluster(ids: readonly string[], threshold?: number): Promise<{ members: Member[]; transport: InProcessTransport }> {
  const transport = new InProcessTransport();
  const members: Member[] = [];
  for (const [i, id] of ids.entries()) members.push(await member(id, ids, transport, 300 + i, threshold));
  return { members, transport };
}

const leaderOf = (members: readonly Member[]) => waitFor('a leader every member knows', () => {
  const leader = members.find((each) => each.node.isLeader());
  return leader && members.every((each) => each.node.leader() === leader.id) ? leader : undefined;
});

test('proposals resolve with the model\'s own results once applied on this side; every model applies the same log', async () => {
  const { members } = await cluster(['a', 'b', 'c']);
  const leader = await leaderOf(members);
  const proposals = await Promise.all(Array.from({ length: 50 }, (_, i) => leader.node.propose({ type: 'set', key: `k${i}`, value: `v${i}` } as never)));
  const indexes = proposals.map((proposal) => proposal.index);
  assert.deepEqual(indexes, [...indexes].sort((x, y) => x - y), 'placed in the order proposed');
  assert.deepEqual(proposals.map((proposal) => proposal.result), proposals.map((_, i) => ({ ok: true, value: i + 1 })), 'the results the model returned here');
  assert.equal(leader.machine.values.get('k49'), 'v49', 'applied here before the proposal resolved');
  const last = indexes.at(-1)!;
  for (const each of members) await each.node.waitForApplied(last, 3000);
  for (const each of members) assert.deepEqual([...each.machine.values], [...leader.machine.values]);
  assert.equal(leader.node.status().commit >= last, true, 'the status mirrors the raft thread');
  assert.equal(leader.node.appliedIndex(), leader.machine.appliedIndex());
});

test('a follower refuses a proposal naming the leader; a follower reads its own forwarded write once applied', async () => {
  const { members } = await cluster(['d', 'e', 'f']);
  const leader = await leaderOf(members);
  const follower = members.find((each) => each !== leader)!;
  await assert.rejects(follower.node.propose({ type: 'set', key: 'x', value: '1' } as never), (error: ProposalRefusedError) => error.reason === 'not-leader' && error.leader === leader.id);
  const { index } = await leader.node.propose({ type: 'set', key: 'x', value: '2' } as never);
  await follower.node.waitForApplied(index, 3000);
  assert.equal(follower.machine.values.get('x'), '2');
  await assert.rejects(follower.node.waitForApplied(index + 1000, 50), /not applied within 50 ms/);
});

test('leadership moves on request, observers hear it, and the configuration is mirrored', async () => {
  const { members } = await cluster(['g', 'h', 'i']);
  const leader = await leaderOf(members);
  const heard: string[] = [];
  for (const each of members) each.node.observe((state) => state.role === 'leader' && heard.push(each.id));
  const target = members.find((each) => each !== leader)!;
  assert.equal(await leader.node.transferLeadership(target.id), target.id);
  await waitFor('the transfer', () => target.node.isLeader() && heard.includes(target.id));
  assert.deepEqual([...target.node.configuration.voters].sort(), ['g', 'h', 'i']);
  const { index, result } = await target.node.propose({ type: 'set', key: 'after', value: 'transfer' } as never);
  assert.deepEqual(result, { ok: true, value: 1 });
  assert.equal(index > 0, true);
});

test('a membership change commits through the raft thread and is applied here before it resolves', async () => {
  const { members } = await cluster(['j', 'k', 'l']);
  const leader = await leaderOf(members);
  const seen: string[][] = [];
  leader.node.observeConfiguration((configuration) => seen.push([...configuration.voters]));
  const proposal = await leader.node.proposeConfigChange({ kind: 'remove', id: members.find((each) => each !== leader)!.id });
  assert.equal(leader.node.appliedIndex() >= proposal.index, true);
  await waitFor('the new configuration', () => seen.some((voters) => voters.length === 2));
});

test('a snapshot copies the model over the port as of what was handed over, and compacts the log there', async () => {
  const { members } = await cluster(['m', 'n', 'o'], 20);
  const leader = await leaderOf(members);
  for (let i = 0; i < 30; i++) await leader.node.propose({ type: 'set', key: `s${i}`, value: `${i}` } as never);
  assert.equal(await leader.node.maybeSnapshot(true), true);
  await waitFor('a compacted log', () => leader.node.status().firstIndex > 1);
  const { index } = await leader.node.propose({ type: 'set', key: 'later', value: 'yes' } as never);
  assert.equal(index > 30, true);
});

test('a model that fails to apply stops the node: what waits is refused, the failure is heard, no later proposal is taken', async () => {
  const { members } = await cluster(['p', 'q', 'r']);
  const leader = await leaderOf(members);
  const failures: string[] = [];
  leader.node.onFailure((error) => failures.push(error.message));
  leader.machine.failNext = true;
  await assert.rejects(leader.node.propose({ type: 'set', key: 'lost', value: '1' } as never), (error: ProposalRefusedError) => error.reason === 'storage');
  assert.deepEqual(failures, ['disk full']);
  assert.equal(leader.node.failed?.message, 'disk full');
  await waitFor('the raft thread to stop', () => leader.raft.failed !== undefined);
  await assert.rejects(leader.node.propose({ type: 'set', key: 'later', value: '1' } as never), (error: ProposalRefusedError) => error.reason === 'storage');
});

test('closing stops the node on the raft thread and refuses what still waits here', async () => {
  const transport = new InProcessTransport();
  const lone = await member('solo', ['solo'], transport, 7);
  await waitFor('the lone voter to lead', () => lone.node.isLeader());
  const waiting = lone.node.waitForApplied(10_000, 10_000);
  await lone.node.close();
  await assert.rejects(waiting, /shutting down/);
  await assert.rejects(lone.node.propose({ type: 'set', key: 'late', value: '1' } as never), (error: ProposalRefusedError) => error.reason === 'closed');
});

test("a snapshot restored from the raft thread crosses in slices, none as large as the model, and the model gets all of it", async () => {
  const { port1, port2 } = new MessageChannel();
  const machine = new KvStateMachine();
  // The controller's side, listening on port1 from here on.
  new WorkerRaftNode(port1, machine, silentLogger);
  const sent: FromRaftThread[] = [];
  const port = { postMessage: (message: FromRaftThread) => (sent.push(message), port2.postMessage(message)), on: port2.on.bind(port2) };
  try {
    const values = Array.from({ length: 9_000 }, (_, i) => [`k${i}`, `v${i}`]);
    await new RemoteStateMachine(port as never, 0).restore({ values }, 77);
    await waitFor('the restore', () => machine.restored === 1, 5_000);
    assert.equal(machine.appliedIndex(), 77);
    assert.equal(machine.values.size, 9_000);
    assert.equal(machine.values.get('k8999'), 'v8999');
    // Five messages, none carrying more than 2,000 of the model's items.
    assert.equal(sent.length, 1 + 5);
    const largest = Math.max(...sent.map((message) => (message.type === 'restore' ? (message.data as { values: unknown[] }).values.length : message.type === 'restoreSlice' ? message.items.length : 0)));
    assert.ok(largest <= 2_000, `a message carried ${largest} items`);
  } finally {
    // No raft thread here to answer a close: closing the ports ends it.
    port1.close();
    port2.close();
  }
});

test("the model's copy for the raft thread crosses in slices, none as large as the model, and arrives whole", async () => {
  const { port1, port2 } = new MessageChannel();
  const machine = new KvStateMachine();
  for (let i = 0; i < 9_000; i++) machine.values.set(`k${i}`, `v${i}`);
  const sent: ToRaftThread[] = [];
  const modelPort = { postMessage: (message: ToRaftThread) => (sent.push(message), port1.postMessage(message)), on: port1.on.bind(port1) };
  new WorkerRaftNode(modelPort as never, machine, silentLogger);
  const remote = new RemoteStateMachine(port2 as never, 0);
  // As hostRaftNode routes them.
  port2.on('message', (message: ToRaftThread) => {
    if (message.type === 'stateCopy' || message.type === 'stateCopySlice') remote.copyArrived(message);
  });
  try {
    const copy = (await remote.snapshot()) as { values: [string, string][] };
    assert.equal(copy.values.length, 9_000);
    assert.deepEqual(copy.values[8_999], ['k8999', 'v8999']);
    const copies = sent.filter((message) => message.type === 'stateCopy' || message.type === 'stateCopySlice');
    assert.equal(copies.length, 1 + 5);
    const largest = Math.max(...copies.map((message) => (message.type === 'stateCopy' ? (message.data as { values: unknown[] }).values.length : message.type === 'stateCopySlice' ? message.items.length : 0)));
    assert.ok(largest <= 2_000, `a message carried ${largest} items`);
  } finally {
    port1.close();
    port2.close();
  }
});

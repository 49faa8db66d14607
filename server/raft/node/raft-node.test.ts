// Three raft nodes in one process over the in-process transport: elections, replication, failover, snapshot
// catch-up and restarts, with proposals resolving once applied.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { after, test } from 'node:test';
import { createMemoryLogger, silentLogger } from '../../../common/log/logger.ts';
import { entryJson, holdsEntryJson } from '../core/entry-json.ts';
import type { Entry, Message } from '../core/types.ts';
import { seededRandom } from '../sim/seeded-random.ts';
import { ProposalRefusedError } from '../state-machine.ts';
import { FileSnapshotStore } from '../storage/file-snapshot-store.ts';
import { WalRaftStore } from '../storage/wal-raft-store.ts';
import { MemoryRaftStore } from '../storage/memory-raft-store.ts';
import { MemorySnapshotStore } from '../storage/memory-snapshot-store.ts';
import type { RaftStore, SnapshotStore } from '../storage/raft-storage.ts';
import { RaftNode } from './raft-node.ts';
import { InProcessTransport } from './raft-transport.ts';
import { KvStateMachine, waitFor } from './node-test-support.ts';

const timing = { tickMs: 10, electionTicks: 10, heartbeatTicks: 2, commitTimeoutMs: 3000 };
const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

interface Member {
  id: string;
  store: RaftStore;
  snapshots: SnapshotStore;
  machine: KvStateMachine;
  node?: RaftNode;
}

async function cluster(ids: string[], transport: InProcessTransport, make: (id: string) => Promise<Pick<Member, 'store' | 'snapshots'> & { machine?: KvStateMachine }>, threshold = 1000, nodeTiming = timing) {
  const members: Member[] = [];
  for (const [i, id] of ids.entries()) {
    const { store, snapshots, machine } = await make(id);
    const member: Member = { id, store, snapshots, machine: machine ?? new KvStateMachine() };
    member.node = await RaftNode.start({
      id, store, snapshots, stateMachine: member.machine, transport, timing: nodeTiming,
      snapshotPolicy: { intervalMs: 3_600_000, threshold, trailingLogs: 5 },
      bootstrap: { voters: ids, nonVoters: [] }, random: seededRandom(100 + i), logger: silentLogger,
    });
    members.push(member);
  }
  return members;
}

const leaderOf = (members: Member[]) => members.find((member) => member.node?.isLeader());

test('three nodes elect one leader, replicate proposals, and resolve them with their index once applied', async () => {
  const transport = new InProcessTransport();
  const members = await cluster(['a', 'b', 'c'], transport, async () => ({ store: new MemoryRaftStore(), snapshots: new MemorySnapshotStore() }));
  const leader = await waitFor('a leader', () => leaderOf(members));
  assert.equal(members.filter((member) => member.node!.isLeader()).length, 1);
  const proposals = await Promise.all(Array.from({ length: 50 }, (_, i) => leader.node!.propose({ type: 'set', key: `k${i}`, value: `v${i}` } as never)));
  const indexes = proposals.map((proposal) => proposal.index);
  assert.equal(new Set(indexes).size, 50);
  assert.ok(proposals.every((proposal) => proposal.result.ok));
  for (const member of members) await member.node!.waitForApplied(Math.max(...indexes), 3000);
  for (const member of members) assert.equal(member.machine.values.get('k49'), 'v49');
  await Promise.all(members.map((member) => member.node!.close()));
});

test('a follower refuses proposals and names the leader; the leader failing over elects another', async () => {
  const transport = new InProcessTransport();
  const members = await cluster(['a', 'b', 'c'], transport, async () => ({ store: new MemoryRaftStore(), snapshots: new MemorySnapshotStore() }));
  const leader = await waitFor('a leader', () => leaderOf(members));
  const follower = members.find((member) => member !== leader)!;
  await assert.rejects(follower.node!.propose({ type: 'set', key: 'x', value: 'y' } as never), (error: { reason: string; leader: string }) => error.reason === 'not-leader' && error.leader === leader.id);

  // Cut the leader off: the other two elect a new leader and keep committing.
  for (const other of members) if (other !== leader) transport.cut.add(`${leader.id}>${other.id}`).add(`${other.id}>${leader.id}`);
  const next = await waitFor('a new leader', () => members.find((member) => member !== leader && member.node!.isLeader()));
  const proposal = await next.node!.propose({ type: 'set', key: 'after', value: 'failover' } as never);
  assert.ok(proposal.index > 0);
  // Check-quorum: the old leader steps down on its own.
  await waitFor('the cut-off leader to step down', () => !leader.node!.isLeader());
  transport.cut.clear();
  await leader.node!.waitForApplied(proposal.index, 3000);
  assert.equal(leader.machine.values.get('after'), 'failover');
  await Promise.all(members.map((member) => member.node!.close()));
});

test('write-ahead log storage: snapshots compact the log, a lagging follower catches up from a snapshot, restarts keep everything', async () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeward-raft-node-'));
  dirs.push(root);
  const transport = new InProcessTransport();
  const open = async (id: string) => ({ store: await WalRaftStore.open(join(root, id, 'raft.db'), { segmentBytes: 64 * 1024 }), snapshots: await FileSnapshotStore.open(join(root, id, 'snapshots')) });
  const members = await cluster(['a', 'b', 'c'], transport, open, 20);
  const leader = await waitFor('a leader', () => leaderOf(members));
  const laggard = members.find((member) => member !== leader)!;
  for (const other of members) if (other !== laggard) transport.cut.add(`${other.id}>${laggard.id}`).add(`${laggard.id}>${other.id}`);

  let last = 0;
  for (let i = 0; i < 60; i++) last = (await leader.node!.propose({ type: 'set', key: `k${i}`, value: `v${i}` } as never)).index;
  assert.equal(await leader.node!.maybeSnapshot(), true);
  assert.ok(leader.node!.status().firstIndex > 10, 'the leader compacted its log');
  assert.ok((await leader.snapshots.latest())!.meta.index >= last - 1);

  transport.cut.clear();
  await laggard.node!.waitForApplied(last, 5000);
  assert.equal(laggard.machine.values.get('k59'), 'v59', 'caught up through the snapshot');
  assert.ok((await laggard.snapshots.latest()) !== undefined, 'the follower stored the snapshot it installed');

  // Restart everything: state and log come back from disk.
  await Promise.all(members.map((member) => member.node!.close()));
  await Promise.all(members.map((member) => member.store.close()));
  const restarted = await cluster(['a', 'b', 'c'], transport, open, 20);
  const again = await waitFor('a leader after restart', () => leaderOf(restarted));
  const proposal = await again.node!.propose({ type: 'set', key: 'post', value: 'restart' } as never);
  for (const member of restarted) {
    await member.node!.waitForApplied(proposal.index, 5000);
    assert.equal(member.machine.values.get('k30'), 'v30');
    assert.equal(member.machine.values.get('post'), 'restart');
  }
  await Promise.all(restarted.map((member) => member.node!.close()));
  await Promise.all(restarted.map((member) => member.store.close()));
});

test('a restart with a durable state machine reads no snapshot data, and still sends a snapshot to a member behind the compacted log', async () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeward-raft-node-'));
  dirs.push(root);
  const transport = new InProcessTransport();
  // The state machines outlive their nodes, as the model's database does; c's disk is lost before the restart.
  const machines = new Map<string, KvStateMachine>();
  const dataReads: string[] = [];
  const open = async (id: string) => {
    const snapshots = await FileSnapshotStore.open(join(root, id, 'snapshots'));
    const latest = snapshots.latest.bind(snapshots);
    snapshots.latest = () => {
      dataReads.push(id);
      return latest();
    };
    return { store: await WalRaftStore.open(join(root, id, 'raft.db'), { segmentBytes: 64 * 1024 }), snapshots, machine: machines.get(id) };
  };
  const members = await cluster(['a', 'b', 'c'], transport, open);
  const leader = await waitFor('a leader', () => leaderOf(members));
  let last = 0;
  for (let i = 0; i < 30; i++) last = (await leader.node!.propose({ type: 'set', key: `k${i}`, value: `v${i}` } as never)).index;
  for (const member of members) {
    await member.node!.waitForApplied(last, 3000);
    assert.equal(await member.node!.maybeSnapshot(true), true);
    assert.ok(member.node!.status().firstIndex > 10, `${member.id} compacted its log`);
    machines.set(member.id, member.machine);
  }
  await Promise.all(members.map((member) => member.node!.close()));
  await Promise.all(members.map((member) => member.store.close()));
  machines.delete('c');
  rmSync(join(root, 'c'), { recursive: true, force: true });

  const restarted = await cluster(['a', 'b', 'c'], transport, open);
  try {
    assert.deepEqual(dataReads, [], 'no snapshot data was read: a and b were at their snapshots, c had none');
    const again = await waitFor('a leader after restart', () => leaderOf(restarted));
    assert.notEqual(again.id, 'c');
    const lost = restarted.find((member) => member.id === 'c')!;
    await lost.node!.waitForApplied(last, 5000);
    assert.equal(lost.machine.values.get('k29'), 'v29', 'c caught up from the state the leader offered at start');
    const proposal = await again.node!.propose({ type: 'set', key: 'post', value: 'restart' } as never);
    await lost.node!.waitForApplied(proposal.index, 5000);
    assert.equal(lost.machine.values.get('post'), 'restart');
  } finally {
    await Promise.all(restarted.map((member) => member.node!.close()));
    await Promise.all(restarted.map((member) => member.store.close()));
  }
});

test('leadership transfer hands over to the named voter', async () => {
  const transport = new InProcessTransport();
  const members = await cluster(['a', 'b', 'c'], transport, async () => ({ store: new MemoryRaftStore(), snapshots: new MemorySnapshotStore() }));
  const leader = await waitFor('a leader', () => leaderOf(members));
  await leader.node!.propose({ type: 'set', key: 'k', value: 'v' } as never);
  const target = members.find((member) => member !== leader)!;
  leader.node!.transferLeadership(target.id);
  await waitFor('the target to lead', () => target.node!.isLeader());
  assert.equal(leader.node!.isLeader(), false);
  await Promise.all(members.map((member) => member.node!.close()));
});

test('a proposal not applied within commitTimeoutMs is refused as a timeout; one applied in time resolves', async () => {
  const transport = new InProcessTransport();
  const members = await cluster(['a', 'b', 'c'], transport, async () => ({ store: new MemoryRaftStore(), snapshots: new MemorySnapshotStore() }), 1000, { ...timing, commitTimeoutMs: 300 });
  const leader = await waitFor('a leader', () => leaderOf(members));
  assert.ok((await leader.node!.propose({ type: 'set', key: 'in-time', value: 'v' } as never)).index > 0);
  for (const other of members) if (other !== leader) transport.cut.add(`${leader.id}>${other.id}`).add(`${other.id}>${leader.id}`);
  const started = Date.now();
  await assert.rejects(leader.node!.propose({ type: 'set', key: 'stuck', value: 'v' } as never), (error: { reason: string; message: string }) => {
    assert.equal(error.reason, 'timeout');
    assert.match(error.message, /was not committed within 300 ms/);
    return true;
  });
  const waited = Date.now() - started;
  assert.ok(waited >= 290 && waited < 1500, `refused after ${waited} ms`);
  transport.cut.clear();
  await Promise.all(members.map((member) => member.node!.close()));
});

test('waitForApplied wakes when the entry is applied here, and gives up after its timeout', async () => {
  const transport = new InProcessTransport();
  const members = await cluster(['a', 'b', 'c'], transport, async () => ({ store: new MemoryRaftStore(), snapshots: new MemorySnapshotStore() }));
  const leader = await waitFor('a leader', () => leaderOf(members));
  const follower = members.find((member) => member !== leader)!;
  const next = leader.node!.status().lastIndex + 1;
  const waiting = follower.node!.waitForApplied(next, 3000);
  const proposal = await leader.node!.propose({ type: 'set', key: 'w', value: 'v' } as never);
  assert.equal(proposal.index, next);
  await waiting;
  assert.equal(follower.machine.values.get('w'), 'v');
  await follower.node!.waitForApplied(next, 10); // already applied: at once
  for (const other of members) if (other !== follower) transport.cut.add(`${other.id}>${follower.id}`);
  const started = Date.now();
  await assert.rejects(follower.node!.waitForApplied(next + 1000, 200), /not applied within 200 ms/);
  assert.ok(Date.now() - started >= 190);
  transport.cut.clear();
  await Promise.all(members.map((member) => member.node!.close()));
});

test('back-to-back proposals never wait for a tick: what arrives while the loop winds down is picked up at once', async () => {
  // With a 50 ms tick, 300 proposals one after another would take 15 s if each waited for a tick.
  const transport = new InProcessTransport();
  const members = await cluster(['a', 'b', 'c'], transport, async () => ({ store: new MemoryRaftStore(), snapshots: new MemorySnapshotStore() }), 1000, { ...timing, tickMs: 50, electionTicks: 10, heartbeatTicks: 2 });
  const leader = await waitFor('a leader', () => leaderOf(members));
  const started = Date.now();
  for (let i = 0; i < 300; i++) await leader.node!.propose({ type: 'set', key: `seq${i}`, value: 'v' } as never);
  const elapsed = Date.now() - started;
  assert.ok(elapsed < 5000, `300 sequential proposals took ${elapsed} ms`);
  await Promise.all(members.map((member) => member.node!.close()));
});

test('entry texts are released once applied and held by every member; a lagging member keeps them, and they are made again for it', async () => {
  const transport = new InProcessTransport();
  // Record the leader's own entry objects as they leave, and deliver copies, as a network would (the in-process
  // transport would otherwise share them, and a follower's release would be the leader's).
  const sent = new Map<number, Entry>();
  const send = transport.send.bind(transport);
  transport.send = (message: Message) => {
    if (message.type === 'Append') for (const entry of message.entries) sent.set(entry.index, entry);
    send(structuredClone(message));
  };
  const members = await cluster(['t1', 't2', 't3'], transport, async () => ({ store: new MemoryRaftStore(), snapshots: new MemorySnapshotStore() }));
  try {
    const leader = await waitFor('a leader', () => leaderOf(members));
    const everywhere = (index: number) => waitFor(`index ${index} applied everywhere`, () => members.every((member) => member.machine.applied >= index));
    const early = await leader.node!.propose({ type: 'set', key: 'early', value: 'v' } as never);
    await everywhere(early.index);
    // Released on the next apply after the last follower's answer arrived.
    await everywhere((await leader.node!.propose({ type: 'set', key: 'next', value: 'v' } as never)).index);
    assert.equal(holdsEntryJson(sent.get(early.index)!), false, 'applied and held by every member: released');

    const laggard = members.find((member) => member !== leader)!;
    transport.cut.add(`${leader.id}>${laggard.id}`).add(`${laggard.id}>${leader.id}`);
    const held = await leader.node!.propose({ type: 'set', key: 'held', value: 'v' } as never);
    await leader.node!.propose({ type: 'set', key: 'held-too', value: 'v' } as never);
    assert.equal(holdsEntryJson(sent.get(held.index)!), true, 'one member lacks it: the leader keeps its text');

    transport.cut.clear();
    await everywhere(held.index + 1);
    assert.equal(laggard.machine.values.get('held'), 'v');
    await everywhere((await leader.node!.propose({ type: 'set', key: 'last', value: 'v' } as never)).index);
    assert.equal(holdsEntryJson(sent.get(held.index)!), false, 'the laggard caught up: released');
    const entry = sent.get(held.index)!;
    assert.deepEqual(JSON.parse(entryJson(entry)), { index: entry.index, term: entry.term, type: entry.type, data: entry.data }, 'made again on demand');
  } finally {
    for (const member of members) await member.node?.close();
  }
});

test('a snapshot save that fails is logged and tried again at a later check; the node keeps serving', async () => {
  const transport = new InProcessTransport();
  const snapshots = new MemorySnapshotStore();
  const realSave = snapshots.save.bind(snapshots);
  let failures = 1;
  snapshots.save = async (snapshot) => {
    if (failures-- > 0) throw new Error('ENOSPC: no space left on device');
    return realSave(snapshot);
  };
  const logger = createMemoryLogger('info');
  const machine = new KvStateMachine();
  const node = await RaftNode.start({
    id: 'solo', store: new MemoryRaftStore(), snapshots, stateMachine: machine, transport, timing,
    snapshotPolicy: { intervalMs: 30, threshold: 1, trailingLogs: 1 },
    bootstrap: { voters: ['solo'], nonVoters: [] }, random: seededRandom(7), logger,
  });
  try {
    await waitFor('a leader', () => node.isLeader());
    await node.propose({ type: 'set', key: 'k', value: 'v' } as never);
    await waitFor('the failure logged', () => logger.lines.find((line) => line.msg === 'raft snapshot failed'));
    assert.equal(logger.lines.find((line) => line.msg === 'raft snapshot failed')!.error, 'ENOSPC: no space left on device');
    await waitFor('a snapshot at a later check', () => logger.lines.some((line) => line.msg === 'raft snapshot taken'));
    assert.equal((await snapshots.list()).length, 1);
    const proposal = await node.propose({ type: 'set', key: 'k2', value: 'v2' } as never);
    assert.ok(proposal.index > 0);
  } finally {
    await node.close();
  }
});

test('a log write that fails stops the node: the write, later proposals and waiters are refused as storage, and the failure listeners hear of it once', async () => {
  const store = new MemoryRaftStore();
  const realPersist = store.persist.bind(store);
  let failing = false;
  store.persist = async (entries, state) => {
    if (failing) throw new Error('EIO: i/o error, write');
    return realPersist(entries, state);
  };
  const logger = createMemoryLogger('info');
  const node = await RaftNode.start({
    id: 'solo', store, snapshots: new MemorySnapshotStore(), stateMachine: new KvStateMachine(), transport: new InProcessTransport(), timing,
    snapshotPolicy: { intervalMs: 3_600_000, threshold: 1000, trailingLogs: 5 },
    bootstrap: { voters: ['solo'], nonVoters: [] }, random: seededRandom(9), logger,
  });
  try {
    await waitFor('a leader', () => node.isLeader());
    const heard: Error[] = [];
    node.onFailure((error) => heard.push(error));
    const before = await node.propose({ type: 'set', key: 'a', value: '1' } as never);
    const waiting = node.waitForApplied(before.index + 5, 10_000);
    failing = true;
    const storageRefusal = (error: unknown) => error instanceof ProposalRefusedError && error.reason === 'storage' && /EIO/.test(error.message);
    await assert.rejects(node.propose({ type: 'set', key: 'b', value: '2' } as never), storageRefusal);
    await assert.rejects(waiting, storageRefusal);
    assert.equal(node.failed?.message, 'EIO: i/o error, write');
    assert.deepEqual(heard.map((error) => error.message), ['EIO: i/o error, write']);
    await assert.rejects(node.propose({ type: 'set', key: 'c', value: '3' } as never), storageRefusal);
    await assert.rejects(node.waitForApplied(before.index + 5, 10_000), storageRefusal);
    const late: Error[] = [];
    node.onFailure((error) => late.push(error));
    assert.equal(late.length, 1, 'a listener added after the failure hears of it at once');
    assert.equal(logger.lines.filter((line) => line.msg === 'raft node stopped after a failure').length, 1);
  } finally {
    await node.close();
  }
});

test('a restart after a crash between saving a leader snapshot and resetting the log finishes the reset and keeps appending', async () => {
  // The disk as such a crash leaves it: the snapshot at 20 landed, the log reset after it did not (it ends at 10).
  const store = new MemoryRaftStore();
  await store.persist(Array.from({ length: 10 }, (_, i) => ({ index: i + 1, term: 1, type: 'normal' as const, data: { type: 'set', key: `k${i}`, value: 'v' } })), { term: 2, vote: 'a', commit: 10 });
  const snapshots = new MemorySnapshotStore();
  const machine = new KvStateMachine();
  await snapshots.save({ meta: { index: 20, term: 2, configuration: { voters: ['a'], nonVoters: [] } }, data: { values: [['k', 'from-snapshot']], applied: 20 } });
  const logger = createMemoryLogger();
  const node = await RaftNode.start({
    id: 'a', store, snapshots, stateMachine: machine, transport: new InProcessTransport(), timing,
    snapshotPolicy: { intervalMs: 3_600_000, threshold: 1000, trailingLogs: 5 },
    bootstrap: { voters: ['a'], nonVoters: [] }, random: seededRandom(7), logger,
  });
  try {
    assert.equal(machine.values.get('k'), 'from-snapshot');
    assert.ok(logger.lines.some((line) => line.msg === 'discarding a raft log the newest snapshot replaced (a crash interrupted its installation)'), JSON.stringify(logger.lines));
    await waitFor('leadership', () => node.isLeader());
    const proposal = await node.propose({ type: 'set', key: 'after', value: 'crash' } as never);
    assert.ok(proposal.index > 20, `index ${proposal.index}`);
    assert.equal(node.failed, undefined);
    const stored = await store.entries(await store.firstIndex(), await store.lastIndex());
    assert.ok(stored.length > 0 && stored.every((entry) => entry.index > 20), JSON.stringify(stored.map((entry) => entry.index)));
  } finally {
    await node.close();
  }
});

test('a node that restored its state machine from a snapshot at start keeps no copy of that snapshot: a follower is sent the state machine as it is', async () => {
  // The loaded data was a second copy of the whole model, held for the life of the process (a controller restored
  // from a 1M-identity backup held 2.5 GiB). A weak reference shows whether anything still holds it.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const snapshots = new MemorySnapshotStore();
  await snapshots.save({ meta: { index: 5, term: 1, configuration: { voters: ['a'], nonVoters: [] } }, data: { values: [['k', 'v']], applied: 5 } });
  let loadedData: WeakRef<object> | undefined;
  const latest = snapshots.latest.bind(snapshots);
  snapshots.latest = async () => {
    const snapshot = await latest();
    // A fresh object, as a file store parses one; only this test and the node see it.
    const data = JSON.parse(JSON.stringify(snapshot!.data)) as object;
    loadedData = new WeakRef(data);
    return { meta: snapshot!.meta, data };
  };
  const transport = new InProcessTransport();
  const sent: Message[] = [];
  const send = transport.send.bind(transport);
  transport.send = (message: Message) => {
    sent.push(message);
    send(message);
  };
  const machine = new KvStateMachine();
  const node = await RaftNode.start({
    id: 'a', store: new MemoryRaftStore(), snapshots, stateMachine: machine, transport, timing,
    snapshotPolicy: { intervalMs: 3_600_000, threshold: 1000, trailingLogs: 5 },
    bootstrap: { voters: [], nonVoters: [] }, random: seededRandom(7), logger: silentLogger,
  });
  try {
    assert.equal(machine.restored, 1);
    assert.equal(machine.values.get('k'), 'v');
    await waitFor('a leader', () => node.isLeader());
    for (let i = 0; i < 5 && loadedData?.deref() !== undefined; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    assert.equal(loadedData?.deref(), undefined, 'the loaded snapshot data is not held');
    // A new member behind the log is sent the state machine's own state at the snapshot's index.
    const follower = new KvStateMachine();
    const other = await RaftNode.start({
      id: 'b', store: new MemoryRaftStore(), snapshots: new MemorySnapshotStore(), stateMachine: follower, transport, timing,
      snapshotPolicy: { intervalMs: 3_600_000, threshold: 1000, trailingLogs: 5 },
      bootstrap: { voters: [], nonVoters: [] }, random: seededRandom(8), logger: silentLogger,
    });
    try {
      await node.proposeConfigChange({ kind: 'add', id: 'b', voter: false });
      await waitFor('b to hold the snapshot', () => follower.values.get('k') === 'v');
      const snapshot = sent.find((message): message is Extract<Message, { type: 'Snapshot' }> => message.type === 'Snapshot');
      assert.equal(snapshot?.snapshot.meta.index, 5);
    } finally {
      await other.close();
    }
  } finally {
    await node.close();
  }
});

for (const bound of ['entries', 'bytes'] as const) {
  test(`the log held in memory is bounded by ${bound}: a snapshot is taken and the log compacted without waiting for the interval`, async () => {
    const transport = new InProcessTransport();
    const memory = createMemoryLogger();
    const store = new MemoryRaftStore();
    const machine = new KvStateMachine();
    // Each command's entry is ~100 bytes of JSON: 4,000 bytes is reached after ~40 entries, as is 40 entries.
    const node = await RaftNode.start({
      id: 'a', store, snapshots: new MemorySnapshotStore(), stateMachine: machine, transport, timing,
      snapshotPolicy: { intervalMs: 3_600_000, threshold: 1_000_000, trailingLogs: 5, ...(bound === 'entries' ? { maxLogEntries: 40 } : { maxLogBytes: 4_000 }) },
      bootstrap: { voters: ['a'], nonVoters: [] }, random: seededRandom(3), logger: memory,
    });
    try {
      await waitFor('a leader', () => node.isLeader());
      let last = 0;
      for (let i = 0; i < 300; i++) last = (await node.propose({ type: 'set', key: `key-${i}`, value: 'v'.repeat(40) } as never)).index;
      await node.waitForApplied(last, 3000);
      await waitFor('a snapshot for the log size', () => memory.lines.some((line) => line.msg === 'raft snapshot taken' && line['trigger'] === 'log size'));
      await waitFor('the log compacted', () => node.status().firstIndex > 200);
      const status = node.status();
      // Never more than the bound (40 entries, or ~40 at 100 bytes) plus trailingLogs and what one round adds.
      assert.ok(status.lastIndex - status.firstIndex + 1 <= 40 + 5 + 20, `the log holds ${status.lastIndex - status.firstIndex + 1} entries`);
      assert.ok((await store.firstIndex()) > 200, 'the stored log is compacted too');
      assert.equal(machine.values.get('key-299'), 'v'.repeat(40));
    } finally {
      await node.close();
    }
  });
}

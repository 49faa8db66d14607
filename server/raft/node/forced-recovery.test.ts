// Forced single-voter recovery over the real write-ahead log and snapshot files: what it keeps and writes, what it
// refuses, what a crash part-way leaves, and a real three-node cluster that loses two members and comes back from the
// survivor's files as a cluster of one that new members join.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createMemoryLogger, silentLogger } from '../../../common/log/logger.ts';
import type { ConfigEntryData } from '../core/raft-core.ts';
import type { Configuration, Entry } from '../core/types.ts';
import { seededRandom } from '../sim/seeded-random.ts';
import { FileSnapshotStore } from '../storage/file-snapshot-store.ts';
import { WalRaftStore } from '../storage/wal-raft-store.ts';
import { forceSingleVoter } from './forced-recovery.ts';
import { KvStateMachine, waitFor } from './node-test-support.ts';
import { RaftNode, type RaftStateMachine } from './raft-node.ts';
import { InProcessTransport } from './raft-transport.ts';

const timing = { tickMs: 10, electionTicks: 10, heartbeatTicks: 2, commitTimeoutMs: 3000 };
const snapshotPolicy = { intervalMs: 3_600_000, threshold: 1000, trailingLogs: 5 };
const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgeward-forced-recovery-'));
  dirs.push(dir);
  return dir;
}

const openFiles = async (dir: string) => ({
  store: await WalRaftStore.open(join(dir, 'raft.db'), { segmentBytes: 64 * 1024 }),
  snapshots: await FileSnapshotStore.open(join(dir, 'snapshots')),
});

const threeVoters: Configuration = { voters: ['a', 'b', 'c'], nonVoters: [], addresses: { a: 'tls:127.0.0.1:7001', b: 'tls:127.0.0.1:7002', c: 'tls:127.0.0.1:7003' } };
const set = (index: number, term: number): Entry => ({ index, term, type: 'normal', data: { type: 'set', key: `k${index}`, value: `v${index}` } });

/**
 * A survivor's stopped data, as a three-voter cluster leaves it: a snapshot at 6, the log compacted through 2 and
 * running to 15, of which only 10 is known committed (11..15, a term-2 leader's entries, never reached a majority),
 * the hard state of term 3 with a vote for b, and a durable state machine that applied only through 4.
 */
async function survivorFiles(dir: string) {
  const { store, snapshots } = await openFiles(dir);
  const config: ConfigEntryData = { change: { kind: 'add', id: 'a', voter: true }, configuration: threeVoters };
  const entries: Entry[] = [{ index: 1, term: 1, type: 'config', data: config }, { index: 2, term: 1, type: 'noop', data: null }];
  for (let index = 3; index <= 10; index++) entries.push(set(index, 1));
  entries.push({ index: 11, term: 2, type: 'noop', data: null });
  for (let index = 12; index <= 15; index++) entries.push(set(index, 2));
  await store.persist(entries, { term: 3, vote: 'b', commit: 10 });
  const atSix = new KvStateMachine();
  await atSix.apply(entries.slice(0, 6).map((entry) => ({ index: entry.index, term: entry.term, command: entry.type === 'normal' ? (entry.data as never) : { type: 'raft.noop' } })));
  await snapshots.save({ meta: { index: 6, term: 1, configuration: threeVoters }, data: atSix.snapshot() });
  await store.compact(2);
  const machine = new KvStateMachine();
  await machine.apply(entries.slice(0, 4).map((entry) => ({ index: entry.index, term: entry.term, command: entry.type === 'normal' ? (entry.data as never) : { type: 'raft.noop' } })));
  return { store, snapshots, machine };
}

const startNode = (id: string, files: { store: WalRaftStore; snapshots: FileSnapshotStore }, machine: KvStateMachine, transport: InProcessTransport, bootstrap: Configuration = { voters: [], nonVoters: [] }) =>
  RaftNode.start({ id, store: files.store, snapshots: files.snapshots, stateMachine: machine, transport, timing, snapshotPolicy, bootstrap, random: seededRandom(7), logger: silentLogger });

test('the survivor applies its whole log, committed or not, and its files become a one-voter cluster at the last index', async () => {
  const dir = tempDir();
  const files = await survivorFiles(dir);
  const logger = createMemoryLogger();
  const recovered = await forceSingleVoter({ id: 'a', store: files.store, snapshots: files.snapshots, stateMachine: files.machine, logger });
  assert.deepEqual(recovered, {
    index: 15,
    term: 2,
    previous: threeVoters,
    configuration: { voters: ['a'], nonVoters: [], addresses: { a: 'tls:127.0.0.1:7001' } },
    applied: 9,
  });
  assert.equal(files.machine.restored, 1, 'the snapshot at 6 was restored first: the state machine was at 4');
  assert.equal(files.machine.appliedIndex(), 15);
  for (let index = 3; index <= 15; index++) if (index !== 11) assert.equal(files.machine.values.get(`k${index}`), `v${index}`, `k${index}`);
  const snapshot = await files.snapshots.latest();
  assert.deepEqual(snapshot?.meta, { index: 15, term: 2, configuration: recovered.configuration });
  assert.deepEqual((snapshot?.data as { values: [string, string][] }).values.length, 12);
  assert.ok((await files.store.lastIndex()) < (await files.store.firstIndex()), 'the log is empty');
  assert.deepEqual(await files.store.hardState(), { term: 3, vote: 'b', commit: 15 });
  const line = logger.lines.find((entry) => entry.msg === 'raft configuration forced to this node alone');
  assert.deepEqual(line && { level: line.level, index: line.index, previousVoters: line.previousVoters }, { level: 'warn', index: 15, previousVoters: ['a', 'b', 'c'] });

  // Twice is harmless: the same cluster of one, nothing applied again.
  const again = await forceSingleVoter({ id: 'a', address: 'tls:10.0.0.1:7001', store: files.store, snapshots: files.snapshots, stateMachine: files.machine, logger: silentLogger });
  assert.deepEqual(again, { index: 15, term: 2, previous: recovered.configuration, configuration: { voters: ['a'], nonVoters: [], addresses: { a: 'tls:10.0.0.1:7001' } }, applied: 0 });

  // It starts as the only voter, leads at once and takes writes after the recovered history.
  const transport = new InProcessTransport();
  const node = await startNode('a', files, files.machine, transport, threeVoters);
  try {
    await waitFor('a to lead alone', () => node.isLeader());
    assert.deepEqual(node.configuration.voters, ['a']);
    const proposal = await node.propose({ type: 'set', key: 'after', value: 'recovery' } as never);
    assert.ok(proposal.index > 15);
    assert.ok(node.term > 3);
    assert.equal(files.machine.values.get('after'), 'recovery');
  } finally {
    await node.close();
    await files.store.close();
  }
});

test('nothing to recover, or a node that is not a member: refused with the reason, and nothing is written', async () => {
  const empty = await openFiles(tempDir());
  const machine = new KvStateMachine();
  await assert.rejects(forceSingleVoter({ id: 'a', ...empty, stateMachine: machine, logger: silentLogger }), /raft recovery: nothing to recover: a has no raft log, snapshot or hard state/);
  assert.deepEqual(await empty.snapshots.list(), []);
  assert.equal(await empty.store.hardState(), undefined);
  await empty.store.close();

  const files = await survivorFiles(tempDir());
  await assert.rejects(forceSingleVoter({ id: 'z', store: files.store, snapshots: files.snapshots, stateMachine: files.machine, logger: silentLogger }), /raft recovery: z is not a member of the last configuration \(voters a, b, c, non-voters none\)/);
  assert.equal(files.machine.appliedIndex(), 4, 'the state machine was not touched');
  assert.equal(files.machine.restored, 0);
  assert.deepEqual((await files.snapshots.list()).map((meta) => meta.index), [6]);
  assert.equal(await files.store.lastIndex(), 15);
  assert.deepEqual(await files.store.hardState(), { term: 3, vote: 'b', commit: 10 });
  await files.store.close();
});

test('a crash before the snapshot is saved leaves the old cluster; a crash after it, a cluster of one; a second run finishes either', async () => {
  // Killed while saving the snapshot: the raft files are as they were, so the node is still one of three voters
  // (and cannot lead alone), with the log's tail applied, which it takes as committed.
  const before = await survivorFiles(tempDir());
  const save = before.snapshots.save.bind(before.snapshots);
  before.snapshots.save = () => Promise.reject(new Error('killed'));
  await assert.rejects(forceSingleVoter({ id: 'a', store: before.store, snapshots: before.snapshots, stateMachine: before.machine, logger: silentLogger }), /killed/);
  before.snapshots.save = save;
  assert.equal(before.machine.appliedIndex(), 15);
  const transport = new InProcessTransport();
  const old = await startNode('a', before, before.machine, transport, threeVoters);
  assert.deepEqual(old.configuration.voters, ['a', 'b', 'c']);
  assert.equal(old.status().commit, 15, 'what the state machine applied counts as committed');
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(old.isLeader(), false);
  await old.close();
  const finished = await forceSingleVoter({ id: 'a', store: before.store, snapshots: before.snapshots, stateMachine: before.machine, logger: silentLogger });
  assert.deepEqual({ index: finished.index, applied: finished.applied, voters: finished.configuration.voters }, { index: 15, applied: 0, voters: ['a'] });
  await before.store.close();

  // Killed after the snapshot was saved, before the log was reset: it starts as the cluster of one already.
  const afterSaveDir = tempDir();
  const afterSave = await survivorFiles(afterSaveDir);
  afterSave.store.reset = () => Promise.reject(new Error('killed'));
  await assert.rejects(forceSingleVoter({ id: 'a', store: afterSave.store, snapshots: afterSave.snapshots, stateMachine: afterSave.machine, logger: silentLogger }), /killed/);
  await afterSave.store.close();
  const reopened = await openFiles(afterSaveDir);
  const node = await startNode('a', reopened, afterSave.machine, transport, threeVoters);
  try {
    await waitFor('a to lead alone', () => node.isLeader());
    assert.deepEqual(node.configuration.voters, ['a']);
    const proposal = await node.propose({ type: 'set', key: 'after', value: 'crash' } as never);
    assert.equal(proposal.index, 17, 'after the recovered 15 and the new term\'s noop');
  } finally {
    await node.close();
    await reopened.store.close();
  }
});

test('a three-voter cluster loses two members for good: the survivor, forced to one voter, leads alone with every write it held, and a fresh member joins and catches up', async () => {
  const root = tempDir();
  const transport = new InProcessTransport();
  const ids = ['a', 'b', 'c'];
  const machines = new Map(ids.map((id) => [id, new KvStateMachine()]));
  const files = new Map<string, Awaited<ReturnType<typeof openFiles>>>();
  const nodes = new Map<string, RaftNode>();
  for (const id of ids) {
    files.set(id, await openFiles(join(root, id)));
    nodes.set(id, await startNode(id, files.get(id)!, machines.get(id)!, transport, { voters: ids, nonVoters: [] }));
  }
  const leader = await waitFor('a leader', () => [...nodes.values()].find((node) => node.isLeader()));
  const committed: number[] = [];
  for (let i = 0; i < 40; i++) committed.push((await leader.propose({ type: 'set', key: `c${i}`, value: `v${i}` } as never)).index);
  assert.equal(await leader.maybeSnapshot(true), true);

  // The leader is cut off and keeps taking writes no one else receives: its log's tail, never committed.
  for (const id of ids) if (id !== leader.id) transport.cut.add(`${leader.id}>${id}`).add(`${id}>${leader.id}`);
  const tail = Array.from({ length: 5 }, (_, i) => leader.propose({ type: 'set', key: `t${i}`, value: `v${i}` } as never).catch((error: Error) => error));
  await waitFor('the tail in the leader\'s log', () => leader.log.lastIndex() >= committed[committed.length - 1]! + 5);
  const survivorLast = leader.log.lastIndex();

  // The two others are destroyed with their disks; the survivor is stopped.
  for (const id of ids) {
    if (id === leader.id) continue;
    await nodes.get(id)!.close();
    await files.get(id)!.store.close();
    rmSync(join(root, id), { recursive: true, force: true });
  }
  await leader.close();
  for (const refused of await Promise.all(tail)) assert.ok(refused instanceof Error, 'the tail was never acknowledged');
  await files.get(leader.id)!.store.close();
  transport.cut.clear();

  const survivor = await openFiles(join(root, leader.id));
  const machine = machines.get(leader.id)!;
  const recovered = await forceSingleVoter({ id: leader.id, store: survivor.store, snapshots: survivor.snapshots, stateMachine: machine, logger: silentLogger });
  assert.equal(recovered.index, survivorLast);
  assert.deepEqual(recovered.previous.voters, ids);
  assert.ok(recovered.applied >= 5, `applied ${recovered.applied} entries of the log`);

  const node = await startNode(leader.id, survivor, machine, transport, { voters: ids, nonVoters: [] });
  const fresh = new KvStateMachine();
  const freshFiles = await openFiles(join(root, 'd'));
  const joiner = await startNode('d', freshFiles, fresh, transport);
  try {
    await waitFor('the survivor to lead alone', () => node.isLeader());
    const write = await node.propose({ type: 'set', key: 'after', value: 'recovery' } as never);
    assert.ok(write.index > survivorLast);
    await node.proposeConfigChange({ kind: 'add', id: 'd', voter: true });
    const last = await node.propose({ type: 'set', key: 'joined', value: 'yes' } as never);
    await joiner.waitForApplied(last.index, 5000);
    assert.deepEqual(node.configuration.voters, [leader.id, 'd']);
    for (const state of [machine, fresh]) {
      for (let i = 0; i < 40; i++) assert.equal(state.values.get(`c${i}`), `v${i}`);
      for (let i = 0; i < 5; i++) assert.equal(state.values.get(`t${i}`), `v${i}`, 'the uncommitted tail the survivor held was kept');
      assert.equal(state.values.get('after'), 'recovery');
      assert.equal(state.values.get('joined'), 'yes');
    }
  } finally {
    await joiner.close();
    await node.close();
    await freshFiles.store.close();
    await survivor.store.close();
  }
});

test('a state machine that answers its snapshot later (the raft thread\'s mirror): the recovery saves the data it awaited', async () => {
  const files = await survivorFiles(tempDir());
  const machine = files.machine;
  const later: RaftStateMachine = {
    snapshotIsAsync: true,
    appliedIndex: () => machine.appliedIndex(),
    apply: (entries) => machine.apply(entries),
    restore: (data, index) => machine.restore(data, index),
    snapshot: () => new Promise((resolve) => setTimeout(() => resolve(machine.snapshot()), 5)),
  };
  const recovered = await forceSingleVoter({ id: 'a', store: files.store, snapshots: files.snapshots, stateMachine: later, logger: silentLogger });
  assert.equal(recovered.index, 15);
  const saved = (await files.snapshots.latest())!.data as { values: [string, string][]; applied: number };
  assert.equal(saved.applied, 15);
  assert.deepEqual(new Map(saved.values).get('k15'), 'v15');
  await files.store.close();
});

test('a log the newest snapshot superseded (a crash while installing a leader\'s snapshot) is not applied: the recovery starts from the snapshot', async () => {
  const files = await survivorFiles(tempDir());
  const fromLeader = new KvStateMachine();
  // The leader's snapshot is at 12 in term 3, where this log holds a term-2 entry: 13..15 after it are not the leader's.
  await fromLeader.restore({ values: [['leader', 'state']] }, 12);
  await files.snapshots.save({ meta: { index: 12, term: 3, configuration: threeVoters }, data: fromLeader.snapshot() });
  const recovered = await forceSingleVoter({ id: 'b', store: files.store, snapshots: files.snapshots, stateMachine: files.machine, logger: silentLogger });
  assert.deepEqual({ index: recovered.index, term: recovered.term, applied: recovered.applied }, { index: 12, term: 3, applied: 0 });
  assert.deepEqual([...files.machine.values], [['leader', 'state']], 'the state is the snapshot\'s, none of the replaced log');
  assert.deepEqual(recovered.configuration, { voters: ['b'], nonVoters: [], addresses: { b: 'tls:127.0.0.1:7002' } });
  await files.store.close();
});

// Each checker is shown a broken history or state and must object, and a sound one and must not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entry, Message } from '../../core/types.ts';
import { announcedCommit, checkCommit, type VoterState } from './commit-safety.ts';
import { CommitIndexWatch } from './commit-index.ts';
import { checkAnswerIsDurable } from './durable-before-answered.ts';
import type { DurableView } from './durable-view.ts';
import { RaftLog } from '../../core/raft-log.ts';
import { AcknowledgedProposals, clientKey } from './acknowledged-proposals.ts';
import { checkElectionSafety, checkLeaderWasElected } from './election-safety.ts';
import { History } from './history.ts';
import { checkLeaderCompleteness } from './leader-completeness.ts';
import { converged } from './liveness.ts';
import { checkLogMatching } from './log-matching.ts';
import { checkRead } from './read-your-writes.ts';
import { CommittedLedger, crossRecoveryBoundary } from './recovery-epoch.ts';
import type { ReplicaView } from './replica-view.ts';
import { SafetyViolation } from './safety-violation.ts';
import { recordApply, recordSnapshotInstall } from './state-machine-safety.ts';

const entry = (index: number, term: number, client = index): Entry => ({ index, term, type: 'normal', data: { type: 'sim.write', client } });

function replica(id: string, entries: Entry[], options: { term?: number; leader?: boolean; commit?: number; snapshotIndex?: number } = {}): ReplicaView {
  const snapshotIndex = options.snapshotIndex ?? 0;
  const log = RaftLog.restore(snapshotIndex > 0 ? { index: snapshotIndex, term: entries.find((e) => e.index === snapshotIndex)?.term ?? 1 } : undefined, entries, options.commit ?? 0, 0);
  return { id, term: options.term ?? 5, log, isLeader: () => options.leader ?? false };
}

const violation = (property: string) => (error: unknown) => error instanceof SafetyViolation && error.property === property;

test('election safety: a second leader in a term is refused even when the first is gone', () => {
  const history = new History();
  checkElectionSafety([replica('a', [], { term: 3, leader: true })], history);
  checkElectionSafety([replica('a', [], { term: 4, leader: false }), replica('b', [], { term: 4, leader: true })], history);
  assert.throws(() => checkElectionSafety([replica('c', [], { term: 3, leader: true })], history), violation('election safety'));
});

test('log matching: same index and term must mean the same entry and the same prefix', () => {
  checkLogMatching([replica('a', [entry(1, 1), entry(2, 2)]), replica('b', [entry(1, 1), entry(2, 2), entry(3, 2)])]);
  assert.throws(() => checkLogMatching([replica('a', [entry(1, 1), entry(2, 2)]), replica('b', [entry(1, 1), entry(2, 2, 99)])]), violation('log matching'));
  assert.throws(() => checkLogMatching([replica('a', [entry(1, 1), entry(2, 2)]), replica('b', [entry(1, 3), entry(2, 2)])]), violation('log matching'));
  // Entries below either node's snapshot are not compared.
  checkLogMatching([replica('a', [entry(1, 1), entry(2, 1), entry(3, 2)], { snapshotIndex: 2 }), replica('b', [entry(1, 1, 50), entry(2, 1, 51), entry(3, 2)], { snapshotIndex: 2 })]);
});

test('state machine safety: a different entry, a different prior history or an out-of-order apply at an index is refused', () => {
  const history = new History();
  recordApply(history, 'a', 0, { index: 1, term: 1, key: clientKey(1) }, 11);
  recordApply(history, 'b', 0, { index: 1, term: 1, key: clientKey(1) }, 11);
  assert.throws(() => recordApply(history, 'c', 0, { index: 1, term: 1, key: clientKey(2) }, 12), violation('state machine safety'));
  assert.throws(() => recordApply(history, 'c', 0, { index: 1, term: 1, key: clientKey(1) }, 99), violation('state machine safety'));
  assert.throws(() => recordApply(history, 'c', 0, { index: 2, term: 1, key: clientKey(2) }, 13), violation('state machine safety'));
  recordSnapshotInstall(history, 'd', 1, 11);
  assert.throws(() => recordSnapshotInstall(history, 'd', 1, 10), violation('state machine safety'));
});

test('leader completeness: a leader of a later term must hold what was committed before it', () => {
  const history = new History();
  recordApply(history, 'a', 0, { index: 1, term: 2, key: clientKey(1) }, 1);
  const committer = replica('a', [entry(1, 2)], { term: 2, leader: true, commit: 1 });
  checkLeaderCompleteness([committer], history);
  // A stale leader of the same term may lack it; a leader of a later term may not.
  checkLeaderCompleteness([replica('b', [], { term: 2, leader: true })], history);
  assert.throws(() => checkLeaderCompleteness([replica('c', [entry(1, 3)], { term: 4, leader: true })], history), violation('leader completeness'));
});

test('acknowledged proposals: an acknowledgement must match what was committed at its index', () => {
  const history = new History();
  recordApply(history, 'a', 0, { index: 1, term: 1, key: clientKey(1) }, 1);
  const acknowledged = new AcknowledgedProposals();
  acknowledged.acknowledge(1, 1);
  acknowledged.check(history);
  acknowledged.acknowledge(2, 1);
  assert.throws(() => acknowledged.check(history), violation('acknowledged proposal lost'));
  const unknown = new AcknowledgedProposals();
  unknown.acknowledge(3, 7);
  assert.throws(() => unknown.check(history), violation('acknowledged proposal lost'));
});

test('read your writes: a wait for i must not answer before i is applied, nor from a state off the history', () => {
  const history = new History();
  recordApply(history, 'a', 0, { index: 1, term: 1, key: clientKey(1) }, 41);
  checkRead({ node: 'a', waitedFor: 1, index: 1, hash: 41 }, history);
  assert.throws(() => checkRead({ node: 'a', waitedFor: 2, index: 1, hash: 41 }, history), violation('read your writes'));
  assert.throws(() => checkRead({ node: 'a', waitedFor: 1, index: 1, hash: 40 }, history), violation('read your writes'));
});

test('liveness: converged only when every member runs at the leader\'s commit index, covering every acknowledgement', () => {
  const leader = { id: 'a', commit: 5, configuration: { voters: ['a', 'b'], nonVoters: ['c'] } };
  const at = (id: string, applied: number, running = true) => ({ id, running, commit: applied, applied });
  assert.equal(converged(leader, [at('a', 5), at('b', 5), at('c', 5), at('d', 0, false)], 5), true);
  assert.equal(converged(leader, [at('a', 5), at('b', 5), at('c', 4)], 5), false);
  assert.equal(converged(leader, [at('a', 5), at('b', 5), at('c', 5, false)], 5), false);
  assert.equal(converged(leader, [at('a', 5), at('b', 5), at('c', 5)], 6), false);
  assert.equal(converged(undefined, [at('a', 5)], 0), false);
});

/** A disk holding entries `from`..`to` of `term` (and votes). */
function disk(terms: Record<number, number>, options: { vote?: [number, string]; snapshotIndex?: number } = {}): DurableView {
  const indexes = Object.keys(terms).map(Number);
  const lastIndex = Math.max(0, ...indexes);
  return {
    hardState: options.vote ? { term: options.vote[0], vote: options.vote[1], commit: 0 } : undefined,
    termAt: (index) => (options.snapshotIndex !== undefined && index < options.snapshotIndex ? 'covered' : terms[index]),
    last: () => ({ index: lastIndex, term: terms[lastIndex] ?? 0 }),
  };
}

test('durable before answered: a granted vote or an acknowledged append the disk does not hold yet is refused', () => {
  const log = RaftLog.restore(undefined, [entry(1, 1), entry(2, 2)], 0, 0);
  const grant: Message = { type: 'VoteResp', from: 'b', to: 'a', term: 3, reject: false };
  assert.equal(checkAnswerIsDurable(grant, disk({}, { vote: [3, 'a'] }), log), undefined);
  assert.equal(checkAnswerIsDurable(grant, disk({}, { vote: [2, 'a'] }), log)?.property, 'durable before answered');
  assert.equal(checkAnswerIsDurable(grant, disk({}, { vote: [3, 'c'] }), log)?.property, 'durable before answered');
  // Its disk has moved on to a later term: it can never vote in term 3 again.
  assert.equal(checkAnswerIsDurable(grant, disk({}, { vote: [4, 'c'] }), log), undefined);
  const ack: Message = { type: 'AppendResp', from: 'b', to: 'a', term: 2, reject: false, index: 2, rejectHint: 0, hintTerm: 0 };
  assert.equal(checkAnswerIsDurable(ack, disk({ 1: 1, 2: 2 }), log), undefined);
  assert.equal(checkAnswerIsDurable(ack, disk({ 1: 1 }), log)?.property, 'durable before answered');
  assert.equal(checkAnswerIsDurable(ack, disk({}, { snapshotIndex: 5 }), log), undefined);
});

test('commit safety: a commit needs a durable majority, and no voter lacking the entry may be electable', () => {
  const log = RaftLog.restore(undefined, [entry(1, 1), entry(2, 2), entry(3, 4)], 0, 0);
  const voter = (id: string, terms: Record<number, number>, campaign?: { index: number; term: number }): VoterState => {
    const view = disk(terms);
    return { id, disk: view, campaignLast: campaign ?? view.last(), termAt: (index) => terms[index] };
  };
  // Durable on a and b of three: safe; c's shorter log cannot win a vote from a or b.
  assert.equal(checkCommit('a', log, 3, [[voter('a', { 1: 1, 2: 2, 3: 4 }), voter('b', { 1: 1, 2: 2, 3: 4 }), voter('c', { 1: 1 })]]), undefined);
  // Only the leader's copy is durable: not committed.
  assert.match(checkCommit('a', log, 3, [[voter('a', { 1: 1, 2: 2, 3: 4 }), voter('b', { 1: 1, 2: 2 }, { index: 3, term: 4 }), voter('c', { 1: 1 })]])?.message ?? '', /held durably by a of voters/);
  // Figure 8: index 2 (term 2) on a and b, but c holds a term-3 entry there and a's and c's disks would elect it.
  assert.match(checkCommit('a', log, 2, [[voter('a', { 1: 1, 2: 2 }), voter('b', { 1: 1, 2: 2 }), voter('c', { 1: 1, 2: 3 })]])?.message ?? '', /c, which lacks it, could be elected/);
  // Under another configuration that the leader may have decided it with, it holds.
  assert.equal(checkCommit('a', log, 3, [[voter('a', { 3: 4 }), voter('c', {})], [voter('a', { 3: 4 })]]), undefined);
  assert.equal(announcedCommit({ type: 'Heartbeat', from: 'a', to: 'b', term: 4, commit: 3 }), 3);
  assert.equal(announcedCommit(grantFor('a')), undefined);
});

const grantFor = (to: string): Message => ({ type: 'VoteResp', from: 'b', to, term: 3, reject: false });

test("election safety: a leader needs the grants of a majority of its voters in its own term (its own vote counts)", () => {
  const votes: Record<string, string | undefined> = { b: 'a', c: 'c' };
  const votedFor = (voter: string, term: number) => (term === 7 ? votes[voter] : undefined);
  checkLeaderWasElected({ id: 'a', term: 7, voters: ['a', 'b', 'c'] }, votedFor, new History());
  checkLeaderWasElected({ id: 'a', term: 7, voters: ['a'] }, () => undefined, new History());
  assert.throws(() => checkLeaderWasElected({ id: 'a', term: 8, voters: ['a', 'b', 'c'] }, votedFor, new History()), violation('election safety'));
  const history = new History();
  assert.throws(() => checkLeaderWasElected({ id: 'c', term: 7, voters: ['a', 'b', 'c'] }, votedFor, history), violation('election safety'));
  // Checked once per leader and term.
  checkLeaderWasElected({ id: 'c', term: 7, voters: ['a', 'b', 'c'] }, votedFor, history);
});

test('commit index: never goes back within one process; a new process starts afresh', () => {
  const watch = new CommitIndexWatch();
  const first = {};
  watch.check('a', first, 5);
  watch.check('a', first, 7);
  assert.throws(() => watch.check('a', first, 6), violation('commit index'));
  watch.check('a', {}, 2);
});

test('recovery epoch: what the survivor lacks (past its log, or a different entry) is reported lost; what it holds is the new history, and the new epoch checks against it', () => {
  const old = new History();
  const key = (index: number, term: number, client = index) => `${term}:${clientKey(client)}`;
  for (let index = 1; index <= 6; index++) old.committed.set(index, { term: 1, key: key(index, 1), hash: 100 + index });
  old.maxCommitted = 6;
  old.leaderOfTerm.set(7, 'b');
  // Index 7 was committed by the old leader but applied nowhere: only its announcement recorded it.
  const ledger = new CommittedLedger();
  const leaderLog = RaftLog.restore(undefined, [1, 2, 3, 4, 5, 6, 7].map((index) => entry(index, 1)), 7, 0);
  ledger.observe({ log: leaderLog }, (index) => `1:${clientKey(index)}`);
  // The survivor's state covers 3; its log holds 4 and 5 as committed, a different (uncommitted) entry at 6, and no 7.
  const survivorLog = new Map([
    [4, key(4, 1)],
    [5, key(5, 1)],
    [6, key(6, 1, 99)],
  ]);
  const boundary = crossRecoveryBoundary(old, ledger, { node: 'a', covered: 3, last: 6, keyAt: (index) => survivorLog.get(index) });
  assert.deepEqual(boundary.lost, [6, 7]);
  assert.deepEqual([...boundary.history.committed.keys()].sort(), [1, 2, 3, 4, 5]);
  assert.equal(boundary.history.maxCommitted, 5);
  assert.equal(boundary.history.leaderOfTerm.size, 0, 'a new epoch of terms: the old leaders are gone with their disks');
  // Without the boundary, the survivor's own entry at 6 would read as a safety failure; across it, the loss is
  // reported and that entry is the new history, which a node applying the old one there breaks.
  assert.throws(() => recordApply(old, 'a', 5, { index: 6, term: 1, key: clientKey(99) }, 999), violation('state machine safety'));
  recordApply(boundary.history, 'a', 5, { index: 6, term: 1, key: clientKey(99) }, 999);
  assert.throws(() => recordApply(boundary.history, 'c', 5, { index: 6, term: 1, key: clientKey(6) }, 106), violation('state machine safety'));

  // Acknowledged proposals at lost indexes are no longer checked (they are reported instead); the others still are.
  const acknowledged = new AcknowledgedProposals();
  acknowledged.acknowledge(5, 5);
  acknowledged.acknowledge(6, 6);
  assert.deepEqual(acknowledged.forgetIndexes(new Set(boundary.lost)), [6]);
  assert.equal(acknowledged.highestIndex(), 5);
  acknowledged.check(boundary.history);
  const wrong = new History();
  wrong.committed.set(5, { term: 1, key: key(5, 1, 42), hash: 1 });
  const kept = new AcknowledgedProposals();
  kept.acknowledge(5, 5);
  assert.throws(() => kept.check(wrong), violation('acknowledged proposal lost'));
});

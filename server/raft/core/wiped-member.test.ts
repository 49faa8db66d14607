// A member that lost its disk and came back under its id. The leader still counts it as holding what it had
// acknowledged, and took its append rejections as stale; it must notice the empty log (in the answer to a heartbeat,
// whose commit index never exceeds what the follower acknowledged) and send the log again, from a snapshot when it
// is compacted. The wiped member has lost its term and vote record and the entries it
// acknowledged, so once told of the loss, until its log reaches the leader's commit index, it grants no vote: its
// empty log would make a stale candidate look up to date, and that candidate could be elected without entries the
// cluster committed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RaftCore } from './raft-core.ts';
import type { Entry, Message, Snapshot } from './types.ts';

const voters = { voters: ['n1', 'n2', 'n3'], nonVoters: [] };
const timing = { electionTicks: 10, heartbeatTicks: 2, random: () => 0.5 };

/** What a node started on an empty data folder looks like: no state and no configuration. */
const wiped = () => new RaftCore({ id: 'n3', ...timing });

const entries = (from: number, to: number, term: number): Entry[] => {
  const list: Entry[] = [];
  for (let index = from; index <= to; index++) list.push({ index, term, type: index === 1 ? 'config' : 'normal', data: index === 1 ? { change: { kind: 'add', id: 'n1', voter: true }, configuration: voters } : { n: index } });
  return list;
};

/** Lets the leader lease lapse, so that a vote request is considered at all. */
const outlastLease = (core: RaftCore) => {
  for (let i = 0; i < timing.electionTicks; i++) core.tick();
};

const drain = (core: RaftCore): Message[] => {
  const rd = core.ready();
  core.advance(rd);
  return [...rd.messages];
};

/** A leader n1 at term 2 whose followers n2 and n3 acknowledged every entry up to 10. */
function leaderWithAcknowledgedFollowers(): RaftCore {
  const leader = new RaftCore({ id: 'n1', ...timing, hardState: { term: 1, vote: 'n1', commit: 10 }, entries: entries(1, 10, 1), applied: 10 });
  leader.campaign();
  for (const m of drain(leader)) if (m.type === 'PreVote') leader.step({ type: 'PreVoteResp', from: m.to, to: 'n1', term: m.term, reject: false });
  for (const m of drain(leader)) if (m.type === 'Vote') leader.step({ type: 'VoteResp', from: m.to, to: 'n1', term: m.term, reject: false });
  assert.equal(leader.status().role, 'leader');
  for (const m of drain(leader)) {
    if (m.type === 'Append') leader.step({ type: 'AppendResp', from: m.to, to: 'n1', term: m.term, reject: false, index: 11, rejectHint: 0, hintTerm: 0 });
  }
  drain(leader);
  assert.equal(leader.status().progress.n3!.match, 11);
  return leader;
}

test('a leader ignores an append rejection below what the follower acknowledged (it may be stale), and sends the log again once a heartbeat answer shows the loss', () => {
  const leader = leaderWithAcknowledgedFollowers();
  leader.propose({ n: 12 });
  const append = drain(leader).find((m): m is Extract<Message, { type: 'Append' }> => m.type === 'Append' && m.to === 'n3')!;
  const follower = wiped();
  follower.step(append);
  const [rejection] = drain(follower);
  assert.deepEqual(rejection && { type: rejection.type, reject: 'reject' in rejection && rejection.reject }, { type: 'AppendResp', reject: true });
  leader.step(rejection!);
  assert.equal(leader.ready().notices, undefined, 'an append rejection alone changes nothing');
  assert.equal(leader.status().progress.n3!.match, 11);

  // The next heartbeat carries a commit index the follower acknowledged; its answer says it holds nothing.
  for (let i = 0; i < timing.heartbeatTicks; i++) leader.tick();
  const heartbeat = drain(leader).find((m) => m.type === 'Heartbeat' && m.to === 'n3')!;
  follower.step(heartbeat);
  for (const answer of drain(follower)) leader.step(answer);
  const rd = leader.ready();
  assert.deepEqual(rd.notices, [{ kind: 'follower-lost-log', peer: 'n3', acknowledged: 11, holds: 0 }]);
  assert.equal(leader.status().progress.n3!.match, 0, 'the lost copies no longer count');
  // (The heartbeat's own answer came first and sent the pipeline's next append; the one after the loss starts over.)
  const resent = rd.messages.filter((m): m is Extract<Message, { type: 'Append' }> => m.type === 'Append' && m.to === 'n3').at(-1);
  assert.ok(resent, 'an append goes out at once');
  assert.equal(resent.prevIndex, 0);
  assert.equal(resent.entries[0]!.index, 1);
  const told = rd.messages.find((m) => m.type === 'Heartbeat' && m.to === 'n3');
  assert.deepEqual(told && { commit: (told as { commit: number }).commit, refill: (told as { refill?: number }).refill }, { commit: 0, refill: 11 }, 'it is told to withhold its vote until it holds the commit index again');
});

test('an idle leader learns from a heartbeat answer that a follower lost its log, and sends a snapshot when the log is compacted', () => {
  const leader = leaderWithAcknowledgedFollowers();
  const snapshot: Snapshot = { meta: { index: 10, term: 1, configuration: voters }, data: { model: 'at 10' } };
  leader.snapshotTaken(snapshot);
  leader.compact(10);
  const follower = wiped();
  // The heartbeat carries a commit index the follower had acknowledged; it answers that it holds nothing.
  follower.step({ type: 'Heartbeat', from: 'n1', to: 'n3', term: leader.status().term, commit: 10 });
  const answers = drain(follower);
  assert.deepEqual(answers.map((m) => m.type), ['HeartbeatResp', 'AppendResp']);
  for (const answer of answers) leader.step(answer);
  const rd = leader.ready();
  assert.equal(rd.notices?.[0]?.kind, 'follower-lost-log');
  assert.ok(rd.messages.some((m) => m.to === 'n3' && m.type === 'Snapshot'), 'the compacted log goes as the snapshot');
});

test('a member told it lost its log grants no vote or pre-vote until its log reaches the index being sent again', () => {
  const node = wiped();
  // The leader found the loss and says so in its heartbeat (commit 0: it counts the member as holding nothing).
  node.step({ type: 'Heartbeat', from: 'n1', to: 'n3', term: 4, commit: 0, refill: 6 });
  drain(node);
  outlastLease(node);
  // A stale candidate (short log) must not win its vote, nor its pre-vote.
  node.step({ type: 'PreVote', from: 'n2', to: 'n3', term: 5, lastIndex: 4, lastTerm: 1 });
  node.step({ type: 'Vote', from: 'n2', to: 'n3', term: 5, lastIndex: 4, lastTerm: 1 });
  const refused = node.ready();
  node.advance(refused);
  assert.deepEqual(refused.messages.map((m) => [m.type, 'reject' in m ? m.reject : undefined]), [['PreVoteResp', true], ['VoteResp', true]]);
  assert.equal(node.status().vote, null);
  // Said once per term: the pre-vote leaves this node at term 4, the vote moves it to 5.
  assert.deepEqual(refused.notices?.map((n) => [n.kind, 'term' in n ? n.term : undefined]), [['vote-withheld', 4], ['vote-withheld', 5]]);
  node.step({ type: 'Vote', from: 'n4', to: 'n3', term: 5, lastIndex: 4, lastTerm: 1 });
  assert.equal(node.ready().notices, undefined, 'not again in the same term');

  // The leader of term 6 sends the log up to index 6 in two appends; halfway it still withholds.
  node.step({ type: 'Append', from: 'n1', to: 'n3', term: 6, prevIndex: 0, prevTerm: 0, entries: entries(1, 3, 1), commit: 6 });
  drain(node);
  outlastLease(node);
  node.step({ type: 'Vote', from: 'n2', to: 'n3', term: 7, lastIndex: 4, lastTerm: 1 });
  assert.deepEqual(drain(node).map((m) => [m.type, 'reject' in m ? m.reject : undefined]), [['VoteResp', true]]);
  node.step({ type: 'Append', from: 'n1', to: 'n3', term: 7, prevIndex: 3, prevTerm: 1, entries: entries(4, 6, 1), commit: 6 });
  drain(node);
  outlastLease(node);
  // Caught up: it votes as any member does (here for an up-to-date candidate of a newer term).
  node.step({ type: 'Vote', from: 'n2', to: 'n3', term: 8, lastIndex: 6, lastTerm: 1 });
  assert.deepEqual(drain(node).map((m) => [m.type, 'reject' in m ? m.reject : undefined]), [['VoteResp', false]]);
  assert.equal(node.status().vote, 'n2');
});

test('a heartbeat whose commit index is beyond the log tells a member it lost entries, even before the leader saw it', () => {
  const node = wiped();
  node.step({ type: 'Heartbeat', from: 'n1', to: 'n3', term: 4, commit: 10 });
  drain(node);
  outlastLease(node);
  node.step({ type: 'Vote', from: 'n2', to: 'n3', term: 5, lastIndex: 4, lastTerm: 1 });
  assert.deepEqual(drain(node).map((m) => [m.type, 'reject' in m ? m.reject : undefined]), [['VoteResp', true]]);
});

test('a member told it lost its log votes again once a snapshot from its leader covers the index', () => {
  const node = wiped();
  node.step({ type: 'Heartbeat', from: 'n1', to: 'n3', term: 4, commit: 0, refill: 20 });
  node.step({ type: 'Snapshot', from: 'n1', to: 'n3', term: 4, snapshot: { meta: { index: 20, term: 3, configuration: voters }, data: {} } });
  drain(node);
  outlastLease(node);
  node.step({ type: 'Vote', from: 'n2', to: 'n3', term: 5, lastIndex: 20, lastTerm: 3 });
  assert.deepEqual(drain(node).map((m) => [m.type, 'reject' in m ? m.reject : undefined]), [['VoteResp', false]]);
});

test('a new member (nothing on disk, never told of a loss) votes as before: a one-voter cluster that added it needs its vote', () => {
  const fresh = wiped();
  fresh.step({ type: 'Heartbeat', from: 'n1', to: 'n3', term: 2, commit: 0 });
  drain(fresh);
  outlastLease(fresh);
  fresh.step({ type: 'Vote', from: 'n1', to: 'n3', term: 3, lastIndex: 5, lastTerm: 2 });
  assert.deepEqual(drain(fresh).map((m) => [m.type, 'reject' in m ? m.reject : undefined]), [['VoteResp', false]]);
  const configured = new RaftCore({ id: 'n3', ...timing, bootstrap: voters });
  configured.step({ type: 'Vote', from: 'n2', to: 'n3', term: 1, lastIndex: 0, lastTerm: 0 });
  assert.deepEqual(drain(configured).map((m) => [m.type, 'reject' in m ? m.reject : undefined]), [['VoteResp', false]]);
});

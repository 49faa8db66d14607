// A vote goes to any candidate whose log is at least as up to date, whether or not this node's configuration lists
// it: the configuration here may be older than the one that made the candidate a voter. Refusing such a candidate
// left the simulator a cluster where no server could be elected.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RaftCore } from './raft-core.ts';
import type { Message } from './types.ts';

function voter(): RaftCore {
  return new RaftCore({ id: 'n2', electionTicks: 10, heartbeatTicks: 2, random: () => 0.5, bootstrap: { voters: ['n1', 'n2', 'n3'], nonVoters: [] } });
}

const sent = (core: RaftCore): readonly Message[] => core.ready().messages;

test('a candidate this node does not know as a voter gets its vote when its log is up to date', () => {
  const core = voter();
  core.step({ type: 'Vote', from: 'n4', to: 'n2', term: 1, lastIndex: 5, lastTerm: 1 });
  assert.deepEqual(sent(core).map((m) => [m.type, m.to, 'reject' in m ? m.reject : undefined]), [['VoteResp', 'n4', false]]);
  assert.equal(core.status().vote, 'n4');
});

test('the vote is still refused to a candidate whose log is behind', () => {
  const core = new RaftCore({
    id: 'n2', electionTicks: 10, heartbeatTicks: 2, random: () => 0.5, bootstrap: { voters: ['n1', 'n2', 'n3'], nonVoters: [] },
    hardState: { term: 2, vote: null, commit: 0 }, entries: [{ index: 1, term: 2, type: 'noop', data: null }],
  });
  core.step({ type: 'Vote', from: 'n4', to: 'n2', term: 3, lastIndex: 5, lastTerm: 1 });
  assert.deepEqual(sent(core).map((m) => [m.type, m.to, 'reject' in m ? m.reject : undefined]), [['VoteResp', 'n4', true]]);
});

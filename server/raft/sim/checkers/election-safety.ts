// Election safety (§5.2): at most one leader in a term, over the whole history (a leader of term T seen once and a
// different one seen later in T is a violation even if they never coexisted).
import type { NodeId } from '../../core/types.ts';
import type { History } from './history.ts';
import type { ReplicaView } from './replica-view.ts';
import { SafetyViolation } from './safety-violation.ts';

export function checkElectionSafety(replicas: readonly ReplicaView[], history: History): void {
  for (const replica of replicas) {
    if (!replica.isLeader()) continue;
    const known = history.leaderOfTerm.get(replica.term);
    if (known === undefined) history.leaderOfTerm.set(replica.term, replica.id);
    else if (known !== replica.id) throw new SafetyViolation('election safety', `${known} and ${replica.id} were both leader in term ${replica.term}`);
  }
}

/**
 * A leader won its term's election: a majority of the voters of the configuration it campaigned under granted it
 * their vote in that very term (§5.2). A grant from an earlier term does not count; the leader's own vote does.
 * (Each grant was durable when it left, which durable-before-answered.ts checks: the voter's disk held that vote, or
 * a later term, so it can never vote again in that term.) Checked once per leader and term, when first seen leading.
 */
export function checkLeaderWasElected(leader: { readonly id: NodeId; readonly term: number; readonly voters: readonly NodeId[] }, votedFor: (voter: NodeId, term: number) => NodeId | undefined, history: History): void {
  const key = `${leader.id}:${leader.term}`;
  if (history.electionsChecked.has(key)) return;
  history.electionsChecked.add(key);
  if (leader.voters.length === 0) return;
  // Its own vote may still be on its way to its disk: it reaches no one else before it is written.
  const votes = leader.voters.filter((voter) => voter === leader.id || votedFor(voter, leader.term) === leader.id);
  if (votes.length < Math.floor(leader.voters.length / 2) + 1) {
    throw new SafetyViolation('election safety', `${leader.id} led term ${leader.term} with the votes of ${votes.join(', ') || 'no voter'} of voters ${leader.voters.join(', ')}`);
  }
}

// What a leader's commit index promises, checked when a leader first announces a new commit index (an append or
// heartbeat carrying it leaves): the entry there is durable on a majority of its voters (§5.3; a copy still being
// written does not count, thesis §10.2.1), and no voter lacking it could win an election: a majority of the voters'
// disks would have to refuse it its vote (§5.4.1). The second is what the raft paper's figure 8 breaks: an entry of an
// earlier term replicated to a majority is not yet safe, because a server with a later term's entry there can still
// be elected and overwrite it.
import type { Message, NodeId } from '../../core/types.ts';
import type { RaftLogView } from '../../core/raft-log.ts';
import type { DurableLast, DurableView } from './durable-view.ts';
import { SafetyViolation } from './safety-violation.ts';

export interface VoterState {
  readonly id: NodeId;
  readonly disk: DurableView;
  /** The log it would campaign with: its log in memory while it runs (it may hold more than its disk). */
  readonly campaignLast: DurableLast;
  /** The term of the entry it holds at an index ('covered': below its snapshot), in memory while it runs. */
  termAt(index: number): number | 'covered' | undefined;
}

const atLeastAsUpToDate = (a: DurableLast, b: DurableLast) => a.term > b.term || (a.term === b.term && a.index >= b.index);

/**
 * Checks a leader's announced commit index `commit`; undefined when it holds. The leader decided it under the
 * configuration then newest in its log, which a membership change appended since may have replaced: it holds when
 * it holds under any of `configurations` (the one as of `commit`, and each appended after it).
 */
export function checkCommit(leader: NodeId, log: RaftLogView, commit: number, configurations: readonly (readonly VoterState[])[]): SafetyViolation | undefined {
  let first: SafetyViolation | undefined;
  for (const voters of configurations) {
    const violation = checkCommitUnder(leader, log, commit, voters);
    if (!violation) return undefined;
    first ??= violation;
  }
  return first;
}

function checkCommitUnder(leader: NodeId, log: RaftLogView, commit: number, voters: readonly VoterState[]): SafetyViolation | undefined {
  const term = log.term(commit);
  if (term === undefined || voters.length === 0) return undefined;
  const majority = Math.floor(voters.length / 2) + 1;
  const durable = voters.filter((voter) => {
    const held = voter.disk.termAt(commit);
    return held === 'covered' || held === term;
  });
  if (durable.length < majority) {
    return new SafetyViolation('commit safety', `${leader} committed index ${commit} (term ${term}) held durably by ${durable.map((voter) => voter.id).join(', ') || 'no voter'} of voters ${voters.map((voter) => voter.id).join(', ')}`);
  }
  for (const candidate of voters) {
    const held = candidate.termAt(commit);
    if (held === 'covered' || held === term) continue;
    const grants = voters.filter((voter) => atLeastAsUpToDate(candidate.campaignLast, voter.disk.last()));
    if (grants.length >= majority) {
      return new SafetyViolation('commit safety', `${leader} committed index ${commit} (term ${term}), but ${candidate.id}, which lacks it, could be elected by ${grants.map((voter) => voter.id).join(', ')}`);
    }
  }
  return undefined;
}

/** The commit index a leader's message announces, if it carries one. */
export function announcedCommit(message: Message): number | undefined {
  return message.type === 'Append' || message.type === 'Heartbeat' ? message.commit : undefined;
}

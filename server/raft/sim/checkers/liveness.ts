// Liveness after faults stop: once every node runs and the network is whole, there is a leader, and every member
// has applied everything the leader committed, including the proposals acknowledged before.
import type { Configuration, NodeId } from '../../core/types.ts';
import { SafetyViolation } from './safety-violation.ts';

export interface MemberProgress {
  readonly id: NodeId;
  readonly running: boolean;
  readonly commit: number;
  readonly applied: number;
}

export interface LeaderProgress {
  readonly id: NodeId;
  readonly commit: number;
  readonly configuration: Configuration;
}

/** True when the cluster has converged: every member of the leader's configuration is at the leader's commit index
 * and that index covers every acknowledged proposal. */
export function converged(leader: LeaderProgress | undefined, members: readonly MemberProgress[], highestAcknowledged: number): boolean {
  if (!leader || leader.commit < highestAcknowledged) return false;
  const { voters, nonVoters } = leader.configuration;
  const inConfiguration = members.filter((member) => voters.includes(member.id) || nonVoters.includes(member.id));
  return inConfiguration.every((member) => member.running && member.applied === leader.commit && member.commit === leader.commit);
}

export function livenessFailure(bound: number, state: string, waitingFor: string): SafetyViolation {
  return new SafetyViolation('liveness', `no convergence within ${bound} steps after healing (${state}; waiting for ${waitingFor})`);
}

// Election safety (§5.2): at most one leader in a term, over the whole history (a leader of term T seen once and a
// different one seen later in T is a violation even if they never coexisted).
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

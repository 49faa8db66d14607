// Leader completeness (§5.4): an entry committed in term T is in the log of every leader of a term after T. A stale
// leader of an older term may lack it; that is not a violation.
import type { History } from './history.ts';
import type { ReplicaView } from './replica-view.ts';
import { SafetyViolation } from './safety-violation.ts';

export function checkLeaderCompleteness(replicas: readonly ReplicaView[], history: History): void {
  const leaders = replicas.filter((replica) => replica.isLeader());
  for (const leader of leaders) history.observeLeaderCommit(leader.log.committed, leader.term);
  for (const leader of leaders) {
    const { log } = leader;
    // A leader never changes its log below its last index during its term, and a recorded commit never changes: what
    // was checked in this term against the same history needs no second look.
    const checked = history.completenessChecked.get(leader.id);
    const resume = checked && checked.term === leader.term && checked.gapsFilled === history.gapsFilled ? checked.through + 1 : 0;
    const through = Math.min(history.maxCommitted, log.lastIndex());
    for (let index = Math.max(log.snapshotIndex + 1, resume); index <= history.maxCommitted; index++) {
      const committed = history.committed.get(index);
      const commitTerm = history.commitTerm.get(index) ?? committed?.term;
      if (!committed || commitTerm === undefined || commitTerm >= leader.term) continue;
      if (log.term(index) !== committed.term) {
        const held = log.term(index) === undefined ? 'no entry' : `term ${log.term(index)}`;
        throw new SafetyViolation('leader completeness', `leader ${leader.id} (term ${leader.term}) has ${held} at index ${index}, committed with term ${committed.term} in term ${commitTerm}`);
      }
    }
    history.completenessChecked.set(leader.id, { term: leader.term, gapsFilled: history.gapsFilled, through });
  }
}

// Log matching (§5.3): if two logs hold an entry with the same index and term, they hold the same entry there and
// agree on everything before it. Checked between every pair of running nodes over the entries both still hold.
import type { ReplicaView } from './replica-view.ts';
import { SafetyViolation } from './safety-violation.ts';

export function checkLogMatching(replicas: readonly ReplicaView[]): void {
  for (let a = 0; a < replicas.length; a++) {
    for (let b = a + 1; b < replicas.length; b++) {
      const left = replicas[a]!;
      const right = replicas[b]!;
      const low = Math.max(left.log.snapshotIndex, right.log.snapshotIndex) + 1;
      const high = Math.min(left.log.lastIndex(), right.log.lastIndex());
      let matched = false;
      for (let index = high; index >= low; index--) {
        const same = left.log.term(index) === right.log.term(index);
        if (matched && !same) throw new SafetyViolation('log matching', `${left.id} and ${right.id} agree at a later index but differ at ${index}`);
        if (!same) continue;
        matched = true;
        const x = left.log.entry(index)!;
        const y = right.log.entry(index)!;
        if (x !== y && (x.type !== y.type || JSON.stringify(x.data) !== JSON.stringify(y.data))) {
          throw new SafetyViolation('log matching', `${left.id} and ${right.id} hold different entries with term ${x.term} at ${index}`);
        }
      }
    }
  }
}

// A node's commit index never goes back while it runs (§5.3: commitIndex only grows): what it has told its state
// machine and its clients is committed stays committed. A restart may start lower (the commit index is learned again),
// so each process is watched from its own start.
import type { NodeId } from '../../core/types.ts';
import { SafetyViolation } from './safety-violation.ts';

export class CommitIndexWatch {
  /** Per running process (by the object that stands for it), the highest commit index seen. */
  private readonly highest = new WeakMap<object, number>();

  check(node: NodeId, process: object, commit: number): void {
    const before = this.highest.get(process) ?? 0;
    if (commit < before) throw new SafetyViolation('commit index', `${node}'s commit index went back from ${before} to ${commit}`);
    this.highest.set(process, commit);
  }
}

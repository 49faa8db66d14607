// A node's durable term never goes back, and it never changes its vote within a term (§5.2, figure 2's "persistent
// state"), across every crash and restart: checked on the disk image whenever a write reaches it.
import type { HardState, NodeId } from '../../core/types.ts';
import { SafetyViolation } from './safety-violation.ts';

export class DurableStateChecker {
  private term = 0;
  private vote: NodeId | null = null;

  constructor(private readonly node: NodeId) {}

  /** The hard state the disk now holds. */
  check(hard: HardState | undefined): void {
    if (!hard) return;
    if (hard.term < this.term) throw new SafetyViolation('durable state', `${this.node}'s term went back from ${this.term} to ${hard.term}`);
    if (hard.term === this.term && this.vote !== null && hard.vote !== this.vote) {
      throw new SafetyViolation('durable state', `${this.node} voted for ${this.vote} and then ${hard.vote} in term ${hard.term}`);
    }
    this.term = hard.term;
    this.vote = hard.vote;
  }
}

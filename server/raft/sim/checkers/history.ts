// What the whole cluster has shown so far, kept across crashes and restarts: the leader of each term, what was
// applied at each index (and the state after it), and the term of the leader first seen committing each index.
import type { NodeId } from '../../core/types.ts';

export interface CommittedRecord {
  readonly term: number;
  /** The entry's term, kind and command as text: two applies at one index must agree on it. */
  readonly key: string;
  /** The state machine's hash after applying it. */
  readonly hash: number;
}

export class History {
  readonly leaderOfTerm = new Map<number, NodeId>();
  readonly committed = new Map<number, CommittedRecord>();
  maxCommitted = 0;
  /** The term of the leader first seen committing each index: leaders of later terms must hold the entry. */
  readonly commitTerm = new Map<number, number>();
  private observedCommit = 0;
  /** Leaders (`id:term`) whose election has been checked. */
  readonly electionsChecked = new Set<string>();
  /** Counts indexes recorded below the highest one (a gap filled): checks that go by "new indexes only" start over. */
  gapsFilled = 0;
  /** Per leader, the term and history it was last checked against, and the index checked through (leader-completeness.ts). */
  readonly completenessChecked = new Map<NodeId, { readonly term: number; readonly gapsFilled: number; readonly through: number }>();

  /** A leader's commit index says which indexes it committed, in its term. */
  observeLeaderCommit(commit: number, term: number): void {
    for (let index = this.observedCommit + 1; index <= commit; index++) if (!this.commitTerm.has(index)) this.commitTerm.set(index, term);
    this.observedCommit = Math.max(this.observedCommit, commit);
  }
}

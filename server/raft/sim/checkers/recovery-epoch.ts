// A forced single-voter recovery (node/forced-recovery.ts) is an epoch boundary. The cluster's history until then
// was decided by a majority that no longer exists; after it, by the survivor alone and the members that join it. What
// the old majority committed and the survivor does not hold is lost, by the nature of the recovery: it is reported
// (the seed's `writesLostToRecovery`), never a safety failure, and never silently. Everything the survivor holds is
// the new epoch's history, which every checker keeps checking: the new leaders must hold it, every member must apply
// the same entries, acknowledged proposals it kept must stay.
import type { NodeId } from '../../core/types.ts';
import type { RaftLogView } from '../../core/raft-log.ts';
import { History } from './history.ts';

/**
 * Which entry each index committed, as the running nodes knew it (history.ts records only what was applied): an entry
 * a leader committed and then lost with its disk before anyone applied it is still a committed write the recovery
 * may lose. Kept only in the recovery family (it costs a look at each new commit index).
 */
export class CommittedLedger {
  readonly keys = new Map<number, string>();
  private through = 0;

  /** A node's log and commit index, after a step. */
  observe(leader: { readonly log: RaftLogView }, keyOf: (index: number) => string | undefined): void {
    const { log } = leader;
    for (let index = Math.max(this.through + 1, log.snapshotIndex + 1); index <= log.committed; index++) {
      const key = keyOf(index);
      if (key !== undefined) this.keys.set(index, key);
    }
    this.through = Math.max(this.through, log.committed);
  }
}

/** What the survivor's disk holds when its recovery starts. */
export interface SurvivorHoldings {
  readonly node: NodeId;
  /** Its state (model or snapshot) covers every index up to here: the history's entries, checked as they came. */
  readonly covered: number;
  /** The last index its log (or snapshot) holds. */
  readonly last: number;
  /** The history key of its log's entry at an index in (covered, last]. */
  keyAt(index: number): string | undefined;
}

export interface EpochBoundary {
  /** The new epoch's history: everything committed that the survivor holds. */
  readonly history: History;
  /** Indexes whose committed entry the survivor lacks, ascending. */
  readonly lost: readonly number[];
}

/** Splits what the old epoch committed into what the survivor keeps (the new history) and what is lost. */
export function crossRecoveryBoundary(old: History, ledger: CommittedLedger | undefined, survivor: SurvivorHoldings): EpochBoundary {
  const committed = new Map<number, string>();
  for (const [index, record] of old.committed) committed.set(index, record.key);
  if (ledger) for (const [index, key] of ledger.keys) if (!committed.has(index)) committed.set(index, key);
  const lost: number[] = [];
  for (const [index, key] of committed) {
    if (index <= survivor.covered) continue;
    if (index > survivor.last || survivor.keyAt(index) !== key) lost.push(index);
  }
  lost.sort((a, b) => a - b);
  const gone = new Set(lost);
  const history = new History();
  for (const [index, record] of old.committed) {
    if (gone.has(index)) continue;
    history.committed.set(index, record);
    history.maxCommitted = Math.max(history.maxCommitted, index);
  }
  return { history, lost };
}

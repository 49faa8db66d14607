// State machine safety (§5.4.3): every node applies the same entry at each index, in index order, so the states
// after an index are equal everywhere; a snapshot installed at an index holds that same state.
import type { NodeId } from '../../core/types.ts';
import type { History } from './history.ts';
import { SafetyViolation } from './safety-violation.ts';

export interface AppliedEntry {
  readonly index: number;
  readonly term: number;
  /** Kind and command as text. */
  readonly key: string;
}

/** Records one apply on `node`, whose state was at `previousIndex` before it; throws on any disagreement. */
export function recordApply(history: History, node: NodeId, previousIndex: number, entry: AppliedEntry, hashAfter: number): void {
  if (entry.index !== previousIndex + 1) throw new SafetyViolation('state machine safety', `${node} applied ${entry.index} after ${previousIndex}`);
  const key = `${entry.term}:${entry.key}`;
  const known = history.committed.get(entry.index);
  if (!known) {
    if (entry.index < history.maxCommitted) history.gapsFilled++;
    history.committed.set(entry.index, { term: entry.term, key, hash: hashAfter });
    history.maxCommitted = Math.max(history.maxCommitted, entry.index);
    return;
  }
  if (known.key !== key) throw new SafetyViolation('state machine safety', `${node} applied ${key} at index ${entry.index}, another node applied ${known.key}`);
  if (known.hash !== hashAfter) throw new SafetyViolation('state machine safety', `${node}'s state after index ${entry.index} differs from another node's (a different history before it)`);
}

/** Records a snapshot installed on `node` (from the leader, or read back at a restart). */
export function recordSnapshotInstall(history: History, node: NodeId, index: number, hash: number): void {
  const known = history.committed.get(index);
  if (known && known.hash !== hash) throw new SafetyViolation('state machine safety', `${node} installed a snapshot at ${index} whose state differs from the committed history`);
}

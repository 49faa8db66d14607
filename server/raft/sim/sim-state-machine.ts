// The replicated state machine of one simulated process: a running hash of everything applied. As the model does, an
// apply changes the state at once and reaches the disk later in an unsynced batch the node does not wait for (so a
// crash can take back applies the node finished: the restart replays them from the log, or restores a snapshot when
// the log no longer holds them); a restore is written synced before it completes. Every apply and restore is checked
// against the cluster's history.
import type { Entry, NodeId } from '../core/types.ts';
import type { RaftStateMachine } from '../node/raft-node.ts';
import type { ApplyResult, CommittedEntry } from '../state-machine.ts';
import type { History } from './checkers/history.ts';
import { SafetyViolation } from './checkers/safety-violation.ts';
import { recordApply, recordSnapshotInstall } from './checkers/state-machine-safety.ts';
import type { ModelState, SimDisk } from './sim-disk.ts';
import type { SimIoQueue, WriteOutcome } from './sim-io.ts';

export interface SimStateMachineHooks {
  readonly history: History;
  readonly report: (violation: SafetyViolation) => void;
  readonly onSnapshotInstalled: (node: NodeId, index: number) => void;
}

export class SimStateMachine implements RaftStateMachine {
  /** What reads see: the state after the last completed batch. */
  state: ModelState;

  constructor(
    private readonly disk: SimDisk,
    private readonly io: SimIoQueue,
    private readonly outcome: () => WriteOutcome,
    private readonly hooks: SimStateMachineHooks,
  ) {
    this.state = disk.model;
    // The node restores from a snapshot only when one is newer; what the disk holds was checked when it landed.
  }

  appliedIndex(): number {
    return this.state.index;
  }

  async apply(entries: readonly CommittedEntry[]): Promise<ApplyResult[]> {
    for (const entry of entries) {
      const key = entryKey(entry);
      const next = { index: entry.index, hash: mixHash(this.state.hash, `${entry.index}:${entry.term}:${key}`) };
      this.checked(() => recordApply(this.hooks.history, this.disk.node, this.state.index, { index: entry.index, term: entry.term, key }, next.hash));
      this.state = next;
    }
    // The batch that makes it durable, not waited for; batches land in order, so the disk never goes back.
    const written = this.state;
    this.io.issue(this.outcome(), () => (this.disk.model = written)).catch(() => undefined);
    return entries.map(() => ({ ok: true }));
  }

  snapshot(): unknown {
    return { ...this.state };
  }

  restore(data: unknown, index: number): Promise<void> {
    const state = data as ModelState;
    return this.io.issue(this.outcome(), () => {
      this.checked(() => recordSnapshotInstall(this.hooks.history, this.disk.node, state.index, state.hash));
      if (state.index !== index) this.hooks.report(new SafetyViolation('state machine safety', `${this.disk.node} was given a snapshot of index ${state.index} as index ${index}`));
      // A client that read the newer state must never see an older one from the same process.
      if (state.index < this.state.index) this.hooks.report(new SafetyViolation('state machine safety', `${this.disk.node} went back from index ${this.state.index} to a snapshot at ${state.index}`));
      this.state = { index: state.index, hash: state.hash };
      this.disk.model = this.state;
      this.hooks.onSnapshotInstalled(this.disk.node, index);
    });
  }

  private checked(check: () => void): void {
    try {
      check();
    } catch (error) {
      if (error instanceof SafetyViolation) this.hooks.report(error);
      else throw error;
    }
  }
}

/** An applied entry's kind and command as text; a client's proposal reads `normal:{"client":N}`. */
function entryKey(entry: CommittedEntry): string {
  const { type } = entry.command;
  if (type === 'raft.config') return 'config';
  if (type === 'raft.noop') return 'noop';
  return `normal:${JSON.stringify(entry.command)}`;
}

/** How a log entry reads in the history once applied (`term:kind...`, as recordApply keys it). */
export function historyKey(entry: Entry): string {
  const kind = entry.type === 'config' ? 'config' : entry.type === 'noop' ? 'noop' : `normal:${JSON.stringify(entry.data)}`;
  return `${entry.term}:${kind}`;
}

/** FNV-1a over the previous hash and the text: equal hashes at an index mean equal histories. */
export function mixHash(hash: number, text: string): number {
  let h = hash ^ 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

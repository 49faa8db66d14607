// The safety properties checked after every simulator step. A violation throws with enough detail to debug from
// the seed's trace.
import type { Entry, NodeId } from '../core/types.ts';
import type { SimNode } from './sim-node.ts';

export class SafetyViolation extends Error {
  constructor(
    readonly property: string,
    detail: string,
  ) {
    super(`${property}: ${detail}`);
    this.name = 'SafetyViolation';
  }
}

/** What the whole cluster has learnt so far: leaders per term, and what was committed (applied) at each index. */
export class History {
  readonly leaderOfTerm = new Map<number, NodeId>();
  readonly committed = new Map<number, { term: number; key: string; hash: number }>();
  maxCommitted = 0;
  /** The term of the leader first seen committing each index: leaders of later terms must hold the entry. */
  readonly commitTerm = new Map<number, number>();
  private observedCommit = 0;

  /** Called after every step: a leader's commit index says which indexes it committed, in its term. */
  observeLeaderCommit(commit: number, term: number): void {
    for (let index = this.observedCommit + 1; index <= commit; index++) if (!this.commitTerm.has(index)) this.commitTerm.set(index, term);
    this.observedCommit = Math.max(this.observedCommit, commit);
  }

  recordApply(node: NodeId, entry: Entry, hashAfter: number): void {
    const key = `${entry.term}:${entry.type}:${JSON.stringify(entry.data)}`;
    const known = this.committed.get(entry.index);
    if (!known) {
      this.committed.set(entry.index, { term: entry.term, key, hash: hashAfter });
      this.maxCommitted = Math.max(this.maxCommitted, entry.index);
      return;
    }
    if (known.key !== key) {
      throw new SafetyViolation('state machine safety', `${node} applied ${key} at index ${entry.index}, another node applied ${known.key}`);
    }
    if (known.hash !== hashAfter) {
      throw new SafetyViolation('state machine safety', `${node}'s state after index ${entry.index} differs from another node's (a different history before it)`);
    }
  }

  recordSnapshotInstall(node: NodeId, index: number, hash: number): void {
    const known = this.committed.get(index);
    if (known && known.hash !== hash) throw new SafetyViolation('state machine safety', `${node} installed a snapshot at ${index} whose state differs from the committed history`);
  }
}

export function checkElectionSafety(nodes: readonly SimNode[], history: History): void {
  for (const node of nodes) {
    const status = node.core?.status();
    if (!status || status.role !== 'leader') continue;
    const known = history.leaderOfTerm.get(status.term);
    if (known === undefined) history.leaderOfTerm.set(status.term, node.id);
    else if (known !== node.id) throw new SafetyViolation('election safety', `${known} and ${node.id} were both leader in term ${status.term}`);
  }
}

export function checkLogMatching(nodes: readonly SimNode[]): void {
  const live = nodes.filter((node) => node.core);
  for (let a = 0; a < live.length; a++) {
    for (let b = a + 1; b < live.length; b++) {
      const left = live[a]!.core!.log;
      const right = live[b]!.core!.log;
      const low = Math.max(left.snapshotIndex, right.snapshotIndex) + 1;
      const high = Math.min(left.lastIndex(), right.lastIndex());
      let matched = false;
      for (let index = high; index >= low; index--) {
        const same = left.term(index) === right.term(index);
        if (matched && !same) {
          throw new SafetyViolation('log matching', `${live[a]!.id} and ${live[b]!.id} agree at a later index but differ at ${index}`);
        }
        if (same) {
          matched = true;
          const x = left.entry(index)!;
          const y = right.entry(index)!;
          if (x.type !== y.type || JSON.stringify(x.data) !== JSON.stringify(y.data)) {
            throw new SafetyViolation('log matching', `${live[a]!.id} and ${live[b]!.id} hold different entries with term ${x.term} at ${index}`);
          }
        }
      }
    }
  }
}

/**
 * Leader completeness (§5.4): an entry committed in term T is in the log of every leader of a term after T. A
 * stale leader of an older term may lack it; that is not a violation.
 */
export function checkLeaderCompleteness(nodes: readonly SimNode[], history: History): void {
  for (const node of nodes) {
    const core = node.core;
    const status = core?.status();
    if (!core || !status || status.role !== 'leader') continue;
    history.observeLeaderCommit(status.commit, status.term);
  }
  for (const node of nodes) {
    const core = node.core;
    const status = core?.status();
    if (!core || !status || status.role !== 'leader') continue;
    const log = core.log;
    for (let index = log.snapshotIndex + 1; index <= history.maxCommitted; index++) {
      const committed = history.committed.get(index);
      const commitTerm = history.commitTerm.get(index) ?? committed?.term;
      if (!committed || commitTerm === undefined || commitTerm >= status.term) continue;
      if (log.term(index) !== committed.term) {
        throw new SafetyViolation('leader completeness', `leader ${node.id} (term ${status.term}) has ${log.term(index) === undefined ? 'no entry' : `term ${log.term(index)}`} at index ${index}, committed with term ${committed.term} in term ${commitTerm}`);
      }
    }
  }
}

/** A node's durable term never goes back, and it never changes its vote within a term. */
export function checkDurableState(node: SimNode): void {
  const hard = node.durable.hardState;
  if (!hard) return;
  if (hard.term < node.persistedTerm) throw new SafetyViolation('durable state', `${node.id}'s term went back from ${node.persistedTerm} to ${hard.term}`);
  if (hard.term === node.persistedTerm && node.persistedVote !== null && hard.vote !== node.persistedVote) {
    throw new SafetyViolation('durable state', `${node.id} voted for ${node.persistedVote} and then ${hard.vote} in term ${hard.term}`);
  }
  node.persistedTerm = hard.term;
  node.persistedVote = hard.vote;
}

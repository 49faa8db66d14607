// The planted bugs: each is one small edit to a copy of the raft code (never to the code itself), a mistake the raft
// paper or thesis warns about. `./edgeward raft mutants` applies them one at a time and runs the simulator on each
// copy until a seed fails; a mutant no seed catches is a hole in the simulator or its checkers.

export interface Mutant {
  readonly name: string;
  /** The rule it breaks, and where the raft paper or thesis states it. */
  readonly breaks: string;
  /** File under server/raft. */
  readonly file: string;
  /** Text that must occur exactly once in the file, and what replaces it. */
  readonly find: string;
  readonly replace: string;
}

export const mutants: readonly Mutant[] = [
  {
    name: 'commit-earlier-term-by-counting',
    breaks: 'a leader commits only entries of its own term by counting replicas (§5.4.2, figure 8)',
    file: 'core/raft-core.ts',
    find: 'if (quorumIndex > this.log.committed && this.log.term(quorumIndex) === this.term)',
    replace: 'if (quorumIndex > this.log.committed)',
  },
  {
    name: 'leader-counts-unsynced-copy',
    breaks: "a leader counts its own copy toward a quorum only once it is durable (thesis §10.2.1)",
    file: 'core/raft-core.ts',
    find: 'id === this.id ? this.log.stableIndex :',
    replace: 'id === this.id ? this.log.lastIndex() :',
  },
  {
    name: 'vote-sent-before-persisted',
    breaks: 'a vote is durable before it is granted (§5.2, figure 2: persistent state is updated before responding)',
    file: 'core/write-ordering.ts',
    find: "    default:\n      return false;",
    replace: "    case 'VoteResp':\n      return true;\n    default:\n      return false;",
  },
  {
    name: 'conflicting-suffix-kept',
    breaks: 'a follower deletes an existing entry that conflicts with a new one, and all that follow it (§5.3, AppendEntries step 3)',
    file: 'core/raft-log.ts',
    find: 'if (existing === undefined || existing !== entry.term) break;',
    replace: 'if (existing === undefined) break;',
  },
  {
    name: 'apply-past-commit',
    breaks: 'only committed entries are applied (§5.3: lastApplied never passes commitIndex)',
    file: 'core/raft-log.ts',
    find: 'return Math.min(this.committed, this.stableIndex);',
    replace: 'return this.stableIndex;',
  },
  {
    name: 'stale-term-vote-counted',
    breaks: 'a reply from an earlier term is ignored (§5.1: a stale term is rejected; figure 2)',
    file: 'core/raft-core.ts',
    find: '} else if (m.term < this.term) {',
    replace: "} else if (m.term < this.term && m.type !== 'VoteResp') {",
  },
  {
    name: 'two-membership-changes-at-once',
    breaks: 'one membership change at a time: the next waits until the last is committed (thesis §4.1)',
    file: 'core/raft-core.ts',
    find: "if (this.pendingConfIndex > this.log.applied) throw new ProposalRefused('config-change-pending', this.leader);",
    replace: '',
  },
  {
    name: 'stale-snapshot-installed',
    breaks: 'a snapshot no newer than what is committed is not installed over the log (§7, InstallSnapshot step 6; thesis §5.1)',
    file: 'core/raft-core.ts',
    find: 'if (meta.index <= this.log.committed) {',
    replace: 'if (meta.index < 0) {',
  },
  {
    name: 'heartbeat-commit-past-match',
    breaks: 'a follower is told to commit only what it is known to hold (§5.3: commitIndex = min(leaderCommit, index of last new entry))',
    file: 'core/raft-core.ts',
    find: 'commit: Math.min(pr.match, this.log.committed),',
    replace: 'commit: this.log.committed,',
  },
  {
    name: 'quorum-one-short',
    breaks: 'an entry is committed once a majority of voters hold it (§5.3)',
    file: 'core/raft-core.ts',
    find: 'const quorumIndex = matches[Math.floor(voters.length / 2)]!;',
    replace: 'const quorumIndex = matches[Math.max(0, Math.floor(voters.length / 2) - 1)]!;',
  },
  {
    name: 'vote-without-log-check',
    breaks: "a vote goes only to a candidate whose log is at least as up to date (§5.4.1)",
    file: 'core/raft-core.ts',
    find: 'if (canVote && this.log.isUpToDate(m.lastIndex, m.lastTerm)) {',
    replace: 'if (canVote) {',
  },
  {
    name: 'read-wait-one-short',
    breaks: 'a read that waits for index i is served only once i is applied (read-your-writes through any node)',
    file: 'node/raft-node.ts',
    find: 'if (waiter.index <= applied) waiter.resolve();',
    replace: 'if (waiter.index <= applied + 1) waiter.resolve();',
  },
];

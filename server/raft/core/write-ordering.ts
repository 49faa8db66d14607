// Which of a Ready's messages may leave before the node has written that Ready (§10.2.1 of the raft thesis: a
// leader replicates to its followers while it writes the same entries itself). A leader's appends, heartbeats,
// snapshots and TimeoutNow carry entries and a commit index, not a promise about the sender's log, and the term
// they carry is already durable (a leader wrote it when it voted for itself). Answers and votes vouch for the
// sender's log or vote and wait for the write. The core counts a leader's own copy toward commit only once it is
// written (RaftCore.maybeCommit), so an entry sent ahead is never committed on the strength of a copy a crash of
// the leader could still lose. The node and the simulator both split by this rule.
import type { Message } from './types.ts';

export function mayPrecedeWrite(message: Message, persistedTerm: number): boolean {
  switch (message.type) {
    case 'Append':
      // A membership change waits for the leader's own copy. Sent ahead, a crash of the leader could leave it only on
      // a follower that it makes a non-voter: that follower may not stand for election and refuses the leader's
      // shorter log, and the two-voter configuration the leader restarts with needs its vote (found by the simulator).
      return message.term === persistedTerm && !message.entries.some((entry) => entry.type === 'config');
    case 'Heartbeat':
    case 'Snapshot':
    case 'TimeoutNow':
      return message.term === persistedTerm;
    default:
      return false;
  }
}

/** The messages that may leave at once, and those that wait for the write, each in their original order. */
export function splitByWrite(messages: readonly Message[], persistedTerm: number): { early: Message[]; late: Message[] } {
  const early: Message[] = [];
  const late: Message[] = [];
  for (const message of messages) (mayPrecedeWrite(message, persistedTerm) ? early : late).push(message);
  return { early, late };
}

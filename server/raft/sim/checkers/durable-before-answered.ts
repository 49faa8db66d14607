// Persistent state is on stable storage before a node answers (§5.1, figure 2: "updated on stable storage before
// responding to RPCs"). Checked on every message as it leaves: a granted vote must be the vote the sender's disk
// holds for that term (or the disk must hold a later term: a node that handled requests of two terms in one round
// writes only the later, and can never vote in the earlier one again), and an append acknowledged up to index i must
// be on the sender's disk through i, with the terms the sender's log has. A crash right after the answer would
// otherwise take back what it promised.
import type { Message } from '../../core/types.ts';
import type { RaftLogView } from '../../core/raft-log.ts';
import type { DurableView } from './durable-view.ts';
import { SafetyViolation } from './safety-violation.ts';

export function checkAnswerIsDurable(message: Message, disk: DurableView, log: RaftLogView): SafetyViolation | undefined {
  if (message.type === 'VoteResp' && !message.reject) {
    const hard = disk.hardState;
    if (!hard || hard.term < message.term || (hard.term === message.term && hard.vote !== message.to)) {
      return new SafetyViolation('durable before answered', `${message.from} granted its term ${message.term} vote to ${message.to} while its disk holds ${hard ? `term ${hard.term}, vote ${hard.vote}` : 'no vote'}`);
    }
  }
  if (message.type === 'AppendResp' && !message.reject && message.index > 0) {
    const term = log.term(message.index);
    const durable = disk.termAt(message.index);
    if (term !== undefined && durable !== 'covered' && durable !== term) {
      return new SafetyViolation('durable before answered', `${message.from} acknowledged entries through ${message.index} (term ${term}) while its disk holds ${durable === undefined ? 'no entry' : `term ${durable}`} there`);
    }
  }
  return undefined;
}

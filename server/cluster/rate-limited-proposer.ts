// The leader's proposals through the adaptive rate limiter: a Proposer decorator. Wrap the proposer the leader
// proposes with (the raft node), so that local writes and writes forwarded by followers share one window.
// A raft commit timeout is a backoff; other refusals (not leader, closed…) free the slot without adjusting it.
// A full limiter rejects with RateLimitedError, which the API answers with HTTP 429.
import { ProposalRefusedError, type LogCommand, type Proposal, type Proposer } from '../raft/state-machine.ts';
import type { AdaptiveRateLimiter } from './rate-limiter.ts';

export { RateLimitedError } from './rate-limiter.ts';

/** A proposal that was not committed in time: the cluster is slow, so the limiter backs off. */
export function isCommitTimeout(error: unknown): boolean {
  return error instanceof ProposalRefusedError && error.reason === 'timeout';
}

export class RateLimitedProposer implements Proposer {
  constructor(
    private readonly inner: Proposer,
    private readonly limiter: AdaptiveRateLimiter,
  ) {}

  propose(command: LogCommand): Promise<Proposal> {
    return this.limiter.run(() => this.inner.propose(command), { isTimeout: isCommitTimeout });
  }

  appliedIndex(): number {
    return this.inner.appliedIndex();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

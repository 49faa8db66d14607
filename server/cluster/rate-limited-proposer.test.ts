// The rate-limited proposer over a proposer whose proposals the test settles.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { ProposalRefusedError, type LogCommand, type Proposal, type Proposer } from '../raft/state-machine.ts';
import { isCommitTimeout, RateLimitedError, RateLimitedProposer } from './rate-limited-proposer.ts';
import { AdaptiveRateLimiter } from './rate-limiter.ts';

/** Answers each proposal with what the test queued for it; a proposal with no answer queued stays pending. */
class ScriptedProposer implements Proposer {
  readonly proposed: LogCommand[] = [];
  readonly answers: (() => Promise<Proposal>)[] = [];
  closed = false;
  private readonly pending: ((proposal: Proposal) => void)[] = [];

  propose(command: LogCommand): Promise<Proposal> {
    this.proposed.push(command);
    const answer = this.answers.shift();
    if (answer) return answer();
    return new Promise((resolve) => this.pending.push(resolve));
  }

  releaseAll(): void {
    for (const resolve of this.pending.splice(0)) resolve({ index: 1, result: { ok: true } });
  }

  appliedIndex(): number {
    return 42;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

function setup(options: { maxSize?: number; minSize?: number } = {}): { inner: ScriptedProposer; limiter: AdaptiveRateLimiter; proposer: RateLimitedProposer } {
  const inner = new ScriptedProposer();
  const limiter = new AdaptiveRateLimiter({ clock: new ManualClock(), ...options });
  return { inner, limiter, proposer: new RateLimitedProposer(inner, limiter) };
}

test('passes proposals through and returns their result', async () => {
  const { inner, proposer, limiter } = setup();
  inner.answers.push(async () => ({ index: 7, result: { ok: true, value: 'x' } }));
  assert.deepEqual(await proposer.propose({ type: 'set' }), { index: 7, result: { ok: true, value: 'x' } });
  assert.deepEqual(inner.proposed, [{ type: 'set' }]);
  assert.equal(limiter.queueSize(), 0);
});

test('refuses a proposal with RateLimitedError, without proposing it, when the window is full', async () => {
  const { inner, proposer, limiter } = setup({ maxSize: 5 });
  const admitted = Array.from({ length: 5 }, (_, index) => proposer.propose({ type: `c${index}` }));
  await assert.rejects(proposer.propose({ type: 'one-too-many' }), (error: unknown) => error instanceof RateLimitedError && !(error instanceof ProposalRefusedError));
  assert.equal(inner.proposed.length, 5);
  assert.equal(limiter.queueSize(), 5);
  inner.releaseAll();
  await Promise.all(admitted);
  assert.equal(limiter.queueSize(), 0);
});

test('commit timeouts shrink the window and reach the caller unchanged', async () => {
  const { inner, proposer, limiter } = setup();
  const timeout = new ProposalRefusedError('timeout', 'raft: index 3 was not committed within 5000 ms');
  for (let i = 0; i < 10; i += 1) {
    inner.answers.push(() => Promise.reject(timeout));
    await assert.rejects(proposer.propose({ type: 'set' }), (error) => error === timeout);
  }
  assert.equal(limiter.windowSize(), 225);
});

test('other refusals (not leader, no leader, closed) free the slot without moving the window', async () => {
  const { inner, proposer, limiter } = setup({ maxSize: 20 });
  const timeout = new ProposalRefusedError('timeout', 'late');
  for (let i = 0; i < 10; i += 1) {
    inner.answers.push(() => Promise.reject(timeout));
    await assert.rejects(proposer.propose({ type: 'set' }));
  }
  assert.equal(limiter.windowSize(), 18);
  for (const reason of ['not-leader', 'no-leader', 'closed', 'not-leader', 'storage'] as const) {
    for (let i = 0; i < 10; i += 1) {
      const refusal = new ProposalRefusedError(reason, reason);
      inner.answers.push(() => Promise.reject(refusal));
      await assert.rejects(proposer.propose({ type: 'set' }), (error) => error === refusal);
    }
  }
  assert.equal(limiter.windowSize(), 18);
  assert.equal(limiter.queueSize(), 0);
});

test('isCommitTimeout recognises only the raft timeout refusal', () => {
  assert.equal(isCommitTimeout(new ProposalRefusedError('timeout', 'late')), true);
  assert.equal(isCommitTimeout(new ProposalRefusedError('no-leader', 'none')), false);
  assert.equal(isCommitTimeout(new Error('timeout')), false);
});

test('appliedIndex and close are the inner proposer\'s', async () => {
  const { inner, proposer } = setup();
  assert.equal(proposer.appliedIndex(), 42);
  await proposer.close();
  assert.equal(inner.closed, true);
});

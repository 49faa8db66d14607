// Writes from any controller: the leader proposes them itself; a follower forwards them to the leader over its
// peer channel and answers its client once it has applied the entry locally (so a client reads its own write on
// the controller it wrote to). With no leader, the write fails as ClusterHasNoLeaderError. With tracing on, the
// forward is a client span whose W3C trace context travels in the forwarded proposal, and the leader continues it.
import type { ClusterRaft } from '../raft/node/raft-node.ts';
import { encodeCommand } from '../raft/core/command-encoding.ts';
import { ProposalRefusedError, type CommandProblem, type LogCommand, type Proposal, type Proposer, type RefusalReason } from '../raft/state-machine.ts';
import type { PeerChannels } from '../raft/transport/peer-network.ts';
import { RateLimitedError } from './rate-limiter.ts';

export interface ForwardedProposal {
  readonly type: 'propose';
  readonly command: LogCommand;
  /** The follower's forward span (W3C trace context), when it traces; a leader that does not ignores it. */
  readonly trace?: { readonly traceparent: string; readonly tracestate?: string };
}

/** The spans of a forwarded write (telemetry/controller-tracing.ts); given only when tracing is on. */
export interface ForwardTracing {
  forward<T>(leader: string, send: (carrier: { traceparent: string; tracestate?: string }) => Promise<T>): Promise<T>;
  serveForwarded<T>(carrier: unknown, from: string, work: () => Promise<T>): Promise<T>;
  followerApply<T>(index: number, work: () => Promise<T>): Promise<T>;
}

export interface ForwardedResult {
  readonly index?: number;
  readonly result?: Proposal['result'];
  readonly refused?: RefusalReason;
  /** For `invalid-command`: where and why, for the client. */
  readonly problem?: CommandProblem;
  readonly rateLimited?: boolean;
  readonly message?: string;
}

export class ClusterProposer implements Proposer {
  constructor(
    private readonly node: ClusterRaft,
    /** How the leader proposes: the raft node behind the adaptive rate limiter. */
    private readonly leaderProposer: Proposer,
    private readonly peers: PeerChannels,
    private readonly commitTimeoutMs: number,
    /** True while members disagree on the version: every write is refused. */
    private readonly isReadOnly: () => boolean = () => false,
    private readonly tracing?: ForwardTracing,
  ) {}

  private refuseWhenReadOnly(): void {
    if (this.isReadOnly()) throw new ProposalRefusedError('read-only', 'unable to execute command. In a readonly state: different versions detected in cluster');
  }

  appliedIndex(): number {
    return this.node.appliedIndex();
  }

  async propose(command: LogCommand): Promise<Proposal> {
    // A node stopped after a failure answers nothing from its frozen state, not even by forwarding.
    const failed = this.node.failed;
    if (failed) throw new ProposalRefusedError('storage', `raft storage failed: ${failed.message}`);
    this.refuseWhenReadOnly();
    if (this.node.isLeader()) return this.leaderProposer.propose(command);
    const leader = this.node.leader();
    if (!leader) throw new ProposalRefusedError('no-leader', 'ClusterHasNoLeaderError: the cluster has no leader');
    // The leader refuses a command that cannot enter its log; one that cannot even be encoded here, or that the
    // leader's frame decoder would refuse (closing the channel raft uses), is refused the same way before it leaves.
    // Encoded once more by the channel: the forwarded path's cost, not the leader's.
    const encoded = encodeCommand(command);
    if (!encoded.ok) throw new ProposalRefusedError('invalid-command', `the command cannot be forwarded: ${encoded.problem.field}: ${encoded.problem.reason}`, leader, encoded.problem);
    const timeoutMs = this.commitTimeoutMs + 2000;
    const tracing = this.tracing;
    let answer: ForwardedResult;
    try {
      answer = (
        tracing === undefined
          ? await this.peers.request(leader, { type: 'propose', command } satisfies ForwardedProposal, timeoutMs)
          : await tracing.forward(leader, (trace) => this.peers.request(leader, { type: 'propose', command, trace } satisfies ForwardedProposal, timeoutMs))
      ) as ForwardedResult;
    } catch (error) {
      throw new ProposalRefusedError('no-leader', `ClusterHasNoLeaderError: could not reach the leader ${leader}: ${(error as Error).message}`);
    }
    if (answer.rateLimited) throw new RateLimitedError(0, 0, 0);
    if (answer.refused === 'storage' || answer.refused === 'closed') {
      // The leader is failing or stopping, not this controller: the cluster elects another; retry shortly.
      throw new ProposalRefusedError('no-leader', `ClusterHasNoLeaderError: the leader ${leader} cannot take writes: ${answer.message ?? answer.refused}`, leader);
    }
    if (answer.refused) throw new ProposalRefusedError(answer.refused, answer.message ?? `the leader refused the command (${answer.refused})`, leader, answer.refused === 'invalid-command' ? answer.problem : undefined);
    if (answer.index === undefined || answer.result === undefined) throw new ProposalRefusedError('dropped', 'the leader gave no result');
    const index = answer.index;
    try {
      if (tracing === undefined) await this.node.waitForApplied(index, this.commitTimeoutMs);
      else await tracing.followerApply(index, () => this.node.waitForApplied(index, this.commitTimeoutMs));
    } catch (error) {
      if (error instanceof ProposalRefusedError) throw error;
      throw new ProposalRefusedError('timeout', `the leader committed index ${answer.index} but this controller did not apply it in time: ${(error as Error).message}`);
    }
    return { index: answer.index, result: answer.result };
  }

  /** The leader's side of a forwarded write, from the follower `from`. */
  serveForwarded(request: ForwardedProposal, from: string): Promise<ForwardedResult> {
    const tracing = this.tracing;
    return tracing === undefined ? this.proposeForwarded(request) : tracing.serveForwarded(request.trace, from, () => this.proposeForwarded(request));
  }

  private async proposeForwarded(request: ForwardedProposal): Promise<ForwardedResult> {
    try {
      this.refuseWhenReadOnly();
      const proposal = await this.leaderProposer.propose(request.command);
      return { index: proposal.index, result: proposal.result };
    } catch (error) {
      if (error instanceof ProposalRefusedError) return { refused: error.reason, message: error.message, ...(error.problem ? { problem: error.problem } : {}) };
      if (error instanceof RateLimitedError) return { rateLimited: true, message: error.message };
      throw error;
    }
  }

  async close(): Promise<void> {
    // The node and the network are closed by their owner.
  }
}

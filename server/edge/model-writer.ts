// Turns a model command into a proposal and its outcome into what the API layer needs: the applied value and raft
// index, or the EdgeError the refusal maps to. The only path by which the edge services change state.
import type { ModelCommand } from '../model/commands.ts';
import { ProposalRefusedError, type Proposer } from '../raft/state-machine.ts';
import { RateLimitedError } from '../cluster/rate-limiter.ts';
import { EdgeError, isEdgeErrorCode, type EdgeErrorCause } from './edge-error.ts';

export interface Written<T> {
  readonly index: number;
  readonly value: T;
}

export class ModelWriter {
  constructor(private readonly proposer: Proposer) {}

  async write<T = unknown>(command: ModelCommand): Promise<Written<T>> {
    let proposal;
    try {
      proposal = await this.proposer.propose(command);
    } catch (error) {
      if (error instanceof RateLimitedError) throw new EdgeError('SERVER_TOO_MANY_REQUESTS', undefined, error);
      if (error instanceof ProposalRefusedError) {
        switch (error.reason) {
          case 'no-leader':
          case 'not-leader':
          case 'transfer':
          case 'dropped':
            // Leadership is absent or changing: the client may retry shortly.
            throw new EdgeError('CLUSTER_NO_LEADER', undefined, error);
          case 'read-only':
            throw new EdgeError('CLUSTER_READ_ONLY', undefined, error);
          case 'timeout':
            throw new EdgeError('TIMEOUT', undefined, error);
          case 'invalid-command':
            // The command cannot enter the log (it cannot be encoded, or is past what the log carries): bad input.
            throw new EdgeError('INVALID_FIELD', error.problem ?? { field: '(root)', reason: 'the request cannot be stored' }, error);
          case 'storage':
          case 'closed':
            // This controller's raft node stopped after a failure, or the controller is shutting down.
            throw new EdgeError('CONTROLLER_UNAVAILABLE', undefined, error);
          default:
            throw new EdgeError('UNHANDLED', undefined, error);
        }
      }
      throw error;
    }
    const { result } = proposal;
    if (result.ok) return { index: proposal.index, value: result.value as T };
    // The refusal comes back through the raft log as plain data: a code this version does not know is UNHANDLED.
    const code = isEdgeErrorCode(result.error.code) ? result.error.code : 'UNHANDLED';
    throw new EdgeError(code, result.error.cause as EdgeErrorCause | undefined);
  }
}

// How the raft node reports the life of a traced proposal (telemetry/controller-tracing.ts implements it): the
// node knows when an entry entered the log, committed and was applied; the tracer knows which proposals are traced
// and what they belong to. Unset, the node does nothing extra per proposal.
import type { LogCommand } from '../state-machine.ts';

export interface ProposalTracer {
  /** The command was appended to this leader's log at `index`; a handle when the proposal is traced. */
  appended(command: LogCommand, index: number): ProposalTrace | undefined;
}

export interface ProposalTrace {
  /** The entry is committed and about to be applied. */
  committed(): void;
  /** The entry is applied here and the proposal answered. */
  applied(): void;
  /** The proposal was refused before it was applied (timeout, dropped, closed, storage). */
  refused(reason: string): void;
}

// The seam between consensus and the model: the proposer orders commands into a log, the state machine applies
// committed entries in log order. A single controller is a one-voter cluster behind the same interfaces.

/** A command is plain JSON: it is written to the log and replayed on every controller. */
export interface LogCommand {
  readonly type: string;
}

export interface CommittedEntry {
  readonly index: number;
  readonly term: number;
  readonly command: LogCommand;
}

/** A refused command names an API error code; apply results travel back to the proposer, so they are JSON too. */
export interface ApplyFailure {
  readonly code: string;
  readonly cause?: { field: string; reason: string; value?: unknown } | { code: string; message: string };
}

export type ApplyResult = { readonly ok: true; readonly value?: unknown } | { readonly ok: false; readonly error: ApplyFailure };

export interface StateMachine {
  /** The index of the last entry whose effects are durable in the state store. */
  appliedIndex(): number;
  /** Applies entries in order; each entry is all-or-nothing, the batch is durable with its last index on return. */
  apply(entries: readonly CommittedEntry[]): Promise<ApplyResult[]>;
}

export interface Proposal {
  readonly index: number;
  readonly result: ApplyResult;
}

export interface Proposer {
  /** Orders the command into the log, waits until it is applied locally, and returns its index and result. */
  propose(command: LogCommand): Promise<Proposal>;
  /** The index of the last entry applied on this node. */
  appliedIndex(): number;
  close(): Promise<void>;
}

/** `storage`: this node stopped after a storage or internal failure; `invalid-command`: the command cannot enter the
 * log (it cannot be encoded, or is past what the log and peer frames carry), and nothing was proposed. */
export type RefusalReason = 'no-leader' | 'not-leader' | 'read-only' | 'closed' | 'storage' | 'transfer' | 'dropped' | 'timeout' | 'invalid-command';

/** Where and why a command was refused as `invalid-command`; safe to show the client. */
export interface CommandProblem {
  readonly field: string;
  readonly reason: string;
}

/** Raised when a proposal cannot be ordered or did not commit (no leader, read-only cluster, storage failure…). */
export class ProposalRefusedError extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
    /** The leader, when one is known (a follower can forward to it). */
    readonly leader: string | null = null,
    /** For `invalid-command`. */
    readonly problem?: CommandProblem,
  ) {
    super(message);
    this.name = reason === 'no-leader' ? 'ClusterHasNoLeaderError' : 'ProposalRefusedError';
  }
}

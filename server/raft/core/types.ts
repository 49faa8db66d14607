// The vocabulary of the raft core: entries, configurations, persistent state, messages and the Ready batch the
// driver acts on. Everything is plain JSON so it can be written to disk and sent over the wire unchanged.

export type NodeId = string;

export type EntryType = 'normal' | 'config' | 'noop';

export interface Entry {
  readonly index: number;
  readonly term: number;
  readonly type: EntryType;
  /** normal: the command; config: a ConfigChange; noop: null (a new leader's first entry). */
  readonly data: unknown;
}

/** Voters count toward elections and commit; non-voters only receive the log. */
export interface Configuration {
  readonly voters: readonly NodeId[];
  readonly nonVoters: readonly NodeId[];
  /** Where each member can be reached (`tls:<host>:<port>`), when known. */
  readonly addresses?: Readonly<Record<NodeId, string>>;
}

/** One server at a time: add (as voter or non-voter, or change an existing member's suffrage) or remove. */
export type ConfigChange =
  | { readonly kind: 'add'; readonly id: NodeId; readonly voter: boolean; readonly address?: string }
  | { readonly kind: 'remove'; readonly id: NodeId };

export interface HardState {
  readonly term: number;
  readonly vote: NodeId | null;
  readonly commit: number;
}

export interface SnapshotMeta {
  readonly index: number;
  readonly term: number;
  readonly configuration: Configuration;
}

export interface Snapshot {
  readonly meta: SnapshotMeta;
  /** The state machine's serialised state, opaque to raft. */
  readonly data: unknown;
}

interface MessageBase {
  readonly from: NodeId;
  readonly to: NodeId;
  readonly term: number;
}

export type Message =
  | (MessageBase & { readonly type: 'PreVote' | 'Vote'; readonly lastIndex: number; readonly lastTerm: number; readonly transfer?: boolean })
  | (MessageBase & { readonly type: 'PreVoteResp' | 'VoteResp'; readonly reject: boolean })
  | (MessageBase & { readonly type: 'Append'; readonly prevIndex: number; readonly prevTerm: number; readonly entries: readonly Entry[]; readonly commit: number })
  /** lost: the answer to a heartbeat whose commit index (never above what this follower acknowledged) lies beyond
   * its log: it lost entries it had acknowledged (a wiped disk), and its log ends at rejectHint. */
  | (MessageBase & { readonly type: 'AppendResp'; readonly reject: boolean; readonly index: number; readonly rejectHint: number; readonly hintTerm: number; readonly lost?: boolean })
  /** refill: the leader found this follower lost entries it acknowledged and will send them again up to this index
   * (its commit index then); until its log gets there the follower grants no vote. */
  | (MessageBase & { readonly type: 'Heartbeat'; readonly commit: number; readonly refill?: number })
  | (MessageBase & { readonly type: 'HeartbeatResp' })
  | (MessageBase & { readonly type: 'Snapshot'; readonly snapshot: Snapshot })
  | (MessageBase & { readonly type: 'TimeoutNow' });

export type MessageType = Message['type'];

export type Role = 'follower' | 'precandidate' | 'candidate' | 'leader';

export interface SoftState {
  readonly role: Role;
  readonly leader: NodeId | null;
  readonly term: number;
}

/**
 * What the driver must do: persist `hardState`, `snapshot` and `entries` (entries[0].index replaces any stored entry
 * at or after it), send `messages`, apply `committedEntries`, then call advance(). Messages that vouch for the write
 * (answers, votes) leave only after it; a leader's appends may leave before it (see write-ordering.ts).
 * `committedEntries` are already durable here, so they may be applied while the write runs; a Ready holding a
 * `snapshot` is written before anything else.
 */
export interface Ready {
  readonly softState?: SoftState;
  readonly hardState?: HardState;
  readonly snapshot?: Snapshot;
  readonly entries: readonly Entry[];
  readonly messages: readonly Message[];
  readonly committedEntries: readonly Entry[];
  /** Things the driver should tell the operator about (logged); nothing to persist or send. */
  readonly notices?: readonly RaftNotice[];
}

/**
 * `follower-lost-log`: a follower answered a heartbeat that it lacks entries it had acknowledged (it lost its disk and
 * came back under its id); the leader counts it from what it holds now and sends it the log or a snapshot again.
 * `vote-withheld`: a leader told this node it lost entries it had acknowledged (a wiped disk), and its log has not yet
 * reached the index the leader is sending it again, so it grants no vote: a candidate may lack what it had held.
 */
export type RaftNotice =
  | { readonly kind: 'follower-lost-log'; readonly peer: NodeId; readonly acknowledged: number; readonly holds: number }
  | { readonly kind: 'vote-withheld'; readonly candidate: NodeId; readonly term: number; readonly lastIndex: number; readonly commitSeen: number };

/** Why a proposal was refused; the driver maps these to typed errors. */
export type ProposalRefusal = 'not-leader' | 'transfer-in-progress' | 'config-change-pending' | 'not-a-member' | 'dropped' | 'invalid-command';

export class ProposalRefused extends Error {
  constructor(
    readonly reason: ProposalRefusal,
    readonly leader: NodeId | null,
    /** invalid-command: where and why the command cannot enter the log. */
    readonly problem?: { readonly field: string; readonly reason: string },
  ) {
    super(`proposal refused: ${reason}${problem ? ` (${problem.field}: ${problem.reason})` : ''}${leader ? ` (leader is ${leader})` : ''}`);
    this.name = 'ProposalRefused';
  }
}

export const emptyConfiguration: Configuration = { voters: [], nonVoters: [] };

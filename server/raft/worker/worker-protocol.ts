// What the controller's thread and the raft thread say to each other (worker-raft-node.ts on the controller's
// side, raft-worker-host.ts on the raft thread's). Everything is structured-cloneable data.
import type { RaftStatus } from '../core/raft-core.ts';
import type { ConfigChange, Configuration, NodeId, SoftState } from '../core/types.ts';
import type { CommandProblem, LogCommand, RefusalReason } from '../state-machine.ts';
import type { PeerHello, PeerStatus } from '../transport/peer-network.ts';

/** A request that is answered (`done` or `error` with its `call`). */
export type Call =
  | { readonly type: 'configChange'; readonly change: ConfigChange }
  | { readonly type: 'transfer'; readonly target?: NodeId }
  | { readonly type: 'snapshot'; readonly force: boolean }
  | { readonly type: 'close' };

export type ToRaftThread =
  /** Proposals made since the last batch; each `id` names its proposal in `apply`, `refused` and `placed` (sent
   * only when `placed` is asked for: a traced proposal's span starts when it enters the log). */
  | { readonly type: 'propose'; readonly proposals: readonly { readonly id: number; readonly command: LogCommand }[]; readonly placed: boolean }
  | { readonly type: 'call'; readonly call: number; readonly request: Call }
  | { readonly type: 'bootstrap'; readonly configuration: Configuration }
  | { readonly type: 'leaderLost'; readonly peer: NodeId }
  /** The answer to `copyState`: the model's data as of everything handed over so far; `data` is the head, whose large
   * arrays the next `slices` messages fill (state-in-slices.ts). */
  | { readonly type: 'stateCopy'; readonly request: number; readonly data: unknown; readonly slices: number }
  | { readonly type: 'stateCopySlice'; readonly request: number; readonly path: readonly string[]; readonly items: readonly unknown[] }
  /** The model failed to apply or restore: the raft node must stop taking part. */
  | { readonly type: 'modelFailed'; readonly message: string };

export type FromRaftThread =
  /** The proposal `id` entered the log at `index` in `term` (not yet committed). */
  | { readonly type: 'placed'; readonly id: number; readonly index: number; readonly term: number }
  /** The proposal `id` was refused, before or after it was placed. */
  | { readonly type: 'refused'; readonly id: number; readonly reason: RefusalReason; readonly message: string; readonly leader: NodeId | null; readonly problem?: CommandProblem }
  | { readonly type: 'done'; readonly call: number; readonly value?: unknown }
  | { readonly type: 'error'; readonly call: number; readonly reason?: RefusalReason; readonly message: string; readonly leader?: NodeId | null }
  /** Committed entries, in log order, to apply to the model, each as the JSON text the log holds (`{index, term,
   * type, data}`: a string crosses threads as a copy of its bytes, an object as a walk over it); for each, the id
   * of the proposal it answers (0: none from here); with the node's status as of handing them over (none while the
   * node starts). */
  | { readonly type: 'apply'; readonly texts: readonly string[]; readonly proposals: readonly number[]; readonly status?: RaftStatus }
  /** Replace the model with a snapshot's data as of `index`: `data` is the head, whose large arrays the next
   * `slices` messages fill (state-in-slices.ts), so that no message is as large as the model. */
  | { readonly type: 'restore'; readonly data: unknown; readonly index: number; readonly slices: number }
  | { readonly type: 'restoreSlice'; readonly path: readonly string[]; readonly items: readonly unknown[] }
  /** Send the model's data (`stateCopy`) once everything handed over is applied. */
  | { readonly type: 'copyState'; readonly request: number }
  /** The node's status changed (`softState`: role, leader or term did; `configuration`: the membership did). */
  | { readonly type: 'status'; readonly status: RaftStatus; readonly softState?: SoftState; readonly configuration?: Configuration }
  /** The node stopped after a storage failure. */
  | { readonly type: 'stopped'; readonly message: string }
  | { readonly type: 'log'; readonly level: 'debug' | 'info' | 'warn' | 'error'; readonly component?: string; readonly message: string; readonly fields?: Record<string, unknown> }
  /** The raft thread could not start (the control port is taken, the log cannot be read…). */
  | { readonly type: 'startFailed'; readonly message: string };

/** The side of a MessagePort (or a Worker, or the worker's parentPort) each end uses. */
export interface Port<Out, In> {
  postMessage(message: Out): void;
  on(event: 'message', listener: (message: In) => void): unknown;
}

/** The peer channels' port: the controller's thread asks, the raft thread (which holds the channels) answers. */
export type ToPeerThread =
  | { readonly type: 'request'; readonly call: number; readonly peer: NodeId; readonly body: unknown; readonly timeoutMs: number }
  | { readonly type: 'probe'; readonly call: number; readonly address: string; readonly timeoutMs: number }
  /** The controller's answer to a peer's request (`peerRequest`). */
  | { readonly type: 'requestAnswer'; readonly rid: number; readonly ok: boolean; readonly value?: unknown; readonly error?: string }
  | { readonly type: 'socketWrite'; readonly sid: number; readonly chunk: Uint8Array }
  | { readonly type: 'socketEnd'; readonly sid: number }
  | { readonly type: 'socketDestroy'; readonly sid: number };

export type FromPeerThread =
  | { readonly type: 'answer'; readonly call: number; readonly ok: boolean; readonly value?: unknown; readonly error?: string }
  | { readonly type: 'peerEvent'; readonly event: 'connected' | 'disconnected'; readonly peer: PeerHello }
  /** A peer's request for the controller (a forwarded write, a join, a router's message). */
  | { readonly type: 'peerRequest'; readonly rid: number; readonly from: PeerHello; readonly body: unknown }
  /** The channels as they are now (sent every status interval); the certificates only when they changed. */
  | { readonly type: 'peers'; readonly peers: readonly PeerStatus[]; readonly certificates?: readonly string[] }
  | { readonly type: 'timing'; readonly kind: 'latency' | 'queue'; readonly channelId: string; readonly ms: number }
  /** A router's control connection arrived on the control port; its bytes follow as `socketData`. */
  | { readonly type: 'socketOpen'; readonly sid: number; readonly remoteAddress?: string; readonly remotePort?: number; readonly commonName?: string; readonly raw?: Uint8Array }
  | { readonly type: 'socketData'; readonly sid: number; readonly chunk: Uint8Array }
  | { readonly type: 'socketClosed'; readonly sid: number; readonly error?: string };

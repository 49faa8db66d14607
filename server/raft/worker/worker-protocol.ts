// What the controller's thread and the raft thread say to each other (worker-raft-node.ts on the controller's
// side, raft-worker-host.ts on the raft thread's). Everything is structured-cloneable data.
import type { RaftStatus } from '../core/raft-core.ts';
import type { ConfigChange, Configuration, NodeId, SoftState } from '../core/types.ts';
import type { CommandProblem, CommittedEntry, LogCommand, RefusalReason } from '../state-machine.ts';

/** A request that is answered (`done` or `error` with its `call`). */
export type Call =
  | { readonly type: 'configChange'; readonly change: ConfigChange }
  | { readonly type: 'transfer'; readonly target?: NodeId }
  | { readonly type: 'snapshot'; readonly force: boolean }
  | { readonly type: 'close' };

export type ToRaftThread =
  /** `id` names the proposal in `placed` and `refused`. */
  | { readonly type: 'propose'; readonly id: number; readonly command: LogCommand }
  | { readonly type: 'call'; readonly call: number; readonly request: Call }
  | { readonly type: 'bootstrap'; readonly configuration: Configuration }
  | { readonly type: 'leaderLost'; readonly peer: NodeId }
  /** The answer to `copyState`: the model's data as of everything handed over so far. */
  | { readonly type: 'stateCopy'; readonly request: number; readonly data: unknown }
  /** The model failed to apply or restore: the raft node must stop taking part. */
  | { readonly type: 'modelFailed'; readonly message: string };

export type FromRaftThread =
  /** The proposal `id` entered the log at `index` in `term` (not yet committed). */
  | { readonly type: 'placed'; readonly id: number; readonly index: number; readonly term: number }
  /** The proposal `id` was refused, before or after it was placed. */
  | { readonly type: 'refused'; readonly id: number; readonly reason: RefusalReason; readonly message: string; readonly leader: NodeId | null; readonly problem?: CommandProblem }
  | { readonly type: 'done'; readonly call: number; readonly value?: unknown }
  | { readonly type: 'error'; readonly call: number; readonly reason?: RefusalReason; readonly message: string; readonly leader?: NodeId | null }
  /** Committed entries, in log order, to apply to the model; with the node's status as of handing them over (none
   * while the node starts). */
  | { readonly type: 'apply'; readonly entries: readonly CommittedEntry[]; readonly status?: RaftStatus }
  /** Replace the model with a snapshot's data as of `index`. */
  | { readonly type: 'restore'; readonly data: unknown; readonly index: number }
  /** Send the model's data (`stateCopy`) once everything handed over is applied. */
  | { readonly type: 'copyState'; readonly request: number }
  /** The node's status changed (`softState`: role, leader or term did; `configuration`: the membership did). */
  | { readonly type: 'status'; readonly status: RaftStatus; readonly softState?: SoftState; readonly configuration?: Configuration }
  /** The node stopped after a storage failure. */
  | { readonly type: 'stopped'; readonly message: string }
  | { readonly type: 'log'; readonly level: 'debug' | 'info' | 'warn' | 'error'; readonly message: string; readonly fields?: Record<string, unknown> };

/** The side of a MessagePort (or a Worker, or the worker's parentPort) each end uses. */
export interface Port<Out, In> {
  postMessage(message: Out): void;
  on(event: 'message', listener: (message: In) => void): unknown;
}

// The raft thread's side: runs the RaftNode (with its log, snapshots and peer transport, all on this thread) for a
// model that lives on the controller's thread. Committed entries are handed over as they commit and the loop goes
// on at once: acknowledgements and disk completions here never wait for the controller's HTTP work. The model's
// results reach the clients there; this side only names the proposal each handed-over entry answers, or says why a
// proposal was refused.
import type { Logger } from '../../../common/log/logger.ts';
import type { RaftStatus } from '../core/raft-core.ts';
import { entryJson } from '../core/entry-json.ts';
import type { Configuration, Entry, SoftState } from '../core/types.ts';
import { RaftNode, type RaftNodeOptions, type RaftStateMachine } from '../node/raft-node.ts';
import { ProposalRefusedError, type ApplyResult, type CommittedEntry } from '../state-machine.ts';
import { sliceState, StateAssembly } from './state-in-slices.ts';
import type { Call, FromRaftThread, Port, ToRaftThread } from './worker-protocol.ts';

/** What the handed-over entries' results are on this side: the model's real results are on the other. */
const handedOver: ApplyResult = Object.freeze({ ok: true });

/**
 * The model as the raft node here sees it: apply hands entries over and returns at once; the applied index is what
 * was handed over (the other side applies in the same order); a restore or a copy goes over and is waited for.
 */
export class RemoteStateMachine implements RaftStateMachine {
  readonly snapshotIsAsync = true;
  private handedOverIndex: number;
  private failure: Error | undefined;
  private nextCopy = 1;
  private readonly copies = new Map<number, (data: unknown) => void>();
  /** Copies whose slices are still arriving, by request. */
  private readonly arriving = new Map<number, StateAssembly>();
  /** Set by the host once the node runs: the log's entry at an index, whose cached text is what goes over. */
  entryAt: (index: number) => Entry | undefined = () => undefined;
  /** Set by the host once the node runs: the status sent with each batch (none while the node starts). */
  status: () => RaftStatus | undefined = () => undefined;

  /** When a batch last carried the status (the interval's own status is left out while batches carry it). */
  statusSentAt = 0;
  /** Where the proposals from the controller's thread entered the log: index → proposal id and term. */
  private readonly placed = new Map<number, { id: number; term: number }>();

  constructor(
    private readonly port: Port<FromRaftThread, ToRaftThread>,
    /** The model's applied index when the raft thread started. */
    appliedIndex: number,
  ) {
    this.handedOverIndex = appliedIndex;
  }

  /** A proposal from the controller's thread entered the log. */
  proposalPlaced(id: number, index: number, term: number): void {
    this.placed.set(index, { id, term });
  }

  appliedIndex(): number {
    return this.handedOverIndex;
  }

  apply(entries: readonly CommittedEntry[]): Promise<ApplyResult[]> {
    if (this.failure) return Promise.reject(this.failure);
    if (entries.length === 0) return Promise.resolve([]);
    this.handedOverIndex = entries[entries.length - 1]!.index;
    // Which proposal each entry answers: the one placed at its index in its term (another term's entry there
    // means the proposal was dropped, which the node refuses on its own).
    const proposals = entries.map((entry) => {
      const placed = this.placed.get(entry.index);
      if (!placed) return 0;
      this.placed.delete(entry.index);
      return placed.term === entry.term ? placed.id : 0;
    });
    const texts = entries.map((committed) => {
      const entry = this.entryAt(committed.index);
      return entry ? entryJson(entry) : JSON.stringify({ index: committed.index, term: committed.term, type: 'normal', data: committed.command });
    });
    const status = this.status();
    if (status) this.statusSentAt = performance.now();
    this.port.postMessage(status ? { type: 'apply', texts, proposals, status } : { type: 'apply', texts, proposals });
    return Promise.resolve(entries.map(() => handedOver));
  }

  snapshot(): Promise<unknown> {
    const request = this.nextCopy++;
    return new Promise((resolve) => {
      this.copies.set(request, resolve);
      this.port.postMessage({ type: 'copyState', request });
    });
  }

  async restore(data: unknown, index: number): Promise<void> {
    if (this.failure) throw this.failure;
    this.handedOverIndex = index;
    const { head, slices } = sliceState(data);
    this.port.postMessage({ type: 'restore', data: head, index, slices: slices.length });
    for (const { path, items } of slices) this.port.postMessage({ type: 'restoreSlice', path, items });
  }

  /** A part of the other side's copy: its head (`stateCopy`) or a slice of it; the last completes the copy. Throws on
   * a slice for no copy or one that does not fit (a broken invariant between the two threads). */
  copyArrived(message: Extract<ToRaftThread, { type: 'stateCopy' | 'stateCopySlice' }>): void {
    const { request } = message;
    let assembly = this.arriving.get(request);
    if (message.type === 'stateCopy') {
      assembly = new StateAssembly(message.data, message.slices);
      this.arriving.set(request, assembly);
    } else {
      if (!assembly) throw new Error(`a state copy slice for request ${request}, which is not arriving`);
      assembly.add(message);
    }
    if (!assembly.complete) return;
    this.arriving.delete(request);
    const resolve = this.copies.get(request);
    this.copies.delete(request);
    resolve?.(assembly.data());
  }

  /** The model failed over there: the next apply fails here, which stops the node. */
  modelFailed(message: string): void {
    this.failure ??= new Error(message);
  }
}

export interface RaftWorkerHostOptions extends Omit<RaftNodeOptions, 'stateMachine' | 'logger' | 'onSnapshotRestored'> {
  /** The model's applied index at start (read on the controller's thread before the raft thread starts). */
  readonly appliedIndex: number;
  readonly logger: Logger;
  /** How often the status is sent when nothing else sends it (commit and last index move without applies). */
  readonly statusEveryMs?: number;
  /** Also told every status interval (the raft thread sends its peer list along). */
  readonly onStatusInterval?: () => void;
  /** Run when the controller's thread closes the node, after the node closed (the log, snapshots, channels). */
  readonly afterClose?: () => Promise<void>;
}

/** Starts the node and serves the controller's thread over `port` until `close`. */
export async function hostRaftNode(port: Port<FromRaftThread, ToRaftThread>, options: RaftWorkerHostOptions): Promise<RaftNode> {
  const stateMachine = new RemoteStateMachine(port, options.appliedIndex);
  const send = (message: FromRaftThread) => port.postMessage(message);
  // Messages that arrive while the node starts wait for it (copies are answered at once: start may need one).
  const early: ToRaftThread[] = [];
  let node: RaftNode | undefined;
  port.on('message', (message: ToRaftThread) => {
    if (message.type === 'stateCopy' || message.type === 'stateCopySlice') {
      try {
        stateMachine.copyArrived(message);
      } catch (error) {
        // The model's thread sent what it should not have: stop taking part, as for a failed model.
        stateMachine.modelFailed((error as Error).message);
        node?.stopAfterFailure(error as Error);
      }
    } else if (message.type === 'modelFailed') {
      stateMachine.modelFailed(message.message);
      node?.stopAfterFailure(new Error(message.message));
    }
    else if (node) handle(node, message);
    else early.push(message);
  });
  const { appliedIndex: _applied, statusEveryMs: _every, onStatusInterval: _interval, afterClose: _after, ...nodeOptions } = options;
  const started = await RaftNode.start({ ...nodeOptions, stateMachine });
  node = started;
  stateMachine.status = () => started.status();
  stateMachine.entryAt = (index) => started.log.entry(index);
  let lastConfiguration: Configuration | undefined;
  started.observe((softState: SoftState, status: RaftStatus) => send({ type: 'status', status, softState }));
  started.observeConfiguration((configuration) => {
    if (configuration === lastConfiguration) return;
    lastConfiguration = configuration;
    send({ type: 'status', status: started.status(), configuration });
  });
  started.onFailure((error) => send({ type: 'stopped', message: error.message }));
  const every = options.statusEveryMs ?? 50;
  const timer = setInterval(() => {
    if (performance.now() - stateMachine.statusSentAt >= every) send({ type: 'status', status: started.status() });
    options.onStatusInterval?.();
  }, every);
  timer.unref?.();
  const close = async () => {
    clearInterval(timer);
    await started.close();
    await options.afterClose?.();
  };
  for (const message of early.splice(0)) handle(started, message);
  send({ type: 'status', status: started.status() });
  return started;

  function handle(raft: RaftNode, message: ToRaftThread): void {
    switch (message.type) {
      case 'propose':
        for (const { id, command } of message.proposals) {
          raft
            .propose(command, (index, term) => {
              stateMachine.proposalPlaced(id, index, term);
              if (message.placed) send({ type: 'placed', id, index, term });
            })
            .catch((error: Error) => send(refusal(id, error)));
        }
        return;
      case 'bootstrap':
        raft.bootstrap(message.configuration);
        return;
      case 'leaderLost':
        raft.leaderLost(message.peer);
        return;
      case 'call':
        answer(raft, message.call, message.request);
        return;
      default:
        return;
    }
  }

  function answer(raft: RaftNode, call: number, request: Call): void {
    const run = async (): Promise<unknown> => {
      switch (request.type) {
        case 'configChange': {
          const proposal = await raft.proposeConfigChange(request.change);
          return proposal.index;
        }
        case 'transfer':
          return raft.transferLeadership(request.target);
        case 'snapshot':
          return raft.maybeSnapshot(request.force);
        case 'close':
          await close();
          return undefined;
      }
    };
    run().then(
      (value) => send({ type: 'done', call, value }),
      (error: Error) =>
        send({
          type: 'error',
          call,
          message: error.message,
          ...(error instanceof ProposalRefusedError ? { reason: error.reason, leader: error.leader } : {}),
        }),
    );
  }
}

function refusal(id: number, error: Error): FromRaftThread {
  if (error instanceof ProposalRefusedError) {
    return { type: 'refused', id, reason: error.reason, message: error.message, leader: error.leader, ...(error.problem ? { problem: error.problem } : {}) };
  }
  return { type: 'refused', id, reason: 'storage', message: error.message, leader: null };
}

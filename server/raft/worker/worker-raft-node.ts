// The controller's side of a raft node that runs on its own thread (raft-worker-host.ts): the model lives here and
// applies the committed entries the raft thread hands over, in log order; proposals made here resolve with the
// model's result once this side applied them, so a client reads its own write; the node's status is mirrored as
// the raft thread reports it (with every batch, on every change, and every 50 ms).
import type { Logger } from '../../../common/log/logger.ts';
import type { RaftStatus } from '../core/raft-core.ts';
import type { ConfigChange, Configuration, Entry, NodeId, SoftState } from '../core/types.ts';
import type { ClusterRaft, ConfigurationObserver, RaftObserver, RaftStateMachine } from '../node/raft-node.ts';
import type { ProposalTrace, ProposalTracer } from '../node/proposal-tracer.ts';
import { ProposalRefusedError, type CommittedEntry, type LogCommand, type Proposal } from '../state-machine.ts';
import type { Call, FromRaftThread, Port, ToRaftThread } from './worker-protocol.ts';
import { sliceState, StateAssembly, type StateSlice } from './state-in-slices.ts';

interface PendingProposal {
  readonly id: number;
  readonly command: LogCommand;
  traced?: ProposalTrace | undefined;
  readonly resolve: (proposal: Proposal) => void;
  readonly reject: (error: Error) => void;
}

const notStarted: RaftStatus = Object.freeze({
  id: '',
  term: 0,
  vote: null,
  role: 'follower',
  leader: null,
  commit: 0,
  applied: 0,
  lastIndex: 0,
  lastTerm: 0,
  firstIndex: 0,
  configuration: { voters: [], nonVoters: [] },
  transferee: null,
  progress: {},
}) as RaftStatus;

interface AppliedWaiter {
  readonly index: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

export class WorkerRaftNode implements ClusterRaft {
  private current: RaftStatus;
  private readonly proposals = new Map<number, PendingProposal>();
  private readonly calls = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private waiters: AppliedWaiter[] = [];
  private readonly observers: RaftObserver[] = [];
  private readonly configurationObservers: ConfigurationObserver[] = [];
  private readonly failureListeners: Array<(error: Error) => void> = [];
  private nextId = 1;
  private outbox: { id: number; command: LogCommand }[] = [];
  /** A snapshot arriving in slices (state-in-slices.ts), until its last. */
  private restoring: { assembly: StateAssembly; index: number } | undefined;
  /** Applies, restores and copies, one after another in the order they came. */
  private work: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private closed = false;
  private threadGone = false;

  private markReady: () => void = () => undefined;
  private startFailed: (error: Error) => void = () => undefined;
  /** Resolves with the raft thread's first status (the node there has started); rejects if it could not start. */
  readonly ready: Promise<void> = new Promise((resolve, reject) => {
    this.markReady = resolve;
    this.startFailed = reject;
  });
  private readonly componentLoggers = new Map<string, Logger>();

  constructor(
    private readonly port: Port<ToRaftThread, FromRaftThread>,
    private readonly stateMachine: RaftStateMachine,
    private readonly logger: Logger,
    private readonly onSnapshotRestored?: (restored: { index: number; hadData: boolean }) => void,
    /** Traces the proposals made here (unset: none). */
    private readonly tracer?: ProposalTracer,
  ) {
    this.current = notStarted;
    // Listening from the start: the node may need a copy of the model before it has started.
    port.on('message', (message: FromRaftThread) => this.receive(message));
  }

  get id(): NodeId {
    return this.current.id;
  }

  status(): RaftStatus {
    return this.current;
  }

  get failed(): Error | undefined {
    return this.failure;
  }

  isLeader(): boolean {
    return this.current.role === 'leader';
  }

  leader(): NodeId | null {
    return this.current.leader;
  }

  get term(): number {
    return this.current.term;
  }

  get configuration(): Configuration {
    return this.current.configuration;
  }

  appliedIndex(): number {
    return this.stateMachine.appliedIndex();
  }

  isUninitialized(): boolean {
    const { configuration } = this.current;
    return configuration.voters.length === 0 && configuration.nonVoters.length === 0 && this.current.lastIndex === 0 && this.current.term === 0;
  }

  observe(observer: RaftObserver): void {
    this.observers.push(observer);
  }

  observeConfiguration(observer: ConfigurationObserver): void {
    this.configurationObservers.push(observer);
    observer(this.current.configuration);
  }

  onFailure(listener: (error: Error) => void): void {
    if (this.failure) listener(this.failure);
    else this.failureListeners.push(listener);
  }

  bootstrap(configuration: Configuration): void {
    this.port.postMessage({ type: 'bootstrap', configuration });
  }

  leaderLost(peer: NodeId): void {
    if (this.failure) return;
    this.port.postMessage({ type: 'leaderLost', peer });
  }

  propose(command: LogCommand): Promise<Proposal> {
    if (this.closed) return Promise.reject(new ProposalRefusedError('closed', 'the raft node is shutting down'));
    if (this.failure) return Promise.reject(new ProposalRefusedError('storage', `raft storage failed: ${this.failure.message}`));
    const id = this.nextId++;
    return new Promise<Proposal>((resolve, reject) => {
      this.proposals.set(id, { id, command, resolve, reject });
      // Proposals go over in batches, once the requests of this turn of the event loop have been read: one
      // message (and one wake-up of the raft thread) for all of them.
      if (this.outbox.length === 0) setImmediate(this.flushProposals);
      this.outbox.push({ id, command });
    });
  }

  private readonly flushProposals = (): void => {
    const proposals = this.outbox;
    this.outbox = [];
    if (proposals.length > 0) this.port.postMessage({ type: 'propose', proposals, placed: this.tracer !== undefined });
  };

  async proposeConfigChange(change: ConfigChange): Promise<Proposal> {
    const index = (await this.call({ type: 'configChange', change })) as number;
    await this.waitForApplied(index, 10_000);
    return { index, result: { ok: true } };
  }

  transferLeadership(target?: NodeId): Promise<NodeId> {
    return this.call({ type: 'transfer', ...(target === undefined ? {} : { target }) }) as Promise<NodeId>;
  }

  maybeSnapshot(force = false): Promise<boolean> {
    return this.call({ type: 'snapshot', force }) as Promise<boolean>;
  }

  /** Waits until the model here has applied everything up to `index`. */
  waitForApplied(index: number, timeoutMs: number): Promise<void> {
    if (this.appliedIndex() >= index) return Promise.resolve();
    if (this.failure) return Promise.reject(new ProposalRefusedError('storage', `raft storage failed: ${this.failure.message}`));
    if (this.closed) return Promise.reject(new Error(`raft: index ${index} not applied: the raft node is shutting down`));
    return new Promise((resolve, reject) => {
      const waiter: AppliedWaiter = {
        index,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((other) => other !== waiter);
          reject(new Error(`raft: index ${index} not applied within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** Stops the node on the raft thread, then refuses whatever still waits here. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      if (!this.threadGone) await this.call({ type: 'close' });
    } catch {
      // The thread is gone already: there is nothing left to close there.
    } finally {
      this.closed = true;
      await this.work;
      this.refuseEverything(() => new ProposalRefusedError('closed', 'the raft node is shutting down'), (index) => new Error(`raft: index ${index} not applied: the raft node is shutting down`));
    }
  }

  /** The raft thread ended: nothing will answer any more. Unless closing, that is a failure of the node. */
  threadExited(error: Error): void {
    this.threadGone = true;
    this.startFailed(error);
    for (const call of this.calls.values()) call.reject(new ProposalRefusedError('closed', error.message));
    this.calls.clear();
    if (!this.closed && !this.failure) {
      // The documented line (and its alert): the node is gone as surely as after a storage failure.
      this.loggerFor('raft').error('raft node stopped after a failure', { error: error.message });
      this.stop(error);
    } else if (this.closed) this.refuseEverything(() => new ProposalRefusedError('closed', 'the raft node is shutting down'), (index) => new Error(`raft: index ${index} not applied: the raft node is shutting down`));
  }

  private call(request: Call): Promise<unknown> {
    if (this.threadGone) return Promise.reject(new ProposalRefusedError('closed', 'the raft thread has stopped'));
    if (this.closed) return Promise.reject(new ProposalRefusedError('closed', 'the raft node is shutting down'));
    const call = this.nextId++;
    return new Promise((resolve, reject) => {
      this.calls.set(call, { resolve, reject });
      this.port.postMessage({ type: 'call', call, request });
    });
  }

  private receive(message: FromRaftThread): void {
    switch (message.type) {
      case 'placed': {
        // Sent only for tracing: the span of a traced proposal starts when it entered the log.
        const pending = this.proposals.get(message.id);
        if (pending) pending.traced = this.tracer?.appended(pending.command, message.index);
        return;
      }
      case 'refused': {
        const pending = this.proposals.get(message.id);
        if (!pending) return;
        this.proposals.delete(message.id);
        pending.traced?.refused(message.reason);
        pending.reject(new ProposalRefusedError(message.reason, message.message, message.leader, message.problem));
        return;
      }
      case 'done':
      case 'error': {
        const call = this.calls.get(message.call);
        this.calls.delete(message.call);
        if (!call) return;
        if (message.type === 'done') call.resolve(message.value);
        else call.reject(message.reason ? new ProposalRefusedError(message.reason, message.message, message.leader ?? null) : new Error(message.message));
        return;
      }
      case 'apply':
        if (message.status) this.current = message.status;
        this.enqueue(() => this.apply(message.texts, message.proposals));
        return;
      case 'restore':
        if (message.slices === 0) this.enqueue(() => this.restore(message.data, message.index));
        else this.restoring = { assembly: new StateAssembly(message.data, message.slices), index: message.index };
        return;
      case 'restoreSlice':
        this.restoreSlice(message);
        return;
      case 'copyState':
        // Queued behind the applies already here: the copy is as of everything handed over before the request.
        this.enqueue(async () => this.sendStateCopy(message.request));
        return;
      case 'status':
        this.statusChanged(message.status, message.softState, message.configuration);
        return;
      case 'stopped':
        this.stop(new Error(message.message));
        return;
      case 'log':
        this.loggerFor(message.component)[message.level](message.message, message.fields ?? {});
        return;
      case 'startFailed':
        this.startFailed(new Error(message.message));
        return;
    }
  }

  /** The raft thread's log lines go out through this thread's logger, under the component that wrote them. */
  private loggerFor(component: string | undefined): Logger {
    if (component === undefined) return this.logger;
    let logger = this.componentLoggers.get(component);
    if (!logger) this.componentLoggers.set(component, (logger = this.logger.child(component)));
    return logger;
  }

  private statusChanged(status: RaftStatus, softState: SoftState | undefined, configuration: Configuration | undefined): void {
    this.current = status;
    this.markReady();
    if (configuration) for (const observer of this.configurationObservers) observer(configuration);
    if (softState) for (const observer of this.observers) observer(softState, status);
  }

  private enqueue(step: () => Promise<void>): void {
    this.work = this.work.then(async () => {
      if (this.failure) return;
      try {
        await step();
      } catch (error) {
        // The model could not take a batch: the raft thread must stop too, or this node's model would diverge.
        const failure = error as Error;
        this.port.postMessage({ type: 'modelFailed', message: failure.message });
        this.stop(failure);
      }
    });
  }

  private async apply(texts: readonly string[], proposals: readonly number[]): Promise<void> {
    if (this.tracer) for (const id of proposals) if (id !== 0) this.proposals.get(id)?.traced?.committed();
    const entries = texts.map((text): CommittedEntry => {
      const entry = JSON.parse(text) as Entry;
      // Raft's own entries still advance the applied index; the state machine treats them as no-ops.
      const command = entry.type === 'normal' ? (entry.data as LogCommand) : { type: entry.type === 'config' ? 'raft.config' : 'raft.noop' };
      return { index: entry.index, term: entry.term, command };
    });
    const results = await this.stateMachine.apply(entries);
    entries.forEach((entry, i) => {
      const id = proposals[i] ?? 0;
      const pending = id === 0 ? undefined : this.proposals.get(id);
      if (!pending) return;
      this.proposals.delete(id);
      pending.traced?.applied();
      pending.resolve({ index: entry.index, result: results[i]! });
    });
    this.settleWaiters();
  }

  /** The model's data for the raft thread, in slices (state-in-slices.ts): no message as large as the model. */
  private sendStateCopy(request: number): void {
    const { head, slices } = sliceState(this.stateMachine.snapshot());
    this.port.postMessage({ type: 'stateCopy', request, data: head, slices: slices.length });
    for (const { path, items } of slices) this.port.postMessage({ type: 'stateCopySlice', request, path, items });
  }

  /** Adds a slice to the snapshot being received; the last one queues the restore. */
  private restoreSlice(slice: StateSlice): void {
    const restoring = this.restoring;
    try {
      if (!restoring) throw new Error('a snapshot slice without a restore');
      restoring.assembly.add(slice);
    } catch (error) {
      // The raft thread sent what it should not have: a broken invariant, handled as a failed restore.
      this.restoring = undefined;
      this.enqueue(() => Promise.reject(error as Error));
      return;
    }
    if (!restoring.assembly.complete) return;
    this.restoring = undefined;
    const data = restoring.assembly.data();
    this.enqueue(() => this.restore(data, restoring.index));
  }

  private async restore(data: unknown, index: number): Promise<void> {
    const hadData = this.stateMachine.appliedIndex() > 0;
    await this.stateMachine.restore(data, index);
    this.settleWaiters();
    this.onSnapshotRestored?.({ index, hadData });
  }

  private settleWaiters(): void {
    if (this.waiters.length === 0) return;
    const applied = this.appliedIndex();
    this.waiters = this.waiters.filter((waiter) => {
      if (waiter.index > applied) return true;
      clearTimeout(waiter.timer);
      waiter.resolve();
      return false;
    });
  }


  private stop(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.refuseEverything(() => new ProposalRefusedError('storage', `raft storage failed: ${error.message}`), () => new ProposalRefusedError('storage', `raft storage failed: ${error.message}`));
    for (const listener of this.failureListeners) {
      try {
        listener(error);
      } catch (thrown) {
        this.logger.error('a raft failure listener failed', { error: (thrown as Error).message });
      }
    }
  }

  private refuseEverything(proposal: () => Error, waiter: (index: number) => Error): void {
    for (const pending of this.proposals.values()) {
      const error = proposal();
      pending.traced?.refused(error instanceof ProposalRefusedError ? error.reason : 'closed');
      pending.reject(error);
    }
    this.proposals.clear();
    this.outbox = [];
    for (const each of this.waiters) {
      clearTimeout(each.timer);
      each.reject(waiter(each.index));
    }
    this.waiters = [];
  }
}

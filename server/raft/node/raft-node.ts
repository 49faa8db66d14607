// The raft node: the only asynchronous raft code. It owns the timers and runs the loop around the pure core, each
// round overlapped (a leader's appends leave, the write runs while committed entries apply, then the answers
// leave and the core advances); proposals resolve with their raft index once applied locally; snapshots are taken
// on a policy and compact the log; observers hear role and leader changes.
import type { Logger } from '../../../common/log/logger.ts';
import { RaftCore, type RaftStatus } from '../core/raft-core.ts';
import type { RaftLogView } from '../core/raft-log.ts';
import { coalesceMessages } from './coalesce-messages.ts';
import { nextSnapshotCheckMs } from './snapshot-schedule.ts';
import { entryJson, releaseEntryJson } from '../core/entry-json.ts';
import { splitByWrite } from '../core/write-ordering.ts';
import { ProposalRefused, type ConfigChange, type Configuration, type Entry, type Message, type NodeId, type RaftNotice, type Ready, type Snapshot, type SnapshotMeta, type SoftState } from '../core/types.ts';
import type { ApplyResult, CommittedEntry, LogCommand, Proposal, Proposer } from '../state-machine.ts';
import { ProposalRefusedError } from '../state-machine.ts';
import type { RaftStore, SnapshotStore } from '../storage/raft-storage.ts';
import type { RaftTransport } from './raft-transport.ts';
import type { ProposalTrace, ProposalTracer } from './proposal-tracer.ts';
import { realRaftTimers, type RaftTimers } from './raft-timers.ts';

/** The replicated state machine as the node drives it. */
export interface RaftStateMachine {
  appliedIndex(): number;
  apply(entries: readonly CommittedEntry[]): Promise<ApplyResult[]>;
  /** The whole state as of appliedIndex(), as JSON-able data (a state machine in another thread answers later:
   * nothing is applied meanwhile, the node holds its loop until it has the copy). */
  snapshot(): unknown;
  /** Set for a state machine whose snapshot() answers with a promise of the data (raft/worker). */
  readonly snapshotIsAsync?: boolean;
  /** Replaces the whole state with a snapshot's, as of `index`. */
  restore(data: unknown, index: number): Promise<void>;
}

export interface RaftNodeTiming {
  readonly tickMs: number;
  readonly electionTicks: number;
  readonly heartbeatTicks: number;
  /** A proposal not applied within this long is refused (it may still commit later). */
  readonly commitTimeoutMs: number;
}

export interface SnapshotPolicy {
  readonly intervalMs: number;
  /** Take one only when at least this many entries are new since the last. */
  readonly threshold: number;
  /** Entries kept in the log behind a snapshot, for followers that are only a little behind. */
  readonly trailingLogs: number;
  /**
   * Bounds on the log held in memory between snapshots: one is taken as soon as this many entries were applied
   * since the last, or the entries written since the last hold this many bytes of JSON, without waiting for the
   * interval. Each node draws its bound again after every snapshot between half and all of it, so that members,
   * which receive the same entries, do not all take theirs at once. Unset: no bound (the interval alone).
   */
  readonly maxLogEntries?: number;
  readonly maxLogBytes?: number;
}

export interface RaftNodeOptions {
  readonly id: NodeId;
  readonly store: RaftStore;
  readonly snapshots: SnapshotStore;
  readonly stateMachine: RaftStateMachine;
  readonly transport: RaftTransport;
  readonly timing: RaftNodeTiming;
  readonly snapshotPolicy: SnapshotPolicy;
  /** The configuration when neither log nor snapshot holds one. */
  readonly bootstrap: Configuration;
  readonly random: () => number;
  readonly logger: Logger;
  /** Told after a snapshot from the leader replaced the state machine (`hadData`: it was not empty before). */
  readonly onSnapshotRestored?: (restored: { index: number; hadData: boolean }) => void;
  /** Told when traced proposals are appended, committed and applied (proposal-tracer.ts); unset: no tracing. */
  readonly proposalTracer?: ProposalTracer;
  /** The clock and timers (default: the real ones); a simulation passes its own. */
  readonly timers?: RaftTimers;
  /** How appends go out (default: one in flight per follower, up to 512 entries); the simulator varies them. */
  readonly replication?: ReplicationLimits;
}

export interface ReplicationLimits {
  readonly appendsInFlightPerFollower: number;
  readonly maxEntriesPerAppend: number;
}

/**
 * One append in flight per follower: entries proposed while it is out wait for its answer and then leave together,
 * with the commit index, as one message. A follower answers after its own disk write, so this is the rate at which it
 * can take them anyway; a deeper pipeline only added messages (one per proposal burst, and a commit-only append
 * per commit), each a TLS write on the leader and a read on the follower: 0.64 peer messages per write at 16 clients
 * instead of 0.27, and 15-20% more CPU per write across the cluster (docs/raft.md, "Replication").
 */
const appendsInFlightPerFollower = 1;
/** With one append in flight, a follower that is far behind catches up this many entries (at most 1 MiB) per round. */
const maxEntriesPerAppend = 512;

interface AppliedWaiter {
  readonly index: number;
  readonly deadline: number;
  readonly timeoutMs: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

export type RaftObserver = (state: SoftState, status: RaftStatus) => void;
export type ConfigurationObserver = (configuration: Configuration) => void;

/** What the controller and the cluster's services use of a raft node: RaftNode itself, or its mirror on the
 * controller's thread when the node runs on the raft thread (raft/worker/worker-raft-node.ts). */
export interface ClusterRaft extends Proposer {
  readonly id: NodeId;
  readonly failed: Error | undefined;
  status(): RaftStatus;
  isLeader(): boolean;
  leader(): NodeId | null;
  isUninitialized(): boolean;
  observe(observer: RaftObserver): void;
  observeConfiguration(observer: ConfigurationObserver): void;
  onFailure(listener: (error: Error) => void): void;
  bootstrap(configuration: Configuration): void;
  proposeConfigChange(change: ConfigChange): Promise<Proposal>;
  /** The member leadership goes to (chosen when `target` is unset); throws or rejects when it cannot. */
  transferLeadership(target?: NodeId): NodeId | Promise<NodeId>;
  leaderLost(peer: NodeId): void;
  waitForApplied(index: number, timeoutMs: number): Promise<void>;
}

interface PendingProposal {
  readonly term: number;
  readonly resolve: (proposal: Proposal) => void;
  readonly reject: (error: Error) => void;
  /** When it is refused as `timeout` if not applied by then (checked on every tick: a timer per proposal cost the
   * hot path two timer-list operations per write). */
  readonly deadline: number;
  readonly traced: ProposalTrace | undefined;
}

export const defaultTiming: RaftNodeTiming = { tickMs: 50, electionTicks: 20, heartbeatTicks: 4, commitTimeoutMs: 5000 };

export class RaftNode implements ClusterRaft {
  private readonly core: RaftCore;
  private readonly pending = new Map<number, PendingProposal>();
  private appliedWaiters: AppliedWaiter[] = [];
  private readonly observers: RaftObserver[] = [];
  private readonly configurationObservers: ConfigurationObserver[] = [];
  private readonly failureListeners: Array<(error: Error) => void> = [];
  private lastConfiguration: Configuration | undefined;
  private inbox: Message[] = [];
  private ticksDue = 0;
  private pumping = false;
  /** Set while a snapshot copies the state machine: the loop must not apply anything meanwhile. */
  private holding = false;
  private closed = false;
  private idle: Promise<void> = Promise.resolve();
  private readonly timers: RaftTimers;
  private stopTicker: (() => void) | undefined;
  private stopSnapshotTimer: (() => void) | undefined;
  private lastSnapshotIndex: number;
  private failure: Error | undefined;
  /** Term and vote last written, to tell a commit-only hard-state change from one that must be synced. */
  private persistedTerm = -1;
  private persistedVote: NodeId | null = null;
  /** Bytes of entry JSON written since the last snapshot (for snapshotPolicy.maxLogBytes). */
  private logBytesSinceSnapshot = 0;
  /** This node's share of the log bounds until its next snapshot, in [0.5, 1]. */
  private logBoundShare = 1;
  private snapshotsInFlight = 0;
  /** Entries up to here have had their cached JSON released. */
  private textsReleasedThrough = 0;

  private constructor(
    private readonly options: RaftNodeOptions,
    core: RaftCore,
    lastSnapshotIndex: number,
  ) {
    this.core = core;
    this.lastSnapshotIndex = lastSnapshotIndex;
    this.timers = options.timers ?? realRaftTimers;
  }

  /**
   * Loads durable state (restoring the state machine from a newer snapshot if needed) and starts the loop. A
   * snapshot's data is read only when the state machine is behind it: a durable state machine (the model) is
   * normally at or past its newest snapshot, and reading one back took 0.5 s and 233 MB at 200k identities.
   */
  static async start(options: RaftNodeOptions): Promise<RaftNode> {
    const { store, snapshots, stateMachine } = options;
    const [newest] = await snapshots.list();
    let snapshotMeta: SnapshotMeta | undefined = newest;
    let loaded: Snapshot | undefined;
    if (newest && newest.index > stateMachine.appliedIndex()) {
      // The newest valid one: a snapshot whose data fails its checksum gives way to the next older.
      loaded = await snapshots.latest();
      snapshotMeta = loaded?.meta;
      if (loaded && loaded.meta.index > stateMachine.appliedIndex()) {
        options.logger.info('restoring the state machine from a snapshot', { index: loaded.meta.index, term: loaded.meta.term });
        await stateMachine.restore(loaded.data, loaded.meta.index);
      }
    }
    if (snapshotMeta) await RaftNode.finishSnapshotInstall(options, snapshotMeta);
    const hardState = await store.hardState();
    const entries = await store.entries(await store.firstIndex(), await store.lastIndex());
    const core = new RaftCore({
      id: options.id,
      electionTicks: options.timing.electionTicks,
      heartbeatTicks: options.timing.heartbeatTicks,
      random: options.random,
      ...(hardState ? { hardState } : {}),
      ...(snapshotMeta ? { snapshot: snapshotMeta } : {}),
      entries,
      applied: stateMachine.appliedIndex(),
      bootstrap: options.bootstrap,
      maxInflight: options.replication?.appendsInFlightPerFollower ?? appendsInFlightPerFollower,
      maxEntriesPerAppend: options.replication?.maxEntriesPerAppend ?? maxEntriesPerAppend,
    });
    const node = new RaftNode(options, core, snapshotMeta?.index ?? 0);
    // What a follower behind the compacted log is sent: the state machine as it is. A snapshot just loaded to restore
    // it is kept only when that cannot be offered: its data is a second copy of the whole model beside the state
    // machine's own, held for the life of the process (a controller restored from a 1M-identity backup held 2.5 GiB).
    const offered = snapshotMeta ? await node.offerCurrentState() : false;
    if (!offered && loaded) core.snapshotTaken(loaded);
    if (hardState) {
      node.persistedTerm = hardState.term;
      node.persistedVote = hardState.vote;
    }
    options.transport.listen(options.id, (message) => node.receive(message));
    node.stopTicker = node.timers.every(options.timing.tickMs, () => {
      node.ticksDue++;
      node.expireProposals();
      node.settleAppliedWaiters();
      node.pump();
    });
    node.scheduleSnapshotCheck();
    // A lone voter elects itself at once instead of waiting out an election timeout.
    const { voters } = core.status().configuration;
    if (voters.length === 1 && voters[0] === options.id) core.campaign();
    node.pump();
    await node.idle;
    return node;
  }

  /**
   * A snapshot from the leader replaces the whole log: it is saved, then the log is reset. A crash between the two
   * leaves a log that the snapshot supersedes (it ends before the snapshot, or disagrees with it at its index), and
   * the next append would then leave a gap in the store or follow entries the snapshot replaced: finish the reset.
   * (Found by the simulator: a restarted follower stopped on every append after such a crash.)
   */
  private static async finishSnapshotInstall(options: RaftNodeOptions, snapshot: SnapshotMeta): Promise<void> {
    const { store } = options;
    const [first, last] = [await store.firstIndex(), await store.lastIndex()];
    if (last < first) return;
    const [atSnapshot] = snapshot.index >= first && snapshot.index <= last ? await store.entries(snapshot.index, snapshot.index) : [];
    const superseded = last < snapshot.index || (atSnapshot !== undefined && atSnapshot.term !== snapshot.term);
    if (!superseded) return;
    options.logger.warn('discarding a raft log the newest snapshot replaced (a crash interrupted its installation)', { snapshotIndex: snapshot.index, logFirstIndex: first, logLastIndex: last });
    await store.reset();
  }

  get id(): NodeId {
    return this.options.id;
  }

  status(): RaftStatus {
    return this.core.status();
  }

  /** Why the node stopped taking part (a storage failure: the log, the model store, a snapshot), if it did. */
  get failed(): Error | undefined {
    return this.failure;
  }

  isLeader(): boolean {
    return this.core.currentRole === 'leader';
  }

  get term(): number {
    return this.core.currentTerm;
  }

  /** The configuration in effect here now (the newest in the log). */
  get configuration(): Configuration {
    return this.core.currentConfiguration;
  }

  /** The configuration as of the log's entry at `index`. */
  configurationAt(index: number): Configuration {
    return this.core.configurationAt(index);
  }

  /** The log as this node holds it in memory, read-only (the simulator's checkers compare nodes' logs). */
  get log(): RaftLogView {
    return this.core.log;
  }

  leader(): NodeId | null {
    return this.core.currentLeader;
  }

  appliedIndex(): number {
    return this.options.stateMachine.appliedIndex();
  }

  observe(observer: RaftObserver): void {
    this.observers.push(observer);
  }

  /** Called once, when the node stops after a failure (at once if it already has). */
  onFailure(listener: (error: Error) => void): void {
    if (this.failure) listener(this.failure);
    else this.failureListeners.push(listener);
  }

  /** Called with the configuration in effect now and whenever it changes (it changes when an entry arrives). */
  observeConfiguration(observer: ConfigurationObserver): void {
    this.configurationObservers.push(observer);
    observer(this.core.status().configuration);
  }

  isUninitialized(): boolean {
    return this.core.isUninitialized();
  }

  /** Makes this new, empty node the first member of a new cluster (see RaftCore.bootstrap). */
  bootstrap(configuration: Configuration): void {
    this.core.bootstrap(configuration);
    this.pump();
  }

  /** `onPlaced` hears where the command entered the log, before it commits (raft/worker tells the model's thread). */
  propose(command: LogCommand, onPlaced?: (index: number, term: number) => void): Promise<Proposal> {
    return this.submit(() => this.core.propose(command), command, onPlaced);
  }

  proposeConfigChange(change: ConfigChange, onPlaced?: (index: number, term: number) => void): Promise<Proposal> {
    return this.submit(() => this.core.proposeConfigChange(change), undefined, onPlaced);
  }

  transferLeadership(target?: NodeId): NodeId {
    const chosen = this.core.transferLeadership(target);
    this.pump();
    return chosen;
  }

  /** Every connection to `id` closed: when it is our leader, stand for election soon (see RaftCore.leaderLost). */
  leaderLost(id: NodeId): void {
    if (this.failed) return;
    this.core.leaderLost(id);
    this.pump();
  }

  /** Stops taking part after a failure outside the node (the model, applying on another thread, could not take a
   * batch): as a storage failure here would. */
  stopAfterFailure(error: Error): void {
    if (!this.failure && !this.closed) this.stopAfter(error);
  }

  /** Waits until this node has applied everything up to `index` (woken by the apply itself, not by polling). */
  waitForApplied(index: number, timeoutMs: number): Promise<void> {
    if (this.appliedIndex() >= index) return Promise.resolve();
    if (this.failure) return Promise.reject(new ProposalRefusedError('storage', `raft storage failed: ${this.failure.message}`));
    if (this.closed) return Promise.reject(new Error(`raft: index ${index} not applied: the raft node is shutting down`));
    return new Promise((resolve, reject) => {
      this.appliedWaiters.push({ index, deadline: this.timers.now() + timeoutMs, timeoutMs, resolve, reject });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopTicker?.();
    this.stopSnapshotTimer?.();
    this.options.transport.close(this.options.id);
    await this.idle;
    for (const waiter of this.appliedWaiters) waiter.reject(new Error(`raft: index ${waiter.index} not applied: the raft node is shutting down`));
    this.appliedWaiters = [];
    const closing = new ProposalRefusedError('closed', 'the raft node is shutting down');
    for (const [index, pending] of this.pending) {
      pending.traced?.refused('closed');
      pending.reject(closing);
      this.pending.delete(index);
    }
  }

  /** The next look at the snapshot policy, at a staggered time (snapshot-schedule.ts), and the one after it. */
  private scheduleSnapshotCheck(): void {
    if (this.closed) return;
    this.stopSnapshotTimer = this.timers.after(
      nextSnapshotCheckMs(this.options.snapshotPolicy.intervalMs, this.options.random),
      () => {
        this.maybeSnapshot()
          // A failed save (a full disk) leaves the log uncompacted; the next check tries again.
          .catch((error: Error) => this.options.logger.error('raft snapshot failed', { error: error.message }))
          .finally(() => this.scheduleSnapshotCheck());
      },
      { background: true },
    );
  }

  /** Gives the core the state machine's current state as the snapshot to send (not saved: the state machine's
   * own store holds it, and a saved snapshot no newer than it lies on disk). The loop is not running yet. False when
   * the log no longer knows the term at the state machine's index. */
  private async offerCurrentState(): Promise<boolean> {
    const index = this.options.stateMachine.appliedIndex();
    const term = this.core.log.term(index);
    if (term === undefined || index > this.core.log.applied) return false;
    const copied = this.copyState();
    const data = this.options.stateMachine.snapshotIsAsync ? await copied : copied;
    this.core.snapshotTaken({ meta: { index, term, configuration: this.core.configurationAt(index) }, data });
    return true;
  }

  /** The state machine's data as of its applied index: at once, or awaited from another thread. */
  private copyState(): unknown {
    return this.options.stateMachine.snapshot();
  }

  /** Takes a snapshot now if the policy's threshold is met (also runs on the policy's interval, staggered). */
  async maybeSnapshot(force = false, trigger: 'schedule' | 'log size' | 'request' = force ? 'request' : 'schedule'): Promise<boolean> {
    // Counted so that the log bounds never start a second one meanwhile (in the same function: no extra await).
    this.snapshotsInFlight++;
    try {
      const applied = this.options.stateMachine.appliedIndex();
      if (this.closed || applied <= this.lastSnapshotIndex) return false;
      if (!force && applied - this.lastSnapshotIndex < this.options.snapshotPolicy.threshold) return false;
      // The state machine must not be mid-apply while it is copied: wait for the loop, then hold it off.
      while (this.pumping) await this.idle;
      let snapshot: Snapshot | undefined;
      this.holding = true;
      try {
        const index = this.options.stateMachine.appliedIndex();
        const term = this.core.log.term(index);
        if (term !== undefined && index > this.lastSnapshotIndex) {
          const copied = this.copyState();
          const data = this.options.stateMachine.snapshotIsAsync ? await copied : copied;
          snapshot = { meta: { index, term, configuration: this.core.configurationAt(index) }, data };
        }
      } finally {
        this.holding = false;
      }
      this.pump();
      if (!snapshot) return false;
      const { index, term } = snapshot.meta;
      await this.options.snapshots.save(snapshot);
      this.core.snapshotTaken(snapshot);
      this.lastSnapshotIndex = index;
      this.logBytesSinceSnapshot = 0;
      const { maxLogEntries, maxLogBytes } = this.options.snapshotPolicy;
      if (maxLogEntries !== undefined || maxLogBytes !== undefined) this.logBoundShare = 0.5 + this.options.random() * 0.5;
      const compactTo = index - this.options.snapshotPolicy.trailingLogs;
      if (compactTo > this.core.log.snapshotIndex) {
        this.core.compact(compactTo);
        await this.options.store.compact(compactTo);
      }
      this.options.logger.info('raft snapshot taken', { index, term, compactedTo: Math.max(compactTo, 0), trigger });
      return true;
    } finally {
      this.snapshotsInFlight--;
    }
  }

  /** Refuses the proposals not applied by their deadline (they may still commit later). Proposals are held in index
   * order and share one timeout, so the expired ones are the first ones. */
  private expireProposals(): void {
    if (this.pending.size === 0) return;
    const now = this.timers.now();
    for (const [index, pending] of this.pending) {
      if (pending.deadline > now) return;
      this.pending.delete(index);
      pending.traced?.refused('timeout');
      pending.reject(new ProposalRefusedError('timeout', `raft: index ${index} was not committed within ${this.options.timing.commitTimeoutMs} ms`));
    }
  }

  /** Wakes the waiters whose index is applied, and refuses those past their deadline. */
  private settleAppliedWaiters(): void {
    if (this.appliedWaiters.length === 0) return;
    const applied = this.appliedIndex();
    const now = this.timers.now();
    const waiting: AppliedWaiter[] = [];
    for (const waiter of this.appliedWaiters) {
      if (waiter.index <= applied) waiter.resolve();
      else if (waiter.deadline <= now) waiter.reject(new Error(`raft: index ${waiter.index} not applied within ${waiter.timeoutMs} ms`));
      else waiting.push(waiter);
    }
    this.appliedWaiters = waiting;
  }

  // ---- the loop ----------------------------------------------------------------------------------------------

  private submit(append: () => { index: number; term: number }, command?: LogCommand, onPlaced?: (index: number, term: number) => void): Promise<Proposal> {
    if (this.closed) return Promise.reject(new ProposalRefusedError('closed', 'the raft node is shutting down'));
    if (this.failure) return Promise.reject(new ProposalRefusedError('storage', `raft storage failed: ${this.failure.message}`));
    let placed: { index: number; term: number };
    try {
      placed = append();
    } catch (error) {
      if (error instanceof ProposalRefused) {
        if (error.reason === 'invalid-command') return Promise.reject(new ProposalRefusedError('invalid-command', error.message, error.leader, error.problem));
        const reason = error.reason === 'not-leader' ? (error.leader ? 'not-leader' : 'no-leader') : error.reason === 'transfer-in-progress' ? 'transfer' : 'dropped';
        return Promise.reject(new ProposalRefusedError(reason, error.message, error.leader));
      }
      return Promise.reject(error);
    }
    const deadline = this.timers.now() + this.options.timing.commitTimeoutMs;
    const traced = command === undefined ? undefined : this.options.proposalTracer?.appended(command, placed.index);
    const proposal = new Promise<Proposal>((resolve, reject) => {
      this.pending.set(placed.index, { term: placed.term, resolve, reject, deadline, traced });
    });
    onPlaced?.(placed.index, placed.term);
    this.pump();
    return proposal;
  }

  private receive(message: Message): void {
    if (this.closed) return;
    this.inbox.push(message);
    this.pump();
  }

  /** Runs the loop unless it is already running; whatever arrives meanwhile is handled in its next round. */
  private pump(): void {
    if (this.pumping || this.holding || this.closed || this.failure) return;
    this.pumping = true;
    let done!: () => void;
    this.idle = new Promise((resolve) => (done = resolve));
    void this.loop()
      .catch((error: Error) => this.stopAfter(error))
      .finally(() => {
        this.pumping = false;
        done();
        // What arrived after the loop's last look but before this ran (a message delivered, or a proposal made, by
        // another microtask meanwhile) found the loop still running and left it to the loop: run it again, or it
        // would wait for the next tick.
        if (this.inbox.length > 0 || this.ticksDue > 0 || this.core.hasReady()) this.pump();
      });
  }

  /**
   * A storage failure (the log, the model store's batch write, a snapshot) is a broken invariant: stop taking part
   * rather than risk divergence. Everything waiting on this node is refused at once, and the failure listeners hear
   * of it (the controller stops serving and exits to be restarted).
   */
  private stopAfter(error: Error): void {
    this.failure = error;
    this.options.logger.error('raft node stopped after a failure', { error: error.message });
    const refusal = () => new ProposalRefusedError('storage', `raft storage failed: ${error.message}`);
    for (const pending of this.pending.values()) {
      pending.traced?.refused('storage');
      pending.reject(refusal());
    }
    this.pending.clear();
    for (const waiter of this.appliedWaiters) waiter.reject(refusal());
    this.appliedWaiters = [];
    for (const listener of this.failureListeners) {
      try {
        listener(error);
      } catch (thrown) {
        this.options.logger.error('a raft failure listener failed', { error: (thrown as Error).message });
      }
    }
  }

  private async loop(): Promise<void> {
    for (;;) {
      const before = { role: this.core.currentRole, leader: this.core.currentLeader };
      while (this.ticksDue > 0) {
        this.ticksDue--;
        this.core.tick();
      }
      const messages = this.inbox;
      this.inbox = [];
      for (const message of messages) this.core.step(message);
      if (!this.core.hasReady()) {
        if (this.inbox.length === 0 && this.ticksDue === 0) return;
        continue;
      }
      await this.handleReady(this.core.ready(), before);
    }
  }

  private async handleReady(rd: Ready, before: { role: string; leader: NodeId | null }): Promise<void> {
    for (const notice of rd.notices ?? []) this.logNotice(notice);
    if (this.options.snapshotPolicy.maxLogBytes !== undefined) for (const entry of rd.entries) this.logBytesSinceSnapshot += entryJson(entry).length;
    if (rd.snapshot) await this.handleSnapshotReady(rd, rd.snapshot);
    else await this.handlePipelinedReady(rd);
    this.core.advance(rd);
    const configuration = this.core.currentConfiguration;
    if (configuration !== this.lastConfiguration) {
      this.lastConfiguration = configuration;
      for (const observer of this.configurationObservers) observer(configuration);
    }
    if (rd.committedEntries.length > 0) this.checkLogBounds();
    if (rd.softState) {
      const status = this.core.status();
      if (rd.softState.leader !== before.leader || rd.softState.role !== before.role) {
        this.options.logger.info('raft state changed', { role: rd.softState.role, leader: rd.softState.leader, term: rd.softState.term });
      }
      for (const observer of this.observers) observer(rd.softState, status);
    }
  }

  /** A snapshot (in the background) once the log since the last one is over snapshotPolicy's bounds. */
  private checkLogBounds(): void {
    const { maxLogEntries, maxLogBytes } = this.options.snapshotPolicy;
    if (this.closed || this.snapshotsInFlight > 0) return;
    const entries = this.options.stateMachine.appliedIndex() - this.lastSnapshotIndex;
    const overEntries = maxLogEntries !== undefined && entries >= Math.max(1, Math.floor(maxLogEntries * this.logBoundShare));
    const overBytes = maxLogBytes !== undefined && entries > 0 && this.logBytesSinceSnapshot >= maxLogBytes * this.logBoundShare;
    if (!overEntries && !overBytes) return;
    this.maybeSnapshot(true, 'log size').catch((error: Error) => this.options.logger.error('raft snapshot failed', { error: error.message }));
  }

  private logNotice(notice: RaftNotice): void {
    if (notice.kind === 'follower-lost-log') {
      this.options.logger.warn('raft follower lost its log; sending it the log again', { peerId: notice.peer, acknowledged: notice.acknowledged, holds: notice.holds });
    } else {
      this.options.logger.warn('raft vote withheld: this node lost entries it had acknowledged and has not caught up', { candidate: notice.candidate, term: notice.term, lastIndex: notice.lastIndex, leaderCommit: notice.commitSeen });
    }
  }

  /**
   * The usual round, overlapped: what may leave before this node's write leaves at once, the write starts, the
   * committed entries (all durable here already, see RaftLog.applicable) are applied while it runs, and what
   * depends on the write leaves once it is done. A leader's appends thus reach the followers while the leader
   * writes the same entries, and a write's answer to its client does not wait for the next entries' fsync.
   */
  private async handlePipelinedReady(rd: Ready): Promise<void> {
    const { transport } = this.options;
    const { early, late } = splitByWrite(rd.messages, this.persistedTerm);
    for (const message of coalesceMessages(early)) transport.send(message);
    const writing = this.writeDurableState(rd);
    // Awaited below; a failed apply must not leave its rejection unhandled meanwhile.
    writing?.catch(() => undefined);
    if (rd.committedEntries.length > 0) await this.apply(rd.committedEntries);
    if (writing) await writing;
    for (const message of coalesceMessages(late)) transport.send(message);
  }

  /** A snapshot from the leader replaces the log: it is saved and written before anything else happens. */
  private async handleSnapshotReady(rd: Ready, snapshot: Snapshot): Promise<void> {
    const { store, snapshots, stateMachine, transport } = this.options;
    await snapshots.save(snapshot);
    await store.reset();
    await this.writeDurableState(rd, true);
    for (const message of coalesceMessages(rd.messages)) transport.send(message);
    const hadData = stateMachine.appliedIndex() > 0;
    await stateMachine.restore(snapshot.data, snapshot.meta.index);
    this.settleAppliedWaiters();
    this.lastSnapshotIndex = snapshot.meta.index;
    this.options.logger.warn('restored snapshot from the leader', { index: snapshot.meta.index, term: snapshot.meta.term, hadData });
    this.options.onSnapshotRestored?.({ index: snapshot.meta.index, hadData });
    if (rd.committedEntries.length > 0) await this.apply(rd.committedEntries);
  }

  /**
   * Writes a Ready's entries and hard state (synced), or nothing. Term and vote must be durable before any message
   * that depends on them leaves. A commit index alone need not be: it rides along when entries are written, and is
   * otherwise not written at all (a restarted node learns it again from the leader, and what its model applied
   * counts as committed), which spares every commit-only round a write.
   */
  private writeDurableState(rd: Ready, force = false): Promise<void> | undefined {
    const { hardState } = rd;
    const votingChanged = hardState !== undefined && (hardState.term !== this.persistedTerm || hardState.vote !== this.persistedVote);
    if (rd.entries.length === 0 && !votingChanged && !(force && hardState)) return undefined;
    return this.options.store.persist(rd.entries, hardState, { sync: true }).then(() => {
      if (hardState) {
        this.persistedTerm = hardState.term;
        this.persistedVote = hardState.vote;
      }
    });
  }

  /** Drops the cached JSON of entries applied here and held by every member (see entry-json.ts): nothing sends or
   * writes them again but a new or lagging follower, for which they are made again. */
  private releaseEntryTexts(): void {
    const through = Math.min(this.appliedIndex(), this.core.heldByAll());
    const { log } = this.core;
    for (let index = Math.max(this.textsReleasedThrough + 1, log.firstIndex()); index <= through; index++) {
      const entry = log.entry(index);
      if (entry) releaseEntryJson(entry);
    }
    if (through > this.textsReleasedThrough) this.textsReleasedThrough = through;
  }

  private async apply(entries: readonly Entry[]): Promise<void> {
    const committed: CommittedEntry[] = entries.map((entry) => ({
      index: entry.index,
      term: entry.term,
      // Raft's own entries still advance the applied index; the state machine treats them as no-ops.
      command: entry.type === 'normal' ? (entry.data as LogCommand) : { type: entry.type === 'config' ? 'raft.config' : 'raft.noop' },
    }));
    if (this.options.proposalTracer) for (const entry of entries) this.pending.get(entry.index)?.traced?.committed();
    const results = await this.options.stateMachine.apply(committed);
    this.releaseEntryTexts();
    this.settleAppliedWaiters();
    entries.forEach((entry, i) => {
      const pending = this.pending.get(entry.index);
      if (!pending) return;
      this.pending.delete(entry.index);
      if (pending.term === entry.term) {
        pending.traced?.applied();
        pending.resolve({ index: entry.index, result: results[i]! });
      } else {
        pending.traced?.refused('dropped');
        pending.reject(new ProposalRefusedError('dropped', `raft: the entry proposed at ${entry.index} was replaced by a newer leader's`));
      }
    });
  }
}

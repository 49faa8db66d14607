// A pure, deterministic raft state machine in the style of etcd's raft: the driver steps it with messages and
// ticks, and it hands back, in a Ready, what to persist, what to send and what to apply. It owns no timers, clock,
// disk, sockets or randomness; a seeded generator is injected.
//
// Features: elections with randomised timeouts, pre-vote and check-quorum (with a leader lease that ignores
// disruptive votes); replication with per-follower progress (probe / replicate / snapshot), pipelining with a
// bounded number of appends in flight, bounded entries and bytes per append, fast backtracking by term; commit of
// current-term entries by quorum; snapshots for followers behind the compacted log; voters and non-voters with
// one-server-at-a-time membership changes that take effect as soon as they are in the log; leadership transfer.
import { commandLimits, encodeCommand, type CommandLimits } from './command-encoding.ts';
import { normalEntryWithJson } from './entry-json.ts';
import { Progress } from './progress.ts';
import { RaftLog } from './raft-log.ts';
import {
  ProposalRefused,
  type ConfigChange,
  type Configuration,
  type Entry,
  type HardState,
  type Message,
  type NodeId,
  type Ready,
  type RaftNotice,
  type Role,
  type Snapshot,
  type SnapshotMeta,
  type SoftState,
} from './types.ts';

export interface RaftCoreOptions {
  readonly id: NodeId;
  /** Ticks without hearing from a leader before campaigning (randomised up to twice this). */
  readonly electionTicks: number;
  /** Ticks between leader heartbeats; must be below electionTicks. */
  readonly heartbeatTicks: number;
  /** A seeded generator in [0, 1). */
  readonly random: () => number;
  readonly maxEntriesPerAppend?: number;
  readonly maxBytesPerAppend?: number;
  readonly maxInflight?: number;
  /** What a proposed command's JSON may hold (default: what a peer frame takes, command-encoding.ts). */
  readonly commandLimits?: CommandLimits;
  readonly preVote?: boolean;
  readonly checkQuorum?: boolean;
  /** Durable state from the last run. */
  readonly hardState?: HardState;
  /** The latest snapshot's metadata (the log starts after it). */
  readonly snapshot?: SnapshotMeta;
  readonly entries?: readonly Entry[];
  /** Highest index the state machine has durably applied. */
  readonly applied?: number;
  /** The configuration when neither the log nor a snapshot holds one (a new or legacy single-voter node). */
  readonly bootstrap?: Configuration;
}

/** A config entry's data: the change and the whole configuration it produces. */
export interface ConfigEntryData {
  readonly change: ConfigChange;
  readonly configuration: Configuration;
}

export interface RaftStatus {
  readonly id: NodeId;
  readonly term: number;
  readonly vote: NodeId | null;
  readonly role: Role;
  readonly leader: NodeId | null;
  readonly commit: number;
  readonly applied: number;
  readonly lastIndex: number;
  readonly lastTerm: number;
  readonly firstIndex: number;
  readonly configuration: Configuration;
  readonly transferee: NodeId | null;
  readonly progress: Readonly<Record<NodeId, { match: number; next: number; state: string; recentActive: boolean }>>;
}

export class RaftCore {
  readonly id: NodeId;
  private term = 0;
  private vote: NodeId | null = null;
  private role: Role = 'follower';
  private leader: NodeId | null = null;
  readonly log: RaftLog;
  private configuration: Configuration;
  /** Index of the config entry in effect; 0 when it comes from the snapshot or the bootstrap. */
  private configIndex = 0;
  private readonly bootstrapConfiguration: Configuration;
  private snapshotConfiguration: Configuration | undefined;

  private electionElapsed = 0;
  private heartbeatElapsed = 0;
  private randomizedElectionTimeout = 0;
  /** Elections left that follow leaderLost's short timeouts (see leaderLost). */
  private quickElections = 0;
  private votes = new Map<NodeId, boolean>();
  private progress = new Map<NodeId, Progress>();
  private transferee: NodeId | null = null;
  /** Index of the latest config entry; a new change waits until it is applied. */
  private pendingConfIndex = 0;
  /** The newest snapshot the driver made, sent to followers that need compacted entries. */
  private latestSnapshot: Snapshot | undefined;
  /** A snapshot received from the leader, to be installed by the driver. */
  private pendingInstall: Snapshot | undefined;

  private messages: Message[] = [];
  private notices: RaftNotice[] = [];
  /**
   * Set once a leader told this node it lost entries it had acknowledged (a heartbeat's `refill`, or a commit index
   * beyond its log): the index it must reach again. It may have acknowledged entries a candidate lacks and cast
   * votes it no longer remembers, and its short log would make a stale candidate look up to date, so it grants no
   * vote (nor pre-vote) until its log gets there. A new member is not told so: it held nothing, and votes.
   */
  private catchingUp: { commitSeen: number; withheldInTerm: number } | undefined;
  private prevHardState: HardState;
  private prevSoftState: SoftState;

  private readonly electionTicks: number;
  private readonly heartbeatTicks: number;
  private readonly random: () => number;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly maxInflight: number;
  private readonly commandLimits: CommandLimits;
  private readonly preVote: boolean;
  private readonly checkQuorum: boolean;

  constructor(options: RaftCoreOptions) {
    if (options.heartbeatTicks <= 0 || options.electionTicks <= options.heartbeatTicks) {
      throw new Error('raft: electionTicks must be greater than heartbeatTicks, and both positive');
    }
    this.id = options.id;
    this.electionTicks = options.electionTicks;
    this.heartbeatTicks = options.heartbeatTicks;
    this.random = options.random;
    this.maxEntries = options.maxEntriesPerAppend ?? 64;
    this.maxBytes = options.maxBytesPerAppend ?? 1024 * 1024;
    this.maxInflight = options.maxInflight ?? 256;
    this.commandLimits = options.commandLimits ?? commandLimits;
    this.preVote = options.preVote ?? true;
    this.checkQuorum = options.checkQuorum ?? true;
    this.bootstrapConfiguration = options.bootstrap ?? { voters: [], nonVoters: [] };
    this.snapshotConfiguration = options.snapshot?.configuration;
    this.log = RaftLog.restore(options.snapshot, options.entries ?? [], options.hardState?.commit ?? 0, options.applied ?? 0);
    this.term = options.hardState?.term ?? 0;
    this.vote = options.hardState?.vote ?? null;
    this.configuration = this.configurationFromLog();
    this.pendingConfIndex = this.lastConfigIndex();
    this.resetRandomizedElectionTimeout();
    this.prevHardState = this.hardState();
    this.prevSoftState = this.softState();
  }

  // ---- driver API -------------------------------------------------------------------------------------------

  tick(): void {
    if (this.role === 'leader') this.tickHeartbeat();
    else this.tickElection();
  }

  step(m: Message): void {
    if (m.to !== this.id) return;
    if (m.term > this.term) {
      if (m.type === 'PreVote' || m.type === 'Vote') {
        // The leader lease: while we hear from a leader, a disruptive candidate cannot unseat it (unless the
        // leader itself asked for the election by transferring leadership).
        const inLease = this.checkQuorum && this.leader !== null && this.electionElapsed < this.electionTicks;
        if (!m.transfer && inLease) return;
      }
      if (m.type === 'PreVote') {
        // A pre-vote never changes our term.
      } else if (m.type === 'PreVoteResp' && !m.reject) {
        // A granted pre-vote carries the term we would campaign at; counted below.
      } else if (m.type === 'Append' || m.type === 'Heartbeat' || m.type === 'Snapshot') {
        this.becomeFollower(m.term, m.from);
      } else {
        this.becomeFollower(m.term, null);
      }
    } else if (m.term < this.term) {
      if ((this.checkQuorum || this.preVote) && (m.type === 'Heartbeat' || m.type === 'Append')) {
        // Tell a stale leader about the newer term so it steps down (it may be stuck behind a partition).
        this.send({ type: 'AppendResp', to: m.from, term: this.term, reject: false, index: 0, rejectHint: 0, hintTerm: 0 });
      } else if (m.type === 'PreVote') {
        this.send({ type: 'PreVoteResp', to: m.from, term: this.term, reject: true });
      }
      return;
    }

    if (m.type === 'PreVote' || m.type === 'Vote') {
      this.handleVoteRequest(m);
      return;
    }

    switch (this.role) {
      case 'leader':
        this.stepLeader(m);
        break;
      case 'candidate':
      case 'precandidate':
        this.stepCandidate(m);
        break;
      case 'follower':
        this.stepFollower(m);
        break;
    }
  }

  /**
   * Makes a brand-new node the first member of a new cluster: writes `configuration` as the log's first entry
   * (term 1) and campaigns. Refused once the node has any state: then it is already in a cluster.
   */
  bootstrap(configuration: Configuration): void {
    if (this.term !== 0 || this.log.lastIndex() !== 0 || this.log.snapshotIndex !== 0) throw new Error('raft: this node already has state; it cannot bootstrap a new cluster');
    if (!configuration.voters.includes(this.id)) throw new Error('raft: the bootstrap configuration must make this node a voter');
    this.term = 1;
    this.catchingUp = undefined;
    const data: ConfigEntryData = { change: { kind: 'add', id: this.id, voter: true, ...(configuration.addresses?.[this.id] ? { address: configuration.addresses[this.id] } : {}) }, configuration };
    this.log.append([{ index: 1, term: 1, type: 'config', data }]);
    this.refreshConfiguration();
    this.campaign();
  }

  /** True while the node has no configuration and no log: it waits to be bootstrapped or added to a cluster. */
  isUninitialized(): boolean {
    return this.configuration.voters.length === 0 && this.configuration.nonVoters.length === 0 && this.log.lastIndex() === 0 && this.term === 0;
  }

  /** Starts an election now (a lone voter need not wait out an election timeout at start-up). */
  campaign(): void {
    if (this.role !== 'leader' && this.isVoter(this.id)) this.campaignFor(this.preVote ? 'pre' : 'real');
  }

  /** Appends a command; returns its index and term. Throws ProposalRefused when this node cannot. */
  propose(data: unknown): { index: number; term: number } {
    this.checkCanPropose();
    // Encoded here, once: the text is the entry's JSON for the log and the followers (command-encoding.ts).
    const encoded = encodeCommand(data, this.commandLimits);
    if (!encoded.ok) throw new ProposalRefused('invalid-command', this.leader, encoded.problem);
    const entry = normalEntryWithJson(this.log.lastIndex() + 1, this.term, data, encoded.json);
    this.appendAsLeader([entry]);
    return { index: entry.index, term: entry.term };
  }

  /** Proposes one membership change. It takes effect on every node as soon as the entry is in its log. */
  proposeConfigChange(change: ConfigChange): { index: number; term: number } {
    this.checkCanPropose();
    if (this.pendingConfIndex > this.log.applied) throw new ProposalRefused('config-change-pending', this.leader);
    const configuration = applyChange(this.configuration, change);
    if (configuration.voters.length === 0) throw new Error('raft: a configuration needs at least one voter');
    const data: ConfigEntryData = { change, configuration };
    const entry: Entry = { index: this.log.lastIndex() + 1, term: this.term, type: 'config', data };
    this.appendAsLeader([entry]);
    return { index: entry.index, term: entry.term };
  }

  /**
   * The driver saw every connection to `id` close: its process died or the network between us failed. When `id` is
   * our leader, forget it and stand for election after a short random delay (up to two heartbeat intervals) instead
   * of a whole election timeout; should the survivors split the vote, the next two elections also wait one to three
   * heartbeat intervals, not an election timeout (hearing from a leader ends that). This cannot disrupt a live
   * leader: the pre-vote needs a majority that has also lost it, and the others' leases still hold while they hear
   * from it.
   */
  leaderLost(id: NodeId): void {
    if (this.role !== 'follower' || this.leader !== id || !this.isVoter(this.id)) return;
    this.leader = null;
    this.electionElapsed = 0;
    this.randomizedElectionTimeout = 1 + Math.floor(this.random() * this.heartbeatTicks * 2);
    this.quickElections = quickElectionsAfterLeaderLost;
  }

  /** Hands leadership to `target`, or to the most caught-up voter when none is named. */
  transferLeadership(target?: NodeId): NodeId {
    if (this.role !== 'leader') throw new ProposalRefused('not-leader', this.leader);
    const chosen = target ?? this.bestTransferTarget();
    if (chosen === undefined) throw new Error('raft: no other voter to transfer leadership to');
    if (chosen === this.id) return chosen;
    if (!this.configuration.voters.includes(chosen)) throw new Error(`raft: ${chosen} is not a voter`);
    this.transferee = chosen;
    // The transfer must finish within an election timeout.
    this.electionElapsed = 0;
    const pr = this.progress.get(chosen)!;
    if (pr.match === this.log.lastIndex()) this.send({ type: 'TimeoutNow', to: chosen, term: this.term });
    else this.sendAppend(chosen);
    return chosen;
  }

  /** The driver made a snapshot of the state machine at meta.index (<= applied). */
  snapshotTaken(snapshot: Snapshot): void {
    if (snapshot.meta.index > this.log.applied) throw new Error(`raft: snapshot at ${snapshot.meta.index} is beyond applied ${this.log.applied}`);
    if (!this.latestSnapshot || snapshot.meta.index > this.latestSnapshot.meta.index) this.latestSnapshot = snapshot;
  }

  /** Drops log entries up to `index`; they must be covered by the latest snapshot. */
  compact(index: number): void {
    if (!this.latestSnapshot || index > this.latestSnapshot.meta.index) throw new Error(`raft: cannot compact to ${index} without a snapshot covering it`);
    if (index <= this.log.snapshotIndex) return;
    const lastConfig = this.lastConfigEntryAtOrBefore(index);
    if (lastConfig) this.snapshotConfiguration = (lastConfig.data as ConfigEntryData).configuration;
    this.log.compact(index);
  }

  hasReady(): boolean {
    return (
      this.messages.length > 0 ||
      this.notices.length > 0 ||
      this.pendingInstall !== undefined ||
      this.log.unstableEntries().length > 0 ||
      this.log.applicable() > this.log.applied ||
      !sameHardState(this.hardState(), this.prevHardState) ||
      !sameSoftState(this.softState(), this.prevSoftState)
    );
  }

  ready(): Ready {
    const hardState = this.hardState();
    const softState = this.softState();
    const rd: Ready = {
      ...(sameSoftState(softState, this.prevSoftState) ? {} : { softState }),
      ...(sameHardState(hardState, this.prevHardState) ? {} : { hardState }),
      ...(this.pendingInstall ? { snapshot: this.pendingInstall } : {}),
      entries: this.log.unstableEntries(),
      messages: this.messages,
      committedEntries: this.log.nextCommitted(),
      ...(this.notices.length > 0 ? { notices: this.notices } : {}),
    };
    this.messages = [];
    this.notices = [];
    return rd;
  }

  advance(rd: Ready): void {
    if (rd.hardState) this.prevHardState = rd.hardState;
    if (rd.softState) this.prevSoftState = rd.softState;
    if (rd.snapshot && this.pendingInstall === rd.snapshot) this.pendingInstall = undefined;
    const lastEntry = rd.entries[rd.entries.length - 1];
    if (lastEntry) {
      this.log.stableTo(lastEntry.index, lastEntry.term);
      // The leader's own copy counts toward commit only now that it is durable; tell the followers if it moved.
      if (this.role === 'leader' && this.maybeCommit()) this.broadcastAppend();
    }
    const lastCommitted = rd.committedEntries[rd.committedEntries.length - 1];
    if (lastCommitted) this.log.appliedTo(lastCommitted.index);
    // A leader that removed itself steps down once the change is applied.
    if (this.role === 'leader' && !this.isVoter(this.id) && this.log.applied >= this.pendingConfIndex) this.becomeFollower(this.term, null);
  }

  /** This node's role, without building a whole status (the hot path asks on every write). */
  get currentRole(): Role {
    return this.role;
  }

  get currentTerm(): number {
    return this.term;
  }

  get currentLeader(): NodeId | null {
    return this.leader;
  }

  get currentConfiguration(): Configuration {
    return this.configuration;
  }

  status(): RaftStatus {
    const progress: Record<NodeId, { match: number; next: number; state: string; recentActive: boolean }> = {};
    for (const [id, pr] of this.progress) progress[id] = { match: pr.match, next: pr.next, state: pr.state, recentActive: pr.recentActive };
    return {
      id: this.id,
      term: this.term,
      vote: this.vote,
      role: this.role,
      leader: this.leader,
      commit: this.log.committed,
      applied: this.log.applied,
      lastIndex: this.log.lastIndex(),
      lastTerm: this.log.lastTerm(),
      firstIndex: this.log.firstIndex(),
      configuration: this.configuration,
      transferee: this.transferee,
      progress,
    };
  }

  // ---- roles -------------------------------------------------------------------------------------------------

  private becomeFollower(term: number, leader: NodeId | null): void {
    if (term > this.term) {
      this.term = term;
      this.vote = null;
    }
    this.role = 'follower';
    this.leader = leader;
    if (leader !== null) this.quickElections = 0;
    this.resetTimers();
    this.transferee = null;
    this.progress.clear();
  }

  private becomePreCandidate(): void {
    // Pre-vote leaves term and vote untouched, so a node cut off from the cluster cannot inflate the term.
    this.role = 'precandidate';
    this.leader = null;
    this.votes = new Map();
    this.resetTimers();
  }

  private becomeCandidate(): void {
    this.term += 1;
    this.vote = this.id;
    this.role = 'candidate';
    this.leader = null;
    this.votes = new Map();
    this.resetTimers();
  }

  private becomeLeader(): void {
    this.quickElections = 0;
    this.role = 'leader';
    this.leader = this.id;
    this.transferee = null;
    this.resetTimers();
    this.progress.clear();
    const next = this.log.lastIndex() + 1;
    for (const id of this.members()) {
      if (id === this.id) continue;
      const pr = new Progress(next, this.maxInflight);
      pr.recentActive = true;
      this.progress.set(id, pr);
    }
    // No membership change until entries of this term are committed (the new leader's no-op).
    this.pendingConfIndex = this.log.lastIndex() + 1;
    this.appendAsLeader([{ index: this.log.lastIndex() + 1, term: this.term, type: 'noop', data: null }]);
  }

  private campaignFor(kind: 'pre' | 'real', transfer = false): void {
    if (kind === 'pre') this.becomePreCandidate();
    else this.becomeCandidate();
    if (this.quickElections > 0) {
      // After leaderLost, the survivors campaign within a few ticks of each other and can split the vote; the retry
      // then waits one to three heartbeat intervals instead of a whole election timeout. Bounded, so a node cut off
      // from everyone goes back to the usual pace (its pre-votes never raise the term either way).
      this.randomizedElectionTimeout = this.heartbeatTicks + Math.floor(this.random() * this.heartbeatTicks * 2);
      if (kind === 'pre' || !this.preVote) this.quickElections--;
    }
    const term = kind === 'pre' ? this.term + 1 : this.term;
    this.votes.set(this.id, true);
    if (this.tally() === 'won') {
      if (kind === 'pre') this.campaignFor('real');
      else this.becomeLeader();
      return;
    }
    for (const id of this.configuration.voters) {
      if (id === this.id) continue;
      this.send({
        type: kind === 'pre' ? 'PreVote' : 'Vote',
        to: id,
        term,
        lastIndex: this.log.lastIndex(),
        lastTerm: this.log.lastTerm(),
        ...(transfer ? { transfer: true } : {}),
      });
    }
  }

  // ---- ticks -------------------------------------------------------------------------------------------------

  private tickElection(): void {
    this.electionElapsed++;
    if (this.isVoter(this.id) && this.electionElapsed >= this.randomizedElectionTimeout) {
      this.electionElapsed = 0;
      this.campaignFor(this.preVote ? 'pre' : 'real');
    }
  }

  private tickHeartbeat(): void {
    this.heartbeatElapsed++;
    this.electionElapsed++;
    for (const pr of this.progress.values()) pr.stateTicks++;
    if (this.electionElapsed >= this.electionTicks) {
      this.electionElapsed = 0;
      if (this.checkQuorum && !this.quorumActive()) {
        this.becomeFollower(this.term, null);
        return;
      }
      // A transfer that has not finished within an election timeout is abandoned.
      this.transferee = null;
    }
    if (this.heartbeatElapsed >= this.heartbeatTicks) {
      this.heartbeatElapsed = 0;
      for (const id of this.progress.keys()) this.sendHeartbeat(id);
    }
  }

  // ---- message handling --------------------------------------------------------------------------------------

  private handleVoteRequest(m: Extract<Message, { type: 'PreVote' | 'Vote' }>): void {
    const responseType = m.type === 'PreVote' ? 'PreVoteResp' : 'VoteResp';
    const canVote =
      this.vote === m.from ||
      (this.vote === null && this.leader === null) ||
      (m.type === 'PreVote' && m.term > this.term);
    // Whether the candidate is a voter in our configuration does not matter (thesis §4.1: servers answer without
    // consulting their configuration): ours may be older than the one that made it a voter, and refusing it then
    // left a cluster with no electable server (found by the simulator). Removed servers cannot disrupt: the pre-vote,
    // the leader lease and the up-to-date check hold them off.
    if (this.catchingUp !== undefined) {
      this.withholdVote(m.from);
      this.send({ type: responseType, to: m.from, term: this.term, reject: true });
      return;
    }
    if (canVote && this.log.isUpToDate(m.lastIndex, m.lastTerm)) {
      this.send({ type: responseType, to: m.from, term: m.term, reject: false });
      if (m.type === 'Vote') {
        this.electionElapsed = 0;
        this.vote = m.from;
      }
    } else {
      this.send({ type: responseType, to: m.from, term: this.term, reject: true });
    }
  }

  private stepLeader(m: Message): void {
    const pr = this.progress.get(m.from);
    if (!pr) return;
    switch (m.type) {
      case 'AppendResp': {
        pr.recentActive = true;
        if (m.reject && m.lost === true && m.rejectHint < pr.match && pr.state !== 'snapshot') {
          // It no longer holds what it acknowledged: its disk was lost. (Only a heartbeat's answer says so: an append's
          // rejection below match may be a stale one from before the acknowledgement, and is ignored as before.)
          this.notices.push({ kind: 'follower-lost-log', peer: m.from, acknowledged: pr.match, holds: m.rejectHint });
          pr.lostEntriesAfter(m.rejectHint, this.log.committed);
          // The heartbeat tells it to withhold its vote until refilled; the append starts the refill.
          this.sendHeartbeat(m.from);
          this.sendAppend(m.from);
          return;
        }
        if (m.reject) {
          const retryAt = m.hintTerm > 0 ? this.log.findConflictByTerm(m.rejectHint, m.hintTerm) : m.rejectHint;
          if (pr.maybeDecrTo(m.index, retryAt)) {
            if (pr.state === 'replicate') pr.becomeProbe();
            this.sendAppend(m.from);
          }
          return;
        }
        const wasPaused = pr.isPaused();
        const updated = pr.maybeUpdate(m.index);
        if (pr.state === 'snapshot' && pr.match >= pr.pendingSnapshot) {
          // The follower has the snapshot: replicate from just after it.
          pr.becomeProbe();
          pr.becomeReplicate();
        } else if (updated && pr.state === 'probe') {
          pr.becomeReplicate();
        }
        if (updated && this.maybeCommit()) this.broadcastAppend();
        else if (wasPaused) this.sendAppend(m.from);
        // Keep the pipeline full.
        while (!pr.isPaused() && pr.next <= this.log.lastIndex() && this.sendAppend(m.from));
        if (m.from === this.transferee && pr.match === this.log.lastIndex()) {
          this.send({ type: 'TimeoutNow', to: m.from, term: this.term });
        }
        return;
      }
      case 'HeartbeatResp': {
        pr.recentActive = true;
        pr.probeSent = false;
        pr.freeFirstOne();
        // A snapshot that has been in flight for an election timeout is presumed lost: probe again.
        if (pr.state === 'snapshot' && pr.stateTicks >= this.electionTicks) pr.becomeProbe();
        if (pr.match < this.log.lastIndex()) this.sendAppend(m.from);
        return;
      }
      default:
        return;
    }
  }

  private stepCandidate(m: Message): void {
    switch (m.type) {
      case 'Append':
      case 'Heartbeat':
      case 'Snapshot':
        this.becomeFollower(m.term, m.from);
        this.stepFollower(m);
        return;
      case 'PreVoteResp':
      case 'VoteResp': {
        if ((m.type === 'PreVoteResp') !== (this.role === 'precandidate')) return;
        if (!this.configuration.voters.includes(m.from)) return;
        if (!this.votes.has(m.from)) this.votes.set(m.from, !m.reject);
        const result = this.tally();
        if (result === 'won') {
          if (this.role === 'precandidate') this.campaignFor('real');
          else this.becomeLeader();
        } else if (result === 'lost') {
          this.becomeFollower(this.term, null);
        }
        return;
      }
      default:
        return;
    }
  }

  private stepFollower(m: Message): void {
    switch (m.type) {
      case 'Append':
        this.heardFromLeader();
        this.leader = m.from;
        this.handleAppend(m);
        this.noteLeaderCommit(m.commit);
        return;
      case 'Heartbeat':
        this.heardFromLeader();
        this.leader = m.from;
        this.log.commitTo(m.commit);
        // Told of a loss (by the leader, or by a commit index beyond what we hold, which we must have acknowledged).
        if (Math.max(m.refill ?? 0, m.commit) > this.log.lastIndex()) this.catchingUp ??= { commitSeen: 0, withheldInTerm: 0 };
        this.noteLeaderCommit(Math.max(m.refill ?? 0, m.commit));
        this.send({ type: 'HeartbeatResp', to: m.from, term: this.term });
        if (this.log.lastIndex() < m.commit) {
          // A heartbeat's commit never exceeds what we acknowledged, so we lost entries (a wiped disk): say what we
          // hold, so that an idle leader sends them again rather than waiting for its next write.
          const hint = this.log.lastIndex();
          this.send({ type: 'AppendResp', to: m.from, term: this.term, reject: true, index: m.commit, rejectHint: hint, hintTerm: this.log.term(hint) ?? 0, lost: true });
        }
        return;
      case 'Snapshot':
        this.heardFromLeader();
        this.leader = m.from;
        this.handleSnapshot(m);
        this.noteLeaderCommit(m.snapshot.meta.index);
        return;
      case 'TimeoutNow':
        // The leader asked us to take over: campaign at once, skipping pre-vote and the lease.
        if (this.isVoter(this.id)) this.campaignFor('real', true);
        return;
      default:
        return;
    }
  }

  private handleAppend(m: Extract<Message, { type: 'Append' }>): void {
    if (m.prevIndex < this.log.committed) {
      this.send({ type: 'AppendResp', to: m.from, term: this.term, reject: false, index: this.log.committed, rejectHint: 0, hintTerm: 0 });
      return;
    }
    if (this.log.matchTerm(m.prevIndex, m.prevTerm)) {
      this.log.truncatedFrom = Infinity;
      const lastNew = this.log.maybeAppend(m.prevIndex, m.entries);
      // The configuration in effect is the newest one in the log: re-read it when one arrived or was cut away.
      if (m.entries.some((entry) => entry.type === 'config') || this.log.truncatedFrom <= this.configIndex) this.refreshConfiguration();
      this.log.commitTo(Math.min(m.commit, lastNew));
      this.send({ type: 'AppendResp', to: m.from, term: this.term, reject: false, index: lastNew, rejectHint: 0, hintTerm: 0 });
      return;
    }
    const hint = this.log.findConflictByTerm(Math.min(m.prevIndex, this.log.lastIndex()), m.prevTerm);
    this.send({ type: 'AppendResp', to: m.from, term: this.term, reject: true, index: m.prevIndex, rejectHint: hint, hintTerm: this.log.term(hint) ?? 0 });
  }

  private handleSnapshot(m: Extract<Message, { type: 'Snapshot' }>): void {
    const { meta } = m.snapshot;
    if (meta.index <= this.log.committed) {
      this.send({ type: 'AppendResp', to: m.from, term: this.term, reject: false, index: this.log.committed, rejectHint: 0, hintTerm: 0 });
      return;
    }
    if (this.log.matchTerm(meta.index, meta.term)) {
      // We already hold the snapshot's last entry: just commit up to it.
      this.log.commitTo(meta.index);
    } else {
      this.log.restoreSnapshot(m.snapshot);
      this.snapshotConfiguration = meta.configuration;
      this.latestSnapshot = m.snapshot;
      this.pendingInstall = m.snapshot;
      this.refreshConfiguration();
    }
    // Report only what is known to match the leader: the committed prefix, never a possibly conflicting tail.
    this.send({ type: 'AppendResp', to: m.from, term: this.term, reject: false, index: this.log.committed, rejectHint: 0, hintTerm: 0 });
  }

  // ---- replication -------------------------------------------------------------------------------------------

  private appendAsLeader(entries: Entry[]): void {
    this.log.append(entries);
    for (const entry of entries) {
      if (entry.type === 'config') {
        this.pendingConfIndex = entry.index;
        this.refreshConfiguration();
      }
    }
    if (this.maybeCommit()) {
      // Commit moved (a one-voter cluster): nothing else to do before broadcasting.
    }
    this.broadcastAppend();
  }

  private broadcastAppend(): void {
    for (const id of this.progress.keys()) this.sendAppend(id);
  }

  /** Sends the next append (or snapshot) to `to`; false when nothing could be sent. */
  private sendAppend(to: NodeId): boolean {
    const pr = this.progress.get(to);
    if (!pr || pr.isPaused()) return false;
    const prevIndex = pr.next - 1;
    const prevTerm = this.log.term(prevIndex);
    if (prevTerm === undefined) return this.sendSnapshot(to, pr);
    const entries = this.log.slice(pr.next, this.log.lastIndex(), this.maxEntries, this.maxBytes);
    if (entries.length === 0 && pr.state === 'replicate' && prevIndex === this.log.lastIndex() && pr.match === prevIndex) {
      // Fully caught up: only the commit index could be news, and the caller decides about that.
      this.send({ type: 'Append', to, term: this.term, prevIndex, prevTerm, entries, commit: this.log.committed });
      return false;
    }
    this.send({ type: 'Append', to, term: this.term, prevIndex, prevTerm, entries, commit: this.log.committed });
    pr.sentEntries(entries.length > 0 ? entries[entries.length - 1]!.index : prevIndex, entries.length);
    return entries.length > 0;
  }

  private sendSnapshot(to: NodeId, pr: Progress): boolean {
    const snapshot = this.latestSnapshot;
    if (!snapshot) return false;
    this.send({ type: 'Snapshot', to, term: this.term, snapshot });
    pr.becomeSnapshot(snapshot.meta.index);
    return false;
  }

  private sendHeartbeat(to: NodeId): void {
    const pr = this.progress.get(to)!;
    if (pr.refillTo > 0 && pr.match >= pr.refillTo) pr.refillTo = 0;
    // Never tell a follower to commit past what it is known to hold.
    this.send({ type: 'Heartbeat', to, term: this.term, commit: Math.min(pr.match, this.log.committed), ...(pr.refillTo > 0 ? { refill: pr.refillTo } : {}) });
  }

  /** The highest index every member is known to hold: on a leader the lowest match among the members (and its own
   * written log); elsewhere the end of the log, as no one here sends entries on. */
  heldByAll(): number {
    if (this.role !== 'leader') return this.log.lastIndex();
    let lowest = this.log.stableIndex;
    for (const [id, pr] of this.progress) if (id !== this.id && pr.match < lowest) lowest = pr.match;
    return lowest;
  }

  private maybeCommit(): boolean {
    const voters = this.configuration.voters;
    if (voters.length === 0) return false;
    // The leader counts only what it has persisted: its appends leave before its own write (§10.2.1 of the raft
    // thesis), so a commit never rests on a copy that a crash of the leader could still lose.
    const matches = voters.map((id) => (id === this.id ? this.log.stableIndex : (this.progress.get(id)?.match ?? 0))).sort((a, b) => b - a);
    const quorumIndex = matches[Math.floor(voters.length / 2)]!;
    // Only entries of the current term are committed by counting replicas (§5.4.2).
    if (quorumIndex > this.log.committed && this.log.term(quorumIndex) === this.term) return this.log.commitTo(quorumIndex);
    return false;
  }

  // ---- membership --------------------------------------------------------------------------------------------

  private refreshConfiguration(): void {
    this.configuration = this.configurationFromLog();
    if (this.role !== 'leader') return;
    const next = this.log.lastIndex() + 1;
    for (const id of this.members()) {
      if (id !== this.id && !this.progress.has(id)) {
        const pr = new Progress(next, this.maxInflight);
        pr.recentActive = true;
        this.progress.set(id, pr);
      }
    }
    for (const id of [...this.progress.keys()]) if (!this.members().includes(id)) this.progress.delete(id);
    if (this.transferee && !this.configuration.voters.includes(this.transferee)) this.transferee = null;
  }

  private configurationFromLog(): Configuration {
    this.configIndex = this.lastConfigIndex();
    const entry = this.log.entry(this.configIndex);
    if (entry) return (entry.data as ConfigEntryData).configuration;
    return this.snapshotConfiguration ?? this.bootstrapConfiguration;
  }

  private lastConfigIndex(): number {
    for (let index = this.log.lastIndex(); index > this.log.snapshotIndex; index--) if (this.log.entry(index)!.type === 'config') return index;
    return 0;
  }

  /** The configuration in effect at `index` (for the metadata of a snapshot taken there). */
  configurationAt(index: number): Configuration {
    const entry = this.lastConfigEntryAtOrBefore(Math.min(index, this.log.lastIndex()));
    if (entry) return (entry.data as ConfigEntryData).configuration;
    return this.snapshotConfiguration ?? this.bootstrapConfiguration;
  }

  private lastConfigEntryAtOrBefore(index: number): Entry | undefined {
    for (let probe = index; probe > this.log.snapshotIndex; probe--) {
      const entry = this.log.entry(probe)!;
      if (entry.type === 'config') return entry;
    }
    return undefined;
  }

  private members(): NodeId[] {
    return [...this.configuration.voters, ...this.configuration.nonVoters];
  }

  private isVoter(id: NodeId): boolean {
    return this.configuration.voters.includes(id);
  }

  // ---- helpers -----------------------------------------------------------------------------------------------

  private checkCanPropose(): void {
    if (this.role !== 'leader') throw new ProposalRefused('not-leader', this.leader);
    if (this.transferee !== null) throw new ProposalRefused('transfer-in-progress', this.leader);
    if (!this.isVoter(this.id)) throw new ProposalRefused('not-a-member', this.leader);
  }

  private bestTransferTarget(): NodeId | undefined {
    let best: NodeId | undefined;
    let bestMatch = -1;
    for (const id of this.configuration.voters) {
      if (id === this.id) continue;
      const match = this.progress.get(id)?.match ?? 0;
      if (match > bestMatch) {
        best = id;
        bestMatch = match;
      }
    }
    return best;
  }

  private tally(): 'won' | 'lost' | 'pending' {
    const voters = this.configuration.voters;
    const quorum = Math.floor(voters.length / 2) + 1;
    let granted = 0;
    let rejected = 0;
    for (const id of voters) {
      const vote = this.votes.get(id);
      if (vote === true) granted++;
      else if (vote === false) rejected++;
    }
    if (granted >= quorum) return 'won';
    if (rejected > voters.length - quorum) return 'lost';
    return 'pending';
  }

  private quorumActive(): boolean {
    const voters = this.configuration.voters;
    let active = 0;
    for (const id of voters) {
      if (id === this.id) active++;
      else if (this.progress.get(id)?.recentActive) active++;
    }
    for (const pr of this.progress.values()) pr.recentActive = false;
    return active >= Math.floor(voters.length / 2) + 1;
  }

  /** A node catching up (see catchingUp) votes again once its log holds what its leader said was committed. */
  private noteLeaderCommit(commit: number): void {
    const catchingUp = this.catchingUp;
    if (catchingUp === undefined) return;
    if (commit > catchingUp.commitSeen) catchingUp.commitSeen = commit;
    if (catchingUp.commitSeen > 0 && this.log.lastIndex() >= catchingUp.commitSeen) this.catchingUp = undefined;
  }

  private withholdVote(candidate: NodeId): void {
    const catchingUp = this.catchingUp!;
    if (catchingUp.withheldInTerm === this.term) return;
    catchingUp.withheldInTerm = this.term;
    this.notices.push({ kind: 'vote-withheld', candidate, term: this.term, lastIndex: this.log.lastIndex(), commitSeen: catchingUp.commitSeen });
  }

  /** A message from the leader restarts the election timer, and undoes a shortened one from leaderLost. */
  private heardFromLeader(): void {
    this.quickElections = 0;
    this.electionElapsed = 0;
    if (this.randomizedElectionTimeout < this.electionTicks) this.resetRandomizedElectionTimeout();
  }

  private resetTimers(): void {
    this.electionElapsed = 0;
    this.heartbeatElapsed = 0;
    this.resetRandomizedElectionTimeout();
  }

  private resetRandomizedElectionTimeout(): void {
    this.randomizedElectionTimeout = this.electionTicks + Math.floor(this.random() * this.electionTicks);
  }

  private send(message: Outgoing): void {
    this.messages.push({ ...message, from: this.id } as Message);
  }

  private hardState(): HardState {
    return { term: this.term, vote: this.vote, commit: this.log.committed };
  }

  private softState(): SoftState {
    return { role: this.role, leader: this.leader, term: this.term };
  }
}

/** A message before the core stamps its sender. */
type Outgoing = Message extends infer M ? (M extends Message ? Omit<M, 'from'> : never) : never;

export function applyChange(configuration: Configuration, change: ConfigChange): Configuration {
  const voters = configuration.voters.filter((id) => id !== change.id);
  const nonVoters = configuration.nonVoters.filter((id) => id !== change.id);
  const addresses: Record<NodeId, string> = { ...(configuration.addresses ?? {}) };
  delete addresses[change.id];
  if (change.kind === 'add') {
    (change.voter ? voters : nonVoters).push(change.id);
    const address = change.address ?? configuration.addresses?.[change.id];
    if (address) addresses[change.id] = address;
  }
  return Object.keys(addresses).length > 0 ? { voters, nonVoters, addresses } : { voters, nonVoters };
}

/** Elections (pre-vote rounds) after leaderLost that keep its short timeouts before the usual pace resumes. */
const quickElectionsAfterLeaderLost = 3;

const sameHardState = (a: HardState, b: HardState) => a.term === b.term && a.vote === b.vote && a.commit === b.commit;
const sameSoftState = (a: SoftState, b: SoftState) => a.role === b.role && a.leader === b.leader && a.term === b.term;

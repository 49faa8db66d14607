// Watches the cluster the way an operator needs it watched: leader present or not (and the leaderless warning
// after warnWhenLeaderlessFor), this node gaining or losing leadership, peers connecting and disconnecting,
// membership changes, version agreement (read-only mode on any mismatch among connected members) and the
// preferred-leader hand-over. Each transition writes its documented log line and a `cluster` event carrying the
// raft index at which it happened.
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { Configuration, NodeId } from '../raft/core/types.ts';
import type { ClusterRaft } from '../raft/node/raft-node.ts';
import type { PeerChannels, PeerHello } from '../raft/transport/peer-network.ts';

export interface ClusterMonitorOptions {
  readonly self: PeerHello;
  readonly warnWhenLeaderlessForMs: number;
  /** How long a non-preferred leader waits before handing over (about 10 s). */
  readonly preferredTransferDelayMs: number;
  /** How long to wait for one hand-over attempt before trying the next preferred peer. */
  readonly transferAttemptMs: number;
}

export type ClusterEventSink = (event: Record<string, unknown>) => void;

export class ClusterMonitor {
  private leader: NodeId | null = null;
  private isLeader = false;
  private leaderlessSince: number | undefined;
  private leaderlessTimer: NodeJS.Timeout | undefined;
  private preferredTimer: NodeJS.Timeout | undefined;
  private readOnlyState = false;
  private members: Configuration | undefined;
  private closed = false;

  constructor(
    private readonly node: ClusterRaft,
    private readonly peers: PeerChannels,
    private readonly options: ClusterMonitorOptions,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly emit: ClusterEventSink,
  ) {}

  start(): void {
    const status = this.node.status();
    this.leader = status.leader;
    this.isLeader = status.role === 'leader';
    if (!this.leader && !this.node.isUninitialized()) this.startLeaderless();
    this.node.observe((state) => this.roleChanged(state.role === 'leader', state.leader));
    this.node.observeConfiguration((configuration) => this.configurationChanged(configuration));
    this.peers.onPeerEvent((event, peer) => {
      this.event(event === 'connected' ? 'peer.connected' : 'peer.disconnected', { peers: [peerView(peer)] });
      this.checkVersions();
    });
    this.checkVersions();
  }

  get readOnly(): boolean {
    return this.readOnlyState;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.leaderlessTimer);
    clearTimeout(this.preferredTimer);
  }

  // ---- leadership --------------------------------------------------------------------------------------------

  private roleChanged(isLeader: boolean, leader: NodeId | null): void {
    if (isLeader !== this.isLeader) {
      this.isLeader = isLeader;
      this.event(isLeader ? 'leadership.gained' : 'leadership.lost', {});
      if (isLeader) this.considerPreferredHandOver();
      else clearTimeout(this.preferredTimer);
    }
    if (leader !== this.leader) {
      const had = this.leader !== null;
      this.leader = leader;
      if (leader && !had) {
        this.stopLeaderless();
        this.event('state.has_leader', { leaderId: leader });
      } else if (!leader && had) {
        this.event('state.is_leaderless', {});
        this.startLeaderless();
      }
    }
  }

  private startLeaderless(): void {
    this.leaderlessSince = this.clock.now();
    clearTimeout(this.leaderlessTimer);
    const warn = () => {
      if (this.closed || this.leader !== null || this.leaderlessSince === undefined) return;
      this.logger.warn('cluster running without leader for longer than configured threshold', {
        leaderlessForMs: this.clock.now() - this.leaderlessSince,
        warnWhenLeaderlessForMs: this.options.warnWhenLeaderlessForMs,
      });
      this.leaderlessTimer = setTimeout(warn, this.options.warnWhenLeaderlessForMs);
      this.leaderlessTimer.unref();
    };
    this.leaderlessTimer = setTimeout(warn, this.options.warnWhenLeaderlessForMs);
    this.leaderlessTimer.unref();
  }

  private stopLeaderless(): void {
    this.leaderlessSince = undefined;
    clearTimeout(this.leaderlessTimer);
  }

  /** A non-preferred voter that wins hands leadership to a connected preferred peer about ten seconds later. */
  private considerPreferredHandOver(): void {
    if (this.options.self.preferred) return;
    this.logger.info('non-preferred controller gained leadership', { term: this.node.status().term });
    clearTimeout(this.preferredTimer);
    this.preferredTimer = setTimeout(() => void this.handOver(), this.options.preferredTransferDelayMs);
    this.preferredTimer.unref();
  }

  private async handOver(): Promise<void> {
    if (this.closed || !this.node.isLeader()) return;
    const { voters } = this.node.status().configuration;
    const candidates = this.peers.peers().filter((peer) => peer.preferred && peer.connected && voters.includes(peer.id));
    if (candidates.length === 0) {
      this.logger.info('no preferred leader peers are connected, retaining leadership');
      return;
    }
    for (const candidate of candidates) {
      if (this.closed || !this.node.isLeader()) return;
      this.logger.info('transferring leadership to preferred leader', { to: candidate.id });
      try {
        await this.node.transferLeadership(candidate.id);
      } catch (error) {
        this.logger.warn('leadership transfer to preferred leader failed, will try next', { to: candidate.id, error: (error as Error).message });
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, this.options.transferAttemptMs).unref());
      if (!this.node.isLeader()) return;
      this.logger.warn('leadership transfer to preferred leader failed, will try next', { to: candidate.id });
    }
    if (this.node.isLeader()) this.logger.info('no preferred leader peers are connected, retaining leadership');
  }

  // ---- membership and versions -------------------------------------------------------------------------------

  private configurationChanged(configuration: Configuration): void {
    const previous = this.members;
    this.members = configuration;
    if (previous && !sameMembers(previous, configuration)) {
      const peers = [...configuration.voters, ...configuration.nonVoters].map((id) => ({ id, addr: configuration.addresses?.[id] ?? '', apiAddresses: null, isPreferredLeader: false }));
      this.event('members.changed', { peers });
    }
    this.checkVersions();
  }

  /** Read-only while any connected member reports a version other than ours (an exact string comparison). */
  private checkVersions(): void {
    const members = this.members ?? this.node.status().configuration;
    const memberIds = new Set([...members.voters, ...members.nonVoters]);
    const mismatched = this.peers.peers().filter((peer) => peer.connected && memberIds.has(peer.id) && peer.version !== this.options.self.version);
    const readOnly = mismatched.length > 0;
    if (readOnly === this.readOnlyState) return;
    this.readOnlyState = readOnly;
    const versions = Object.fromEntries([[this.options.self.id, this.options.self.version], ...mismatched.map((peer) => [peer.id, peer.version])]);
    if (readOnly) {
      this.logger.warn('entering read-only mode: different versions detected in cluster', { versions });
      this.event('state.ro', {});
    } else {
      this.logger.info('exiting read-only mode: all connected members report the same version', { version: this.options.self.version });
      this.event('state.rw', {});
    }
  }

  private event(eventType: string, fields: Record<string, unknown>): void {
    const status = this.node.status();
    this.emit({
      namespace: 'cluster',
      event_src_id: this.options.self.id,
      timestamp: new Date(this.clock.now()).toISOString(),
      eventType,
      index: status.commit,
      raftIndex: status.commit,
      ...fields,
    });
  }
}

function peerView(peer: PeerHello) {
  return { id: peer.id, addr: peer.address, version: peer.version, apiAddresses: null, isPreferredLeader: peer.preferred };
}

function sameMembers(a: Configuration, b: Configuration): boolean {
  const key = (configuration: Configuration) => `${[...configuration.voters].sort().join(',')}|${[...configuration.nonVoters].sort().join(',')}`;
  return key(a) === key(b);
}

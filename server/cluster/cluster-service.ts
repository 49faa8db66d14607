// Cluster membership as operators drive it: list the members, add one by its control address (from a member, or,
// where the members allow join requests, from the new empty node itself), remove one, hand leadership over. Every
// change is a raft configuration entry proposed on the leader; a follower forwards the request to it. Requests from
// other controllers come only from members (the peer network refuses the rest), except the `state` probe and
// `join`, which a member takes from a non-member only with `cluster.allowJoinRequests`.
import type { Logger } from '../../common/log/logger.ts';
import type { ConfigChange, NodeId } from '../raft/core/types.ts';
import type { ClusterRaft } from '../raft/node/raft-node.ts';
import { ProposalRefusedError } from '../raft/state-machine.ts';
import type { PeerChannels, PeerHello } from '../raft/transport/peer-network.ts';
import { RefusalLog, suppressedField } from '../control-port/refusal-log.ts';
import type { ClusterProposer, ForwardedProposal } from './cluster-proposer.ts';

export interface MemberRow {
  readonly id: string;
  readonly address: string;
  readonly voter: boolean;
  readonly leader: boolean;
  readonly version: string;
  readonly connected: boolean;
  readonly preferred: boolean;
}

type ClusterRequest =
  | ForwardedProposal
  | { readonly type: 'join'; readonly id: NodeId; readonly address: string; readonly voter: boolean }
  | { readonly type: 'configChange'; readonly change: ConfigChange }
  | { readonly type: 'transfer'; readonly target?: NodeId }
  | { readonly type: 'state' };

export class ClusterError extends Error {}

const controlAddress = /^tls:(\[[^\]]+\]|[^:]+):\d+$/;

/** The requests a controller that is not a member may make: the probe `cluster add` makes, and a join (which
 * handle() refuses unless allowJoinRequests). */
export function isOpenToNonMembers(body: unknown): boolean {
  const type = typeof body === 'object' && body !== null ? (body as { type?: unknown }).type : undefined;
  return type === 'state' || type === 'join';
}

export interface ClusterServiceOptions {
  /** Members add a controller that asks to join them (`cluster.allowJoinRequests`, off by default). */
  readonly allowJoinRequests?: boolean;
}

export class ClusterService {
  constructor(
    private readonly node: ClusterRaft,
    private readonly peers: PeerChannels,
    private readonly proposer: ClusterProposer,
    private readonly self: PeerHello,
    private readonly logger: Logger,
    private readonly timeoutMs: number,
    private readonly options: ClusterServiceOptions = {},
  ) {}

  /** A refused join is logged at most every 30 s per controller: anyone of the trust domain may ask. */
  private readonly joinRefusals = new RefusalLog(30_000, Date.now);

  members(): MemberRow[] {
    const status = this.node.status();
    const { voters, nonVoters, addresses } = status.configuration;
    const peers = new Map(this.peers.peers().map((peer) => [peer.id, peer]));
    const row = (id: string, voter: boolean): MemberRow => {
      if (id === this.self.id) {
        return { id, address: this.self.address, voter, leader: status.leader === id, version: this.self.version, connected: true, preferred: this.self.preferred };
      }
      const peer = peers.get(id);
      const connected = this.peers.isConnected(id);
      return {
        id,
        address: addresses?.[id] ?? peer?.address ?? '',
        voter,
        leader: status.leader === id,
        version: connected && peer ? peer.version : '<not connected>',
        connected,
        preferred: connected && peer ? peer.preferred : false,
      };
    };
    const rows = [...voters.map((id) => row(id, true)), ...nonVoters.map((id) => row(id, false))];
    // Connected controllers that are not members are shown too, as non-voters, as the real controller does.
    for (const peer of peers.values()) {
      if (!voters.includes(peer.id) && !nonVoters.includes(peer.id) && this.peers.isConnected(peer.id)) {
        rows.push({ id: peer.id, address: peer.address, voter: false, leader: false, version: peer.version, connected: true, preferred: peer.preferred });
      }
    }
    return rows;
  }

  /** `cluster add <address>`: from a member, adds the controller there; from a new empty node, asks the member there
   * to add it (refused unless the members allow join requests). */
  async add(address: string, voter: boolean): Promise<string> {
    if (!controlAddress.test(address)) throw new ClusterError(`cluster add failed: '${address}' is not tls:<host>:<port>`);
    let hello: PeerHello;
    try {
      hello = await this.peers.probe(address, this.timeoutMs);
    } catch (error) {
      throw new ClusterError(`cluster add failed: ${(error as Error).message}`);
    }
    if (hello.id === this.self.id) throw new ClusterError('cluster add failed: that address is this controller');
    if (this.node.isUninitialized()) {
      try {
        await this.call(hello.id, { type: 'join', id: this.self.id, address: this.self.address, voter });
      } catch (error) {
        throw new ClusterError(`cluster add failed: ${(error as Error).message}`);
      }
      this.logger.info('joined the cluster', { through: hello.id, address });
      return 'success, added self to cluster';
    }
    const { voters, nonVoters } = this.node.status().configuration;
    if (!voters.includes(hello.id) && !nonVoters.includes(hello.id)) {
      // Only an empty controller may be added: one with state of its own belongs to another cluster, and joining
      // would replace its data with ours.
      const state = (await this.call(hello.id, { type: 'state' })) as { initialized: boolean };
      if (state.initialized) throw new ClusterError(`cluster add failed: ${hello.id} at ${address} already has state of its own (another cluster); only an empty controller can be added`);
    }
    await this.changeConfiguration({ kind: 'add', id: hello.id, voter, address });
    this.logger.info('cluster member added', { id: hello.id, address, voter });
    return `success, added peer at ${address} to cluster`;
  }

  async remove(id: string): Promise<string> {
    const { voters, nonVoters } = this.node.status().configuration;
    if (!voters.includes(id) && !nonVoters.includes(id)) throw new ClusterError(`${id} is not a member of the cluster`);
    await this.changeConfiguration({ kind: 'remove', id });
    this.logger.info('cluster member removed', { id });
    return `success, removed ${id} from cluster`;
  }

  async transferLeadership(target?: string): Promise<string> {
    if (this.node.isLeader()) {
      await this.transferHere(target);
      return 'success';
    }
    const leader = this.node.leader();
    if (!leader) throw new ClusterError('ClusterHasNoLeaderError: the cluster has no leader');
    await this.call(leader, { type: 'transfer', ...(target ? { target } : {}) });
    return 'success';
  }

  /** Requests from other controllers. */
  async handle(from: PeerHello, body: unknown): Promise<unknown> {
    const request = body as ClusterRequest;
    switch (request?.type) {
      case 'propose':
        return this.proposer.serveForwarded(request, from.id);
      case 'join':
        if (from.id !== request.id) throw new Error('a controller can only ask to add itself');
        if (typeof request.address !== 'string' || !controlAddress.test(request.address) || typeof request.voter !== 'boolean') throw new Error('malformed join request');
        if (!this.options.allowJoinRequests && !this.isMember(from.id)) {
          const suppressed = this.joinRefusals.admit(from.id);
          if (suppressed !== undefined) this.logger.warn('cluster join refused: not a member, and cluster.allowJoinRequests is off', { peerId: from.id, address: request.address, ...suppressedField(suppressed) });
          throw new ClusterError(
            `${this.self.id} does not take join requests (cluster.allowJoinRequests is false): run 'agent cluster add ${request.address}' on a member of the cluster instead`,
          );
        }
        await this.changeConfiguration({ kind: 'add', id: request.id, voter: request.voter, address: request.address });
        this.logger.info('cluster member added', { id: request.id, address: request.address, voter: request.voter, asked: 'by the new member' });
        return { ok: true };
      case 'configChange':
        await this.changeConfiguration(request.change);
        return { ok: true };
      case 'transfer':
        await this.transferHere(request.target);
        return { ok: true };
      case 'state':
        return { initialized: !this.node.isUninitialized() };
      default:
        throw new Error('unknown cluster request');
    }
  }

  private isMember(id: NodeId): boolean {
    const { voters, nonVoters } = this.node.status().configuration;
    return voters.includes(id) || nonVoters.includes(id);
  }

  private async transferHere(target?: string): Promise<void> {
    try {
      const chosen = await this.node.transferLeadership(target);
      this.logger.info('transferring leadership', { to: chosen });
    } catch (error) {
      throw new ClusterError((error as Error).message);
    }
  }

  /** Proposes the change on the leader (here, or forwarded) and waits until it is applied here. */
  private async changeConfiguration(change: ConfigChange): Promise<void> {
    if (this.node.isLeader()) {
      try {
        const proposal = await this.node.proposeConfigChange(change);
        await this.node.waitForApplied(proposal.index, this.timeoutMs);
        return;
      } catch (error) {
        if (error instanceof ProposalRefusedError && error.reason === 'dropped') throw new ClusterError('the change was lost to a leadership change; try again');
        throw new ClusterError((error as Error).message);
      }
    }
    const leader = this.node.leader();
    if (!leader) throw new ClusterError('ClusterHasNoLeaderError: the cluster has no leader');
    await this.call(leader, { type: 'configChange', change });
  }

  private async call(peer: NodeId, request: ClusterRequest): Promise<unknown> {
    try {
      return await this.peers.request(peer, request, this.timeoutMs + 2000);
    } catch (error) {
      throw new ClusterError((error as Error).message);
    }
  }
}

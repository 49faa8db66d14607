// Where a controller's raft node, its log and the peer channels run: on the controller's own thread (the default),
// or on a thread of their own (`cluster.raftThread: true`, raft-thread.ts). Either way the controller gets a raft
// node and peer channels behind the same interfaces, and one close for both.
import { join } from 'node:path';
import type { Logger } from '../../common/log/logger.ts';
import { openLocalRaft } from '../raft/node/local-raft.ts';
import type { ProposalTracer } from '../raft/node/proposal-tracer.ts';
import type { ClusterRaft, RaftNodeTiming, RaftStateMachine, SnapshotPolicy } from '../raft/node/raft-node.ts';
import type { PeerChannels } from '../raft/transport/peer-network.ts';
import { listenForPeers, type ListeningPeersOptions } from '../raft/transport/listening-peers.ts';
import type { ControlSocket } from '../control-port/control-socket.ts';
import { isOpenToNonMembers } from '../cluster/cluster-service.ts';
import { explainOpen } from './explain-open.ts';
import { startRaftThread } from './raft-thread.ts';

export interface RaftRuntimeOptions {
  /** Run the node, log and channels on a thread of their own. */
  readonly ownThread: boolean;
  readonly id: string;
  readonly dataDir: string;
  readonly stateMachine: RaftStateMachine;
  readonly logger: Logger;
  readonly timing: RaftNodeTiming;
  readonly snapshotPolicy: SnapshotPolicy;
  readonly peers: Omit<ListeningPeersOptions, 'logger' | 'onLatency' | 'onQueueTime' | 'onRouter' | 'openToNonMembers'>;
  readonly acceptRouter: (socket: ControlSocket) => void;
  readonly onPeerTiming: (kind: 'latency' | 'queue', channelId: string, ms: number) => void;
  readonly onSnapshotRestored: (restored: { index: number; hadData: boolean }) => void;
  readonly proposalTracer?: ProposalTracer;
}

export interface RaftRuntime {
  readonly node: ClusterRaft;
  readonly peers: PeerChannels;
  close(): Promise<void>;
}

export async function startRaftRuntime(options: RaftRuntimeOptions): Promise<RaftRuntime> {
  if (options.ownThread) {
    const { ownThread: _, ...rest } = options;
    return startRaftThread(rest);
  }
  let listening: Awaited<ReturnType<typeof listenForPeers>>;
  try {
    listening = await listenForPeers({
      ...options.peers,
      logger: options.logger.child('peers'),
      onLatency: (channelId, ms) => options.onPeerTiming('latency', channelId, ms),
      onQueueTime: (channelId, ms) => options.onPeerTiming('queue', channelId, ms),
      onRouter: (socket) => options.acceptRouter(socket),
      // Membership authorizes peers: only the `cluster add` probe and join requests come from non-members.
      openToNonMembers: isOpenToNonMembers,
    });
  } catch (error) {
    throw new Error(`cannot listen on the control address ${options.peers.self.address}: ${(error as Error).message}`);
  }
  const { peers } = listening;
  const local = await explainOpen(join(options.dataDir, 'raft.db'), () =>
    openLocalRaft({
      id: options.id,
      dataDir: options.dataDir,
      stateMachine: options.stateMachine,
      logger: options.logger.child('raft'),
      timing: options.timing,
      snapshotPolicy: options.snapshotPolicy,
      transport: peers,
      newNode: 'wait-for-cluster',
      address: options.peers.self.address,
      onSnapshotRestored: options.onSnapshotRestored,
      ...(options.proposalTracer ? { proposalTracer: options.proposalTracer } : {}),
    }),
  ).catch(async (error) => {
    await listening.shutdown();
    throw error;
  });
  const node = local.node;
  node.observeConfiguration((configuration) => peers.setConfiguration(configuration));
  // A leader whose process dies closes its connections at once; waiting out a whole election timeout would only
  // make the cluster unwritable for longer.
  peers.onPeerEvent((event, peer) => {
    if (event === 'disconnected') node.leaderLost(peer.id);
  });
  return {
    node,
    peers,
    async close() {
      await local.close();
      await listening.shutdown();
    },
  };
}

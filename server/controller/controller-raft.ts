// The controller's raft node, its log and the peer channels on the control address (raft traffic, forwarded writes,
// membership requests), on this thread or their own (raft-runtime.ts), with what the metrics watch of them. Routers'
// control channels arrive on the same address and go to the router hub once it exists.
import type { Logger } from '../../common/log/logger.ts';
import type { ModelStateMachine } from '../model/model-state-machine.ts';
import type { PeerHello } from '../raft/transport/peer-network.ts';
import type { ControlSocket } from '../control-port/control-socket.ts';
import type { ModelStore } from '../store/model-store.ts';
import type { ControllerMetrics } from '../telemetry/controller-metrics.ts';
import type { ControllerTracing } from '../telemetry/controller-tracing.ts';
import type { ControllerOptions } from './controller-options.ts';
import { startRaftRuntime, type RaftRuntime } from './raft-runtime.ts';
import { raftTiming } from './raft-timing.ts';

export interface ControllerRaftWiring {
  readonly options: ControllerOptions;
  readonly self: PeerHello;
  readonly store: ModelStore;
  readonly stateMachine: ModelStateMachine;
  readonly metrics: ControllerMetrics;
  readonly logger: Logger;
  readonly acceptRouter: (socket: ControlSocket) => void;
  readonly tracing?: ControllerTracing;
}

export interface ControllerRaft {
  readonly runtime: RaftRuntime;
  /** Resolves when this controller installed a leader's snapshot over data of its own and must be started again. */
  readonly restartRequired: Promise<void>;
}

/** One raft code path for every controller: a new node waits to be initialized or added to a cluster; a node with the
 * first release's data is a one-voter cluster of itself. */
export async function startControllerRaft(wiring: ControllerRaftWiring): Promise<ControllerRaft> {
  const { options, metrics, logger, store } = wiring;
  let requireRestart: () => void = () => undefined;
  const restartRequired = new Promise<void>((resolve) => (requireRestart = resolve));
  const runtime = await startRaftRuntime({
    ownThread: options.raft.ownThread ?? false,
    id: options.id,
    dataDir: options.dataDir,
    stateMachine: wiring.stateMachine,
    logger,
    timing: raftTiming(options.raft),
    snapshotPolicy: {
      intervalMs: options.raft.snapshotIntervalMs,
      threshold: options.raft.snapshotThreshold,
      trailingLogs: options.raft.trailingLogs,
      ...(options.raft.snapshotLogEntries !== undefined ? { maxLogEntries: options.raft.snapshotLogEntries } : {}),
      ...(options.raft.snapshotLogBytes !== undefined ? { maxLogBytes: options.raft.snapshotLogBytes } : {}),
    },
    peers: {
      self: wiring.self,
      listen: options.cluster.listen,
      tls: options.cluster.tls,
      trustDomain: options.cluster.trustDomain,
      heartbeat: options.cluster.heartbeat,
      ...(options.cluster.controlPort ? { controlPort: options.cluster.controlPort } : {}),
    },
    acceptRouter: wiring.acceptRouter,
    onPeerTiming: (kind, channelId, ms) => (kind === 'latency' ? metrics.peerLatency : metrics.peerQueueTime).record(ms / 1000, { channel_id: channelId }),
    onSnapshotRestored: ({ index, hadData }) => {
      if (!hadData) return;
      // A node that had data of its own restarts cleanly on the leader's state rather than carrying on with
      // whatever it built around its old model; its supervisor starts it again.
      logger.error('restored snapshot to initialized system, restart required', { index });
      requireRestart();
    },
    ...(wiring.tracing ? { proposalTracer: wiring.tracing } : {}),
  });
  const { node: raft, peers } = runtime;
  metrics.measureDataDir();
  raft.observeConfiguration((configuration) => {
    for (const id of [...configuration.voters, ...configuration.nonVoters]) if (id !== options.id) metrics.peerMember(id);
  });
  // (The raft thread itself tells the node when every connection to its leader closed.)
  peers.onPeerEvent((event, peer) => {
    if (event === 'disconnected') metrics.peerDisconnected(peer.id);
    else metrics.peerConnected(peer.id);
  });
  const initialStatus = raft.status();
  metrics.leaderState({ isLeader: initialStatus.role === 'leader', leader: initialStatus.leader });
  raft.observe((state) => metrics.leaderState({ isLeader: state.role === 'leader', leader: state.leader }));
  logger.info('model opened', { appliedIndex: store.appliedIndex(), lastLogIndex: raft.status().lastIndex, term: raft.status().term, leader: raft.leader(), initialized: !raft.isUninitialized() });
  return { runtime, restartRequired };
}

// The raft thread of a controller (a worker thread; raft-thread.ts starts it): the raft node, its write-ahead log
// and snapshots, and the peer channels on the control port, with nothing else on this thread's event loop, so
// that a follower's acknowledgement or a finished disk write is handled at once rather than behind the HTTP
// requests of the controller's thread. What the controller's thread needs (committed entries, status, the
// peers' requests, routers' control connections, log lines) goes over the two ports.
import { join } from 'node:path';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { Logger, LogFields } from '../../common/log/logger.ts';
import { isOpenToNonMembers } from '../cluster/cluster-service.ts';
import { openRaftFiles } from '../raft/node/local-raft.ts';
import type { RaftNodeTiming, SnapshotPolicy } from '../raft/node/raft-node.ts';
import { listenForPeers, type ListeningPeers, type ListeningPeersOptions } from '../raft/transport/listening-peers.ts';
import { hostRaftNode } from '../raft/worker/raft-worker-host.ts';
import { createPeerThreadBridge } from '../raft/worker/peer-thread-bridge.ts';
import { explainOpenFailure } from './explain-open.ts';
import type { FromRaftThread } from '../raft/worker/worker-protocol.ts';

export interface RaftThreadData {
  readonly id: string;
  readonly dataDir: string;
  /** The model's applied index as the controller's thread opened it. */
  readonly appliedIndex: number;
  readonly timing: RaftNodeTiming;
  readonly snapshotPolicy: SnapshotPolicy;
  readonly peers: Omit<ListeningPeersOptions, 'logger' | 'onLatency' | 'onQueueTime' | 'onRouter' | 'openToNonMembers'>;
  /** Routers' control connections are taken (and relayed to the controller's thread). */
  readonly acceptRouters: boolean;
  readonly peersPort: MessagePort;
}

const data = workerData as RaftThreadData;
const raftPort = parentPort!;
const peersPort = data.peersPort;
const sendRaft = (message: FromRaftThread) => raftPort.postMessage(message);
const logger = portLogger(undefined, {});

const bridge = createPeerThreadBridge(peersPort);

let listening: ListeningPeers;
try {
  listening = await listenForPeers(
    {
      ...data.peers,
      logger: logger.child('peers'),
      onLatency: bridge.timing('latency'),
      onQueueTime: bridge.timing('queue'),
      openToNonMembers: isOpenToNonMembers,
      ...(data.acceptRouters ? { onRouter: bridge.relaySocket } : {}),
    },
    (network) => bridge.attach(network),
  );
} catch (error) {
  sendRaft({ type: 'startFailed', message: `cannot listen on the control address ${data.peers.self.address}: ${(error as Error).message}` });
  raftPort.close();
  peersPort.close();
  process.exit(0);
}
const peers = listening.peers;

let files: Awaited<ReturnType<typeof openRaftFiles>> | undefined;
try {
  const raftLogger = logger.child('raft');
  files = await openRaftFiles(data.id, data.dataDir, raftLogger);
  const opened = files;
  const node = await hostRaftNode(raftPort as never, {
    id: data.id,
    appliedIndex: data.appliedIndex,
    store: opened.store,
    snapshots: opened.snapshots,
    transport: peers,
    timing: data.timing,
    snapshotPolicy: data.snapshotPolicy,
    bootstrap: opened.bootstrap,
    // Election jitter only; nothing about safety depends on it.
    random: Math.random,
    logger: raftLogger,
    onStatusInterval: bridge.sendPeerList,
    afterClose: async () => {
      await opened.close();
      await listening.shutdown();
      bridge.destroySockets();
    },
  });
  node.observeConfiguration((configuration) => peers.setConfiguration(configuration));
  // A leader whose process dies closes its connections at once; waiting out a whole election timeout would only
  // make the cluster unwritable for longer.
  peers.onPeerEvent((event, peer) => {
    if (event === 'disconnected') node.leaderLost(peer.id);
  });
  bridge.sendPeerList();
} catch (error) {
  await files?.close().catch(() => undefined);
  await listening.shutdown().catch(() => undefined);
  sendRaft({ type: 'startFailed', message: explainOpenFailure(join(data.dataDir, 'raft.db'), error) });
}

/** A logger whose lines are written by the controller's thread, under the component that wrote them. */
function portLogger(component: string | undefined, bound: LogFields): Logger {
  const write = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string, fields?: LogFields) =>
    sendRaft({ type: 'log', level, ...(component ? { component } : {}), message, fields: cloneable({ ...bound, ...fields }) });
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (name, fields) => portLogger(name, { ...bound, ...fields }),
  };
}

/** Errors in log fields cross the thread as their messages (the controller's logger prints no more of them). */
function cloneable(fields: LogFields): LogFields {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) out[key] = value instanceof Error ? value.message : value;
  return out;
}

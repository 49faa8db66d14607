// The raft thread of a controller (a worker thread; raft-thread.ts starts it): the raft node, its write-ahead log
// and snapshots, and the peer channels on the control port, with nothing else on this thread's event loop, so
// that a follower's acknowledgement or a finished disk write is handled at once rather than behind the HTTP
// requests of the controller's thread. What the controller's thread needs (committed entries, status, the
// peers' requests, routers' control connections, log lines) goes over the two ports.
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { Logger, LogFields } from '../../common/log/logger.ts';
import { isOpenToNonMembers } from '../cluster/cluster-service.ts';
import { openRaftFiles } from '../raft/node/local-raft.ts';
import type { RaftNodeTiming, SnapshotPolicy } from '../raft/node/raft-node.ts';
import { PeerNetwork, type PeerNetworkOptions } from '../raft/transport/peer-network.ts';
import { hostRaftNode } from '../raft/worker/raft-worker-host.ts';
import { explainOpenFailure } from './explain-open.ts';
import type { FromPeerThread, FromRaftThread, ToPeerThread } from '../raft/worker/worker-protocol.ts';

export interface RaftThreadData {
  readonly id: string;
  readonly dataDir: string;
  /** The model's applied index as the controller's thread opened it. */
  readonly appliedIndex: number;
  readonly timing: RaftNodeTiming;
  readonly snapshotPolicy: SnapshotPolicy;
  readonly peers: Omit<PeerNetworkOptions, 'logger' | 'onLatency' | 'onQueueTime' | 'acceptOther' | 'openToNonMembers'>;
  /** Routers' control connections are taken (and relayed to the controller's thread). */
  readonly acceptRouters: boolean;
  readonly peersPort: MessagePort;
}

const data = workerData as RaftThreadData;
const raftPort = parentPort!;
const peersPort = data.peersPort;
const sendRaft = (message: FromRaftThread) => raftPort.postMessage(message);
const sendPeers = (message: FromPeerThread) => peersPort.postMessage(message);
const logger = portLogger(undefined, {});

const peerRequests = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
const sockets = new Map<number, TLSSocket>();
let nextId = 1;

const peers = new PeerNetwork({
  ...data.peers,
  logger: logger.child('peers'),
  onLatency: (channelId, ms) => sendPeers({ type: 'timing', kind: 'latency', channelId, ms }),
  onQueueTime: (channelId, ms) => sendPeers({ type: 'timing', kind: 'queue', channelId, ms }),
  openToNonMembers: isOpenToNonMembers,
  ...(data.acceptRouters ? { acceptOther: relaySocket } : {}),
});
// A peer's request (a forwarded write, a join, a router hub's message) is the controller's to answer.
peers.onRequest(
  (from, body) =>
    new Promise((resolve, reject) => {
      const rid = nextId++;
      peerRequests.set(rid, { resolve, reject });
      sendPeers({ type: 'peerRequest', rid, from, body });
    }),
);
peersPort.on('message', (message: ToPeerThread) => {
  switch (message.type) {
    case 'request':
      answer(message.call, peers.request(message.peer, message.body, message.timeoutMs));
      return;
    case 'probe':
      answer(message.call, peers.probe(message.address, message.timeoutMs));
      return;
    case 'requestAnswer': {
      const pending = peerRequests.get(message.rid);
      peerRequests.delete(message.rid);
      if (message.ok) pending?.resolve(message.value);
      else pending?.reject(new Error(message.error ?? 'failed'));
      return;
    }
    case 'socketWrite':
      sockets.get(message.sid)?.write(message.chunk);
      return;
    case 'socketEnd':
      sockets.get(message.sid)?.end();
      return;
    case 'socketDestroy':
      sockets.get(message.sid)?.destroy();
      sockets.delete(message.sid);
      return;
  }
});

let lastCertificates = '';
const sendPeerList = () => {
  const certificates = peers.presentedCertificates();
  const joined = certificates.join('\n');
  const changed = joined !== lastCertificates;
  lastCertificates = joined;
  sendPeers({ type: 'peers', peers: peers.peers(), ...(changed ? { certificates } : {}) });
};

try {
  await peers.start();
} catch (error) {
  sendRaft({ type: 'startFailed', message: `cannot listen on the control address ${data.peers.self.address}: ${(error as Error).message}` });
  raftPort.close();
  peersPort.close();
  process.exit(0);
}

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
    onStatusInterval: sendPeerList,
    afterClose: async () => {
      await opened.close();
      await peers.shutdown();
      for (const socket of sockets.values()) socket.destroy();
    },
  });
  node.observeConfiguration((configuration) => peers.setConfiguration(configuration));
  // A leader whose process dies closes its connections at once; waiting out a whole election timeout would only
  // make the cluster unwritable for longer.
  peers.onPeerEvent((event, peer) => {
    if (event === 'disconnected') node.leaderLost(peer.id);
    // The list first: what hears the event looks at the peers as they are now.
    sendPeerList();
    sendPeers({ type: 'peerEvent', event, peer });
  });
  sendPeerList();
} catch (error) {
  await files?.close().catch(() => undefined);
  await peers.shutdown().catch(() => undefined);
  sendRaft({ type: 'startFailed', message: explainOpenFailure(join(data.dataDir, 'raft.db'), error) });
}

function answer(call: number, work: Promise<unknown>): void {
  work.then(
    (value) => sendPeers({ type: 'answer', call, ok: true, value }),
    (error: Error) => sendPeers({ type: 'answer', call, ok: false, error: error.message }),
  );
}

/** A router's control connection: its bytes go to the controller's thread and back. */
function relaySocket(socket: TLSSocket): void {
  const sid = nextId++;
  sockets.set(sid, socket);
  const presented = socket.getPeerCertificate(false);
  const commonName = presented?.subject?.CN;
  sendPeers({
    type: 'socketOpen',
    sid,
    ...(socket.remoteAddress ? { remoteAddress: socket.remoteAddress } : {}),
    ...(socket.remotePort ? { remotePort: socket.remotePort } : {}),
    ...(commonName ? { commonName: Array.isArray(commonName) ? commonName[0]! : commonName } : {}),
    ...(presented?.raw ? { raw: new Uint8Array(presented.raw) } : {}),
  });
  let failure: string | undefined;
  socket.on('data', (chunk: Buffer) => sendPeers({ type: 'socketData', sid, chunk }));
  socket.on('error', (error) => (failure = error.message));
  socket.on('close', () => {
    sockets.delete(sid);
    sendPeers({ type: 'socketClosed', sid, ...(failure ? { error: failure } : {}) });
  });
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

// Starts a controller's raft thread (raft-thread-main.ts) and gives the controller its two mirrors: the raft node
// (applying committed entries to the model on this thread) and the peer channels. Closing stops the node there,
// then the thread.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import type { Logger } from '../../common/log/logger.ts';
import { startModuleWorker } from '../../common/threads/module-worker.ts';
import type { ProposalTracer } from '../raft/node/proposal-tracer.ts';
import type { RaftStateMachine } from '../raft/node/raft-node.ts';
import type { ProxiedSocket } from '../raft/worker/proxied-socket.ts';
import { WorkerPeers } from '../raft/worker/worker-peers.ts';
import { WorkerRaftNode } from '../raft/worker/worker-raft-node.ts';
import type { RaftThreadData } from './raft-thread-main.ts';

// raft-thread-main.ts in a checkout, raft-thread-main.js in a release (compiled beside this file).
const entry = fileURLToPath(new URL(`./raft-thread-main${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

export interface RaftThreadOptions extends Omit<RaftThreadData, 'peersPort' | 'appliedIndex' | 'acceptRouters'> {
  readonly stateMachine: RaftStateMachine;
  readonly logger: Logger;
  readonly acceptRouter?: (socket: ProxiedSocket) => void;
  readonly onPeerTiming?: (kind: 'latency' | 'queue', channelId: string, ms: number) => void;
  readonly onSnapshotRestored?: (restored: { index: number; hadData: boolean }) => void;
  readonly proposalTracer?: ProposalTracer;
}

export interface RaftThread {
  readonly node: WorkerRaftNode;
  readonly peers: WorkerPeers;
  /** Stops the node, its log and the peer channels on the raft thread, then the thread. */
  close(): Promise<void>;
}

export async function startRaftThread(options: RaftThreadOptions): Promise<RaftThread> {
  const { stateMachine, logger, acceptRouter, onPeerTiming, onSnapshotRestored, proposalTracer, ...rest } = options;
  const channel = new MessageChannel();
  const data: RaftThreadData = { ...rest, appliedIndex: stateMachine.appliedIndex(), acceptRouters: acceptRouter !== undefined, peersPort: channel.port2 };
  const worker = startModuleWorker(entry, data, { transferList: [channel.port2], name: `raft ${options.id}` });
  const node = new WorkerRaftNode(worker, stateMachine, logger, onSnapshotRestored, proposalTracer);
  const peers = new WorkerPeers(options.peers.self, channel.port1, acceptRouter, onPeerTiming);
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  let threadError: Error | undefined;
  worker.once('error', (error) => {
    threadError = error;
    logger.child('raft').error('the raft thread failed', { error: error.message });
  });
  // A raft thread that ends while the controller runs leaves the model frozen: as a storage failure would.
  void exited.then((code) => {
    peers.close();
    channel.port1.close();
    node.threadExited(threadError ?? new Error(`the raft thread exited (code ${code})`));
  });
  try {
    await Promise.race([node.ready, exited.then(() => Promise.reject(threadError ?? new Error('the raft thread exited before it started')))]);
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  return {
    node,
    peers,
    async close() {
      try {
        await node.close();
      } finally {
        await worker.terminate();
        await exited;
      }
    },
  };
}

// The ClusterRaft contract (cluster-raft-contract.ts) against both implementations: RaftNode in this process, and
// WorkerRaftNode with its RaftNode hosted on the far side of a MessageChannel (as the raft thread hosts it), both over
// the in-process transport with memory storage and fast timing.
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { silentLogger } from '../../../common/log/logger.ts';
import { seededRandom } from '../sim/seeded-random.ts';
import { MemoryRaftStore } from '../storage/memory-raft-store.ts';
import { MemorySnapshotStore } from '../storage/memory-snapshot-store.ts';
import { hostRaftNode } from '../worker/raft-worker-host.ts';
import { WorkerRaftNode } from '../worker/worker-raft-node.ts';
import { clusterRaftContract, type ClusterRaftHarness, type ContractMember } from './cluster-raft-contract.ts';
import { KvStateMachine } from './node-test-support.ts';
import { RaftNode } from './raft-node.ts';
import { InProcessTransport } from './raft-transport.ts';

const timing = { tickMs: 10, electionTicks: 10, heartbeatTicks: 2, commitTimeoutMs: 3000 };
const snapshotPolicy = { intervalMs: 3_600_000, threshold: 1000, trailingLogs: 5 };
const configuration = (voters: readonly string[]) => ({ voters: [...voters], nonVoters: [] });

clusterRaftContract('RaftNode', (): ClusterRaftHarness => {
  const started: ContractMember[] = [];
  return {
    async start(ids, voters) {
      const transport = new InProcessTransport();
      for (const [i, id] of ids.entries()) {
        const machine = new KvStateMachine();
        const node = await RaftNode.start({
          id, store: new MemoryRaftStore(), snapshots: new MemorySnapshotStore(), stateMachine: machine, transport, timing, snapshotPolicy,
          bootstrap: configuration(voters), random: seededRandom(700 + i), logger: silentLogger,
        });
        started.push({ id, node, machine });
      }
      return [...started];
    },
    async cleanup() {
      for (const member of started) await member.node.close();
    },
  };
});

clusterRaftContract('WorkerRaftNode', (): ClusterRaftHarness => {
  const started: ContractMember[] = [];
  const ports: MessagePort[] = [];
  return {
    async start(ids, voters) {
      const transport = new InProcessTransport();
      for (const [i, id] of ids.entries()) {
        const { port1, port2 } = new MessageChannel();
        ports.push(port1, port2);
        const machine = new KvStateMachine();
        const node = new WorkerRaftNode(port1, machine, silentLogger);
        await hostRaftNode(port2, {
          id, appliedIndex: machine.appliedIndex(), store: new MemoryRaftStore(), snapshots: new MemorySnapshotStore(), transport, timing,
          snapshotPolicy, bootstrap: configuration(voters), random: seededRandom(700 + i), logger: silentLogger, statusEveryMs: 10,
        });
        await node.ready;
        started.push({ id, node, machine });
      }
      return [...started];
    },
    async cleanup() {
      for (const member of started) await member.node.close();
      for (const port of ports) port.close();
    },
  };
});

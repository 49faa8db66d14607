// The PeerChannels contract (peer-channels-contract.ts) against both implementations, each member a real PeerNetwork
// on loopback TLS with its own certificate: PeerNetwork used directly, and WorkerPeers on this side of a
// MessageChannel with its PeerNetwork served by the raft thread's bridge on the other (peer-thread-bridge.ts), the
// peer list sent on the raft host's status interval as in a controller.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { silentLogger } from '../../../common/log/logger.ts';
import { controllerPaths, initPki, issueControllerCertificate, pkiPaths } from '../../../common/pki/pki-directory.ts';
import { freePort } from '../../../test/support/free-port.ts';
import { createPeerThreadBridge } from '../worker/peer-thread-bridge.ts';
import { WorkerPeers } from '../worker/worker-peers.ts';
import { peerChannelsContract, type PeerChannelsHarness, type PeerChannelsMember } from './peer-channels-contract.ts';
import type { PeerNetwork } from './peer-network.ts';
import { listenForPeers, type ListeningPeersOptions } from './listening-peers.ts';

let pki: string;
before(async () => {
  pki = mkdtempSync(join(tmpdir(), 'edgeward-peer-channels-contract-'));
  await initPki(pki, { trustDomain: 'edgeward.test' });
  for (const id of ['a', 'b']) await issueControllerCertificate(pki, { id, dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
});
after(() => rmSync(pki, { recursive: true, force: true }));

/** The options of member `id` of a cluster whose members listen at `addresses`. */
function networkOptions(id: string, port: number, addresses: Record<string, string>): ListeningPeersOptions {
  const paths = controllerPaths(pki, id);
  return {
    self: { id, address: addresses[id]!, version: 'v1.0.0', preferred: false },
    listen: { host: '127.0.0.1', port },
    tls: { certPem: readFileSync(paths.chain, 'utf8'), keyPem: readFileSync(paths.key, 'utf8'), caPem: readFileSync(pkiPaths(pki).bundle, 'utf8') },
    trustDomain: 'edgeward.test',
    heartbeat: { sendIntervalMs: 100, checkIntervalMs: 50, closeUnresponsiveTimeoutMs: 3000 },
    logger: silentLogger,
  };
}

/** Starts each member's channels with `make` (given its options and the cluster's configuration to set). */
function harness(make: (options: ListeningPeersOptions) => Promise<PeerChannelsMember & { network: PeerNetwork }>): () => PeerChannelsHarness {
  return () => {
    const started: Array<PeerChannelsMember> = [];
    return {
      async start(ids) {
        const ports = new Map<string, number>();
        for (const id of ids) ports.set(id, await freePort());
        const addresses = Object.fromEntries(ids.map((id) => [id, `tls:127.0.0.1:${ports.get(id)}`]));
        const members = new Map<string, PeerChannelsMember>();
        for (const id of ids) {
          const member = await make(networkOptions(id, ports.get(id)!, addresses));
          member.network.setConfiguration({ voters: [...ids], nonVoters: [], addresses });
          members.set(id, member);
          started.push(member);
        }
        return members;
      },
      async cleanup() {
        for (const member of started) await member.stop();
      },
    };
  };
}

peerChannelsContract('PeerNetwork', harness(async (options) => {
  const listening = await listenForPeers(options);
  return { channels: listening.peers, network: listening.peers, address: options.self.address, stop: () => listening.shutdown() };
}));

const ports: MessagePort[] = [];
after(() => ports.forEach((port) => port.close()));

peerChannelsContract('WorkerPeers', harness(async (options) => {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  const bridge = createPeerThreadBridge(port2);
  const listening = await listenForPeers({ ...options, onLatency: bridge.timing('latency'), onQueueTime: bridge.timing('queue') }, (network) => bridge.attach(network));
  const network = listening.peers;
  const channels = new WorkerPeers(options.self, port1);
  // The raft host sends the list on every status interval (50 ms by default).
  const interval = setInterval(bridge.sendPeerList, 50);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    clearInterval(interval);
    await listening.shutdown();
    bridge.destroySockets();
    channels.close();
  };
  return { channels, network, address: options.self.address, stop };
}));

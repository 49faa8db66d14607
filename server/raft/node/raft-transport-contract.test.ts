// The RaftTransport contract (raft-transport-contract.ts) against every implementation: the in-process transport,
// the simulator's endpoints on a network without faults, and PeerNetwork over real mutually authenticated TLS on
// loopback (one per member, each with its own certificate).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { silentLogger } from '../../../common/log/logger.ts';
import { controllerPaths, initPki, issueControllerCertificate, pkiPaths } from '../../../common/pki/pki-directory.ts';
import { freePort } from '../../../test/support/free-port.ts';
import { seededRandom } from '../sim/seeded-random.ts';
import { SimNetwork } from '../sim/sim-network.ts';
import { listenForPeers, type ListeningPeers } from '../transport/listening-peers.ts';
import { raftTransportContract } from './raft-transport-contract.ts';
import { InProcessTransport } from './raft-transport.ts';

raftTransportContract('InProcessTransport', async () => {
  const transport = new InProcessTransport();
  return { transport: () => transport, pump: () => undefined, cleanup: async () => undefined };
});

raftTransportContract('SimEndpoint', async (ids) => {
  let now = 0;
  const network = new SimNetwork(seededRandom(37), () => now, () => undefined);
  const endpoints = new Map(ids.map((id) => [id, network.endpoint()]));
  return {
    transport: (id) => endpoints.get(id)!,
    // A message becomes due a simulated millisecond later, as the simulation's clock moves.
    pump: () => {
      now += 1;
      network.deliverDue();
    },
    cleanup: async () => undefined,
  };
});

let pki: string;
const memberIds = ['a', 'b', 'c'];
before(async () => {
  pki = mkdtempSync(join(tmpdir(), 'edgeward-transport-contract-'));
  await initPki(pki, { trustDomain: 'edgeward.test' });
  for (const id of memberIds) await issueControllerCertificate(pki, { id, dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
});
after(() => rmSync(pki, { recursive: true, force: true }));

raftTransportContract('PeerNetwork', async (ids) => {
  const ports = new Map<string, number>();
  for (const id of ids) ports.set(id, await freePort());
  const addresses = Object.fromEntries(ids.map((id) => [id, `tls:127.0.0.1:${ports.get(id)}`]));
  const networks = new Map<string, ListeningPeers>();
  for (const id of ids) {
    const paths = controllerPaths(pki, id);
    const network = await listenForPeers({
      self: { id, address: addresses[id]!, version: 'v1.0.0', preferred: false },
      listen: { host: '127.0.0.1', port: ports.get(id)! },
      tls: { certPem: readFileSync(paths.chain, 'utf8'), keyPem: readFileSync(paths.key, 'utf8'), caPem: readFileSync(pkiPaths(pki).bundle, 'utf8') },
      trustDomain: 'edgeward.test',
      heartbeat: { sendIntervalMs: 200, checkIntervalMs: 100, closeUnresponsiveTimeoutMs: 5000 },
      logger: silentLogger,
    });
    network.peers.setConfiguration({ voters: [...ids], nonVoters: [], addresses });
    networks.set(id, network);
  }
  return {
    transport: (id) => networks.get(id)!.peers,
    pump: () => undefined,
    cleanup: async () => {
      for (const network of networks.values()) await network.shutdown();
    },
  };
});

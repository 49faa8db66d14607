// Which of a cluster's voters still answer: for `controller recover`, which must not force a survivor alone while a
// majority could elect a leader without it. Each voter is dialled as a peer (this controller's certificate, the
// cluster's trust domain) and asked whether it holds state; a controller that answers but is empty (started afresh
// on the old address) has lost its data and does not count, nor does another controller now at that address.
import { silentLogger } from '../../common/log/logger.ts';
import { PeerNetwork } from '../raft/transport/peer-network.ts';
import type { ControllerOptions } from './controller-options.ts';
import type { QuorumProbe } from './disaster-recovery.ts';

export const voterProbeTimeoutMs = 3_000;

export function quorumProbe(options: ControllerOptions, version: string, timeoutMs = voterProbeTimeoutMs): QuorumProbe {
  return async (voters) => {
    const peers = new PeerNetwork({
      self: { id: options.id, address: options.cluster.address, version, preferred: false },
      tls: options.cluster.tls,
      trustDomain: options.cluster.trustDomain,
      heartbeat: options.cluster.heartbeat,
      logger: silentLogger,
    });
    try {
      const answers = await Promise.all(
        voters.map(async (voter) => {
          try {
            const hello = await peers.probe(voter.address, timeoutMs);
            if (hello.id !== voter.id) return undefined;
            const state = (await peers.request(hello.id, { type: 'state' }, timeoutMs)) as { initialized?: unknown } | undefined;
            return state?.initialized === true ? voter.id : undefined;
          } catch {
            return undefined;
          }
        }),
      );
      return answers.filter((id): id is string => id !== undefined);
    } finally {
      await peers.shutdown();
    }
  };
}

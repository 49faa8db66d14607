// The controller's metrics and the adaptive rate limiter they watch, made together because each reads the other:
// the limiter records its work in the metrics, and a scrape reads the limiter's queue. Raft, the peer channels and
// the cluster monitor come up later in the start order, so the metrics read them through `parts` once they exist.
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { ClusterMonitor } from '../cluster/cluster-monitor.ts';
import { AdaptiveRateLimiter } from '../cluster/rate-limiter.ts';
import { tables } from '../model/entities.ts';
import type { ClusterRaft } from '../raft/node/raft-node.ts';
import type { PeerChannels } from '../raft/transport/peer-network.ts';
import type { ModelStore } from '../store/model-store.ts';
import { ControllerMetrics, type MetricsPipeline, type RaftView } from '../telemetry/controller-metrics.ts';
import type { ControllerOptions } from './controller-options.ts';

/** The parts of a controller that exist only once its raft node and cluster monitor are up. */
export interface LateParts {
  raft?: ClusterRaft;
  peers?: PeerChannels;
  monitor?: ClusterMonitor;
}

export interface MetricsWiring {
  readonly options: ControllerOptions;
  readonly version: string;
  readonly store: ModelStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly parts: LateParts;
  readonly isLeader: () => boolean;
  readonly pipeline?: MetricsPipeline;
}

export function startMetrics(wiring: MetricsWiring): { metrics: ControllerMetrics; limiter: AdaptiveRateLimiter } {
  const { options, store, parts, logger } = wiring;
  const limiter: AdaptiveRateLimiter = new AdaptiveRateLimiter({
    clock: wiring.clock,
    applyTimeoutMs: options.raft.commitTimeoutMs,
    onWork: (ms) => metrics.workTimer.record(ms / 1000),
    onWindowChange: ({ from, to, successRate }) => logger.info('raft rate limiter window changed', { from, to, successRate }),
  });
  const metrics: ControllerMetrics = new ControllerMetrics(
    {
      controllerId: options.id,
      version: wiring.version,
      appliedIndex: () => store.appliedIndex(),
      apiSessionCount: () => store.table(tables.apiSessions).size,
      isLeader: wiring.isLeader,
      rateLimiter: () => ({ queueSize: limiter.queueSize(), windowSize: limiter.windowSize() }),
      raft: () => raftView(options.id, parts),
      // Scraped only once the web listeners are up, by which time the monitor exists.
      readOnly: () => parts.monitor?.readOnly ?? false,
      dataDir: options.dataDir,
    },
    wiring.pipeline,
  );
  return { metrics, limiter };
}

/** Raft as a scrape reports it; undefined until the node is open. */
function raftView(selfId: string, { raft, peers }: LateParts): RaftView | undefined {
  if (!raft || !peers) return undefined;
  const status = raft.status();
  const { voters } = status.configuration;
  let votersConnected = 0;
  for (const id of voters) if (id === selfId || peers.isConnected(id)) votersConnected++;
  return { term: status.term, commitIndex: status.commit, lastLogIndex: status.lastIndex, leader: status.leader, voters: voters.length, votersConnected };
}

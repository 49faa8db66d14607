// The cluster around the raft node: the monitor (leader, peers, versions, preferred leader), the proposers every
// write goes through, the membership service, and the router control channels; peer requests go to whichever of
// the router hub and the membership service handles them.
import type { ControllerDirectory } from '../cluster/controller-directory.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { Logger } from '../../common/log/logger.ts';
import { ClusterMonitor } from '../cluster/cluster-monitor.ts';
import { ClusterProposer } from '../cluster/cluster-proposer.ts';
import { ClusterService } from '../cluster/cluster-service.ts';
import type { AdaptiveRateLimiter } from '../cluster/rate-limiter.ts';
import { RateLimitedProposer } from '../cluster/rate-limited-proposer.ts';
import type { EventDispatcher } from '../events/event-dispatcher.ts';
import type { ModelStateMachine } from '../model/model-state-machine.ts';
import type { ClusterRaft } from '../raft/node/raft-node.ts';
import type { PeerChannels, PeerHello } from '../raft/transport/peer-network.ts';
import { startRouterControl, type RouterControl } from '../routers/router-control.ts';
import type { ModelStore } from '../store/model-store.ts';
import type { ControllerMetrics } from '../telemetry/controller-metrics.ts';
import type { ControllerTracing } from '../telemetry/controller-tracing.ts';
import type { ControllerOptions } from './controller-options.ts';
import { circuitEvents } from './event-wiring.ts';

export interface ClusterWiring {
  readonly options: ControllerOptions;
  readonly self: PeerHello;
  readonly raft: ClusterRaft;
  readonly peers: PeerChannels;
  readonly limiter: AdaptiveRateLimiter;
  readonly dispatcher: EventDispatcher;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly tracing?: ControllerTracing;
}

export interface ClusterParts {
  readonly monitor: ClusterMonitor;
  readonly proposer: ClusterProposer;
  readonly cluster: ClusterService;
}

export function startCluster(wiring: ClusterWiring): ClusterParts {
  const { options, self, raft, peers, tracing } = wiring;
  const monitor = new ClusterMonitor(
    raft,
    peers,
    { self, warnWhenLeaderlessForMs: options.cluster.warnWhenLeaderlessForMs, preferredTransferDelayMs: 10_000, transferAttemptMs: Math.max(2000, options.raft.electionTimeoutMs * 2) },
    wiring.clock,
    wiring.logger.child('cluster'),
    (event) => wiring.dispatcher.dispatch('cluster', event),
  );
  monitor.start();
  // Every leader-side command passes the adaptive limiter, whether it came from this controller or a follower.
  const leaderProposer = new RateLimitedProposer(raft, wiring.limiter);
  const proposer = new ClusterProposer(raft, tracing ? tracing.proposer(leaderProposer) : leaderProposer, peers, options.raft.commitTimeoutMs, () => monitor.readOnly, tracing);
  const cluster = new ClusterService(raft, peers, proposer, self, wiring.logger.child('cluster'), options.raft.commitTimeoutMs, { allowJoinRequests: options.cluster.allowJoinRequests ?? false });
  return { monitor, proposer, cluster };
}

export interface RouterWiring {
  readonly options: ControllerOptions;
  readonly store: ModelStore;
  readonly stateMachine: ModelStateMachine;
  readonly raft: ClusterRaft;
  readonly peers: PeerChannels;
  readonly cluster: ClusterService;
  readonly metrics: ControllerMetrics;
  readonly dispatcher: EventDispatcher;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Answers the other members' `controllers.describe` requests. */
  readonly controllers?: ControllerDirectory;
}

/** The router hub behind the control address; peer requests it does not handle go to the membership service. */
export function startRouters(wiring: RouterWiring): RouterControl {
  const { options, metrics, clock, peers } = wiring;
  const onCircuitEvent = circuitEvents(wiring.dispatcher, options.id, clock);
  const routers = startRouterControl({
    self: { id: options.id, address: options.cluster.address },
    store: wiring.store,
    onModelChanges: (listener) => wiring.stateMachine.onChanges(listener),
    onModelReplaced: (listener) => wiring.stateMachine.onReplaced(listener),
    observeConfiguration: (observer) => wiring.raft.observeConfiguration(observer),
    peers,
    metrics,
    logger: wiring.logger.child('routers'),
    clock,
    signing: { certPem: options.cluster.tls.certPem, keyPem: options.cluster.tls.keyPem },
    onCircuit: (report) => {
      metrics.circuitEvent(report.event, report.failureCause);
      onCircuitEvent(report);
    },
    ...(options.cluster.controlPort ? { timing: { helloTimeoutMs: options.cluster.controlPort.helloTimeoutMs } } : {}),
  });
  peers.onRequest((from, body) => {
    if (wiring.controllers?.handles(body)) return Promise.resolve(wiring.controllers.describe());
    return routers.handlesPeerRequest(body) ? routers.handlePeerRequest(body, from.id) : wiring.cluster.handle(from, body);
  });
  return routers;
}

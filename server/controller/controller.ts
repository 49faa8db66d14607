// The controller process's composition root: the start order, read top to bottom. Each part comes from a file named
// for its job and is pushed on one stack of things to stop, so a failed start and close() release the same parts,
// last started first.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { StopStack } from '../../common/lifecycle/stop-stack.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import { AgentServer } from '../agent/agent-server.ts';
import { loadOrCreateMfaKey } from '../auth/mfa/mfa-key-file.ts';
import type { ClusterProposer } from '../cluster/cluster-proposer.ts';
import type { ClusterService } from '../cluster/cluster-service.ts';
import type { EventDispatcher } from '../events/event-dispatcher.ts';
import type { EdgeServices } from '../edge/edge-services.ts';
import { ModelWriter } from '../edge/model-writer.ts';
import { createModelTables } from '../model/entities.ts';
import { ModelStateMachine } from '../model/model-state-machine.ts';
import type { ClusterRaft } from '../raft/node/raft-node.ts';
import type { PeerChannels } from '../raft/transport/peer-network.ts';
import type { RouterControl } from '../routers/router-control.ts';
import type { ControlSocket } from '../control-port/control-socket.ts';
import { ModelStore } from '../store/model-store.ts';
import type { ControllerMetrics } from '../telemetry/controller-metrics.ts';
import type { ControllerTelemetry } from '../telemetry/controller-telemetry.ts';
import { ControllerTracing } from '../telemetry/controller-tracing.ts';
import type { ApiBinding } from '../web/routes/version-routes.ts';
import type { VersionInfo } from '../../common/version/version-info.ts';
import { agentCommands, controllerInitializer } from './agent-commands.ts';
import { startCluster, startRouters } from './cluster-wiring.ts';
import { startHealthChecks } from './controller-health.ts';
import type { ControllerOptions } from './controller-options.ts';
import { startControllerRaft } from './controller-raft.ts';
import { buildEdgeServices } from './edge-services-wiring.ts';
import { authenticationEvents, startEvents } from './event-wiring.ts';
import { controllerDirectory } from './controller-directory-wiring.ts';
import { explainOpen } from './explain-open.ts';
import { startMetrics, type LateParts } from './metrics-wiring.ts';
import { applySessionDialRule } from './session-dial-rule.ts';
import { startSessionTimers } from './session-timers.ts';
import { startRevocationPruning } from './revocation-timer.ts';
import { startOidcKeyTimers } from './oidc-key-timer.ts';
import { startBackups } from './backup-wiring.ts';
import { keepClusterIdentity } from './cluster-identity-keeper.ts';
import { announceForcedMembership } from './forced-membership-event.ts';
import { oidcObservability } from './oidc-observability.ts';
import { baseUrlsOf, startWebListeners } from './web-listeners.ts';

export interface RunningController {
  readonly id: string;
  readonly services: EdgeServices;
  readonly raft: ClusterRaft;
  readonly cluster: ClusterService;
  /** Resolves when this controller must stop and be started again (it installed a leader's snapshot over its data). */
  readonly restartRequired: Promise<void>;
  /** Resolves if the raft node stops after a storage failure: the controller then answers 503 and must exit. */
  readonly failed: Promise<Error>;
  /** Bootstraps a new cluster with this node if needed and creates the default admin. */
  initialize(args: { username: string; password: string; name?: string }): Promise<{ identityId: string }>;
  /** https://host:port origins for each bound API. */
  readonly baseUrls: Partial<Record<ApiBinding, readonly string[]>>;
  close(): Promise<void>;
}

export interface ControllerRuntime {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly version: VersionInfo;
  /** The process's meter and tracer providers (cli/controller-command.ts); unset: own metrics, no traces. */
  readonly telemetry?: ControllerTelemetry;
}

export async function startController(options: ControllerOptions, runtime: ControllerRuntime): Promise<RunningController> {
  const { logger, clock, version } = runtime;
  // Made only when tracing is on: every traced path checks for it once and otherwise does nothing.
  const tracerProvider = runtime.telemetry?.tracerProvider;
  const tracing = tracerProvider === undefined ? undefined : new ControllerTracing(tracerProvider);
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  // Read before anything starts: a bad key file must stop the start-up with nothing left running.
  const mfaKey = loadOrCreateMfaKey(options.totp?.secretKeyFile ?? join(options.dataDir, 'mfa.key'));
  const stack = new StopStack();
  const store = await explainOpen(join(options.dataDir, 'ctrl.db'), () => ModelStore.open(join(options.dataDir, 'ctrl.db'), createModelTables()));
  stack.push('model store', () => store.close());
  return stack.starting(async () => {
    const stateMachine = new ModelStateMachine(store, logger.child('model'));
    const parts: LateParts = {};
    const isLeader = () => parts.raft?.isLeader() ?? false;
    const dispatcher = startEvents({ options, version: version.version, logger, clock, isLeader }, stateMachine);
    stack.push('event handlers', () => dispatcher.close());
    const { metrics, limiter } = startMetrics({ options, version: version.version, store, clock, logger, parts, isLeader, ...(runtime.telemetry?.metrics ? { pipeline: runtime.telemetry.metrics } : {}) });
    stack.push('metrics', () => metrics.close());

    const self = { id: options.id, address: options.cluster.address, version: version.version, preferred: options.cluster.preferredLeader };
    // Routers' control channels arrive on the raft node's control address; until the router hub exists they are refused.
    let routers: RouterControl | undefined;
    const acceptRouter = (socket: ControlSocket) => (routers ? routers.accept(socket) : socket.destroy());
    const { runtime: thread, restartRequired } = await startControllerRaft({ options, self, store, stateMachine, metrics, logger, acceptRouter, ...(tracing ? { tracing } : {}) });
    stack.push('raft node and peer channels', () => thread.close());
    const { node: raft, peers } = thread;
    Object.assign(parts, { raft, peers });
    const { monitor, proposer, cluster } = startCluster({ options, self, raft, peers, limiter, dispatcher, clock, logger, ...(tracing ? { tracing } : {}) });
    parts.monitor = monitor;
    stack.push('cluster monitor', () => monitor.close());
    announceForcedMembership(options, raft, dispatcher, clock, logger);
    const controllers = controllerDirectory(options, cluster, peers, clock);
    routers = startRouters({ options, store, stateMachine, raft, peers, cluster, metrics, dispatcher, clock, logger, controllers });
    const routerControl = routers;
    stack.push('router control', () => routerControl.close());

    const baseUrls = baseUrlsOf(options.webs);
    const services = startEdgeServices({ options, version: version.version, store, proposer, clock, logger, mfaKey, baseUrls, routers: routerControl, peers, metrics, dispatcher });
    applySessionDialRule(routerControl, services, clock);
    // The spec: "activity or a maintained edge router connection resets the timer" (edge-session-control.ts).
    routerControl.setEdgeSessionKeeper((ids) => services.sessions.touchIds(ids), Math.max(100, Math.floor(options.activityUpdateIntervalMs / 2)));
    // Activity kept in memory is written once more after the listeners closed, while raft still runs.
    stack.push('api session activity', () => services.sessions.flushActivity().then(() => undefined, () => undefined));
    const { health, failed } = await startHealthChecks(store, raft, clock);
    stack.push('health checks', () => health.stop());

    const web = await startWebListeners(
      options.webs,
      {
        services,
        health,
        metrics,
        version,
        baseUrls,
        raftState: () => ({ isRaftEnabled: true, isLeader: isLeader() }),
        cluster: { members: () => cluster.members(), readOnly: () => monitor.readOnly },
        controllers: () => controllers.list(),
        unavailable: () => raft.failed !== undefined,
        ...(tracing ? { tracing } : {}),
      },
      logger,
    );
    stack.push('web listeners', () => web.close());
    const agentWiring = { options, version: version.version, store, raft, cluster, services, logger };
    const initialize = controllerInitializer(agentWiring);
    const agent = new AgentServer(options.agentSocket, agentCommands(agentWiring, initialize), logger.child('agent'));
    await agent.start();
    stack.push('agent socket', () => agent.close());
    stack.push('session timers', startSessionTimers(services.sessions, isLeader, options, logger));
    stack.push('revocation pruning', startRevocationPruning(services.revocations, isLeader, logger.child('revocations')));
    stack.push('oidc signing keys', startOidcKeyTimers(services.oidc, isLeader, logger.child('oidc')));
    stack.push('backup schedule', startBackups(options, services.database, metrics, logger.child('backup')));
    stack.push('cluster id', keepClusterIdentity(store, new ModelWriter(proposer), { isLeader, observe: (listener) => raft.observe(() => listener()) }, clock, logger));

    logger.info('controller started', { id: options.id, version: version.version, baseUrls });
    return {
      id: options.id,
      services,
      baseUrls,
      raft,
      cluster,
      initialize,
      restartRequired,
      failed,
      async close() {
        await stack.stopAll();
        logger.info('controller stopped', { id: options.id });
      },
    };
  });
}

interface EdgeServicesWiring {
  readonly options: ControllerOptions;
  readonly version: string;
  readonly store: ModelStore;
  readonly proposer: ClusterProposer;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly mfaKey: Buffer;
  readonly baseUrls: Partial<Record<ApiBinding, readonly string[]>>;
  readonly routers: RouterControl;
  readonly peers: PeerChannels;
  readonly metrics: ControllerMetrics;
  readonly dispatcher: EventDispatcher;
}

/** The edge services, writing through the cluster, seeing its routers and reporting logins to metrics and events. */
function startEdgeServices(wiring: EdgeServicesWiring): EdgeServices {
  const { options, baseUrls, routers, metrics } = wiring;
  const onAuthentication = authenticationEvents(wiring.dispatcher, options.id, wiring.clock);
  const oidcReports = oidcObservability(wiring.dispatcher, metrics, options.id, wiring.clock);
  const services = buildEdgeServices({
    store: wiring.store,
    writer: new ModelWriter(wiring.proposer),
    clock: wiring.clock,
    logger: wiring.logger,
    options,
    version: wiring.version,
    mfaKey: wiring.mfaKey,
    clientApiOrigins: baseUrls['edge-client'] ?? [],
    routerPresence: routers.presence,
    edgeSessions: routers.edgeSessions,
    terminators: routers.terminators,
    controlAddresses: () => routers.controlAddresses(),
    // Names a router's server certificate may not carry: this controller's certificates, its peers' and its web addresses.
    controllerNames: () => ({
      certificates: [options.cluster.tls.certPem, ...options.webs.map((web) => web.tls.certPem), ...wiring.peers.presentedCertificates()],
      addresses: Object.values(baseUrls).flatMap((urls) => urls ?? []),
    }),
    ...(onAuthentication ? { onAuthentication } : {}),
    onAuthenticationOutcome: (method, outcome) => metrics.authentication(method, outcome),
    onMfaCodeFailure: () => metrics.mfaCodeFailure(),
    onOidcTokenEvent: oidcReports.onTokenEvent,
  });
  oidcReports.watch(services.oidc);
  return services;
}

// The controller process's composition root: opens the model and its log, builds the edge services, serves the
// web listeners, the agent socket and the periodic work (activity flush, expiry sweep, health checks).
import { constants as cryptoConstants } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { join } from 'node:path';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import { AgentServer, type AgentCommand } from '../agent/agent-server.ts';
import { ModelWriter } from '../edge/model-writer.ts';
import { EventDispatcher } from '../events/event-dispatcher.ts';
import { apiSessionEvents } from '../events/api-session-events.ts';
import { circuitEvent } from '../events/circuit-events.ts';
import { authenticationEvent, type AuthenticationAttempt } from '../events/authentication-events.ts';
import { entityChangeEvents } from '../events/entity-change-events.ts';
import { fileEventSink, stdoutEventSink } from '../events/event-sinks.ts';
import { HealthChecker } from '../health/health-checker.ts';
import { createModelTables, tables, type ApiSession } from '../model/entities.ts';
import { isIdentityDisabled } from '../auth/identity-state.ts';
import { ModelStateMachine } from '../model/model-state-machine.ts';
import type { ClusterRaft } from '../raft/node/raft-node.ts';
import { bootstrapSingleVoter } from '../raft/node/local-raft.ts';
import { explainOpen } from './explain-open.ts';
import { startRaftRuntime } from './raft-runtime.ts';
import { ClusterProposer } from '../cluster/cluster-proposer.ts';
import { ClusterService } from '../cluster/cluster-service.ts';
import { ClusterMonitor } from '../cluster/cluster-monitor.ts';
import { AdaptiveRateLimiter } from '../cluster/rate-limiter.ts';
import { RateLimitedProposer } from '../cluster/rate-limited-proposer.ts';
import { raftTiming } from './raft-timing.ts';
import { ModelStore } from '../store/model-store.ts';
import { ControllerMetrics } from '../telemetry/controller-metrics.ts';
import type { ControllerTelemetry } from '../telemetry/controller-telemetry.ts';
import { ControllerTracing } from '../telemetry/controller-tracing.ts';
import type { ApiBinding } from '../web/routes/version-routes.ts';
import type { VersionInfo } from '../../common/version/version-info.ts';
import { buildWebApp } from '../web/web-app.ts';
import type { ControllerOptions } from './controller-options.ts';
import { buildEdgeServices } from './edge-services-wiring.ts';
import { loadOrCreateMfaKey } from '../auth/mfa/mfa-key-file.ts';
import { startRouterControl, type RouterControl } from '../routers/router-control.ts';
import type { EdgeServices } from '../edge/edge-services.ts';

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

  const store = await explainOpen(join(options.dataDir, 'ctrl.db'), () => ModelStore.open(join(options.dataDir, 'ctrl.db'), createModelTables()));
  const stateMachine = new ModelStateMachine(store, logger.child('model'));
  let node: ClusterRaft | undefined;
  const isLeader = () => node?.isLeader() ?? false;
  const dispatcher = new EventDispatcher(
    options.events.map(({ name, subscriptions, handler }) => ({
      name,
      subscriptions,
      sink:
        handler.type === 'file'
          ? fileEventSink(handler.path, (error) => logger.error('event handler could not append to its file', { handler: name, path: handler.path, error: error.message }), {
              maxBytes: handler.maxsizemb * 1024 * 1024,
              maxBackups: handler.maxbackups,
              now: () => new Date(clock.now()),
            })
          : stdoutEventSink(),
    })),
    isLeader,
  );
  // Made once, not per apply: a closure made on the apply path costs a defineProperty each time under tsx.
  const eventContext = { controllerId: options.id, version: version.version, now: () => clock.now() };
  if (dispatcher.wants('entityChange')) {
    stateMachine.onChanges((applied) => {
      // Most subscriptions take entity changes on the leader only: a follower builds no event nobody takes.
      if (!dispatcher.takesEntityChangesHere()) return;
      for (const event of entityChangeEvents(applied, eventContext)) dispatcher.dispatch('entityChange', event);
    });
  }
  if (dispatcher.wants('apiSession')) {
    stateMachine.onChanges((applied) => {
      if (!dispatcher.takesAppliedEventsHere('apiSession')) return;
      for (const event of apiSessionEvents(applied, eventContext)) dispatcher.dispatch('apiSession', event);
    });
  }
  let requireRestart: () => void = () => undefined;
  const restartRequired = new Promise<void>((resolve) => (requireRestart = resolve));
  const limiter = new AdaptiveRateLimiter({
    clock,
    applyTimeoutMs: options.raft.commitTimeoutMs,
    onWork: (ms) => metrics.workTimer.record(ms / 1000),
    onWindowChange: ({ from, to, successRate }) => logger.info('raft rate limiter window changed', { from, to, successRate }),
  });
  const metrics = new ControllerMetrics(
    {
      controllerId: options.id,
      version: version.version,
      appliedIndex: () => store.appliedIndex(),
      apiSessionCount: () => store.table(tables.apiSessions).size,
      isLeader,
      rateLimiter: () => ({ queueSize: limiter.queueSize(), windowSize: limiter.windowSize() }),
      raft: () => {
        if (!node) return undefined;
        const status = node.status();
        const { voters } = status.configuration;
        let votersConnected = 0;
        for (const id of voters) if (id === options.id || peers.isConnected(id)) votersConnected++;
        return { term: status.term, commitIndex: status.commit, lastLogIndex: status.lastIndex, leader: status.leader, voters: voters.length, votersConnected };
      },
      // Scraped only once the web listeners are up, by which time the monitor exists.
      readOnly: () => monitor.readOnly,
      dataDir: options.dataDir,
    },
    runtime.telemetry?.metrics,
  );

  // The raft node, its log and the peer channels on the control address (raft traffic, forwarded writes,
  // membership requests), on this thread or their own (raft-runtime.ts); routers' control channels arrive on the
  // same address and go to the router hub once it exists.
  let routerControl: RouterControl | undefined;
  const self = { id: options.id, address: options.cluster.address, version: version.version, preferred: options.cluster.preferredLeader };
  // One raft code path for every controller: a new node waits to be initialized or added to a cluster; a node
  // with the first release's data is a one-voter cluster of itself.
  const thread = await startRaftRuntime({
    ownThread: options.raft.ownThread ?? false,
    id: options.id,
    dataDir: options.dataDir,
    stateMachine,
    logger,
    timing: raftTiming(options.raft),
    snapshotPolicy: { intervalMs: options.raft.snapshotIntervalMs, threshold: options.raft.snapshotThreshold, trailingLogs: options.raft.trailingLogs },
    peers: {
      self,
      listen: options.cluster.listen,
      tls: options.cluster.tls,
      trustDomain: options.cluster.trustDomain,
      heartbeat: options.cluster.heartbeat,
      ...(options.cluster.controlPort ? { controlPort: options.cluster.controlPort } : {}),
    },
    acceptRouter: (socket) => (routerControl ? routerControl.accept(socket) : socket.destroy()),
    onPeerTiming: (kind, channelId, ms) => (kind === 'latency' ? metrics.peerLatency : metrics.peerQueueTime).record(ms / 1000, { channel_id: channelId }),
    onSnapshotRestored: ({ index, hadData }) => {
      if (!hadData) return;
      // A node that had data of its own restarts cleanly on the leader's state rather than carrying on with
      // whatever it built around its old model; its supervisor starts it again.
      logger.error('restored snapshot to initialized system, restart required', { index });
      requireRestart();
    },
    ...(tracing ? { proposalTracer: tracing } : {}),
  }).catch(async (error) => {
    await store.close();
    throw error;
  });
  const peers = thread.peers;
  node = thread.node;
  const raft = node;
  metrics.measureDataDir();
  raft.observeConfiguration((configuration) => {
    for (const id of [...configuration.voters, ...configuration.nonVoters]) if (id !== options.id) metrics.peerMember(id);
  });
  // (The raft thread itself tells the node when every connection to its leader closed.)
  peers.onPeerEvent((event, peer) => {
    if (event === 'disconnected') metrics.peerDisconnected(peer.id);
    else metrics.peerConnected(peer.id);
  });
  const initialStatus = raft.status();
  metrics.leaderState({ isLeader: initialStatus.role === 'leader', leader: initialStatus.leader });
  raft.observe((state) => metrics.leaderState({ isLeader: state.role === 'leader', leader: state.leader }));
  logger.info('model opened', { appliedIndex: store.appliedIndex(), lastLogIndex: raft.status().lastIndex, term: raft.status().term, leader: raft.leader(), initialized: !raft.isUninitialized() });

  const monitor = new ClusterMonitor(
    raft,
    peers,
    { self, warnWhenLeaderlessForMs: options.cluster.warnWhenLeaderlessForMs, preferredTransferDelayMs: 10_000, transferAttemptMs: Math.max(2000, options.raft.electionTimeoutMs * 2) },
    clock,
    logger.child('cluster'),
    (event) => dispatcher.dispatch('cluster', event),
  );
  monitor.start();
  // Every leader-side command passes the adaptive limiter, whether it came from this controller or a follower.
  const leaderProposer = new RateLimitedProposer(raft, limiter);
  const proposer = new ClusterProposer(raft, tracing ? tracing.proposer(leaderProposer) : leaderProposer, peers, options.raft.commitTimeoutMs, () => monitor.readOnly, tracing);
  const cluster = new ClusterService(raft, peers, proposer, self, logger.child('cluster'), options.raft.commitTimeoutMs, { allowJoinRequests: options.cluster.allowJoinRequests ?? false });
  routerControl = startRouterControl({
    self: { id: options.id, address: options.cluster.address },
    store,
    onModelChanges: (listener) => stateMachine.onChanges(listener),
    observeConfiguration: (observer) => raft.observeConfiguration(observer),
    peers,
    metrics,
    logger: logger.child('routers'),
    clock,
    signing: { certPem: options.cluster.tls.certPem, keyPem: options.cluster.tls.keyPem },
    onCircuit: (report) => {
      metrics.circuitEvent(report.event, report.failureCause);
      if (dispatcher.wants('circuit')) dispatcher.dispatch('circuit', circuitEvent(report, { controllerId: options.id, now: () => clock.now() }));
    },
    ...(options.cluster.controlPort ? { timing: { helloTimeoutMs: options.cluster.controlPort.helloTimeoutMs } } : {}),
  });
  const routers = routerControl;
  peers.onRequest((from, body) => (routers.handlesPeerRequest(body) ? routers.handlePeerRequest(body) : cluster.handle(from, body)));

  const writer = new ModelWriter(proposer);
  const baseUrls: Partial<Record<ApiBinding, string[]>> = {};
  for (const web of options.webs) for (const api of web.apis) for (const point of web.bindPoints) (baseUrls[api] ??= []).push(`https://${point.address}`);
  const onAuthentication = dispatcher.wants('authentication')
    ? (attempt: AuthenticationAttempt) => dispatcher.dispatch('authentication', authenticationEvent(attempt, { controllerId: options.id, now: () => clock.now() }))
    : undefined;
  const services = buildEdgeServices({
    store,
    writer,
    clock,
    logger,
    options,
    mfaKey,
    clientApiOrigins: baseUrls['edge-client'] ?? [],
    routerPresence: routers.presence,
    terminators: routers.terminators,
    controlAddresses: () => routers.controlAddresses(),
    // Names a router's server certificate may not carry: this controller's certificates, its peers' and its web addresses.
    controllerNames: () => ({
      certificates: [options.cluster.tls.certPem, ...options.webs.map((web) => web.tls.certPem), ...peers.presentedCertificates()],
      addresses: Object.values(baseUrls).flatMap((urls) => urls ?? []),
    }),
    ...(onAuthentication ? { onAuthentication } : {}),
    onAuthenticationOutcome: (method, outcome) => metrics.authentication(method, outcome),
    onMfaCodeFailure: () => metrics.mfaCodeFailure(),
  });
  const sessions = services.sessions;
  // Edge clients dial circuits through a router's edge listener with their API session: live, fully authenticated,
  // and not owing an external JWT on every request (a circuit cannot carry one).
  // The same rules again for a live circuit's session, by id and without counting as activity (circuit-revocation.ts).
  const sessionMayDial = (session: ApiSession) => {
    const identity = services.identities.find(session.identityId);
    if (!identity) return { ok: false as const, message: 'the API session\'s identity is gone' };
    if (isIdentityDisabled(identity, clock.now())) return { ok: false as const, message: 'the API session\'s identity is disabled' };
    if (session.authQueries.length > 0) return { ok: false as const, message: 'the API session is partially authenticated: outstanding authentication queries must be answered first' };
    if (services.authPolicies.forIdentity(identity).secondary.requireExtJwtSigner !== null) {
      return { ok: false as const, message: 'the identity\'s authentication policy requires an external JWT on every request, which a circuit cannot carry' };
    }
    return { ok: true as const, identity, posture: session, sessionId: session.id };
  };
  routers.setSessionDialer((token) => {
    const found = sessions.lookup(token);
    if (found.state !== 'live') return { ok: false, message: found.state === 'expired' ? 'the API session expired' : 'no such API session' };
    const verdict = sessionMayDial(found.session);
    if (verdict.ok) sessions.touch(found.session);
    return verdict;
  });
  routers.setSessionStatus(
    (id) => {
      const session = sessions.get(id);
      if (!session) return { ok: false, message: 'the API session ended' };
      if (sessions.isExpired(session)) return { ok: false, message: 'the API session expired' };
      return sessionMayDial(session);
    },
    (token) => {
      const found = sessions.lookup(token);
      return found.state === 'live' ? found.session.id : undefined;
    },
  );

  const health = new HealthChecker(
    [
      { id: 'bolt.read', run: () => store.ping(), intervalMs: 30_000, timeoutMs: 20_000, initialDelayMs: 30_000 },
      {
        id: 'raft.node',
        run: async () => {
          if (raft.failed) throw new Error(`the raft node stopped: ${raft.failed.message}`);
        },
        intervalMs: 5_000,
        timeoutMs: 1_000,
        initialDelayMs: 5_000,
      },
    ],
    clock,
  );
  await health.runAll();
  // A failed raft node leaves the model frozen: health, sessions and writes answer 503 from now on, without waiting
  // for the next check, and the process exits (cli/controller-command.ts) so that its supervisor restarts it.
  const failed = new Promise<Error>((resolve) => {
    raft.onFailure((error) => {
      void health.recheck('raft.node');
      resolve(error);
    });
  });
  health.start();

  const servers: Server[] = [];
  const closeAll = async () => {
    for (const server of servers) server.closeAllConnections();
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  };
  /** Leaves nothing running (ports, timers, the data-directory lock) so a process that failed to start can exit. */
  const releaseAfterFailedStart = async () => {
    await closeAll();
    health.stop();
    monitor.close();
    routers.close();
    await thread.close();
    await store.close();
    await metrics.close();
    await dispatcher.close();
  };
  try {
    for (const web of options.webs) {
      const app = buildWebApp(web.apis, {
        services,
        health,
        metrics,
        version,
        baseUrls,
        raftState: () => ({ isRaftEnabled: true, isLeader: isLeader() }),
        cluster: { members: () => cluster.members(), readOnly: () => monitor.readOnly },
        unavailable: () => raft.failed !== undefined,
        logger: logger.child('web', { web: web.name }),
        maxBodyBytes: web.maxBodyBytes,
        ...(tracing ? { tracing } : {}),
      });
      for (const point of web.bindPoints) {
        const server = createHttpsServer(
          {
            cert: web.tls.certPem,
            key: web.tls.keyPem,
            ca: web.tls.caPem,
            requestCert: true,
            rejectUnauthorized: false,
            // A resumed TLS session keeps only the client's leaf certificate, not the intermediates it sent, and
            // method=cert needs them to chain a third-party certificate: every connection does a full handshake.
            secureOptions: cryptoConstants.SSL_OP_NO_TICKET,
            minVersion: web.minTlsVersion,
            maxVersion: web.maxTlsVersion,
            handshakeTimeout: web.handshakeTimeoutMs,
            keepAliveTimeout: web.idleTimeoutMs,
            headersTimeout: web.readTimeoutMs,
            requestTimeout: web.requestTimeoutMs,
            // Node looks for requests past headersTimeout/requestTimeout only this often (30 s by default), which
            // would let a slow client hold its connection up to 30 s longer than configured.
            connectionsCheckingInterval: Math.min(1000, web.readTimeoutMs),
          },
          app.callback(),
        );
        // A connection that neither sends nor reads for writeTimeout (a client that stopped reading its answer)
        // is destroyed; an idle keep-alive connection goes sooner, at keepAliveTimeout.
        server.setTimeout(web.writeTimeoutMs);
        server.maxConnections = web.maxConnections;
        server.on('drop', dropLogger(logger, web.name, point.interfacePort, web.maxConnections));
        server.on('tlsClientError', () => undefined);
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(point.interfacePort, point.interfaceHost, () => resolve());
        });
        servers.push(server);
        logger.info('web listener started', { web: web.name, interface: `${point.interfaceHost}:${point.interfacePort}`, apis: web.apis });
      }
    }
  } catch (error) {
    await releaseAfterFailedStart();
    throw error;
  }

  const agentCommands = new Map<string, AgentCommand>([
    [
      'status',
      async () => {
        const status = raft.status();
        return { id: options.id, version: version.version, appliedIndex: store.appliedIndex(), lastLogIndex: status.lastIndex, commitIndex: status.commit, term: status.term, role: status.role, leader: status.leader, isLeader: isLeader(), initialized: services.identities.hasDefaultAdmin() };
      },
    ],
    ['controller.init', async (args) => initialize(args)],
    ['cluster.list', async () => cluster.members()],
    ['cluster.add', async (args) => cluster.add(String(args.address ?? ''), args.voter !== false)],
    ['cluster.remove', async (args) => cluster.remove(String(args.id ?? ''))],
    ['cluster.transfer', async (args) => cluster.transferLeadership(typeof args.id === 'string' && args.id !== '' ? args.id : undefined)],
  ]);
  /** `agent controller init`: makes a new node the first member of a cluster, then creates the default admin. */
  async function initialize(args: Record<string, unknown>): Promise<{ identityId: string }> {
    const username = typeof args.username === 'string' ? args.username : '';
    const password = typeof args.password === 'string' ? args.password : '';
    const name = typeof args.name === 'string' && args.name !== '' ? args.name : 'Default Admin';
    if (username.length < 4 || username.length > 100) throw new Error('username must be 4 to 100 characters');
    if (password.length < 5 || password.length > 100) throw new Error('password must be 5 to 100 characters');
    if (raft.isUninitialized()) {
      await bootstrapSingleVoter(raft, options.id, options.cluster.address);
      logger.info('initialized a new cluster with this controller as its first member', { address: options.cluster.address });
    }
    if (services.identities.hasDefaultAdmin()) throw new Error('the controller is already initialized with a default admin');
    const { id } = await services.identities.bootstrapAdmin({ username, password, name });
    logger.info('default admin created', { identityId: id, username });
    return { identityId: id };
  }
  const agent = new AgentServer(options.agentSocket, agentCommands, logger.child('agent'));
  try {
    await agent.start();
  } catch (error) {
    await releaseAfterFailedStart();
    throw error;
  }

  const flushTimer = setInterval(() => {
    sessions.flushActivity().catch((error) => logger.warn('api session activity flush failed', { error: (error as Error).message }));
  }, options.activityUpdateIntervalMs);
  const sweepInterval = Math.min(60_000, Math.max(1_000, Math.floor(options.sessionTimeoutMs / 4)));
  const sweepTimer = setInterval(() => {
    // The leader sweeps for everyone: one command, not one per controller.
    if (!isLeader()) return;
    sessions
      .sweepExpired()
      .then((count) => count > 0 && logger.info('expired api sessions removed', { count }))
      .catch((error) => logger.warn('api session sweep failed', { error: (error as Error).message }));
  }, sweepInterval);

  logger.info('controller started', { id: options.id, version: version.version, baseUrls });

  return {
    id: options.id,
    services,
    baseUrls,
    raft,
    cluster,
    initialize: (args) => initialize(args),
    restartRequired,
    failed,
    async close() {
      monitor.close();
      routers.close();
      clearInterval(flushTimer);
      clearInterval(sweepTimer);
      health.stop();
      await agent.close();
      await closeAll();
      await sessions.flushActivity().catch(() => 0);
      await thread.close();
      await store.close();
      await metrics.close();
      await dispatcher.close();
      logger.info('controller stopped', { id: options.id });
    },
  };
}

/** Connections refused at maxConnections, logged at most once every 10 s with how many were refused since. */
function dropLogger(logger: Logger, web: string, port: number, maxConnections: number): () => void {
  let refused = 0;
  let lastLogged = 0;
  return () => {
    refused++;
    const now = Date.now();
    if (now - lastLogged < 10_000) return;
    logger.warn('web listener refused connections: maxConnections reached', { web, port, maxConnections, refused });
    lastLogged = now;
    refused = 0;
  };
}

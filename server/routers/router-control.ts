// Wires the controller side of router control channels into a running controller: the hub of this controller's
// channels, the cluster-wide presence (replicas of the other members' routers, kept by the deltas they push),
// router metrics on /metrics, membership pushes and edge-model pushes. controller.ts hands it every non-controller TLS connection of the control address and every
// `routers.*` peer request.
import { randomBytes } from 'node:crypto';
import { maxEdgeSessionsPerMessage, type ControllerEndpoint } from '../../common/control-channel/control-messages.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { RouterPresence } from '../edge/router-presence.ts';
import type { AppliedChanges } from '../model/model-state-machine.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { routerTables } from '../model/router-entities.ts';
import type { Configuration } from '../raft/core/types.ts';
import type { ModelStore } from '../store/model-store.ts';
import type { ControllerMetrics } from '../telemetry/controller-metrics.ts';
import { clusterMembers } from './cluster-members.ts';
import { ClusterRouterPresence, isRouterPeerRequest, type PeerCaller, type RouterPeerRequest } from './cluster-router-presence.ts';
import type { TerminatorDirectory } from '../edge/terminator-directory.ts';
import { EdgeModelCache } from './edge-model-cache.ts';
import { defaultRouterChannelTiming, type ControlSocket } from './router-channel.ts';
import { RouterHub, type RouterHubTiming, type RouterMetricsSink } from './router-hub.ts';
import { RouterMetricsStore } from './router-metrics-store.ts';
import { TerminatorRegistry } from './terminator-registry.ts';
import { sdkTerminatorStillAllowed } from '../circuits/edge-bind-check.ts';
import { startEdgeSessionControl } from './edge-session-control.ts';
import { serviceTerminatorSeries } from './service-terminator-series.ts';
import type { EdgeSessionDirectory } from '../edge/edge-session-directory.ts';
import { CircuitService, type CircuitOutcome, type SessionDialer } from '../circuits/circuit-service.ts';
import { mergeServiceTerminators } from '../edge/model-terminators.ts';
import { CircuitRevocation, defaultCircuitRevocationTiming, readLiveCircuits } from '../circuits/circuit-revocation.ts';
import { HeldSessionCheck } from './held-session-check.ts';
import { checkLiveCircuits, type LiveCircuitCheckDeps, type SessionStatus } from '../circuits/live-circuit-check.ts';
import { isIdentityDisabled } from '../auth/identity-state.ts';
import { tables, type ApiSession, type Identity } from '../model/entities.ts';
import { serviceTables, type Service } from '../model/service-entities.ts';
import type { DialGrants } from '../circuits/dial-grants.ts';
import { routerGrantLookups } from '../circuits/router-grant-lookups.ts';
import { edgeRouterPolicyTables } from '../model/edge-router-policy-entities.ts';
import { revocationTables as revocationEntityTables } from '../model/revocation-entities.ts';
import { ServiceAccessService } from '../edge/service-access-service.ts';
import type { CircuitReport } from '../events/circuit-events.ts';

export interface RouterControlTiming extends RouterHubTiming {
  readonly peerRequestTimeoutMs: number;
  /** How often a version 1 member is asked for its whole lists (1 s). */
  readonly presenceCacheMs: number;
  /** Presence changes of this controller's routers are pushed to the other members this often (100 ms). */
  readonly presencePushIntervalMs: number;
  /** A heartbeat delta goes out when nothing else has for this long (1 s). */
  readonly presenceHeartbeatMs: number;
  /** A member whose deltas and heartbeats stop this long counts as having no routers (5 s). */
  readonly presenceSilenceMs: number;
  /** How long a member has to send its whole presence state (10 s). */
  readonly presenceStateTimeoutMs: number;
  /** A disconnected router's metric series stay this long (60 s). */
  readonly metricsRetainMs: number;
  /** A series a router stopped reporting stays this long (5 min). */
  readonly metricsStaleMs: number;
  /** A disconnected router's terminators are still listed this long (5 s): a router back at once keeps its place. */
  readonly terminatorGraceMs: number;
  /** The other controllers' edge sessions are asked for again this often without an announcement (5 s). */
  readonly edgeSessionRefreshMs: number;
}

export const defaultRouterControlTiming: RouterControlTiming = {
  ...defaultRouterChannelTiming,
  edgeModelDebounceMs: 1000,
  peerRequestTimeoutMs: 500,
  presenceCacheMs: 1000,
  presencePushIntervalMs: 100,
  presenceHeartbeatMs: 1000,
  presenceSilenceMs: 5000,
  presenceStateTimeoutMs: 10_000,
  metricsRetainMs: 60_000,
  metricsStaleMs: 300_000,
  terminatorGraceMs: 5000,
  edgeSessionRefreshMs: 5000,
};

export interface RouterControlDeps {
  readonly self: ControllerEndpoint;
  readonly store: ModelStore;
  readonly onModelChanges: (listener: (applied: AppliedChanges) => void) => void;
  /** A snapshot replaced the whole model (no per-entity changes are heard for it). */
  readonly onModelReplaced?: (listener: () => void) => void;
  readonly observeConfiguration: (observer: (configuration: Configuration) => void) => void;
  readonly peers: PeerCaller;
  readonly metrics: Pick<ControllerMetrics, 'routerGauge' | 'transientGauge'>;
  readonly logger: Logger;
  readonly clock: Clock;
  /** A circuit event to write (events file, metrics): reported by a router or a refusal here. */
  readonly onCircuit?: (report: CircuitReport) => void;
  /** The control certificate chain and key: circuit routes are signed with them. */
  readonly signing: { readonly certPem: string; readonly keyPem: string };
  readonly timing?: Partial<RouterControlTiming>;
}

export interface RouterControl {
  readonly presence: RouterPresence;
  readonly terminators: TerminatorDirectory;
  /** Which identities hold SDK edge channels on the cluster's routers (`hasEdgeRouterConnection`). */
  readonly edgeSessions: EdgeSessionDirectory;
  /** Keeps the API sessions holding edge channels on this controller's routers alive: `touch` every interval and when released. */
  setEdgeSessionKeeper(touch: (apiSessionIds: readonly string[]) => void, intervalMs: number): void;
  /** The cluster's members' control addresses now (for router enrollment JWTs). */
  controlAddresses(): string[];
  accept(socket: ControlSocket): void;
  handlesPeerRequest(body: unknown): body is RouterPeerRequest;
  /** `from`: the member that asked (its authenticated id). */
  handlePeerRequest(body: RouterPeerRequest, from: string): Promise<unknown>;
  /** How edge clients' API sessions dial circuits (once the edge services exist). */
  setSessionDialer(dialer: SessionDialer): void;
  /** How a live circuit's API session is checked again, by id, and found from a token (once the edge services exist). */
  setSessionStatus(status: SessionStatus, sessionIdOf: (token: string) => string | undefined): void;
  close(): void;
}

export function startRouterControl(deps: RouterControlDeps): RouterControl {
  const timing = { ...defaultRouterControlTiming, ...(deps.timing ?? {}) };
  const { clock, store } = deps;
  const metricsSink = routerMetricsSink(deps.metrics, clock, timing);
  let presence: ClusterRouterPresence | undefined;
  const terminators = new TerminatorRegistry({ controllerId: deps.self.id, graceMs: timing.terminatorGraceMs });
  let circuits: CircuitService | undefined;
  let revocation: CircuitRevocation | undefined;
  const access = new ServiceAccessService(store);
  const edgeSessions = startEdgeSessionControl({
    controllerId: deps.self.id,
    graceMs: timing.terminatorGraceMs,
    // An OIDC session has no row: its identity is the one its newest valid token named (the session status).
    sessionIdentity: (id) => store.table<ApiSession>(tables.apiSessions).get(id)?.identityId ?? statusIdentity(id),
    remote: () => presence!.remoteEdgeSessions(),
    announce: (event) => presence!.announce(event),
    endSessions: (routerId, sessions) => {
      for (let start = 0; start < sessions.length; start += maxEdgeSessionsPerMessage) {
        hub.sendTo(routerId, { type: 'ctrl.edgeSessionsEnded', sessions: sessions.slice(start, start + maxEdgeSessionsPerMessage) });
      }
    },
    endDelayMs: defaultCircuitRevocationTiming.checkIntervalMs,
    clock,
    logger: deps.logger,
    refreshIntervalMs: timing.edgeSessionRefreshMs,
  });
  const findRouter = (id: string) => store.table<EdgeRouter>(routerTables.edgeRouters).get(id);
  // Read once per applied index: every welcome and every terminator registration needs it.
  const edgeModels = new EdgeModelCache(store, findRouter);
  const hub: RouterHub = new RouterHub({
    controllerId: deps.self.id,
    findRouter,
    edgeModel: () => edgeModels.edgeModel(),
    modelRows: store,
    hostedServices: (routerId) => edgeModels.hostedServices(routerId),
    terminators,
    otherRouters: () => presence!.otherRouters(),
    announce: (event) => presence!.announce(event),
    linksReported: (routerId) => presence!.localChanged(routerId),
    metrics: metricsSink,
    circuitReport: (routerId, report) => {
      if (report.event === 'failed') deps.logger.warn('circuit failed', { routerId, circuitId: report.circuitId, cause: report.failureCause, reason: report.reason });
      if ((report.event === 'deleted' || report.event === 'failed') && report.circuitId !== undefined) revocation!.ended(routerId, report.circuitId);
      deps.onCircuit?.(report);
    },
    liveCircuits: (routerId, frame) => {
      const entries = readLiveCircuits(frame);
      if (!entries) return deps.logger.warn('router live circuits message refused', { routerId });
      let tracked = 0;
      for (const entry of entries) {
        // A router's own circuit is its identity's; a client's is checked by its session (a token that no longer
        // names one leaves an id that resolves to nothing: the circuit is revoked at the next pass).
        if (entry.apiSession === undefined && entry.identityId !== routerId) continue;
        revocation!.track({
          circuitId: entry.circuitId,
          routerId,
          serviceId: entry.serviceId,
          identityId: entry.identityId,
          ...(entry.apiSession !== undefined ? { apiSessionId: sessionIdOf(entry.apiSession) ?? '' } : {}),
        });
        tracked++;
      }
      if (tracked > 0) revocation!.checkSoon();
    },
    createCircuit: async (routerId: string, request: unknown): Promise<unknown> => {
      const outcome: CircuitOutcome = await circuits!.create(routerId, request);
      logCircuit(deps.logger, outcome);
      const { answer, route } = outcome;
      // An edge client's circuit is re-checked by its API session; a router's own by the router's identity.
      if (route && (outcome.identityId === undefined || outcome.apiSessionId !== undefined)) {
        revocation!.track({
          circuitId: route.circuitId,
          routerId,
          serviceId: route.serviceId,
          identityId: route.identityId,
          ...(outcome.apiSessionId !== undefined ? { apiSessionId: outcome.apiSessionId } : {}),
          routers: route.routers,
        });
      }
      if ('refused' in answer) {
        const refusal = outcome.refusal ?? answer.refused;
        deps.onCircuit?.({
          event: 'failed',
          clientId: outcome.identityId ?? routerId,
          routers: [routerId],
          failureCause: refusal.code,
          reason: refusal.message,
          ...(outcome.serviceId ? { serviceId: outcome.serviceId } : {}),
        });
      }
      return answer;
    },
    edgeHello: (routerId, request) => circuits!.edgeHello(routerId, request),
    edgeTokenUpdate: (_routerId, request) => circuits!.edgeTokenUpdate(request),
    edgeBind: (routerId, request) => circuits!.edgeBind(routerId, request),
    sdkTerminatorAllowed: (terminator) => sdkTerminatorStillAllowed({ access, status: sessionStatus }, terminator, clock.now()),
    edgeSessions,
    logger: deps.logger,
    clock,
    timing,
  });
  deps.metrics.transientGauge(
    'service.terminators',
    'Terminators of each service by binding held by the routers connected to this controller (sum over the controllers for the cluster); every service has an edge-binding series, 0 without SDK hosts',
    () => serviceTerminatorSeries(store.table<Service>(serviceTables.services).all(), terminators.listUnordered(clock.now())),
  );
  let members: ControllerEndpoint[] = [deps.self];
  // Only the configuration's members are asked and told: a removed controller may still be known to the network.
  const memberPeers: PeerCaller = {
    peers: () => deps.peers.peers().filter((peer) => members.some((member) => member.id === peer.id)),
    request: (id, body, timeoutMs) => deps.peers.request(id, body, timeoutMs),
  };
  presence = new ClusterRouterPresence(
    deps.self.id,
    memberPeers,
    {
      summaries: () => hub.summaries(),
      entry: (routerId) => {
        const router = hub.summaryOf(routerId);
        return {
          routerId,
          ...(router ? { router } : {}),
          terminators: terminators.routerTerminators(routerId, clock.now()),
          links: hub.linksIfConnected(routerId) ?? [],
          edgeSessions: edgeSessions.recordsOf(routerId),
        };
      },
      linksIfConnected: (routerId) => hub.linksIfConnected(routerId),
      routerIds: () => new Set([...terminators.routerIds(), ...hub.summaries().map((summary) => summary.routerId), ...edgeSessions.records().map((record) => record.routerId)]),
      terminators: () => terminators.list(clock.now()),
      terminatorsOf: (serviceId) => terminators.terminatorsOf(serviceId, clock.now()),
      links: () => hub.links(),
      edgeSessions: () => edgeSessions.records(),
    },
    clock,
    {
      requestTimeoutMs: timing.peerRequestTimeoutMs,
      cacheMs: timing.presenceCacheMs,
      stateTimeoutMs: timing.presenceStateTimeoutMs,
      heartbeatMs: timing.presenceHeartbeatMs,
      silenceMs: timing.presenceSilenceMs,
      graceMs: timing.terminatorGraceMs,
      epoch: randomBytes(12).toString('base64url'),
    },
    deps.logger,
  );
  const clusterPresence: ClusterRouterPresence = presence;
  clusterPresence.setListener({ routerEvent: (event) => hub.remoteEvent(event), edgeSessionsChanged: () => edgeSessions.remoteChanged() });
  const presenceTimer = setInterval(() => clusterPresence.tick(), timing.presencePushIntervalMs);
  presenceTimer.unref();
  circuits = new CircuitService({
    controllerId: deps.self.id,
    store,
    access,
    presence: {
      terminatorsOf: async (serviceId) => mergeServiceTerminators(await clusterPresence.terminatorsOf(serviceId), serviceId, store),
      linkGraph: () => clusterPresence.linkGraph(),
      pathsFrom: (from, exclusion, excluded) => clusterPresence.pathsFrom(from, exclusion, excluded),
      takesRouteBatches: (routerId) => hub.takesRouteBatches(routerId),
    },
    signing: deps.signing,
    clock,
    logger: deps.logger,
    endOfTurn: (run) => setImmediate(run),
  });
  deps.observeConfiguration((configuration) => {
    members = clusterMembers(configuration, deps.self);
    hub.setMembers(members);
  });
  // Until the edge services exist no session can be judged, so nothing is revoked (no circuit is routed either).
  let sessionStatus: SessionStatus | undefined;
  function statusIdentity(apiSessionId: string): string | undefined {
    const status = sessionStatus?.(apiSessionId);
    return status?.ok ? status.identity.id : undefined;
  }
  let sessionIdOf: (token: string) => string | undefined = () => undefined;
  revocation = new CircuitRevocation({
    tables: revocationTables,
    check: (live, nowMs) => (sessionStatus ? checkLiveCircuits(live, liveCircuitCheckDeps(store, sessionStatus, nowMs, circuits!.grants), nowMs) : new Map()),
    sendTo: (routerId, frame) => hub.sendTo(routerId, frame),
    isConnected: (routerId) => hub.isConnected(routerId),
    clock,
    logger: deps.logger,
  });
  const liveCircuits = revocation;
  liveCircuits.start();
  // The SDK channels of sessions that ended are closed too, not only their circuits (as often as circuits are checked).
  const heldSessions = new HeldSessionCheck({ records: () => edgeSessions.records(), status: () => sessionStatus, sendTo: (routerId, frame) => hub.sendTo(routerId, frame), logger: deps.logger });
  const heldSessionTimer = setInterval(() => heldSessions.pass(), defaultCircuitRevocationTiming.checkIntervalMs);
  heldSessionTimer.unref();
  deps.onModelChanges((applied) => {
    hub.modelChanged(applied);
    liveCircuits.modelChanged(applied);
  });
  deps.onModelReplaced?.(() => hub.modelReplaced());
  return {
    presence,
    terminators: presence,
    edgeSessions: edgeSessions.index,
    setEdgeSessionKeeper: (touch, intervalMs) => edgeSessions.setKeeper(touch, intervalMs),
    controlAddresses: () => members.map((member) => member.address),
    accept: (socket) => hub.accept(socket),
    handlesPeerRequest: isRouterPeerRequest,
    async handlePeerRequest(body, from) {
      if (body.type === 'routers.delta') {
        clusterPresence.receiveDelta(from, body);
        return { ok: true };
      }
      if (body.type === 'routers.state') return clusterPresence.state();
      // Version 1, for members that speak only it.
      if (body.type === 'routers.connected') return { routers: hub.summaries(), terminators: terminators.list(clock.now()), links: hub.links(), edgeSessions: edgeSessions.records() };
      // Its routers reach this controller's with the next ask (its answer is held as its mirror).
      clusterPresence.legacyChanged(from);
      return { ok: true };
    },
    setSessionDialer: (dialer) => circuits!.setSessionDialer(dialer),
    setSessionStatus: (status, idOf) => {
      sessionStatus = status;
      sessionIdOf = idOf;
    },
    close: () => {
      clearInterval(presenceTimer);
      clearInterval(heldSessionTimer);
      edgeSessions.close();
      liveCircuits.close();
      hub.close();
    },
  };
}

/** What a live circuit is checked against: this controller's model now. */
function liveCircuitCheckDeps(store: ModelStore, sessionStatus: SessionStatus, nowMs: number, grants: DialGrants): LiveCircuitCheckDeps {
  return {
    serviceExists: (serviceId) => store.table<Service>(serviceTables.services).get(serviceId) !== undefined,
    enabledRouter: (routerId) => {
      const row = store.table<EdgeRouter>(routerTables.edgeRouters).get(routerId);
      return row && !row.disabled ? { id: row.id, roleAttributes: row.roleAttributes } : undefined;
    },
    sessionStatus,
    identityRevoked: (identityId) => {
      const identity = store.table<Identity>(tables.identities).get(identityId);
      if (!identity) return 'the identity was deleted';
      return isIdentityDisabled(identity, nowMs) ? 'the identity is disabled' : undefined;
    },
    ...routerGrantLookups(store, grants),
  };
}

/** The tables whose changes can revoke a live circuit. */
const revocationTables: ReadonlySet<string> = new Set([
  tables.apiSessions,
  tables.identities,
  tables.mfas,
  tables.authPolicies,
  // A revocation ends an OIDC session that has no row to delete.
  revocationEntityTables.revocations,
  serviceTables.services,
  serviceTables.servicePolicies,
  serviceTables.postureChecks,
  routerTables.edgeRouters,
  edgeRouterPolicyTables.edgeRouterPolicies,
  edgeRouterPolicyTables.serviceEdgeRouterPolicies,
]);

/** One line per circuit decision: created at info (with its path), refused at warn (with the code). */
function logCircuit(logger: Logger, outcome: CircuitOutcome): void {
  const { routerId, service, answer, route } = outcome;
  if ('refused' in answer) {
    const refusal = outcome.refusal ?? answer.refused;
    logger.warn('circuit refused', { routerId, service, code: refusal.code, reason: refusal.message, ...(outcome.identityId ? { identityId: outcome.identityId } : {}) });
    return;
  }
  logger.info('circuit routed', { routerId, service, circuitId: route!.circuitId, path: route!.routers, terminatorId: route!.terminator.id, identityId: route!.identityId });
}

/** Router metrics into the store, and a gauge on /metrics for every metric name a router has reported. */
function routerMetricsSink(metrics: Pick<ControllerMetrics, 'routerGauge'>, clock: Clock, timing: RouterControlTiming): RouterMetricsSink {
  const store = new RouterMetricsStore({ retainMs: timing.metricsRetainMs, staleMs: timing.metricsStaleMs, maxSeriesPerRouter: 1000 });
  const expose = (names: readonly string[]) => {
    for (const metric of names) {
      metrics.routerGauge(metric, () => {
        store.sweep(clock.now());
        return store.series(metric);
      });
    }
  };
  return {
    record(routerId, gauges) {
      expose(store.record(routerId, gauges, clock.now()));
    },
    // The controller's own view of the channel, between the router's reports (the first comes a report interval
    // and an age threshold after it connects): up at welcome, down at close, its heartbeat round trip as measured here.
    connected(routerId) {
      store.connected(routerId);
      expose(store.record(routerId, { 'ctrl.connected': 1 }, clock.now()));
    },
    disconnected(routerId) {
      expose(store.record(routerId, { 'ctrl.connected': 0 }, clock.now()));
      store.disconnected(routerId, clock.now());
    },
    roundTrip(routerId, ms) {
      expose(store.record(routerId, { 'ctrl.latency_ms': ms }, clock.now()));
    },
  };
}

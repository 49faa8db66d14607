// `router run`: wires the router's parts around one config, in start order, each pushed on one stack of things to
// stop in reverse. Started once; listener, link and tunnel settings are read here at start and never again (a
// change needs a restart). The `listeners` and `dialers` sections are logged and the edge listeners reported in
// the hello (supportedProtocols).
//
//   identity ─► control channel ─► link manager (routers, controller up/down)
//                    │  ├─► endpoints file (cluster members)
//                    │  ├─► edge model ─► edge db (every dbSaveIntervalSeconds)
//                    │  └─► trace file
//   metrics (built every reportInterval, sent once intervalAgeThreshold old, queued while down) ─┘
//   health checks (controllerPing, link.health) ─► health-checks API (web)

import { StopStack } from '../../common/lifecycle/stop-stack.ts';
import { formatAddress } from '../../common/config/address.ts';
import type { LinkListenerInfo } from '../../common/control-channel/control-messages.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { Forwarder } from '../circuits/forwarder.ts';
import type { RouterConfig } from '../config/router-config.ts';
import { runProtocolMessages } from '../config/router-config-schema.ts';
import type { HealthCheckRunner } from '../health/router-health-checks.ts';
import type { LinkManagerApi, LinkManagerFactory } from '../links/link-manager-api.ts';
import { createLinkManager } from '../links/link-manager.ts';
import { startCircuits, type RouterCircuits } from './circuit-wiring.ts';
import { dialerLogFields, listenerLogFields, supportedProtocolsOf } from './configured-listeners.ts';
import type { ControlChannel } from './control-channel.ts';
import { openControlChannel } from './control-channel-wiring.ts';
import { EdgeDb, loadEdgeSnapshot } from './edge-db.ts';
import { EdgeModelHolder } from './edge-model-snapshot.ts';
import { normaliseControlAddress } from './endpoints-file-format.ts';
import { EndpointsFileKeeper, readEndpointsFile } from './endpoints-file.ts';
import { loadIdentity } from './identity-material.ts';
import type { MetricsReporter } from './metrics-reporter.ts';
import { routerMetricsReporter } from './metrics-wiring.ts';
import { RouterProfiler } from './profiler.ts';
import { startRouterHealth } from './router-health.ts';
import { hostsServices, TerminatorSync } from './terminator-sync.ts';
import { TraceWriter } from './trace-writer.ts';

export interface RouterProcessDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly version: string;
  readonly random?: () => number;
  /** Default: router/links/link-manager.ts's createLinkManager. */
  readonly linkManagerFactory?: LinkManagerFactory;
}

export interface RunningRouter {
  readonly routerId: string;
  readonly channel: ControlChannel;
  readonly linkManager: LinkManagerApi;
  readonly health: HealthCheckRunner;
  readonly forwarder: Forwarder;
  stop(): Promise<void>;
}

export class RouterStartError extends Error {}

export async function startRouter(config: RouterConfig, deps: RouterProcessDeps): Promise<RunningRouter> {
  const { clock, logger } = deps;
  const identity = await loadIdentity(config.identity);
  const routerId = identity.routerId;
  logger.info('router starting', { routerId, version: deps.version });

  const endpoints = await initialEndpoints(config, logger);
  if (endpoints.length === 0) {
    throw new RouterStartError(`no controller address: ctrl.endpoint(s) give no tls: address and the endpoints file ${config.ctrl.endpointsFile} names none`);
  }

  // A part that fails to stop is logged and the others still stop.
  const stack = new StopStack((part, error) => logger.error('error while stopping', { part, error: (error as Error)?.message ?? String(error) }));
  return stack.starting(async () => {
    const profiler = new RouterProfiler(config.profile, clock, logger.child('profile'));
    await profiler.start();
    stack.push('profiler', () => profiler.stop());
    const trace = config.trace ? new TraceWriter(config.trace.path, config.forwarder.rateLimitedQueueLength, clock, logger.child('trace')) : undefined;
    if (trace) stack.push('trace file', () => trace.close());
    const holder = await startEdgeModel(config, clock, logger, stack);
    const listenerLog = logger.child('listeners');
    const supportedProtocols = logConfiguredListeners(config, listenerLog);

    const factory = deps.linkManagerFactory ?? createLinkManager;
    const linkManager = factory({
      config,
      routerId,
      tls: { certPem: identity.certPem, keyPem: identity.keyPem, serverCertPem: identity.serverCertPem, serverKeyPem: identity.serverKeyPem, caPem: identity.caPem },
      logger: logger.child('links'),
    });
    await linkManager.start();
    stack.push('link manager', () => linkManager.stop());

    // Hosting: a tunnel listener (any mode) registers terminators for the services this router's identity may Bind.
    const terminators = new TerminatorSync(routerId, hostsServices(config.listeners ?? []));
    terminators.modelChanged(holder.current.model);
    // The cluster's members as the controllers last announced them: only they sign routes (route-authority.ts).
    let controllerMembers: ReadonlySet<string> | undefined;
    let parts: { metrics: MetricsReporter; circuits: RouterCircuits } | undefined;
    const channelLog = logger.child('ctrl');
    const endpointsFile = new EndpointsFileKeeper(config.ctrl.endpointsFile, channelLog);
    const channel = openControlChannel({
      config,
      routerId,
      version: deps.version,
      identity,
      endpoints,
      supportedProtocols,
      linkListeners: linkListenersOf(config),
      ...(deps.random ? { random: deps.random } : {}),
      ...(trace ? { trace } : {}),
      logger: channelLog,
      listenerLog,
      holder,
      linkManager,
      terminators,
      endpointsFile,
      parts: () => parts ?? assertUnreachable('a control message arrived before the channel started'),
      onMembers: (members) => (controllerMembers = members),
    });
    const circuits = await startCircuits({ config, routerId, identity, linkManager, terminators, holder, controllerMembers: () => controllerMembers, channel, clock, logger, listenerLog }, stack);
    const metrics = routerMetricsReporter(config, { routerId, linkManager, forwarder: circuits.forwarder, channel, edgeSessions: circuits.edgeSessions }, clock, logger.child('metrics'));
    parts = { metrics, circuits };
    channel.start();
    stack.push('control channel', async () => {
      await channel.stop();
      await endpointsFile.settled();
    });
    metrics.start();
    // At stop, the messages already old enough go out before the channel closes.
    stack.push('metrics reporter', async () => {
      metrics.stop();
      metrics.flush();
    });
    const health = await startRouterHealth(config, identity, { channel, linkManager }, clock, logger, stack);

    let stopping: Promise<void> | undefined;
    return {
      routerId,
      channel,
      linkManager,
      health,
      forwarder: circuits.forwarder,
      stop: () => {
        stopping ??= (async () => {
          logger.info('router stopping', { routerId });
          await stack.stopAll();
          logger.info('router stopped', { routerId });
        })();
        return stopping;
      },
    };
  });
}

/** The edge model the controllers last sent, from the edge db at start and saved to it every dbSaveIntervalSeconds. */
async function startEdgeModel(config: RouterConfig, clock: Clock, logger: Logger, stack: StopStack): Promise<EdgeModelHolder> {
  const edge = config.edge;
  const holder = new EdgeModelHolder(edge ? await loadEdgeSnapshot(edge.db, logger.child('edge-db')) : undefined);
  if (edge) {
    const edgeDb = new EdgeDb(edge.db, edge.dbSaveIntervalSeconds * 1000, holder, clock, logger.child('edge-db'));
    edgeDb.start();
    stack.push('edge db', () => edgeDb.stop());
  }
  return holder;
}

/** Listeners and dialers: logged and reported, read this once. Returns the edge listeners' protocols for the hello. */
function logConfiguredListeners(config: RouterConfig, listenerLog: Logger): Readonly<Record<string, string>> {
  for (const fields of listenerLogFields(config.listeners ?? [])) listenerLog.info('listener configured', fields);
  for (const fields of dialerLogFields(config)) listenerLog.info('dialer configured', fields);
  const edgeListeners = supportedProtocolsOf(config.listeners ?? []);
  for (const { index, reason } of edgeListeners.skipped) listenerLog.warn('edge listener not reported to the controller', { index, reason });
  if ((config.listeners ?? []).length > 0) {
    listenerLog.info('listeners: edge listeners serve HTTP CONNECT dials with an API session (not the SDK protocol), tunnel listeners host services, proxy mode carries circuits', {
      supportedProtocols: edgeListeners.protocols,
    });
  }
  return edgeListeners.protocols;
}

function assertUnreachable(message: string): never {
  throw new Error(message);
}

/** The endpoints file when it names any (it wins at start), else the config's tls: endpoints. */
async function initialEndpoints(config: RouterConfig, logger: Logger): Promise<string[]> {
  const file = await readEndpointsFile(config.ctrl.endpointsFile, logger);
  if (file) {
    logger.info('controller endpoints from the endpoints file', { path: config.ctrl.endpointsFile, endpoints: file.endpoints });
    return [...file.endpoints];
  }
  const endpoints: string[] = [];
  for (const address of config.ctrl.endpoints) {
    const text = formatAddress(address);
    const normalised = normaliseControlAddress(text);
    // `router validate` warns about the same endpoint in the same words (rule ctrl-not-tls).
    if (normalised === undefined) logger.warn('controller endpoint ignored', { endpoint: text, reason: runProtocolMessages.ctrlEndpoint(text) });
    else endpoints.push(normalised);
  }
  logger.info('controller endpoints from the config', { endpoints });
  return endpoints;
}

export function linkListenersOf(config: RouterConfig): LinkListenerInfo[] {
  return (config.link?.listeners ?? []).map((listener) => ({ binding: 'transport', advertise: formatAddress(listener.advertise), groups: [...listener.groups] }));
}

// `router run`: wires the router's parts around one config. Started once; listener, link and tunnel settings are
// read here at start and never again (a change needs a restart). The `listeners` and `dialers` sections are logged
// and the edge listeners reported in the hello (supportedProtocols); no data plane is served on them.
//
//   identity ─► control channel ─► link manager (routers, controller up/down)
//                    │  ├─► endpoints file (cluster members)
//                    │  ├─► edge model ─► edge db (every dbSaveIntervalSeconds)
//                    │  └─► trace file
//   metrics (built every reportInterval, sent once intervalAgeThreshold old, queued while down) ─┘
//   health checks (controllerPing, link.health) ─► health-checks API (web)

import { formatAddress } from '../../common/config/address.ts';
import type { LinkListenerInfo } from '../../common/control-channel/control-messages.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { RouterConfig, TunnelListenerConfig } from '../config/router-config.ts';
import { runProtocolMessages } from '../config/router-config-schema.ts';
import { HealthServer, type HealthListener } from '../health/health-server.ts';
import { HealthCheckRunner, routerCheckDefinitions } from '../health/router-health-checks.ts';
import type { LinkManagerApi, LinkManagerFactory } from '../links/link-manager-api.ts';
import { createLinkManager } from '../links/link-manager.ts';
import { Forwarder } from '../circuits/forwarder.ts';
import { linkPeerPolicyOf } from '../links/link-peer-policy.ts';
import { CircuitRevocation } from './circuit-revocation.ts';
import { ProxyListeners, proxyEntriesOf } from '../circuits/proxy-listeners.ts';
import { EdgeConnectListeners } from '../circuits/edge-connect-listener.ts';
import { TproxyInterceptor } from '../tproxy/tproxy-interceptor.ts';
import { CircuitReportQueue } from './circuit-report-queue.ts';
import { controllerTrustOf } from './controller-identity.ts';
import { controlChannelBackoff } from './backoff.ts';
import { dialerLogFields, listenerLogFields, supportedProtocolsOf } from './configured-listeners.ts';
import { ControlChannel } from './control-channel.ts';
import { EdgeDb, loadEdgeSnapshot } from './edge-db.ts';
import { EdgeModelHolder } from './edge-model-snapshot.ts';
import { hostsServices, TerminatorSync, type TerminatorMessage } from './terminator-sync.ts';
import { normaliseControlAddress } from './endpoints-file-format.ts';
import { EndpointsFileKeeper, readEndpointsFile } from './endpoints-file.ts';
import { loadIdentity, readIdentityValue, type IdentityMaterial } from './identity-material.ts';
import { MetricsReporter } from './metrics-reporter.ts';
import { RouterProfiler } from './profiler.ts';
import { buildRouterMetrics } from './router-metrics.ts';
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

  const started: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of started.reverse()) {
      try {
        await stop();
      } catch (error) {
        logger.error('error while stopping', { error: (error as Error).message });
      }
    }
  };

  try {
    const profiler = new RouterProfiler(config.profile, clock, logger.child('profile'));
    await profiler.start();
    started.push(() => profiler.stop());

    const trace = config.trace ? new TraceWriter(config.trace.path, config.forwarder.rateLimitedQueueLength, clock, logger.child('trace')) : undefined;
    if (trace) started.push(() => trace.close());

    const edge = config.edge;
    const holder = new EdgeModelHolder(edge ? await loadEdgeSnapshot(edge.db, logger.child('edge-db')) : undefined);
    const edgeDb = edge ? new EdgeDb(edge.db, edge.dbSaveIntervalSeconds * 1000, holder, clock, logger.child('edge-db')) : undefined;
    if (edgeDb) {
      edgeDb.start();
      started.push(() => edgeDb.stop());
    }

    // Listeners and dialers: logged and reported, read this once (this release carries no data plane on them).
    const listenerLog = logger.child('listeners');
    for (const fields of listenerLogFields(config.listeners ?? [])) listenerLog.info('listener configured', fields);
    for (const fields of dialerLogFields(config)) listenerLog.info('dialer configured', fields);
    const edgeListeners = supportedProtocolsOf(config.listeners ?? []);
    for (const { index, reason } of edgeListeners.skipped) listenerLog.warn('edge listener not reported to the controller', { index, reason });
    if ((config.listeners ?? []).length > 0) {
      listenerLog.info('listeners: edge listeners serve HTTP CONNECT dials with an API session (not the SDK protocol), tunnel listeners host services, proxy mode carries circuits', {
        supportedProtocols: edgeListeners.protocols,
      });
    }

    const factory = deps.linkManagerFactory ?? createLinkManager;
    const linkManager = factory({
      config,
      routerId,
      tls: { certPem: identity.certPem, keyPem: identity.keyPem, serverCertPem: identity.serverCertPem, serverKeyPem: identity.serverKeyPem, caPem: identity.caPem },
      logger: logger.child('links'),
    });
    await linkManager.start();
    started.push(() => linkManager.stop());

    const metrics = new MetricsReporter({
      reportIntervalMs: config.metrics.reportInterval,
      messageQueueSize: config.metrics.messageQueueSize,
      intervalAgeThresholdMs: config.metrics.intervalAgeThreshold,
      clock,
      logger: logger.child('metrics'),
      build: (now, dropped) => {
        const memory = process.memoryUsage();
        return buildRouterMetrics({
          routerId,
          now,
          links: linkManager.links(),
          ctrlLatencyMs: channel.latencyMs,
          ctrlConnected: channel.connected,
          heapUsedBytes: memory.heapUsed,
          rssBytes: memory.rss,
          metricsDropped: dropped,
          circuits: forwarder.stats(),
        });
      },
      send: (message) => channel.send(message),
    });
    // Hosting: a tunnel listener (any mode) registers terminators for the services this router's identity may Bind.
    const terminators = new TerminatorSync(routerId, hostsServices(config.listeners ?? []));
    terminators.modelChanged(holder.current.model);
    let hostedLogged = '';
    const sendTerminators = (messages: readonly TerminatorMessage[]) => {
      for (const message of messages) channel.send(message);
      const hosted = [...terminators.hosted].map(([serviceId, address]) => `${serviceId}=${address}`).join(',');
      if (hosted === hostedLogged) return;
      hostedLogged = hosted;
      listenerLog.info('hosted services changed: terminators sent to the controller', { count: terminators.hosted.size, services: [...terminators.hosted.keys()].slice(0, 20) });
    };
    const sendLinks = () => channel.send({ type: 'router.links', links: linkManager.links().map(({ id, destRouterId, latencyMs }) => ({ id, destRouterId, latencyMs })) });

    // The cluster's members as the controllers last announced them: only they sign routes (route-authority.ts).
    let controllerMembers: ReadonlySet<string> | undefined;
    const channelLog = logger.child('ctrl');
    const endpointsFile = new EndpointsFileKeeper(config.ctrl.endpointsFile, channelLog);
    const channel: ControlChannel = new ControlChannel({
      routerId,
      version: deps.version,
      linkListeners: linkListenersOf(config),
      supportedProtocols: edgeListeners.protocols,
      tls: { certPem: identity.certPem, keyPem: identity.keyPem, caPem: identity.caPem },
      ...(config.ctrl.controllerFingerprints === undefined ? {} : { controllerFingerprints: config.ctrl.controllerFingerprints }),
      endpoints,
      ...(config.ctrl.bind === undefined ? {} : { bind: config.ctrl.bind }),
      heartbeats: config.ctrl.heartbeats,
      requestTimeoutMs: config.ctrl.defaultRequestTimeout,
      connectTimeoutMs: numberOption(config.ctrl.options, 'connectTimeoutMs') ?? config.ctrl.defaultRequestTimeout,
      backoff: controlChannelBackoff,
      ...(deps.random ? { random: deps.random } : {}),
      maxQueuedFrames: config.forwarder.rateLimitedQueueLength,
      requestWorkers: config.forwarder.rateLimitedWorkerCount,
      logger: channelLog,
      ...(trace ? { trace: (direction, message, endpoint) => trace.record(direction, message, endpoint) } : {}),
      handlers: {
        onWelcome: (welcome) => {
          linkManager.knownRouters(welcome.routers);
          linkManager.onControllerConnected(true);
          metrics.flush();
          sendLinks();
          sendTerminators(terminators.welcomed());
          circuitReports.flush();
        },
        onDown: () => linkManager.onControllerConnected(false),
        onMembers: (members) => {
          controllerMembers = new Set(members.map((member) => member.id));
          endpointsFile.update(members);
        },
        onRouterConnected: (router) => linkManager.routerConnected(router),
        onRouterDisconnected: (id) => linkManager.routerDisconnected(id),
        onEdgeModel: (index, model) => {
          if (!holder.offer(index, model)) return;
          linkManager.refusePeers(linkPeerPolicyOf(model));
          channelLog.debug('edge model updated', { index });
          sendTerminators(terminators.modelChanged(model));
          for (const interceptor of interceptors) void interceptor.modelChanged(model);
        },
        onCircuitClose: (message) => revocation.circuitClose(message),
        onRevoked: (reason) => revocation.routerRevoked(reason),
        onRequest: async (body) => {
          if (body.op === 'ping') return { routerId };
          if (body.op === 'edgeModel') return holder.current;
          throw new Error(`unknown request ${(body as { op?: unknown }).op}`);
        },
      },
    });
    linkManager.onLinksChanged(() => {
      if (channel.connected) sendLinks();
    });

    // Circuit reports wait for the channel through a failover (bounded like the channel's own queue).
    const circuitReports = new CircuitReportQueue(config.forwarder.rateLimitedQueueLength, (report) => channel.send(report));
    // Circuits: the forwarding table, egress dials for the services hosted here, proxy listeners for ingress.
    const forwarder = new Forwarder({
      routerId,
      links: linkManager,
      caPem: identity.caPem,
      controllerTrust: controllerTrustOf(identity.caPem, config.ctrl.controllerFingerprints ?? []),
      controllerMembers: () => controllerMembers,
      identity: { certPem: identity.certPem, keyPem: identity.keyPem },
      hosted: () => terminators.hosted,
      requestCircuit: (service, avoidRouters, apiSession, resume) =>
        channel.request({ op: 'circuit.create', service, ...(avoidRouters.length > 0 ? { avoidRouters } : {}), ...(apiSession ? { apiSession } : {}), ...(resume ? { resume } : {}) }),
      config: config.forwarder,
      report: (circuit) => circuitReports.offer({ type: 'router.circuit', ...circuit }),
      clock,
      logger: logger.child('circuits'),
    });
    forwarder.start();
    started.push(async () => forwarder.stop());
    const revocation = new CircuitRevocation(forwarder, logger.child('circuits'));
    const tunnelListeners = (config.listeners ?? []).filter((listener): listener is TunnelListenerConfig => listener.binding === 'tunnel');
    const proxies = new ProxyListeners(proxyEntriesOf(tunnelListeners, listenerLog), forwarder, listenerLog);
    await proxies.start();
    started.push(() => proxies.stop());
    // tproxy mode: the nameserver, the per-service listeners and the nftables rules (one interceptor per listener).
    const interceptors = tunnelListeners
      .filter((listener) => listener.options.mode === 'tproxy')
      .map(
        (listener) =>
          new TproxyInterceptor({
            routerId,
            resolver: listener.options.resolver ?? 'udp://127.0.0.1:53',
            dnsSvcIpRange: listener.options.dnsSvcIpRange ?? '100.64.0.1/10',
            target: forwarder,
            logger: logger.child('tproxy'),
          }),
      );
    for (const interceptor of interceptors) {
      await interceptor.start();
      started.push(() => interceptor.stop());
      await interceptor.modelChanged(holder.current.model);
    }
    const edgeSpecs = (config.listeners ?? []).flatMap((listener) => (listener.binding === 'edge' && listener.bind.protocol === 'tls' ? [{ host: listener.bind.host, port: listener.bind.port }] : []));
    const edgeConnect = new EdgeConnectListeners(edgeSpecs, { certPem: identity.serverCertPem, keyPem: identity.serverKeyPem }, forwarder, listenerLog);
    await edgeConnect.start();
    started.push(() => edgeConnect.stop());

    channel.start();
    started.push(async () => {
      await channel.stop();
      await endpointsFile.settled();
    });

    metrics.start();
    // At stop, the messages already old enough go out before the channel closes.
    started.push(async () => {
      metrics.stop();
      metrics.flush();
    });

    const health = new HealthCheckRunner(
      routerCheckDefinitions(config.healthChecks, {
        ctrlConnected: () => channel.connected,
        pingController: async (timeoutMs) => void (await channel.request({ op: 'ping' }, timeoutMs)),
        links: () => linkManager.links(),
      }),
      clock,
    );
    health.start();
    started.push(async () => health.stop());

    const listeners = await healthListeners(config, identity);
    if (listeners.length > 0) {
      const server = new HealthServer(listeners, (short) => health.report(short), logger.child('health'));
      started.push(() => server.stop());
      await server.start();
    }

    let stopping: Promise<void> | undefined;
    return {
      routerId,
      channel,
      linkManager,
      health,
      forwarder,
      stop: () => {
        stopping ??= (async () => {
          logger.info('router stopping', { routerId });
          await stopAll();
          logger.info('router stopped', { routerId });
        })();
        return stopping;
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
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

async function healthListeners(config: RouterConfig, identity: IdentityMaterial): Promise<HealthListener[]> {
  const listeners: HealthListener[] = [];
  for (const [index, web] of (config.web ?? []).entries()) {
    if (!web.apis.some((api) => api.binding === 'health-checks')) continue;
    let certPem = identity.serverCertPem;
    let keyPem = identity.serverKeyPem;
    if (web.identity) {
      certPem = await readIdentityValue(web.identity.server_cert, `web[${index}].identity.server_cert`);
      keyPem = await readIdentityValue(web.identity.server_key, `web[${index}].identity.server_key`);
    }
    for (const bindPoint of web.bindPoints) listeners.push({ name: web.name, host: bindPoint.interface.host, port: bindPoint.interface.port, certPem, keyPem });
  }
  return listeners;
}

function numberOption(options: Readonly<Record<string, unknown>>, key: string): number | undefined {
  const value = options[key];
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

// The router's control channel and what it does with each controller message: on a welcome it tells the link manager,
// sends what waited (metrics, links, terminators, circuit reports) and the ingress circuits to re-check; members
// go to the endpoints file and route authority; a new edge model goes to the link peer policy, the terminators and
// the tproxy interceptors.
import type { Logger } from '../../common/log/logger.ts';
import { maxLiveCircuitsPerMessage, type EdgeModel, type LinkListenerInfo } from '../../common/control-channel/control-messages.ts';
import { applyEdgeModelDelta } from '../../common/control-channel/edge-model-delta.ts';
import { effectiveGroups } from '../../common/control-channel/link-groups.ts';
import type { RouterConfig } from '../config/router-config.ts';
import type { LinkManagerApi } from '../links/link-manager-api.ts';
import { linkPeerPolicyOf } from '../links/link-peer-policy.ts';
import { controlChannelBackoff } from './backoff.ts';
import type { RouterCircuits } from './circuit-wiring.ts';
import { ControlChannel, type ControlChannelHandlers } from './control-channel.ts';
import type { EdgeModelHolder } from './edge-model-snapshot.ts';
import type { EndpointsFileKeeper } from './endpoints-file.ts';
import type { IdentityMaterial } from './identity-material.ts';
import type { MetricsReporter } from './metrics-reporter.ts';
import type { TerminatorMessage, TerminatorSync } from './terminator-sync.ts';
import type { TraceWriter } from './trace-writer.ts';

export interface ControlChannelWiring {
  readonly config: RouterConfig;
  readonly routerId: string;
  readonly version: string;
  readonly identity: IdentityMaterial;
  readonly endpoints: readonly string[];
  readonly supportedProtocols: Readonly<Record<string, string>>;
  readonly linkListeners: readonly LinkListenerInfo[];
  readonly random?: () => number;
  readonly trace?: TraceWriter;
  readonly logger: Logger;
  readonly listenerLog: Logger;
  readonly holder: EdgeModelHolder;
  readonly linkManager: LinkManagerApi;
  readonly terminators: TerminatorSync;
  readonly endpointsFile: EndpointsFileKeeper;
  /** The parts made after the channel and before it starts: its handlers run only once it has started. */
  readonly parts: () => { readonly metrics: MetricsReporter; readonly circuits: RouterCircuits };
  readonly onMembers: (members: ReadonlySet<string>) => void;
}

/** The channel to the controllers (not started), with its handlers; link changes are sent while it is up. */
export function openControlChannel(wiring: ControlChannelWiring): ControlChannel {
  const { config, identity, trace } = wiring;
  const channel: ControlChannel = new ControlChannel({
    routerId: wiring.routerId,
    version: wiring.version,
    linkListeners: wiring.linkListeners,
    linkDialerGroups: linkDialerGroupsOf(config),
    supportedProtocols: wiring.supportedProtocols,
    tls: { certPem: identity.certPem, keyPem: identity.keyPem, caPem: identity.caPem },
    ...(config.ctrl.controllerFingerprints === undefined ? {} : { controllerFingerprints: config.ctrl.controllerFingerprints }),
    endpoints: wiring.endpoints,
    ...(config.ctrl.bind === undefined ? {} : { bind: config.ctrl.bind }),
    heartbeats: config.ctrl.heartbeats,
    requestTimeoutMs: config.ctrl.defaultRequestTimeout,
    connectTimeoutMs: numberOption(config.ctrl.options, 'connectTimeoutMs') ?? config.ctrl.defaultRequestTimeout,
    backoff: controlChannelBackoff,
    ...(wiring.random ? { random: wiring.random } : {}),
    maxQueuedFrames: config.forwarder.rateLimitedQueueLength,
    requestWorkers: config.forwarder.rateLimitedWorkerCount,
    logger: wiring.logger,
    ...(trace ? { trace: (direction, message, endpoint) => trace.record(direction, message, endpoint) } : {}),
    handlers: controllerMessageHandlers(wiring, () => channel),
  });
  wiring.linkManager.onLinksChanged(() => {
    if (channel.connected) sendLinks(channel, wiring.linkManager);
  });
  return channel;
}

function controllerMessageHandlers(wiring: ControlChannelWiring, channelOf: () => ControlChannel): ControlChannelHandlers {
  const { routerId, holder, linkManager, terminators } = wiring;
  const circuits = () => wiring.parts().circuits;
  let hostedLogged = '';
  const sendTerminators = (messages: readonly TerminatorMessage[]) => {
    for (const message of messages) channelOf().send(message);
    const hosted = [...terminators.hosted].map(([serviceId, address]) => `${serviceId}=${address}`).join(',');
    if (hosted === hostedLogged) return;
    hostedLogged = hosted;
    wiring.listenerLog.info('hosted services changed: terminators sent to the controller', { count: terminators.hosted.size, services: [...terminators.hosted.keys()].slice(0, 20) });
  };
  // The first whole model after a welcome replaces the one held (from disk or another controller), whatever its index.
  let welcomeModelDue = false;
  const takeModel = (index: number, model: EdgeModel) => {
    if (welcomeModelDue) {
      welcomeModelDue = false;
      holder.replace(index, model);
    } else if (!holder.offer(index, model)) return;
    linkManager.refusePeers(linkPeerPolicyOf(model));
    wiring.logger.debug('edge model updated', { index });
    sendTerminators(terminators.modelChanged(model));
    for (const interceptor of circuits().interceptors) void interceptor.modelChanged(model);
  };
  // A delta that starts past the model held (one was missed): the whole model, once at a time.
  let askingWholeModel = false;
  const askWholeModel = () => {
    if (askingWholeModel) return;
    askingWholeModel = true;
    channelOf()
      .request({ op: 'edgeModel' })
      .then((value) => {
        const answer = value as { index?: unknown; model?: { services?: unknown } } | null;
        if (answer && typeof answer.index === 'number' && answer.model && Array.isArray(answer.model.services)) takeModel(answer.index, answer.model as EdgeModel);
      })
      .catch((error: Error) => wiring.logger.warn('could not fetch the whole edge model after a missed delta', { error: error.message }))
      .finally(() => (askingWholeModel = false));
  };
  return {
    onWelcome: (welcome) => {
      welcomeModelDue = true;
      const channel = channelOf();
      linkManager.knownRouters(welcome.routers);
      linkManager.onControllerConnected(true);
      wiring.parts().metrics.flush();
      sendLinks(channel, linkManager);
      sendTerminators(terminators.welcomed());
      circuits().sdkHosts.rebindAll();
      circuits().reports.flush();
      // This controller may not be the one that routed them: it re-checks them for revocation from now on.
      const live = circuits().forwarder.ingressCircuits();
      for (let start = 0; start < live.length; start += maxLiveCircuitsPerMessage) {
        channel.send({ type: 'router.circuitsLive', circuits: live.slice(start, start + maxLiveCircuitsPerMessage) });
      }
      // This controller forgets what an earlier channel reported: every SDK channel's API session again.
      for (const message of circuits().edgeSessions.fullReport()) channel.send(message);
    },
    onDown: () => linkManager.onControllerConnected(false),
    onMembers: (members) => {
      wiring.onMembers(new Set(members.map((member) => member.id)));
      wiring.endpointsFile.update(members);
    },
    onRouterConnected: (router) => linkManager.routerConnected(router),
    onRouterDisconnected: (id) => linkManager.routerDisconnected(id),
    onEdgeModel: (index, model) => takeModel(index, model),
    onEdgeModelDelta: (delta) => {
      const outcome = applyEdgeModelDelta(holder.current.index, holder.current.model, delta);
      if (outcome.kind === 'applied') takeModel(delta.index, outcome.model);
      else if (outcome.kind === 'malformed') wiring.logger.warn('edge model delta refused', { reason: outcome.reason });
      else if (outcome.kind === 'gap') askWholeModel();
    },
    onCircuitClose: (message) => circuits().revocation.circuitClose(message),
    onEdgeSessionsEnded: (message) => circuits().sessionChannels.ended(message),
    onSdkTerminatorsRemoved: (terminatorIds) => circuits().sdkHosts.revoked(terminatorIds, 'the identity may no longer host the service (bind access lost)'),
    onRevoked: (reason) => circuits().revocation.routerRevoked(reason),
    onRequest: async (body) => {
      if (body.op === 'ping') return { routerId };
      if (body.op === 'edgeModel') return holder.current;
      throw new Error(`unknown request ${(body as { op?: unknown }).op}`);
    },
  };
}

function sendLinks(channel: ControlChannel, linkManager: LinkManagerApi): void {
  channel.send({ type: 'router.links', links: linkManager.links().map(({ id, destRouterId, latencyMs }) => ({ id, destRouterId, latencyMs })) });
}

function numberOption(options: Readonly<Record<string, unknown>>, key: string): number | undefined {
  const value = options[key];
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** Every group this router's link dialers dial (`[]` without dialers): the controller tells it only of the routers
 * it may link with. */
export function linkDialerGroupsOf(config: RouterConfig): string[] {
  return [...new Set((config.link?.dialers ?? []).flatMap((dialer) => effectiveGroups(dialer.groups)))];
}

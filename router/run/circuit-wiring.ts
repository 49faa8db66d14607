// The router's circuits: the forwarding table with its egress dials for the services hosted here, revocation of
// live circuits, and the ingress listeners (proxy-mode tunnel ports, tproxy interception, HTTP CONNECT on edge
// listeners). Circuit reports wait for the control channel through a failover, bounded like its own queue.
import type { StopStack } from '../../common/lifecycle/stop-stack.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import { EdgeConnectListeners } from '../circuits/edge-connect-listener.ts';
import { sdkChannelHandler } from '../edge/sdk-channels.ts';
import type { SdkEdgeChannel } from '../edge/sdk-edge-channel.ts';
import { startTokenExpirySweep, TokenExpirySweep } from '../edge/token-expiry-sweep.ts';
import { SessionChannels } from '../edge/session-channels.ts';
import { SdkHosts } from '../edge/sdk-hosts.ts';
import { EdgeSessionPresence } from '../edge/edge-session-presence.ts';
import { Forwarder } from '../circuits/forwarder.ts';
import { ProxyListeners, proxyEntriesOf } from '../circuits/proxy-listeners.ts';
import type { RouterConfig, TunnelListenerConfig } from '../config/router-config.ts';
import type { LinkManagerApi } from '../links/link-manager-api.ts';
import { TproxyInterceptor } from '../tproxy/tproxy-interceptor.ts';
import { CircuitReportQueue } from './circuit-report-queue.ts';
import { CircuitRevocation } from './circuit-revocation.ts';
import { controllerTrustOf } from './controller-identity.ts';
import type { ControlChannel } from './control-channel.ts';
import type { EdgeModelHolder } from './edge-model-snapshot.ts';
import type { IdentityMaterial } from './identity-material.ts';
import type { TerminatorSync } from './terminator-sync.ts';

export interface CircuitWiring {
  readonly config: RouterConfig;
  readonly routerId: string;
  readonly identity: IdentityMaterial;
  readonly linkManager: LinkManagerApi;
  readonly terminators: TerminatorSync;
  readonly holder: EdgeModelHolder;
  /** The cluster's members as the controllers last announced them: only they sign routes (route-authority.ts). */
  readonly controllerMembers: () => ReadonlySet<string> | undefined;
  /** The control channel, made but not started yet. */
  readonly channel: ControlChannel;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly listenerLog: Logger;
}

export interface RouterCircuits {
  readonly forwarder: Forwarder;
  /** SDK-hosted terminators (Binds on the edge listeners). */
  readonly sdkHosts: SdkHosts;
  readonly revocation: CircuitRevocation;
  readonly reports: CircuitReportQueue;
  readonly interceptors: readonly TproxyInterceptor[];
  /** The SDK channels open on the edge listeners, by API session (reported to the controller). */
  readonly edgeSessions: EdgeSessionPresence;
  /** The same channels by API session, to close those of a session the controller says ended. */
  readonly sessionChannels: SessionChannels;
}

/** Starts the forwarder and every ingress listener, each pushed on the stack as it starts. */
export async function startCircuits(wiring: CircuitWiring, stack: StopStack): Promise<RouterCircuits> {
  const { config, routerId, identity, channel, listenerLog } = wiring;
  const reports = new CircuitReportQueue(config.forwarder.rateLimitedQueueLength, (report) => channel.send(report));
  const sdkHosts = new SdkHosts();
  const forwarder = new Forwarder({
    sdkHosts,
    routerId,
    links: wiring.linkManager,
    caPem: identity.caPem,
    controllerTrust: controllerTrustOf(identity.caPem, config.ctrl.controllerFingerprints ?? []),
    controllerMembers: wiring.controllerMembers,
    controllerCertificate: () => channel.controllerCertificate,
    identity: { certPem: identity.certPem, keyPem: identity.keyPem },
    hosted: () => wiring.terminators.hosted,
    transportDialer: (config.dialers ?? []).some((dialer) => dialer.binding === 'transport'),
    requestCircuit: (service, avoidRouters, apiSession, resume, sdk) =>
      channel.request({
        op: 'circuit.create',
        service,
        ...(avoidRouters.length > 0 ? { avoidRouters } : {}),
        ...(apiSession ? { apiSession } : {}),
        ...(resume ? { resume } : {}),
        ...(sdk?.serviceSession ? { serviceSession: sdk.serviceSession } : {}),
        ...(sdk?.dialerKey ? { dialerKey: sdk.dialerKey } : {}),
      }),
    config: config.forwarder,
    report: (circuit) => reports.offer({ type: 'router.circuit', ...circuit }),
    clock: wiring.clock,
    logger: wiring.logger.child('circuits'),
  });
  forwarder.start();
  stack.push('forwarder', async () => forwarder.stop());
  const revocation = new CircuitRevocation(forwarder, wiring.logger.child('circuits'));
  const tunnelListeners = (config.listeners ?? []).filter((listener): listener is TunnelListenerConfig => listener.binding === 'tunnel');
  const proxies = new ProxyListeners(proxyEntriesOf(tunnelListeners, listenerLog), forwarder, listenerLog);
  await proxies.start();
  stack.push('proxy listeners', () => proxies.stop());
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
          logger: wiring.logger.child('tproxy'),
        }),
    );
  for (const interceptor of interceptors) {
    await interceptor.start();
    stack.push('tproxy interceptor', () => interceptor.stop());
    await interceptor.modelChanged(wiring.holder.current.model);
  }
  const edgeSpecs = (config.listeners ?? []).flatMap((listener) => (listener.binding === 'edge' && listener.bind.protocol === 'tls' ? [{ host: listener.bind.host, port: listener.bind.port }] : []));
  // Changes within 100 ms make one `router.edgeSessions`.
  const edgeSessions = new EdgeSessionPresence({ send: (message) => channel.send(message), schedule: (flush) => setTimeout(flush, 100).unref() });
  // Channels whose OIDC access token expired without an UpdateToken are closed (checked every 5 s).
  const expiry = new TokenExpirySweep(listenerLog);
  stack.push('token expiry sweep', startTokenExpirySweep(expiry, () => wiring.clock.now()));
  // Channels of API sessions the controller says ended are closed (`ctrl.edgeSessionsEnded`).
  const sessionChannels = new SessionChannels(listenerLog);
  const presence = {
    opened: (c: SdkEdgeChannel) => (edgeSessions.opened(c), expiry.opened(c), sessionChannels.opened(c)),
    closed: (c: SdkEdgeChannel) => (edgeSessions.closed(c), expiry.closed(c), sessionChannels.closed(c)),
  };
  const sdk = sdkChannelHandler({ routerId, channel, forwarder, hosts: sdkHosts, logger: listenerLog, presence });
  const edgeConnect = new EdgeConnectListeners(edgeSpecs, { certPem: identity.serverCertPem, keyPem: identity.serverKeyPem }, forwarder, listenerLog, undefined, sdk);
  await edgeConnect.start();
  stack.push('edge listeners', () => edgeConnect.stop());
  return { forwarder, sdkHosts, revocation, reports, interceptors, edgeSessions, sessionChannels };
}

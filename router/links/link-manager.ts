// The router's links to other routers (the `link` section): link listeners accept links, link dialers dial the
// listeners of the routers the controller reports, one link per (local dialer, remote listener) pair whose groups
// meet, and keep them: a failed dial or a lost link is retried on the healthy policy while the remote router is
// connected to the controller and on the unhealthy one while it is not; when a router connects, its targets are
// dialed at once on the healthy policy. Dials go through one queue (forwarder.linkDialWorkerCount running,
// forwarder.linkDialQueueLength waiting); a dial the full queue refuses counts as a failed one and is retried on its
// backoff. A dialer with `split` (the default) makes each link of a payload and an ack
// connection, otherwise of one single connection (link-dialer.ts, link-listener.ts). Links carry heartbeats and
// latency on each connection (link-channel.ts).
//
// Choices (see README.md): groups default to `default`; links dialed by both ends are both kept (one per
// direction); retries keep going while this router's own control channel is down, with the last known set of
// connected routers.

import { randomUUID } from 'node:crypto';
import { trustDomainsOfBundle } from '../../common/certificates/presented-certificate.ts';
import { networkInterfaces } from 'node:os';
import { formatAddress } from '../../common/config/address.ts';
import { BoundedWorkQueue } from '../work/bounded-work-queue.ts';
import type { LinkListenerInfo, RouterInfo } from '../../common/control-channel/control-messages.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { LinkDialerConfig } from '../config/router-config.ts';
import { runProtocolMessages } from '../config/router-config-schema.ts';
import { DialBackoff, type DialPolicyKind, type RetryStep } from './dial-backoff.ts';
import { advertisedLinkListeners, dialTargetsFor, type DialTarget } from './dial-targets.ts';
import { bindAddressFor, type InterfaceTable } from './dialer-bind.ts';
import { LinkChannel, linkTimingFor, type LinkDirection, type LinkTiming } from './link-channel.ts';
import { dialLink, type LinkDialError, type PendingDial } from './link-dialer.ts';
import { shapeFor, type LinkConnType, type LinkShape } from './link-hello.ts';
import { LinkListenerServer } from './link-listener.ts';
import { anyLinkPeer, type LinkPeerPolicy } from './link-peer-policy.ts';
import type { CircuitLink, LinkInfo, LinkManagerApi, LinkManagerFactory, LinkManagerOptions } from './link-manager-api.ts';
import { closeLinkSockets, type LinkSockets } from './link-sockets.ts';

export type { LinkTiming } from './link-channel.ts';

/** Knobs the config file does not carry; tests shorten them. */
export interface LinkManagerTuning {
  /** Heartbeat interval and silence timeout; default from forwarder.latencyProbeInterval (10 s when absent) and 60 s. */
  readonly timing?: LinkTiming;
  /** Connect + TLS + welcome for one dial; default 10 s. */
  readonly dialTimeoutMs?: number;
  /** How long a listener waits for the hello after TLS, and for a split link's second connection; default 10 s. */
  readonly handshakeTimeoutMs?: number;
  /** Draws in [0, 1) for retry jitter; default Math.random. */
  readonly random?: () => number;
  /** The host's interfaces, for a dialer `bind` that names one; default os.networkInterfaces(). */
  readonly interfaces?: () => InterfaceTable;
}

/** What `links()` lists: the contract's fields plus how the link came to be. */
export interface LinkDetails extends LinkInfo {
  readonly direction: LinkDirection;
  /** `split`: a payload and an ack connection (the dialer's `split: true`); `single`: one connection for both. */
  readonly connType: LinkShape;
  /** Each connection's `host:port` ends, by its connType (`payload` and `ack`, or `single`), as OpenZiti lists them. */
  readonly addresses: Readonly<Partial<Record<LinkConnType, { readonly localAddr: string; readonly remoteAddr: string }>>>;
}

interface Target extends DialTarget {
  readonly dialer: LinkDialerConfig;
  readonly backoff: DialBackoff;
  link: LinkChannel | undefined;
  dial: PendingDial | undefined;
  timer: NodeJS.Timeout | undefined;
  /** No longer advertised: kept only while its link lives, never redialed. */
  retired: boolean;
  /** Failed dials since the last link. */
  failures: number;
  /** Waiting in the link dial queue for a worker. */
  queued: boolean;
}

export class LinkManager implements LinkManagerApi {
  private readonly logger: Logger;
  private readonly selfId: string;
  private readonly dialers: readonly LinkDialerConfig[];
  private readonly timing: LinkTiming;
  private readonly dialTimeoutMs: number;
  private readonly handshakeTimeoutMs: number;
  private readonly random: () => number;
  private readonly interfaces: () => InterfaceTable;
  private readonly servers: LinkListenerServer[] = [];
  private readonly targets = new Map<string, Target>();
  /** Routers the controller reports connected (last known while our own control channel is down). */
  private readonly connected = new Set<string>();
  private readonly live = new Map<string, LinkChannel>();
  /** Which routers may be link peers (the edge model's routers, not disabled); set by `refusePeers`. */
  private peerPolicy: LinkPeerPolicy = anyLinkPeer;
  /** The fingerprints the controller last reported for each router's certificates (kept after it disconnects). */
  private readonly fingerprints = new Map<string, { readonly client?: string; readonly server?: string }>();
  /** Trust domains of identity.ca: a peer's router SPIFFE id must be in one. */
  private readonly trustDomains: readonly string[];
  private readonly changeListeners: Array<() => void> = [];
  private circuitFrameHandler: ((link: CircuitLink, frame: unknown) => void) | undefined;
  private readonly closeListeners: Array<(link: CircuitLink) => void> = [];
  /** forwarder.linkDialWorkerCount dials at once, forwarder.linkDialQueueLength waiting. */
  private readonly dialQueue: BoundedWorkQueue<Target>;
  private controllerUp = false;
  private state: 'new' | 'starting' | 'started' | 'stopped' = 'new';

  constructor(
    private readonly options: LinkManagerOptions,
    tuning: LinkManagerTuning = {},
  ) {
    this.selfId = options.routerId;
    this.logger = options.logger.child('links', { routerId: options.routerId });
    this.dialers = options.config.link?.dialers ?? [];
    this.timing = tuning.timing ?? linkTimingFor(options.config.forwarder.latencyProbeInterval);
    this.dialTimeoutMs = tuning.dialTimeoutMs ?? 10_000;
    this.handshakeTimeoutMs = tuning.handshakeTimeoutMs ?? 10_000;
    this.random = tuning.random ?? Math.random;
    this.interfaces = tuning.interfaces ?? (() => networkInterfaces());
    this.trustDomains = trustDomainsOfBundle(options.tls.caPem);
    const { linkDialQueueLength, linkDialWorkerCount } = options.config.forwarder;
    this.dialQueue = new BoundedWorkQueue({
      maxQueued: linkDialQueueLength,
      workers: linkDialWorkerCount,
      handle: (target) => this.runDial(target),
      onError: (error, target) => this.logger.error('link dial failed unexpectedly', { routerId: target.routerId, error }),
    });
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`link manager already ${this.state}`);
    this.state = 'starting';
    const { config, tls } = this.options;
    const listeners = config.link?.listeners ?? [];
    try {
      for (const [index, listener] of listeners.entries()) {
        if (listener.bind.protocol !== 'tls') {
          // `router validate` refuses the same bind in the same words (rule link-not-tls).
          throw new Error(`link.listeners[${index}].bind: ${runProtocolMessages.linkBind(listener.bind.protocol)}`);
        }
        const server = new LinkListenerServer({
          selfId: this.selfId,
          bind: { host: listener.bind.host, port: listener.bind.port },
          serverCertPem: tls.serverCertPem,
          serverKeyPem: tls.serverKeyPem,
          caPem: tls.caPem,
          trustDomains: this.trustDomains,
          clientFingerprintOf: (routerId) => this.fingerprints.get(routerId)?.client,
          handshakeTimeoutMs: this.handshakeTimeoutMs,
          logger: this.logger,
          admit: (hello) => this.admit(hello.linkId, hello.routerId),
          onLink: (sockets, hello) => this.addLink(sockets, hello.linkId, hello.routerId, 'accepted', undefined),
        });
        try {
          await server.start();
        } catch (error) {
          throw new Error(`link.listeners[${index}]: cannot listen on ${formatAddress(listener.bind)}: ${(error as Error).message}`, { cause: error });
        }
        this.servers.push(server);
        this.logger.info('link listener started', {
          bind: formatAddress({ ...listener.bind, port: server.address?.port ?? listener.bind.port }),
          advertise: formatAddress(listener.advertise),
          groups: listener.groups,
        });
      }
    } catch (error) {
      await Promise.all(this.servers.splice(0).map((server) => server.stop()));
      this.state = 'stopped';
      throw error;
    }
    for (const [index, dialer] of this.dialers.entries()) {
      this.logger.info('link dialer ready', {
        dialer: index,
        groups: dialer.groups,
        bind: dialer.bind ?? null,
        split: dialer.split,
        connType: shapeFor(dialer.split),
        healthyDialBackoff: dialer.healthyDialBackoff,
        unhealthyDialBackoff: dialer.unhealthyDialBackoff,
      });
    }
    if (this.state === 'starting') this.state = 'started';
  }

  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    for (const target of this.targets.values()) {
      if (target.timer !== undefined) clearTimeout(target.timer);
      target.timer = undefined;
      target.dial?.cancel();
    }
    for (const link of [...this.live.values()]) link.close('router stopping');
    this.live.clear();
    this.targets.clear();
    await Promise.all(this.servers.splice(0).map((server) => server.stop()));
    this.logger.info('links stopped');
  }

  onControllerConnected(connected: boolean): void {
    if (connected === this.controllerUp) return;
    this.controllerUp = connected;
    // Links and retries carry on either way; while the channel is down the last known connected set decides.
    this.logger.info(connected ? 'control channel up: links follow the controller again' : 'control channel down: keeping links and retries', {
      links: this.live.size,
    });
  }

  routerConnected(info: RouterInfo): void {
    this.guard('routerConnected', () => {
      if (!isRouterInfo(info) || info.id === this.selfId) return;
      this.connected.add(info.id);
      this.learn(info);
    });
  }

  routerDisconnected(routerId: string): void {
    this.guard('routerDisconnected', () => {
      if (typeof routerId !== 'string' || routerId === this.selfId) return;
      this.forget(routerId);
    });
  }

  knownRouters(routers: readonly RouterInfo[]): void {
    this.guard('knownRouters', () => {
      const list = (Array.isArray(routers) ? routers : []).filter(isRouterInfo).filter((info) => info.id !== this.selfId);
      const ids = new Set(list.map((info) => info.id));
      for (const id of [...this.connected]) if (!ids.has(id)) this.forget(id);
      for (const info of list) {
        this.connected.add(info.id);
        this.learn(info);
      }
    });
  }

  refusePeers(policy: LinkPeerPolicy): void {
    this.guard('refusePeers', () => {
      this.peerPolicy = policy;
      for (const link of [...this.live.values()]) {
        const reason = policy(link.destRouterId);
        if (reason === undefined) continue;
        this.logger.warn('link closed: the peer router is revoked', { linkId: link.id, destRouterId: link.destRouterId, reason });
        link.close(`peer router revoked: ${reason}`);
      }
      for (const target of this.targets.values()) {
        if (policy(target.routerId) === undefined) continue;
        if (target.timer !== undefined) clearTimeout(target.timer);
        target.timer = undefined;
        target.dial?.cancel();
      }
    });
  }

  links(): ReadonlyArray<LinkDetails> {
    return Array.from(this.live.values(), (link) => ({
      id: link.id,
      destRouterId: link.destRouterId,
      latencyMs: link.latencyMs,
      localAddr: link.localAddr,
      remoteAddr: link.remoteAddr,
      direction: link.direction,
      connType: link.shape,
      addresses: link.addresses,
      bytesSent: link.bytesSent,
      bytesReceived: link.bytesReceived,
    }));
  }

  onLinksChanged(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  linkById(id: string): CircuitLink | undefined {
    const link = this.live.get(id);
    return link && !link.closed ? link : undefined;
  }

  onCircuitFrame(handler: (link: CircuitLink, frame: unknown) => void): void {
    this.circuitFrameHandler = handler;
  }

  onLinkClosed(handler: (link: CircuitLink) => void): void {
    this.closeListeners.push(handler);
  }

  /** The link listeners as this router advertises them (after start, a bind to port 0 shows the port it got). */
  listenerInfos(): LinkListenerInfo[] {
    return advertisedLinkListeners(this.options.config.link, this.servers.map((server) => server.address?.port ?? 0));
  }

  /** The policy a target to `routerId` retries on now. */
  policyFor(routerId: string): DialPolicyKind {
    return this.connected.has(routerId) ? 'healthy' : 'unhealthy';
  }

  // ---- dialing ----------------------------------------------------------------------------------------------

  /** A router connected (or is listed as connected): update its targets and dial each unlinked one at once, healthy. */
  private learn(info: RouterInfo): void {
    this.fingerprints.set(info.id, {
      ...(isFingerprint(info.fingerprint) ? { client: info.fingerprint } : {}),
      ...(isFingerprint(info.serverFingerprint) ? { server: info.serverFingerprint } : {}),
    });
    const plan = dialTargetsFor(this.selfId, this.dialers, info);
    for (const skipped of plan.skipped) {
      this.logger.warn('cannot dial a link listener', { routerId: info.id, advertise: skipped.advertise, reason: skipped.reason });
    }
    const wanted = new Set(plan.targets.map((target) => target.key));
    for (const target of [...this.targets.values()]) {
      if (target.routerId === info.id && !wanted.has(target.key)) this.retire(target);
    }
    for (const planned of plan.targets) {
      let target = this.targets.get(planned.key);
      if (target === undefined) {
        const dialer = this.dialers[planned.dialerIndex]!;
        target = {
          ...planned,
          dialer,
          backoff: new DialBackoff({ healthy: dialer.healthyDialBackoff, unhealthy: dialer.unhealthyDialBackoff }, this.random),
          link: undefined,
          dial: undefined,
          timer: undefined,
          retired: false,
          failures: 0,
          queued: false,
        };
        this.targets.set(planned.key, target);
      }
      target.retired = false;
      this.dialAtOnce(target);
    }
  }

  /** A router is not connected to the controller any more: its waiting targets move to the unhealthy policy. */
  private forget(routerId: string): void {
    if (!this.connected.delete(routerId)) return;
    for (const target of this.targets.values()) {
      if (target.routerId !== routerId || target.timer === undefined) continue;
      // A pending retry was timed on the healthy policy: re-time it on the unhealthy one, from its minimum.
      clearTimeout(target.timer);
      target.timer = undefined;
      const step = this.schedule(target);
      this.logger.info('link target not connected to the controller: retrying on the unhealthy policy', {
        routerId,
        advertise: target.advertise,
        nextRetryMs: step?.delayMs,
      });
    }
  }

  private retire(target: Target): void {
    if (target.timer !== undefined) clearTimeout(target.timer);
    target.timer = undefined;
    target.dial?.cancel();
    target.retired = true;
    if (target.link === undefined) this.targets.delete(target.key);
    this.logger.info('link listener no longer advertised: not dialing it again', { routerId: target.routerId, advertise: target.advertise });
  }

  private dialAtOnce(target: Target): void {
    target.backoff.use('healthy');
    target.backoff.reset();
    if (target.link !== undefined || target.dial !== undefined || target.queued) return;
    if (target.timer !== undefined) clearTimeout(target.timer);
    target.timer = undefined;
    this.dial(target);
  }

  private schedule(target: Target): RetryStep | undefined {
    if (this.state === 'stopped' || target.retired) return undefined;
    if (target.timer !== undefined) clearTimeout(target.timer);
    target.backoff.use(this.policyFor(target.routerId));
    const step = target.backoff.next();
    target.timer = setTimeout(() => {
      target.timer = undefined;
      this.dial(target);
    }, step.delayMs);
    return step;
  }

  /** Hands the dial to the link dial queue; a full queue refuses it, which counts as a failed dial. */
  private dial(target: Target): void {
    if (this.state === 'stopped' || target.retired || target.link !== undefined || target.dial !== undefined || target.queued) return;
    // A revoked router is not dialed; it is dialed again if a new model lists it and it connects (routerConnected).
    if (this.peerPolicy(target.routerId) !== undefined) return;
    target.queued = true;
    if (this.dialQueue.push(target)) return;
    target.queued = false;
    target.failures += 1;
    const step = this.schedule(target);
    const { linkDialQueueLength, linkDialWorkerCount } = this.options.config.forwarder;
    this.logger.warn('link dial refused: the link dial queue is full', {
      routerId: target.routerId,
      advertise: target.advertise,
      attempt: target.failures,
      linkDialQueueLength,
      linkDialWorkerCount,
      policy: step?.policy,
      nextRetryMs: step?.delayMs,
    });
  }

  /** One dial, on a worker of the queue: the worker is busy until the dial has succeeded or failed. */
  private async runDial(target: Target): Promise<void> {
    target.queued = false;
    // It may have been retired, linked or the manager stopped while it waited.
    if (this.state === 'stopped' || target.retired || target.link !== undefined || target.dial !== undefined) return;
    let localAddress: string | undefined;
    if (target.dialer.bind !== undefined) {
      localAddress = bindAddressFor(target.dialer.bind, target.address.host, this.interfaces());
      if (localAddress === undefined) {
        const step = this.schedule(target);
        this.logger.error('link dialer bind names no usable local address', {
          dialer: target.dialerIndex,
          bind: target.dialer.bind,
          routerId: target.routerId,
          nextRetryMs: step?.delayMs,
        });
        return;
      }
    }
    const linkId = randomUUID();
    const { tls } = this.options;
    const serverFingerprint = this.fingerprints.get(target.routerId)?.server;
    const pending = dialLink({
      selfId: this.selfId,
      expectedRouterId: target.routerId,
      linkId,
      address: target.address,
      ...(localAddress === undefined ? {} : { localAddress }),
      certPem: tls.certPem,
      keyPem: tls.keyPem,
      caPem: tls.caPem,
      trustDomains: this.trustDomains,
      ...(serverFingerprint === undefined ? {} : { serverFingerprint }),
      timeoutMs: this.dialTimeoutMs,
      split: target.dialer.split,
    });
    target.dial = pending;
    this.logger.debug('dialing link', {
      routerId: target.routerId,
      advertise: target.advertise,
      linkId,
      connType: shapeFor(target.dialer.split),
      policy: this.policyFor(target.routerId),
    });
    await pending.result.then(
      (sockets) => {
        target.dial = undefined;
        if (this.state === 'stopped' || target.retired || this.peerPolicy(target.routerId) !== undefined) {
          closeLinkSockets(sockets, 'link no longer wanted');
          if (target.retired && target.link === undefined) this.targets.delete(target.key);
          return;
        }
        target.failures = 0;
        target.backoff.reset();
        target.link = this.addLink(sockets, linkId, target.routerId, 'dialed', target);
      },
      (error: LinkDialError) => {
        target.dial = undefined;
        if (this.state === 'stopped' || error.code === 'CANCELLED') return;
        if (target.retired) {
          if (target.link === undefined) this.targets.delete(target.key);
          return;
        }
        target.failures += 1;
        const step = this.schedule(target);
        const fields = {
          routerId: target.routerId,
          advertise: target.advertise,
          attempt: target.failures,
          error: error.message,
          policy: step?.policy,
          nextRetryMs: step?.delayMs,
        };
        if (error.code === 'REFUSED') this.logger.warn('link dial refused', fields);
        else this.logger.info('link dial failed', fields);
      },
    );
  }

  // ---- live links -------------------------------------------------------------------------------------------

  private admit(linkId: string, routerId: string): string | undefined {
    if (this.state === 'stopped') return 'router stopping';
    const revoked = this.peerPolicy(routerId);
    if (revoked !== undefined) return `router revoked: ${revoked}`;
    if (this.live.has(linkId)) return `duplicate link id ${linkId}`;
    return undefined;
  }

  private addLink(sockets: LinkSockets, id: string, destRouterId: string, direction: LinkDirection, target: Target | undefined): LinkChannel {
    const channel = new LinkChannel(sockets, id, destRouterId, direction, this.timing, {
      onLatency: () => this.changed(),
      onClose: (closed, reason) => this.linkClosed(closed, reason, target),
      onFrame: (link, frame) => this.circuitFrameHandler?.(link, frame),
    });
    this.live.set(id, channel);
    channel.start();
    this.logger.info('link established', {
      linkId: id,
      destRouterId,
      direction,
      connType: channel.shape,
      localAddr: channel.localAddr,
      remoteAddr: channel.remoteAddr,
      ...(target === undefined ? {} : { dialer: target.dialerIndex, advertise: target.advertise }),
    });
    this.changed();
    return channel;
  }

  private linkClosed(channel: LinkChannel, reason: string, target: Target | undefined): void {
    if (this.live.get(channel.id) === channel) this.live.delete(channel.id);
    for (const listener of this.closeListeners) {
      try {
        listener(channel);
      } catch (error) {
        this.logger.error('a link-closed listener threw', { error });
      }
    }
    if (this.state === 'stopped') return;
    let step: RetryStep | undefined;
    if (target !== undefined && target.link === channel) {
      target.link = undefined;
      if (target.retired) this.targets.delete(target.key);
      else step = this.schedule(target);
    }
    this.logger.info('link closed', {
      linkId: channel.id,
      destRouterId: channel.destRouterId,
      direction: channel.direction,
      reason,
      ...(step === undefined ? {} : { policy: step.policy, nextRetryMs: step.delayMs }),
    });
    this.changed();
  }

  private changed(): void {
    if (this.state === 'stopped') return;
    for (const listener of this.changeListeners) {
      try {
        listener();
      } catch (error) {
        this.logger.error('a links-changed listener threw', { error });
      }
    }
  }

  private guard(call: string, body: () => void): void {
    if (this.state === 'stopped') return;
    try {
      body();
    } catch (error) {
      this.logger.error(`link manager ${call} failed`, { error });
    }
  }
}

function isFingerprint(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{40}$/.test(value);
}

function isRouterInfo(value: unknown): value is RouterInfo {
  return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string' && (value as { id: string }).id !== '';
}

export const createLinkManager: LinkManagerFactory = (options) => new LinkManager(options);

// The router's end of the control channel (common/control-channel/control-messages.ts): mutual TLS to one
// controller at a time, `router.hello` first, then `ctrl.welcome` (or `ctrl.refused`, logged, retried later).
// The channel is the common framed connection (common/channel/): heartbeats every `sendInterval` give the round trip;
// a channel silent for `closeUnresponsiveTimeout` (checked every `checkInterval`) is closed. Requests carry a `rid`
// and time out after `defaultRequestTimeout` unless told otherwise.
//
// Controller identity (controller-identity.ts): the server must present a controller certificate, one with the SPIFFE
// id `spiffe://<trustDomain>/controller/<id>` of a trust domain that `identity.ca` declares (or, with
// `ctrl.controllerFingerprints`, one of those certificates); anything else, another router's server certificate from
// the same CA included, is refused before the hello (logged, next endpoint). A welcome naming another controller
// than the certificate's SPIFFE id is refused too.
//
// Failover: the known controller addresses are tried round robin. A welcomed channel that dies moves the router to
// the next address at once; a failed attempt (refused, TLS error, no welcome in time) waits a bounded backoff first.
// `ctrl.welcome` and `ctrl.members` replace the known addresses with the cluster's members.
//
// Bounds (forwarder section): at most `maxQueuedFrames` frames wait for the socket to drain (more are dropped and
// counted), at most `maxQueuedFrames` requests are outstanding, and requests from the controller run on a queue of
// `maxQueuedFrames` waiting items and `requestWorkers` workers (more are answered "router busy").

import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { X509Certificate } from 'node:crypto';
import { connect, type TLSSocket } from 'node:tls';
import { parseAddress } from '../../common/config/address.ts';
import type {
  ControlRequest,
  ControllerEndpoint,
  ControllerToRouter,
  CtrlWelcome,
  EdgeModel,
  LinkListenerInfo,
  RouterInfo,
  RouterToController,
  CtrlEdgeModelDelta,
} from '../../common/control-channel/control-messages.ts';
import { jsonFrameCodec } from '../../common/channel/channel-codec.ts';
import { FramedConnection, type TraceDirection } from '../../common/channel/framed-connection.ts';
import { PendingRequests } from '../../common/channel/pending-requests.ts';
import { controllerToRouterFrameLimits } from '../../common/framing/frame-limits.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { HeartbeatConfig } from '../config/router-config.ts';
import { Backoff, EndpointRotation, type BackoffPolicy } from './backoff.ts';
import { BoundedWorkQueue } from '../work/bounded-work-queue.ts';
import { controllerTrustOf, describeControllerTrust, verifyControllerCertificate, type ControllerTrust } from './controller-identity.ts';

export type { TraceDirection };

const controllerCodec = jsonFrameCodec({ limits: controllerToRouterFrameLimits });

export interface ControlChannelHandlers {
  /** A controller welcomed the router (the channel is up). */
  onWelcome(welcome: CtrlWelcome, endpoint: string): void;
  /** The welcomed channel went down. */
  onDown(reason: string): void;
  /** The cluster's members (from `ctrl.welcome` and `ctrl.members`). */
  onMembers(members: readonly ControllerEndpoint[]): void;
  onRouterConnected(router: RouterInfo): void;
  onRouterDisconnected(routerId: string): void;
  onEdgeModel(index: number, model: EdgeModel): void;
  /** `ctrl.edgeModelDelta`: the rows changed since a model the router may hold (it said `edgeModelDeltas`). */
  onEdgeModelDelta?(delta: CtrlEdgeModelDelta): void;
  /** A request from the controller; its value is the response's. */
  onRequest(body: ControlRequest['body']): Promise<unknown>;
  /** `ctrl.circuitClose`: circuits whose session, identity, access or posture was revoked (checked by the handler). */
  onCircuitClose?(message: unknown): void;
  /** `ctrl.sdkTerminatorsRemoved`: SDK Binds the controller no longer allows. */
  onSdkTerminatorsRemoved?(terminatorIds: readonly string[]): void;
  /** `ctrl.refused` with `revoked`: this router was disabled or deleted. */
  onRevoked?(reason: string): void;
  /** `ctrl.edgeSessionsEnded`: API sessions whose SDK channels must close (checked by the handler). */
  onEdgeSessionsEnded?(message: unknown): void;
}

export interface ControlChannelOptions {
  readonly routerId: string;
  readonly version: string;
  readonly linkListeners: readonly LinkListenerInfo[];
  /**
   * The groups of the router's link dialers (`[]`: none). When given, the hello says `routersChanged` with them: the
   * controller then tells this router only of routers it may link with, in batches (`ctrl.routersChanged`), each
   * router of a batch handed to `onRouterConnected` / `onRouterDisconnected`.
   */
  readonly linkDialerGroups?: readonly string[];
  /** The edge listeners, protocol → advertise URL, reported in the hello (empty when there are none). */
  readonly supportedProtocols?: Readonly<Record<string, string>>;
  readonly tls: { readonly certPem: string; readonly keyPem: string; readonly caPem: string };
  /** ctrl.controllerFingerprints: when given, the only controller certificates accepted (lowercase SHA-1 hex). */
  readonly controllerFingerprints?: readonly string[];
  /** `tls:<host>:<port>` addresses, in the order to try. */
  readonly endpoints: readonly string[];
  /** ctrl.bind: a local IP or an interface name. */
  readonly bind?: string;
  readonly heartbeats: HeartbeatConfig;
  readonly requestTimeoutMs: number;
  /** How long a connection may take from dial to welcome. */
  readonly connectTimeoutMs: number;
  readonly backoff: BackoffPolicy;
  readonly random?: () => number;
  readonly maxQueuedFrames: number;
  readonly requestWorkers: number;
  readonly logger: Logger;
  readonly handlers: ControlChannelHandlers;
  /** Every decoded message, both directions (trace.path). */
  readonly trace?: (direction: TraceDirection, message: unknown, endpoint: string) => void;
}

/** One attempt at a controller: its connection, from dial to close. */
class Session {
  welcomed = false;
  closed = false;
  /** The controller id in the certificate's SPIFFE id, once the handshake is done. */
  certifiedControllerId: string | undefined;
  /** The certificate the controller authenticated the channel with, once it is taken for a controller's. */
  controllerCertificate: X509Certificate | undefined;
  welcomeTimer: NodeJS.Timeout | undefined;
  readonly ended: Promise<{ welcomed: boolean; reason: string }>;
  private finish!: (result: { welcomed: boolean; reason: string }) => void;

  constructor(
    readonly endpoint: string,
    readonly socket: TLSSocket,
    readonly connection: FramedConnection,
  ) {
    this.ended = new Promise((resolve) => (this.finish = resolve));
    connection.onClose((reason) => this.ending(reason));
  }

  close(reason: string): void {
    this.connection.close(reason);
  }

  private ending(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.welcomeTimer);
    this.finish({ welcomed: this.welcomed, reason });
  }
}

export class ControlChannel {
  private readonly rotation: EndpointRotation;
  private readonly backoff: Backoff;
  private readonly trust: ControllerTrust;
  private session: Session | undefined;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private wakeRetry: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private nextRid = 1;
  private readonly pending = new PendingRequests<number>(() => this.nextRid++);
  private readonly inbound: BoundedWorkQueue<{ session: Session; request: ControlRequest }>;
  private lastLatencyMs: number | undefined;
  /** Frames dropped because the send queue was full. */
  droppedFrames = 0;

  constructor(private readonly options: ControlChannelOptions) {
    this.rotation = new EndpointRotation(options.endpoints);
    this.trust = controllerTrustOf(options.tls.caPem, options.controllerFingerprints ?? []);
    this.backoff = new Backoff(options.backoff, options.random ?? Math.random);
    this.inbound = new BoundedWorkQueue({
      maxQueued: options.maxQueuedFrames,
      workers: options.requestWorkers,
      handle: async ({ session, request }) => {
        try {
          const value = await options.handlers.onRequest(request.body);
          this.write(session, { type: 'res', rid: request.rid, ok: true, value });
        } catch (error) {
          this.write(session, { type: 'res', rid: request.rid, ok: false, error: (error as Error).message });
        }
      },
    });
  }

  /** Welcomed by a controller now. */
  get connected(): boolean {
    return this.session?.welcomed === true && !this.session.closed;
  }

  /** The certificate of the controller this channel is welcomed by now (undefined while not welcomed). */
  get controllerCertificate(): X509Certificate | undefined {
    const session = this.session;
    return session?.welcomed === true && !session.closed ? session.controllerCertificate : undefined;
  }

  /** The controller address of the current (or last attempted) channel. */
  get endpoint(): string | undefined {
    return this.session?.endpoint;
  }

  get endpoints(): readonly string[] {
    return this.rotation.endpoints;
  }

  /** Last heartbeat round trip, ms. */
  get latencyMs(): number | undefined {
    return this.lastLatencyMs;
  }

  start(): void {
    if (this.rotation.endpoints.length === 0) throw new Error('no controller endpoint to dial: set ctrl.endpoint(s) or provide an endpoints file');
    this.options.logger.info('controllers are recognised by their certificate', describeControllerTrust(this.trust));
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.wakeRetry?.();
    const session = this.session;
    if (session && !session.closed) {
      // Let frames already written (the last metrics) leave before closing.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 500);
        session.socket.end(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      session.close('router stopping');
    }
    await this.loop;
    this.pending.rejectAll('control channel stopped');
  }

  /** Sends a message on the welcomed channel; false when there is none or the send queue is full. */
  send(message: RouterToController): boolean {
    const session = this.session;
    if (!session || !session.welcomed || session.closed) return false;
    return this.write(session, message);
  }

  /** A request to the controller; rejects on timeout, on a failed response and when the channel closes. */
  request(body: ControlRequest['body'], timeoutMs = this.options.requestTimeoutMs): Promise<unknown> {
    const session = this.session;
    if (!session || !session.welcomed || session.closed) return Promise.reject(new Error('no control channel established'));
    if (this.pending.size >= this.options.maxQueuedFrames) return Promise.reject(new Error('too many outstanding controller requests'));
    return this.pending.open(
      timeoutMs,
      `controller request ${body.op} timed out after ${timeoutMs} ms`,
      (rid) => this.write(session, { type: 'req', rid, body }),
      'control channel send queue is full',
    );
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const endpoint = this.rotation.current()!;
      let result: { welcomed: boolean; reason: string };
      try {
        result = await this.attempt(endpoint);
      } catch (error) {
        result = { welcomed: false, reason: (error as Error).message };
      }
      if (this.stopped) break;
      if (result.welcomed) {
        this.options.logger.warn('control channel lost', { endpoint, reason: result.reason });
        this.options.handlers.onDown(result.reason);
        this.backoff.reset();
      }
      this.rotation.advance();
      const delay = result.welcomed ? 0 : this.backoff.next();
      if (!result.welcomed) this.options.logger.warn('cannot reach controller; trying the next one', { endpoint, reason: result.reason, next: this.rotation.current(), retryInMs: delay });
      if (delay > 0) await this.sleep(delay);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wakeRetry = resolve;
      this.retryTimer = setTimeout(resolve, ms);
    });
  }

  private async attempt(endpoint: string): Promise<{ welcomed: boolean; reason: string }> {
    const parsed = parseAddress(endpoint, ['tls'] as const);
    if (!parsed.ok) return { welcomed: false, reason: `bad controller address "${endpoint}": ${parsed.message}` };
    const { host, port } = parsed.value;
    const localAddress = this.options.bind === undefined ? undefined : resolveBind(this.options.bind, host);
    if (this.options.bind !== undefined && localAddress === undefined) this.options.logger.warn('ctrl.bind names no local address of this host: dialing without it', { bind: this.options.bind });
    this.options.logger.info('dialing controller', { endpoint, ...(localAddress ? { localAddress } : {}) });
    const socket = connect({
      host,
      port,
      ...(isIP(host) ? {} : { servername: host }),
      ...(localAddress ? { localAddress } : {}),
      cert: this.options.tls.certPem,
      key: this.options.tls.keyPem,
      ca: this.options.tls.caPem,
      rejectUnauthorized: true,
    });
    const { connectTimeoutMs, heartbeats, maxQueuedFrames } = this.options;
    const connection = new FramedConnection(socket, {
      codec: controllerCodec,
      writes: 'bounded',
      maxQueuedFrames,
      // The turn's frames (circuit requests and reports of many connections) leave in one write.
      gatherTurns: true,
      reasons: {
        peerClosed: 'connection closed by the controller',
        socketError: (error) => (error.code ? `${error.message} (${error.code})` : error.message),
        silent: (silentMs, limitMs) => `no traffic for ${Math.round(silentMs)} ms (closeUnresponsiveTimeout ${limitMs} ms)`,
      },
      ...(this.options.trace ? { trace: (direction: TraceDirection, frame: unknown) => this.options.trace!(direction, frame, endpoint) } : {}),
    });
    const session = new Session(endpoint, socket, connection);
    this.session = session;
    connection.onFrame((frame) => this.receive(session, frame as ControllerToRouter));

    session.welcomeTimer = setTimeout(() => session.close(`no welcome within ${connectTimeoutMs} ms`), connectTimeoutMs);
    socket.on('secureConnect', () => {
      const certificate = socket.getPeerX509Certificate();
      const verdict = verifyControllerCertificate(certificate, this.trust);
      if (!verdict.ok) {
        this.options.logger.warn('controller refused: its certificate is not a controller\'s', { endpoint, reason: verdict.reason });
        session.close(`not a controller: ${verdict.reason}`);
        return;
      }
      session.certifiedControllerId = verdict.controllerId;
      session.controllerCertificate = certificate;
      socket.setNoDelay(true);
      this.write(session, {
        type: 'router.hello',
        routerId: this.options.routerId,
        version: this.options.version,
        linkListeners: this.options.linkListeners,
        supportedProtocols: this.options.supportedProtocols ?? {},
        ...(this.options.handlers.onEdgeModelDelta ? { edgeModelDeltas: true } : {}),
        // Its forwarder verifies batch-signed routes and readies (common/circuits/route-batch.ts).
        routeBatches: true,
        ...(this.options.linkDialerGroups ? { routersChanged: true, linkDialerGroups: this.options.linkDialerGroups } : {}),
      });
      connection.startHeartbeat(
        { sendIntervalMs: heartbeats.sendInterval, checkIntervalMs: heartbeats.checkInterval, unresponsiveMs: heartbeats.closeUnresponsiveTimeout },
        { roundTrip: (ms) => (this.lastLatencyMs = ms) },
      );
    });

    const result = await session.ended;
    if (this.session === session) this.pending.rejectAll(`control channel closed: ${result.reason}`);
    return result;
  }

  private receive(session: Session, message: ControllerToRouter): void {
    const { handlers, logger } = this.options;
    if (!message || typeof message !== 'object' || typeof (message as { type?: unknown }).type !== 'string') {
      session.close('the controller sent a frame that is not a message');
      return;
    }
    switch (message.type) {
      case 'ctrl.welcome': {
        if (session.welcomed) return;
        if (session.certifiedControllerId !== undefined && message.controllerId !== session.certifiedControllerId) {
          const reason = `the welcome names controller ${JSON.stringify(message.controllerId)} but the certificate is controller ${session.certifiedControllerId}'s`;
          logger.warn('controller refused: its certificate is not a controller\'s', { endpoint: session.endpoint, reason });
          session.close(`not a controller: ${reason}`);
          return;
        }
        session.welcomed = true;
        clearTimeout(session.welcomeTimer);
        this.backoff.reset();
        logger.info('control channel established', { endpoint: session.endpoint, controllerId: message.controllerId, members: message.members.length, routers: message.routers.length });
        this.followMembers(message.members);
        handlers.onWelcome(message, session.endpoint);
        return;
      }
      case 'ctrl.refused':
        logger.warn('controller refused the router', { endpoint: session.endpoint, reason: message.reason, ...(message.revoked === true ? { revoked: true } : {}) });
        if (message.revoked === true) handlers.onRevoked?.(String(message.reason));
        session.close(`refused: ${message.reason}`);
        return;
      case 'res':
        this.pending.answer(message.rid, message, 'controller request failed');
        return;
      case 'req':
        if (!this.inbound.push({ session, request: message })) this.write(session, { type: 'res', rid: message.rid, ok: false, error: 'router busy: request queue full' });
        return;
      default:
        break;
    }
    if (!session.welcomed) {
      logger.warn('controller message before welcome ignored', { type: message.type });
      return;
    }
    switch (message.type) {
      case 'ctrl.members':
        this.followMembers(message.members);
        return;
      case 'ctrl.routerConnected':
        handlers.onRouterConnected(message.router);
        return;
      case 'ctrl.routerDisconnected':
        handlers.onRouterDisconnected(message.routerId);
        return;
      case 'ctrl.routersChanged':
        // Departures first: a router named in both lists is not (each is named once), so the order is the lists'.
        if (Array.isArray(message.disconnected)) for (const id of message.disconnected) if (typeof id === 'string') handlers.onRouterDisconnected(id);
        if (Array.isArray(message.connected)) for (const router of message.connected) handlers.onRouterConnected(router);
        return;
      case 'ctrl.edgeModel':
        handlers.onEdgeModel(message.index, message.model);
        return;
      case 'ctrl.edgeModelDelta':
        handlers.onEdgeModelDelta?.(message);
        return;
      case 'ctrl.circuitClose':
        handlers.onCircuitClose?.(message);
        return;
      case 'ctrl.sdkTerminatorsRemoved':
        if (Array.isArray(message.terminatorIds)) handlers.onSdkTerminatorsRemoved?.(message.terminatorIds.filter((id): id is string => typeof id === 'string').slice(0, 10_000));
        return;
      case 'ctrl.edgeSessionsEnded':
        handlers.onEdgeSessionsEnded?.(message);
        return;
      default:
        logger.debug('unknown control message ignored', { type: (message as { type: string }).type });
    }
  }

  private followMembers(members: readonly ControllerEndpoint[]): void {
    if (!Array.isArray(members) || members.length === 0) return;
    this.rotation.replace(members.map((member) => member.address));
    this.options.handlers.onMembers(members);
  }

  private write(session: Session, message: RouterToController): boolean {
    if (session.closed) return false;
    if (session.connection.send(message)) return true;
    if (session.closed) return false;
    this.droppedFrames++;
    if (this.droppedFrames === 1 || this.droppedFrames % 100 === 0) this.options.logger.warn('control channel send queue full: message dropped', { type: message.type, dropped: this.droppedFrames });
    return false;
  }
}

/** ctrl.bind: an IP is used as is; an interface name becomes its first address of the controller's family. */
export function resolveBind(bind: string, controllerHost: string): string | undefined {
  if (isIP(bind)) return bind;
  const family = isIP(controllerHost) === 6 ? 'IPv6' : 'IPv4';
  const addresses = networkInterfaces()[bind] ?? [];
  return addresses.find((address) => address.family === family)?.address ?? addresses[0]?.address;
}

// One SDK's channel on an edge listener: OpenZiti's edge protocol over the TLS connection the SDK opened with its
// identity certificate. The first frame must be a hello carrying the API session token (header 1002); the controller
// judges it with the certificate (`edge.hello`: a live session that may dial, the certificate one of its identity's,
// an edge router policy granting this router) before the hello is answered, and a refused hello is answered with a
// failed Result (reject class 2, the reason as its body) and the channel closed. Then the SDK dials services with
// Connect (a virtual connection per connId, each a circuit: sdk-connection.ts), sends Data, FIN and StateClosed;
// latency probes and heartbeats are answered. Every refusal is a StateClosed reply with the edge error code and
// structured error SDKs act on (edge-refusals.ts); nothing an SDK sends can throw out of here. A channel that said
// hello with an OIDC access token holds it until its expiry (the controller's answer); the SDK pushes a newer one with
// UpdateToken, which the controller judges (`edge.updateToken`); a refused update closes the channel, as does an
// expiry nobody updated (token-expiry-sweep.ts).
import { createHash, randomBytes } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import { FramedConnection } from '../../common/channel/framed-connection.ts';
import { channelContentType, edgeContentType } from '../../common/edge-protocol/edge-content-types.ts';
import { edgeFrameCodec, type EdgeMessage } from '../../common/edge-protocol/edge-frame-codec.ts';
import { channelHeader, dataFlag, edgeErrorCode, edgeHeader, retryHint, routerCapability, type PrecedenceName } from '../../common/edge-protocol/edge-headers.ts';
import { buildMessage, EdgeMessageError, parseMessage } from '../../common/edge-protocol/edge-messages.ts';
import { headerValue, readHeader } from '../../common/edge-protocol/header-values.ts';
import { isJwtShaped } from '../../common/edge-protocol/api-session-token.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { DialOptions } from '../circuits/forwarder.ts';
import { edgeRefusalOf, type EdgeRefusal } from './edge-refusals.ts';
import { SdkConnection } from './sdk-connection.ts';
import type { BindHost, SdkHosts } from './sdk-hosts.ts';
import type { CircuitRoute } from '../../common/circuits/circuit-route.ts';
import type { EndStream } from '../circuits/circuit-end.ts';

/** What the controller answered about a Bind: the terminator id the SDK's listener hosts, or a refusal. */
export type BindVerdict = { readonly terminatorId: string } | { readonly refused: { readonly code: string; readonly message: string } };

export interface BindRequest {
  readonly serviceSession: string;
  readonly terminatorId?: string;
  readonly cost?: number;
  readonly precedence?: PrecedenceName;
  readonly instanceId?: string;
}

/** One Bind of this channel: an SDK listener (its connId) hosting a terminator. */
interface BindState {
  readonly terminatorId: string;
  readonly token: string;
  /** The host's static end-to-end key (Bind's 1003); a DialSuccess may carry a newer one. */
  readonly hostKey?: Buffer;
  readonly routerAssignsIds: boolean;
  cost?: number;
  precedence?: PrecedenceName;
  readonly instanceId?: string;
}

/** How long a hosting SDK has to answer a Dial (OpenZiti's router waits 5 s). */
export const hostDialTimeoutMs = 5_000;

/** Connection ids the router assigns start above the SDKs' range (1 .. 2^31-2). */
const firstRouterConnId = 0x80000000;

/** What the controller answered about a hello. */
export type HelloVerdict =
  | { readonly identityId: string; readonly identityName: string; readonly apiSessionId: string; /** An OIDC access token's expiry (ms). */ readonly expiresAtMs?: number }
  | { readonly refused: { readonly code: string; readonly message: string } };

/** What the controller answered about an UpdateToken: the new token's expiry, or a refusal. */
export type TokenUpdateVerdict = { readonly expiresAtMs: number } | { readonly refused: { readonly code: string; readonly message: string } };

export interface SdkChannelDeps {
  /** `edge <host>:<port>`, for logs. */
  readonly listener: string;
  readonly routerId: string;
  /** The HelloVersion header's value: version|revision|buildDate|os|arch. */
  readonly version: string;
  readonly verifyHello: (apiSession: string, certFingerprint: string | undefined) => Promise<HelloVerdict>;
  /** Asks the controller whether `next` may replace the channel's access token `current` (same API session and identity). */
  readonly updateToken?: (current: string, next: string) => Promise<TokenUpdateVerdict>;
  /** Dials a circuit for a virtual connection (Forwarder.dial, the service named by the session token). */
  readonly dial: (connection: Duplex, options: DialOptions) => Promise<void>;
  readonly logger: Logger;
  /** A hello was refused for the client's own fault (a bad session, certificate or policy). */
  readonly onHelloRefused?: () => void;
  /** How long an SDK has to say hello (10 s). */
  readonly helloTimeoutMs?: number;
  /** Virtual connections one channel may hold at once (1000). */
  readonly maxConnections?: number;
  /** Binds (hosted listeners) one channel may hold at once (256). */
  readonly maxBinds?: number;
  /** SDK-hosted services: the router's registry of Binds, and the controller's `edge.bind` / `edge.unbind`. */
  readonly hosts?: SdkHosts;
  readonly bind?: (apiSession: string, request: BindRequest) => Promise<BindVerdict>;
  readonly unbind?: (terminatorIds: readonly string[]) => void;
  /** Told when the hello is accepted and when the channel closes (edge-session-presence.ts). */
  readonly presence?: { opened(channel: SdkEdgeChannel): void; closed(channel: SdkEdgeChannel): void };
}

export class SdkEdgeChannel implements BindHost {
  private readonly connection: FramedConnection;
  private readonly connections = new Map<number, SdkConnection>();
  /** Connections that hold their high-water mark: the socket is not read while any does. */
  private readonly full = new Set<number>();
  private sequence = 0;
  private readonly binds = new Map<number, BindState>();
  /** Requests this router sent (Dials), by sequence: their replies are handled in the same turn they arrive. */
  private readonly awaiting = new Map<number, { readonly onReply: (reply: EdgeMessage) => void; readonly timer: NodeJS.Timeout }>();
  private nextConnId = firstRouterConnId;
  /** Binds waiting for the controller's answer (they count against maxBinds). */
  private binding = 0;
  private apiSession = '';
  private identityName = '';
  /** The identity and API session the controller named at the hello ('' before). */
  identityId = '';
  apiSessionId = '';
  /** When the channel's OIDC access token expires (ms); undefined for a legacy session, which does not. */
  tokenExpiresAtMs: number | undefined;

  constructor(
    private readonly socket: TLSSocket,
    private readonly deps: SdkChannelDeps,
  ) {
    this.connection = new FramedConnection(socket, {
      codec: edgeFrameCodec({ listener: true }),
      writes: 'coalesce',
      onRefusedFrame: (message) => deps.logger.warn('edge channel closed: a frame was refused', { listener: deps.listener, reason: message }),
    });
    // Nagle off: the channel multiplexes many connections, so a small frame (one Connect's StateConnected, another's
    // first bytes) behind one still unacknowledged would otherwise wait for the SDK's delayed ACK (up to 40 ms).
    socket.setNoDelay(true);
    this.connection.onClose(() => {
      for (const connection of [...this.connections.values()]) connection.channelClosed();
      this.connections.clear();
      for (const { timer } of this.awaiting.values()) clearTimeout(timer);
      this.awaiting.clear();
      if (this.binds.size > 0) {
        deps.hosts?.channelClosed(this);
        deps.unbind?.([...this.binds.values()].map((bind) => bind.terminatorId));
        this.binds.clear();
      }
    });
  }

  /** Reads the hello, asks the controller, answers; then serves the channel until it closes. */
  async start(): Promise<void> {
    let hello: EdgeMessage;
    try {
      hello = (await this.connection.next(this.deps.helloTimeoutMs ?? 10_000)) as EdgeMessage;
    } catch {
      return this.connection.close('no hello');
    }
    if (hello.contentType !== channelContentType.hello) return this.connection.close(`the first frame is not a hello (content type ${hello.contentType})`);
    // Nothing more is read until the controller judged the hello: an unauthenticated peer cannot queue frames here.
    this.connection.pauseReading();
    const token = readHeader.string(hello.headers.get(edgeHeader.sessionToken)) ?? '';
    const certificate = this.socket.getPeerCertificate(false) as { raw?: Buffer } | null;
    const fingerprint = certificate?.raw ? createHash('sha1').update(certificate.raw).digest('hex') : undefined;
    let verdict: HelloVerdict;
    try {
      verdict = token === '' ? { refused: { code: 'INVALID_SESSION', message: 'the hello carries no API session token (header 1002)' } } : await this.deps.verifyHello(token, fingerprint);
    } catch (error) {
      verdict = { refused: { code: 'CONTROLLER_UNAVAILABLE', message: `no controller could judge the API session: ${(error as Error).message}` } };
    }
    if ('refused' in verdict) {
      this.deps.logger.warn('edge hello refused', { listener: this.deps.listener, code: verdict.refused.code, reason: verdict.refused.message });
      if (verdict.refused.code !== 'CONTROLLER_UNAVAILABLE') this.deps.onHelloRefused?.();
      const headers = new Map([[channelHeader.replyFor, headerValue.int32(hello.sequence)], [channelHeader.resultSuccess, headerValue.bool(false)], [channelHeader.helloRejectClass, headerValue.uint32(2)]]);
      this.send({ contentType: channelContentType.result, sequence: -1, headers, body: Buffer.from(verdict.refused.message) });
      this.connection.endAfterFlush(`hello refused: ${verdict.refused.message}`);
      return;
    }
    this.apiSession = token;
    this.identityName = verdict.identityName;
    this.identityId = verdict.identityId;
    this.apiSessionId = verdict.apiSessionId;
    this.tokenExpiresAtMs = verdict.expiresAtMs;
    // BindSuccess is the one capability served (no ConnectV2, no posture responses over the channel, no grouped
    // underlays: grouping is not echoed). The C SDK reads the mask's first byte as a little-endian int and tests bit 0
    // for ConnectV2: 0x40 leaves it clear.
    const bindSuccess = this.deps.hosts !== undefined;
    this.send(
      buildMessage.helloResult({
        hello,
        version: this.deps.version,
        connectionId: randomBytes(6).toString('base64url'),
        listenerId: this.deps.routerId,
        capabilities: bindSuccess ? [routerCapability.bindSuccess] : [],
        supportsBindSuccess: bindSuccess,
        supportsPostureChecks: false,
      }),
    );
    this.deps.logger.info('edge channel open', { listener: this.deps.listener, identityId: verdict.identityId, identity: verdict.identityName });
    this.deps.presence?.opened(this);
    this.connection.onClose(() => this.deps.presence?.closed(this));
    this.connection.onFrame((frame) => this.handle(frame as EdgeMessage));
    this.connection.resumeReading();
  }

  close(reason: string): void {
    this.connection.close(reason);
  }

  private handle(message: EdgeMessage): void {
    const replyFor = readHeader.int32(message.headers.get(channelHeader.replyFor));
    const awaited = replyFor === undefined ? undefined : this.awaiting.get(replyFor);
    if (awaited && replyFor !== undefined) {
      this.awaiting.delete(replyFor);
      clearTimeout(awaited.timer);
      return awaited.onReply(message);
    }
    try {
      switch (message.contentType) {
        case channelContentType.latency:
          return void this.send(buildMessage.latencyResult({ sequence: this.nextSequence(), probe: message }));
        case channelContentType.heartbeat: {
          const beat = message.headers.get(channelHeader.heartbeat);
          if (beat) this.send({ contentType: channelContentType.heartbeat, sequence: this.nextSequence(), headers: new Map([[channelHeader.heartbeatResponse, beat]]), body: Buffer.alloc(0) });
          return;
        }
        case edgeContentType.connect:
          return this.connect(message);
        case edgeContentType.data:
          return this.data(message);
        case edgeContentType.stateClosed: {
          const { connId } = parseMessage.stateClosed(message);
          if (this.binds.has(connId)) return this.unbindListener(connId, 'the SDK closed its listener');
          return this.connections.get(connId)?.receiveClose();
        }
        case edgeContentType.bind:
          return void this.bind(message);
        case edgeContentType.unbind:
          return this.unbindListener(parseMessage.unbind(message).connId, 'the SDK unbound');
        case edgeContentType.updateBind:
          return this.updateBind(message);
        case edgeContentType.updateToken:
          return void this.updateToken(message);
        case edgeContentType.healthEvent:
          // Health is the SDK's to report; edgeward's terminators carry no health state: nothing to answer.
          return;
        default:
          // Unknown content types are ignored, as OpenZiti's channel does with no handler for them.
          return;
      }
    } catch (error) {
      if (!(error instanceof EdgeMessageError)) throw error;
      // A malformed message is dropped (a request is refused), as OpenZiti's router logs and drops it.
      this.deps.logger.warn('edge message refused', { listener: this.deps.listener, contentType: message.contentType, reason: error.message });
      if (message.contentType === edgeContentType.connect) this.refuse(message, undefined, message.headers.has(edgeHeader.connId) ? error.message : 'connId not set, required');
    }
  }

  /**
   * UpdateToken (60803, body = the new access JWT): the controller must find it a valid access token of this
   * channel's API session and identity. Success: UpdateTokenSuccess, and later circuits and the expiry use the new
   * token. Failure: UpdateTokenFailure with the reason and the edge error (12 for a legacy channel, 2 otherwise), then
   * the channel closes, as OpenZiti's router does.
   */
  private async updateToken(message: EdgeMessage): Promise<void> {
    const next = message.body.toString('utf8');
    let verdict: TokenUpdateVerdict;
    if (this.tokenExpiresAtMs === undefined) verdict = { refused: { code: 'INVALID_API_SESSION_TYPE', message: 'the channel did not log in with an OIDC access token: only such a session can update its token' } };
    else if (!isJwtShaped(next)) verdict = { refused: { code: 'INVALID_API_SESSION', message: 'invalid token, could not be parsed' } };
    else if (!this.deps.updateToken) verdict = { refused: { code: 'INVALID_API_SESSION', message: 'this router does not update tokens' } };
    else {
      verdict = await this.deps.updateToken(this.apiSession, next).catch((error: Error) => ({ refused: { code: 'CONTROLLER_UNAVAILABLE', message: `no controller could judge the token: ${error.message}` } }));
    }
    if (this.connection.closed) return;
    if ('refused' in verdict) {
      this.deps.logger.warn('edge token update refused; channel closed', { listener: this.deps.listener, identityId: this.identityId, apiSessionId: this.apiSessionId, code: verdict.refused.code, reason: verdict.refused.message });
      const error =
        verdict.refused.code === 'INVALID_API_SESSION_TYPE'
          ? { code: edgeErrorCode.invalidApiSessionType, retryHint: retryHint.notRetriable, message: verdict.refused.message }
          : verdict.refused.code === 'CONTROLLER_UNAVAILABLE'
            ? { code: edgeErrorCode.internal, retryHint: retryHint.tooBusy, message: verdict.refused.message }
            : { code: edgeErrorCode.invalidApiSession, retryHint: retryHint.startOver, message: verdict.refused.message };
      this.send(buildMessage.updateTokenFailure({ sequence: this.nextSequence(), inReplyTo: message, reason: verdict.refused.message, error }));
      this.connection.endAfterFlush(`token update refused: ${verdict.refused.message}`);
      return;
    }
    // Two updates in flight: the token that lives longer stays.
    if (verdict.expiresAtMs >= (this.tokenExpiresAtMs ?? 0)) {
      this.apiSession = next;
      this.tokenExpiresAtMs = verdict.expiresAtMs;
    }
    this.send(buildMessage.updateTokenSuccess({ sequence: this.nextSequence(), inReplyTo: message }));
    this.deps.logger.info('edge channel token updated', { listener: this.deps.listener, identityId: this.identityId, apiSessionId: this.apiSessionId, expiresAt: new Date(verdict.expiresAtMs).toISOString() });
  }

  /** True when the channel's access token expired at `nowMs` without an update (a legacy session never does). */
  tokenExpired(nowMs: number): boolean {
    return this.tokenExpiresAtMs !== undefined && this.tokenExpiresAtMs <= nowMs && !this.connection.closed;
  }

  private async bind(message: EdgeMessage): Promise<void> {
    const bind = parseMessage.bind(message);
    const { connId } = bind;
    if (!this.deps.bind || !this.deps.hosts) return this.refuse(message, { code: 1, retryHint: 3, message: 'this router does not host services for SDKs' });
    if (this.binds.has(connId) || this.connections.has(connId)) return this.refuse(message, { code: 1, retryHint: 0, message: `connId ${connId} is already in use` });
    if (this.binds.size + this.binding >= (this.deps.maxBinds ?? 256)) return this.refuse(message, { code: 1, retryHint: 1, message: 'too many binds on this channel' });
    this.binding++;
    try {
      await this.bindListener(message, bind);
    } finally {
      this.binding--;
    }
  }

  private async bindListener(message: EdgeMessage, bind: ReturnType<typeof parseMessage.bind>): Promise<void> {
    const { connId } = bind;
    const request: BindRequest = {
      serviceSession: bind.token,
      ...(bind.cost !== undefined ? { cost: bind.cost } : {}),
      ...(bind.precedence !== undefined ? { precedence: bind.precedence } : {}),
      ...(bind.terminatorIdentity !== undefined ? { instanceId: bind.terminatorIdentity } : {}),
    };
    let verdict: BindVerdict;
    try {
      verdict = await this.deps.bind!(this.apiSession, request);
    } catch (error) {
      verdict = { refused: { code: 'CONTROLLER_UNAVAILABLE', message: `no controller could take the bind: ${(error as Error).message}` } };
    }
    if ('refused' in verdict) {
      this.deps.logger.warn('sdk bind refused', { listener: this.deps.listener, identity: this.identityName, code: verdict.refused.code, reason: verdict.refused.message });
      return this.refuse(message, edgeRefusalOf(verdict.refused.code, verdict.refused.message));
    }
    if (this.connection.closed) return this.deps.unbind?.([verdict.terminatorId]);
    this.binds.set(connId, {
      ...request,
      terminatorId: verdict.terminatorId,
      token: bind.token,
      routerAssignsIds: bind.routerProvidedConnId,
      ...(bind.publicKey ? { hostKey: bind.publicKey } : {}),
    });
    this.deps.hosts!.add(verdict.terminatorId, this, connId);
    this.send(buildMessage.stateConnected({ sequence: this.nextSequence(), connId, inReplyTo: message, routerProvidedConnId: bind.routerProvidedConnId }));
    if (bind.supportsBindSuccess) this.send(buildMessage.bindSuccess({ sequence: this.nextSequence(), connId }));
    this.deps.logger.info('sdk bind', { listener: this.deps.listener, identity: this.identityName, connId, terminatorId: verdict.terminatorId });
  }

  private updateBind(message: EdgeMessage): void {
    const update = parseMessage.updateBind(message);
    const bind = this.binds.get(update.connId);
    if (!bind || !this.deps.bind) return;
    if (update.cost !== undefined) bind.cost = update.cost;
    if (update.precedence !== undefined) bind.precedence = update.precedence;
    void this.register(bind);
  }

  /** Sends a Bind's terminator to the controller again (same id): after a welcome, or with a new cost or precedence. */
  private async register(bind: BindState): Promise<void> {
    const verdict = await this.deps.bind!(this.apiSession, {
      serviceSession: bind.token,
      terminatorId: bind.terminatorId,
      ...(bind.cost !== undefined ? { cost: bind.cost } : {}),
      ...(bind.precedence !== undefined ? { precedence: bind.precedence } : {}),
      ...(bind.instanceId !== undefined ? { instanceId: bind.instanceId } : {}),
    }).catch((error: Error) => ({ refused: { code: 'CONTROLLER_UNAVAILABLE', message: error.message } }));
    if ('refused' in verdict && verdict.refused.code !== 'CONTROLLER_UNAVAILABLE') {
      const entry = [...this.binds.entries()].find(([, state]) => state === bind);
      if (entry) this.bindRevoked(entry[0], verdict.refused.message);
    }
  }

  rebind(): void {
    for (const bind of this.binds.values()) void this.register(bind);
  }

  bindRevoked(listenerConnId: number, reason: string): void {
    const bind = this.binds.get(listenerConnId);
    if (!bind) return;
    this.binds.delete(listenerConnId);
    this.deps.hosts?.remove(bind.terminatorId);
    this.deps.logger.info('sdk bind closed', { listener: this.deps.listener, identity: this.identityName, connId: listenerConnId, terminatorId: bind.terminatorId, reason });
    this.send(buildMessage.stateClosed({ sequence: this.nextSequence(), connId: listenerConnId, reason, error: { message: reason, code: edgeErrorCode.accessDenied, retryHint: retryHint.startOver } }));
  }

  private unbindListener(connId: number, reason: string): void {
    const bind = this.binds.get(connId);
    if (!bind) return;
    this.binds.delete(connId);
    this.deps.hosts?.remove(bind.terminatorId);
    this.deps.unbind?.([bind.terminatorId]);
    this.deps.logger.info('sdk unbind', { listener: this.deps.listener, identity: this.identityName, connId, terminatorId: bind.terminatorId, reason });
  }

  /**
   * A circuit for one of this channel's Binds: the SDK is sent a Dial (the Bind's token, the circuit, the dialer and
   * its key) and answers DialSuccess (the connection it accepts, with or without the router's id for it) or
   * DialFailed, within hostDialTimeoutMs. The connection is registered in the turn the answer arrives, so the
   * host's first Data (its stream header), right behind it, finds it.
   */
  dialHost(listenerConnId: number, route: CircuitRoute): Promise<{ readonly stream: EndStream; readonly hostKey?: string }> {
    const bind = this.binds.get(listenerConnId);
    if (!bind || this.connection.closed) return Promise.reject(new Error('the hosting SDK is gone'));
    const assigned = bind.routerAssignsIds ? this.nextRouterConnId() : undefined;
    const early = assigned !== undefined ? this.openConnection(assigned) : undefined;
    const sequence = this.nextSequence();
    return new Promise((resolve, reject) => {
      const fail = (reason: string) => {
        early?.channelClosed();
        reject(new Error(reason));
      };
      const timer = setTimeout(() => {
        this.awaiting.delete(sequence);
        fail(`the hosting SDK did not answer the dial within ${hostDialTimeoutMs} ms`);
      }, hostDialTimeoutMs);
      timer.unref();
      this.awaiting.set(sequence, {
        timer,
        onReply: (reply) => {
          if (reply.contentType === edgeContentType.dialFailed) return fail(`the hosting SDK refused the dial: ${reply.body.toString('utf8').slice(0, 512)}`);
          if (reply.contentType !== edgeContentType.dialSuccess) return fail(`the hosting SDK answered the dial with content type ${reply.contentType}`);
          let success;
          try {
            success = parseMessage.dialSuccess(reply);
          } catch (error) {
            return fail(`the hosting SDK's DialSuccess is malformed: ${(error as Error).message}`);
          }
          let connection = early;
          if (!connection) {
            if (this.connections.has(success.newConnId) || this.binds.has(success.newConnId)) return fail(`the hosting SDK accepted the dial on connId ${success.newConnId}, which is in use`);
            connection = this.openConnection(success.newConnId);
            this.send(buildMessage.stateConnected({ sequence: this.nextSequence(), connId: listenerConnId, inReplyTo: reply }));
          }
          const hostKey = success.publicKey ?? bind.hostKey;
          resolve({ stream: connection, ...(hostKey ? { hostKey: hostKey.toString('base64') } : {}) });
        },
      });
      const sent = this.send(
        buildMessage.dial({
          sequence,
          bindConnId: listenerConnId,
          token: bind.token,
          callerId: route.identityId,
          circuitId: route.circuitId,
          dialerIdentityId: route.identityId,
          ...(route.dialerKey ? { publicKey: Buffer.from(route.dialerKey, 'base64') } : {}),
          ...(assigned !== undefined ? { routerProvidedConnId: assigned } : {}),
        }),
      );
      if (!sent) {
        clearTimeout(timer);
        this.awaiting.delete(sequence);
        fail('the hosting SDK is gone');
      }
    });
  }

  private nextRouterConnId(): number {
    do {
      this.nextConnId = this.nextConnId >= 0xfffffffe ? firstRouterConnId : this.nextConnId + 1;
    } while (this.connections.has(this.nextConnId));
    return this.nextConnId;
  }

  private connect(message: EdgeMessage): void {
    const connect = parseMessage.connect(message);
    const { connId } = connect;
    if (this.connections.has(connId)) return this.refuse(message, { code: 1, retryHint: 0, message: `connId ${connId} is already in use` });
    if (this.connections.size >= (this.deps.maxConnections ?? 1000)) return this.refuse(message, { code: 1, retryHint: 1, message: 'too many connections on this channel' });
    const token = connect.token;
    if (token === '') return this.refuse(message, { code: 3, retryHint: 2, message: 'invalid session' });
    const connection = this.openConnection(connId);
    void this.deps
      .dial(connection, {
        apiSession: this.apiSession,
        serviceSession: token,
        ...(connect.publicKey ? { dialerKey: connect.publicKey.toString('base64') } : {}),
        onRefused: (code, reason) => {
          this.refuse(message, edgeRefusalOf(code, reason));
          connection.channelClosed();
        },
        onReady: (circuitId, hostKey) =>
          this.send(buildMessage.stateConnected({ sequence: this.nextSequence(), connId, inReplyTo: message, circuitId, ...(hostKey ? { publicKey: Buffer.from(hostKey, 'base64') } : {}) })),
      })
      .catch((error: Error) => {
        this.deps.logger.error('edge connection failed', { listener: this.deps.listener, connId, error: error.message });
        connection.destroy();
      });
  }

  /** A virtual connection under `connId`, registered: Data for it goes in, what the circuit writes goes out. */
  private openConnection(connId: number): SdkConnection {
    const connection = new SdkConnection(connId, {
      data: (id, body, onWritten) => this.sendData(id, body, 0, onWritten),
      fin: (id, onWritten) => this.sendData(id, Buffer.alloc(0), dataFlag.fin, onWritten),
      closed: (id, reason) => this.send(buildMessage.stateClosed({ sequence: this.nextSequence(), connId: id, reason })),
      full: (id) => {
        this.full.add(id);
        this.connection.pauseReading();
      },
      readable: (id) => this.readable(id),
      gone: (id) => {
        if (this.connections.get(id) === connection) this.connections.delete(id);
        this.readable(id);
      },
    });
    this.connections.set(connId, connection);
    return connection;
  }

  private data(message: EdgeMessage): void {
    const data = parseMessage.data(message);
    const connection = this.connections.get(data.connId);
    if (!connection) return;
    connection.receive(data.payload);
    if (data.fin) connection.receiveFin();
  }

  private readable(connId: number): void {
    if (!this.full.delete(connId)) return;
    if (this.full.size === 0) this.connection.resumeReading();
  }

  private sendData(connId: number, payload: Buffer, flags: number, onWritten: () => void): void {
    if (!this.send(buildMessage.data({ sequence: this.nextSequence(), connId, payload, ...(flags !== 0 ? { flags } : {}) }), onWritten)) onWritten();
  }

  /** A StateClosed reply to a request: with an edge error (1014 and 1033), or a plain-text refusal. */
  private refuse(request: EdgeMessage, refusal: EdgeRefusal | undefined, text?: string): void {
    const connId = readHeader.uint32(request.headers.get(edgeHeader.connId)) ?? 0;
    this.send(buildMessage.stateClosed({ sequence: this.nextSequence(), connId, inReplyTo: request, reason: refusal?.message ?? text ?? '', ...(refusal ? { error: refusal } : {}) }));
  }

  private send(message: EdgeMessage, onWritten?: () => void): boolean {
    return this.connection.send(message, onWritten);
  }

  private nextSequence(): number {
    this.sequence = this.sequence >= 0x7fffffff ? 1 : this.sequence + 1;
    return this.sequence;
  }

  /** Virtual connections open now. */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** The identity's name, as the controller gave it at the hello (for logs and the caller id). */
  get identity(): string {
    return this.identityName;
  }
}

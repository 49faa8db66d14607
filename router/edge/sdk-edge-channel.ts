// One SDK's channel on an edge listener: OpenZiti's edge protocol over the TLS connection the SDK opened with its
// identity certificate. The first frame must be a hello carrying the API session token (header 1002); the controller
// judges it with the certificate (`edge.hello`: a live session that may dial, the certificate one of its identity's,
// an edge router policy granting this router) before the hello is answered, and a refused hello is answered with a
// failed Result (reject class 2, the reason as its body) and the channel closed. Then the SDK dials services with
// Connect (a virtual connection per connId, each a circuit: sdk-connection.ts), sends Data, FIN and StateClosed;
// latency probes and heartbeats are answered. Every refusal is a StateClosed reply with the edge error code and
// structured error SDKs act on (edge-refusals.ts); nothing an SDK sends can throw out of here.
import { createHash, randomBytes } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import { FramedConnection } from '../../common/channel/framed-connection.ts';
import { channelContentType, edgeContentType } from '../../common/edge-protocol/edge-content-types.ts';
import { edgeFrameCodec, type EdgeMessage } from '../../common/edge-protocol/edge-frame-codec.ts';
import { channelHeader, dataFlag, edgeHeader } from '../../common/edge-protocol/edge-headers.ts';
import { buildMessage, EdgeMessageError, parseMessage } from '../../common/edge-protocol/edge-messages.ts';
import { headerValue, readHeader } from '../../common/edge-protocol/header-values.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { DialOptions } from '../circuits/forwarder.ts';
import { edgeRefusalOf, type EdgeRefusal } from './edge-refusals.ts';
import { SdkConnection } from './sdk-connection.ts';

/** What the controller answered about a hello. */
export type HelloVerdict = { readonly identityId: string; readonly identityName: string; readonly apiSessionId: string } | { readonly refused: { readonly code: string; readonly message: string } };

export interface SdkChannelDeps {
  /** `edge <host>:<port>`, for logs. */
  readonly listener: string;
  readonly routerId: string;
  /** The HelloVersion header's value: version|revision|buildDate|os|arch. */
  readonly version: string;
  readonly verifyHello: (apiSession: string, certFingerprint: string | undefined) => Promise<HelloVerdict>;
  /** Dials a circuit for a virtual connection (Forwarder.dial, the service named by the session token). */
  readonly dial: (connection: Duplex, options: DialOptions) => Promise<void>;
  readonly logger: Logger;
  /** How long an SDK has to say hello (10 s). */
  readonly helloTimeoutMs?: number;
  /** Virtual connections one channel may hold at once (1000). */
  readonly maxConnections?: number;
  /** Told when the hello is accepted and when the channel closes (edge-session-presence.ts). */
  readonly presence?: { opened(channel: SdkEdgeChannel): void; closed(channel: SdkEdgeChannel): void };
}

export class SdkEdgeChannel {
  private readonly connection: FramedConnection;
  private readonly connections = new Map<number, SdkConnection>();
  /** Connections that hold their high-water mark: the socket is not read while any does. */
  private readonly full = new Set<number>();
  private sequence = 0;
  private apiSession = '';
  private identityName = '';
  /** The identity and API session the controller named at the hello ('' before). */
  identityId = '';
  apiSessionId = '';

  constructor(
    private readonly socket: TLSSocket,
    private readonly deps: SdkChannelDeps,
  ) {
    this.connection = new FramedConnection(socket, {
      codec: edgeFrameCodec({ listener: true }),
      writes: 'coalesce',
      onRefusedFrame: (message) => deps.logger.warn('edge channel closed: a frame was refused', { listener: deps.listener, reason: message }),
    });
    this.connection.onClose(() => {
      for (const connection of [...this.connections.values()]) connection.channelClosed();
      this.connections.clear();
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
      const headers = new Map([[channelHeader.replyFor, headerValue.int32(hello.sequence)], [channelHeader.resultSuccess, headerValue.bool(false)], [channelHeader.helloRejectClass, headerValue.uint32(2)]]);
      this.send({ contentType: channelContentType.result, sequence: -1, headers, body: Buffer.from(verdict.refused.message) });
      this.connection.endAfterFlush(`hello refused: ${verdict.refused.message}`);
      return;
    }
    this.apiSession = token;
    this.identityName = verdict.identityName;
    this.identityId = verdict.identityId;
    this.apiSessionId = verdict.apiSessionId;
    // No capability bits yet (no Bind, no ConnectV2, no posture over the channel); grouping is not echoed.
    this.send(
      buildMessage.helloResult({ hello, version: this.deps.version, connectionId: randomBytes(6).toString('base64url'), listenerId: this.deps.routerId, capabilities: [], supportsBindSuccess: false, supportsPostureChecks: false }),
    );
    this.deps.logger.info('edge channel open', { listener: this.deps.listener, identityId: verdict.identityId, identity: verdict.identityName });
    this.deps.presence?.opened(this);
    this.connection.onClose(() => this.deps.presence?.closed(this));
    this.connection.onFrame((frame) => this.handle(frame as EdgeMessage));
  }

  close(reason: string): void {
    this.connection.close(reason);
  }

  private handle(message: EdgeMessage): void {
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
        case edgeContentType.stateClosed:
          return this.connections.get(parseMessage.stateClosed(message).connId)?.receiveClose();
        case edgeContentType.bind:
        case edgeContentType.unbind:
        case edgeContentType.updateBind:
        case edgeContentType.healthEvent:
          return this.refuse(message, { code: 1, retryHint: 3, message: 'hosting services from an SDK (Bind) is not available on this router yet' });
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

  private connect(message: EdgeMessage): void {
    const connect = parseMessage.connect(message);
    const { connId } = connect;
    if (this.connections.has(connId)) return this.refuse(message, { code: 1, retryHint: 0, message: `connId ${connId} is already in use` });
    if (this.connections.size >= (this.deps.maxConnections ?? 1000)) return this.refuse(message, { code: 1, retryHint: 1, message: 'too many connections on this channel' });
    const token = connect.token;
    if (token === '') return this.refuse(message, { code: 3, retryHint: 2, message: 'invalid session' });
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

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
import { edgeFrameCodec, type EdgeMessage } from '../../common/edge-protocol/edge-frame-codec.ts';
import { headerValue, readHeader } from '../../common/edge-protocol/header-values.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { DialOptions } from '../circuits/forwarder.ts';
import { edgeRefusalOf, structuredError, type EdgeRefusal } from './edge-refusals.ts';
import { SdkConnection } from './sdk-connection.ts';
import { contentType, dataFlags, header } from './sdk-wire.ts';

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
}

export class SdkEdgeChannel {
  private readonly connection: FramedConnection;
  private readonly connections = new Map<number, SdkConnection>();
  /** Connections that hold their high-water mark: the socket is not read while any does. */
  private readonly full = new Set<number>();
  private sequence = 0;
  private apiSession = '';
  private identityName = '';

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
    if (hello.contentType !== contentType.hello) return this.connection.close(`the first frame is not a hello (content type ${hello.contentType})`);
    const token = readHeader.string(hello.headers.get(header.sessionToken)) ?? '';
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
      this.send({ contentType: contentType.result, sequence: -1, headers: new Map([[header.replyFor, headerValue.int32(hello.sequence)], [header.resultSuccess, headerValue.bool(false)], [header.helloRejectClass, headerValue.uint32(2)]]), body: Buffer.from(verdict.refused.message) });
      this.connection.endAfterFlush(`hello refused: ${verdict.refused.message}`);
      return;
    }
    this.apiSession = token;
    this.identityName = verdict.identityName;
    const answer = new Map<number, Buffer>([
      [header.replyFor, headerValue.int32(hello.sequence)],
      [header.resultSuccess, headerValue.bool(true)],
      [header.connectionId, headerValue.string(randomBytes(6).toString('base64url'))],
      [header.id, headerValue.string(this.deps.routerId)],
      [header.helloVersion, headerValue.string(this.deps.version)],
    ]);
    const type = hello.headers.get(header.type);
    if (type) answer.set(header.type, type);
    this.send({ contentType: contentType.result, sequence: -1, headers: answer, body: Buffer.alloc(0) });
    this.deps.logger.info('edge channel open', { listener: this.deps.listener, identityId: verdict.identityId, identity: verdict.identityName });
    this.connection.onFrame((frame) => this.handle(frame as EdgeMessage));
  }

  close(reason: string): void {
    this.connection.close(reason);
  }

  private handle(message: EdgeMessage): void {
    switch (message.contentType) {
      case contentType.latency:
        return this.reply(message, contentType.result, new Map([[header.resultSuccess, headerValue.bool(true)], ...reflected(message)]));
      case contentType.heartbeat: {
        const beat = message.headers.get(header.heartbeat);
        if (beat) this.send({ contentType: contentType.heartbeat, sequence: this.nextSequence(), headers: new Map([[header.heartbeatResponse, beat]]), body: Buffer.alloc(0) });
        return;
      }
      case contentType.connect:
        return this.connect(message);
      case contentType.data:
        return this.data(message);
      case contentType.stateClosed: {
        const connId = readHeader.uint32(message.headers.get(header.connId));
        if (connId !== undefined) this.connections.get(connId)?.receiveClose();
        return;
      }
      case contentType.bind:
      case contentType.unbind:
      case contentType.updateBind:
      case contentType.healthEvent:
        return this.refuse(message, { code: 1, retryHint: 3, message: 'hosting services from an SDK (Bind) is not available on this router yet' });
      default:
        // Unknown content types are ignored, as OpenZiti's channel does with no handler for them.
        return;
    }
  }

  private connect(message: EdgeMessage): void {
    const connId = readHeader.uint32(message.headers.get(header.connId));
    if (connId === undefined) return this.refuse(message, undefined, 'connId not set, required');
    if (this.connections.has(connId)) return this.refuse(message, { code: 1, retryHint: 0, message: `connId ${connId} is already in use` });
    if (this.connections.size >= (this.deps.maxConnections ?? 1000)) return this.refuse(message, { code: 1, retryHint: 1, message: 'too many connections on this channel' });
    const token = message.body.toString('utf8');
    if (token === '') return this.refuse(message, { code: 3, retryHint: 2, message: 'invalid session' });
    const connection = new SdkConnection(connId, {
      data: (id, body, onWritten) => this.sendData(id, body, 0, onWritten),
      fin: (id, onWritten) => this.sendData(id, Buffer.alloc(0), dataFlags.fin, onWritten),
      closed: (id, reason) => this.send({ contentType: contentType.stateClosed, sequence: this.nextSequence(), headers: new Map([[header.connId, headerValue.uint32(id)]]), body: Buffer.from(reason) }),
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
        onRefused: (code, reason) => {
          this.refuse(message, edgeRefusalOf(code, reason));
          connection.channelClosed();
        },
        onReady: (circuitId) => this.reply(message, contentType.stateConnected, new Map([[header.connId, headerValue.uint32(connId)], [header.circuitId, headerValue.string(circuitId)]])),
      })
      .catch((error: Error) => {
        this.deps.logger.error('edge connection failed', { listener: this.deps.listener, connId, error: error.message });
        connection.destroy();
      });
  }

  private data(message: EdgeMessage): void {
    const connId = readHeader.uint32(message.headers.get(header.connId));
    const connection = connId === undefined ? undefined : this.connections.get(connId);
    if (!connection) return;
    connection.receive(message.body);
    const flags = readHeader.uint32(message.headers.get(header.flags)) ?? 0;
    if (flags & dataFlags.fin) connection.receiveFin();
  }

  private readable(connId: number): void {
    if (!this.full.delete(connId)) return;
    if (this.full.size === 0) this.connection.resumeReading();
  }

  private sendData(connId: number, body: Buffer, flags: number, onWritten: () => void): void {
    const headers = new Map<number, Buffer>([[header.connId, headerValue.uint32(connId)]]);
    if (flags !== 0) headers.set(header.flags, headerValue.uint32(flags));
    if (!this.send({ contentType: contentType.data, sequence: this.nextSequence(), headers, body }, onWritten)) onWritten();
  }

  /** A StateClosed reply to a request: with an edge error (1014 and 1033), or a plain-text refusal. */
  private refuse(request: EdgeMessage, refusal: EdgeRefusal | undefined, text?: string): void {
    const headers = new Map<number, Buffer>();
    const connId = request.headers.get(header.connId);
    if (connId) headers.set(header.connId, connId);
    if (refusal) {
      headers.set(header.errorCode, headerValue.uint32(refusal.code));
      headers.set(header.structuredError, headerValue.string(structuredError(refusal)));
    }
    this.reply(request, contentType.stateClosed, headers, Buffer.from(refusal?.message ?? text ?? ''));
  }

  private reply(request: EdgeMessage, type: number, headers: Map<number, Buffer>, body: Buffer = Buffer.alloc(0)): void {
    headers.set(header.replyFor, headerValue.int32(request.sequence));
    this.send({ contentType: type, sequence: this.nextSequence(), headers, body });
  }

  private send(message: EdgeMessage, onWritten?: () => void): boolean {
    return this.connection.send(message, onWritten);
  }

  private nextSequence(): number {
    this.sequence = this.sequence >= 0x7fffffff ? 1 : this.sequence + 1;
    return this.sequence;
  }

  /** The identity's name, as the controller gave it at the hello (for logs and the caller id). */
  get identity(): string {
    return this.identityName;
  }
}

/** A latency probe's reflected header (only 128 is copied into a reply). */
function reflected(message: EdgeMessage): Array<[number, Buffer]> {
  const value = message.headers.get(header.reflected);
  return value ? [[header.reflected, value]] : [];
}

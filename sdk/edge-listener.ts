// A service hosted from the SDK (the fact sheet's §3b): Bind on a router channel with the Bind session token (and this
// side's key when the service requires encryption), StateConnected then BindSuccess; each Dial the router sends for it
// is answered DialSuccess (the router-assigned connection id) and handed over as an EdgeConnection, or DialFailed with
// the reason; close() sends Unbind and StateClosed. The router closing the listener (session removed, access lost)
// ends it with the reason, as the 'close' event says.
import { EventEmitter } from 'node:events';
import { newKeyPair, type KxKeyPair } from '../common/edge-protocol/e2e-crypto.ts';
import { edgeContentType } from '../common/edge-protocol/edge-content-types.ts';
import type { EdgeMessage } from '../common/edge-protocol/edge-frame-codec.ts';
import { buildMessage, parseMessage } from '../common/edge-protocol/edge-messages.ts';
import { EdgeConnection } from './edge-connection.ts';
import type { ConnectionSink, EdgeRouterChannel } from './edge-router-channel.ts';
import { DialRefusedError, EdgeSdkError } from './sdk-errors.ts';

/** Router-assigned connection ids are above 2^31-1; SDK-chosen ones below. */
const firstRouterConnId = 0x8000_0000;

export interface BindRequest {
  readonly service: string;
  readonly sessionToken: string;
  readonly encryptionRequired: boolean;
  readonly cost?: number;
}

export class EdgeListener extends EventEmitter implements ConnectionSink {
  private closed = false;
  private boundResolve: (() => void) | undefined;
  private boundReject: ((error: Error) => void) | undefined;
  /** Dials answered with DialSuccess. */
  accepted = 0;

  private constructor(
    private readonly channel: EdgeRouterChannel,
    readonly connId: number,
    readonly service: string,
    private readonly sessionToken: string,
    private readonly keys: KxKeyPair | undefined,
    private readonly handler: (connection: EdgeConnection) => void,
  ) {
    super();
    channel.register(connId, this);
  }

  /** Binds `request.service` on `channel`: resolves once the router says the terminator exists (BindSuccess). */
  static async open(channel: EdgeRouterChannel, request: BindRequest, handler: (connection: EdgeConnection) => void, timeoutMs = 10_000): Promise<EdgeListener> {
    const keys = request.encryptionRequired ? newKeyPair() : undefined;
    const listener = new EdgeListener(channel, channel.newConnId(), request.service, request.sessionToken, keys, handler);
    const bound = new Promise<void>((resolve, reject) => {
      listener.boundResolve = resolve;
      listener.boundReject = reject;
    });
    bound.catch(() => undefined);
    let reply: EdgeMessage;
    try {
      reply = await channel.request(
        (sequence) => buildMessage.bind({ sequence, connId: listener.connId, token: request.sessionToken, ...(keys ? { publicKey: keys.publicKey } : {}), ...(request.cost ? { cost: request.cost } : {}), supportsBindSuccess: true, routerProvidedConnId: true }),
        `bind of service ${JSON.stringify(request.service)}`,
      );
    } catch (error) {
      listener.end(false);
      throw error;
    }
    if (reply.contentType !== edgeContentType.stateConnected) {
      listener.end(false);
      if (reply.contentType !== edgeContentType.stateClosed) throw new EdgeSdkError('protocol', `bind of service ${JSON.stringify(request.service)}: the router answered content type ${reply.contentType}`);
      const refusal = parseMessage.stateClosed(reply);
      throw new DialRefusedError(request.service, refusal.error?.code ?? refusal.errorCode ?? 0, refusal.error?.retryHint ?? 0, refusal.reason || refusal.error?.message || '', 'bind');
    }
    const timer = setTimeout(() => listener.boundReject?.(new EdgeSdkError('timeout', `bind of service ${JSON.stringify(request.service)}: no BindSuccess within ${timeoutMs} ms`)), timeoutMs);
    try {
      await bound;
    } catch (error) {
      listener.close();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return listener;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Unbind, then StateClosed on the listener: the router removes the terminator. Open connections go on. */
  close(): void {
    if (this.closed) return;
    this.channel.send(buildMessage.unbind({ sequence: this.channel.nextSequence(), connId: this.connId, token: this.sessionToken }));
    this.channel.send(buildMessage.stateClosed({ sequence: this.channel.nextSequence(), connId: this.connId }));
    this.end(false, 'closed by the SDK');
  }

  message(message: EdgeMessage): void {
    try {
      this.handle(message);
    } catch (error) {
      // A malformed message for the listener: logged through the event, the listener goes on.
      this.emit('protocolError', new EdgeSdkError('protocol', `bad message for the listener of ${JSON.stringify(this.service)}: ${(error as Error).message}`, { cause: error }));
    }
  }

  channelClosed(reason: string): void {
    this.end(false, `the channel to the edge router closed: ${reason}`);
  }

  private handle(message: EdgeMessage): void {
    switch (message.contentType) {
      case edgeContentType.bindSuccess:
        this.boundResolve?.();
        return;
      case edgeContentType.dial:
        return this.accept(message);
      case edgeContentType.stateClosed: {
        // Not a reply (the Bind's reply is the bind's to read): the router ended the listener.
        if (message.headers.has(1)) return;
        const closed = parseMessage.stateClosed(message);
        const reason = closed.reason || closed.error?.message || 'closed by the edge router';
        this.boundReject?.(new DialRefusedError(this.service, closed.error?.code ?? closed.errorCode ?? 0, closed.error?.retryHint ?? 0, reason, 'bind'));
        this.end(true, reason);
        return;
      }
      case edgeContentType.connInspectRequest:
        this.channel.send(buildMessage.connInspectResponse({ sequence: this.channel.nextSequence(), connId: this.connId, inReplyTo: message, connType: 'bind', text: JSON.stringify({ service: this.service, accepted: this.accepted }) }));
        return;
      default:
        return;
    }
  }

  /** A Dial: DialSuccess with the router's connection id, then the connection (its stream header first) to the handler. */
  private accept(message: EdgeMessage): void {
    const dial = parseMessage.dial(message);
    const refuse = (reason: string) => this.channel.send(buildMessage.dialFailed({ sequence: this.channel.nextSequence(), bindConnId: this.connId, inReplyTo: message, reason }));
    if (this.closed) return void refuse('the listener is closed');
    if (dial.token !== this.sessionToken) return void refuse('invalid token');
    const connId = dial.routerProvidedConnId;
    if (connId === undefined || connId < firstRouterConnId) return void refuse('no router-assigned connection id');
    if (this.keys && !dial.publicKey) return void refuse('encryption required on service, dialer did not send public key');
    const connection = new EdgeConnection(this.channel, connId, this.service, this.keys);
    this.channel.send(buildMessage.dialSuccess({ sequence: this.channel.nextSequence(), bindConnId: this.connId, inReplyTo: message, newConnId: connId }));
    connection.startAsHost(dial.publicKey);
    this.accepted++;
    this.handler(connection);
  }

  private end(byRouter: boolean, reason = 'closed'): void {
    if (this.closed) return;
    this.closed = true;
    this.channel.unregister(this.connId);
    this.boundReject?.(new EdgeSdkError('closed', `bind of service ${JSON.stringify(this.service)}: ${reason}`));
    this.boundResolve = undefined;
    this.boundReject = undefined;
    this.emit('close', reason, byRouter);
  }
}

// One SDK channel to one edge router (the fact sheet's §1.7, §2.4, §3a): TLS with the identity's certificate and
// ALPN `ziti-edge`, the hello with the API session token, then requests answered by sequence (header 1) and messages
// routed to connections by connId (header 1000). Whatever the router sends, nothing throws out of here: a malformed
// reply fails its request with an EdgeSdkError, a malformed message for a connection goes to that connection, and a
// broken frame closes the channel, which fails every waiting request and connection.
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { FramedConnection } from '../common/channel/framed-connection.ts';
import { channelContentType, edgeContentType } from '../common/edge-protocol/edge-content-types.ts';
import { edgeFrameCodec, type EdgeMessage } from '../common/edge-protocol/edge-frame-codec.ts';
import { channelHeader, edgeHeader } from '../common/edge-protocol/edge-headers.ts';
import { buildMessage, parseMessage } from '../common/edge-protocol/edge-messages.ts';
import { readHeader } from '../common/edge-protocol/header-values.ts';
import { EdgeSdkError } from './sdk-errors.ts';
import type { TlsMaterial } from './controller-client.ts';

/** What a connection on the channel receives: its messages by connId, and the channel's end. */
export interface ConnectionSink {
  message(message: EdgeMessage): void;
  channelClosed(reason: string): void;
}

/** What the router said in its hello Result. */
export interface RouterHello {
  /** `version|revision|buildDate|os|arch` (header 4). */
  readonly version: string;
  readonly capabilities: readonly number[];
}

/** SDK-assigned connection ids are 1 .. 2^31-2 (router-assigned ones start above). */
const maxConnId = 0x7fff_fffe;

interface Pending {
  readonly resolve: (message: EdgeMessage) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

export interface OpenChannelOptions {
  /** `tls://host:port` or `tls:host:port`. */
  readonly url: string;
  readonly tls: TlsMaterial;
  readonly apiSessionToken: string;
  /** The hello body: informational (the Go SDK sends the certificate's CN). */
  readonly helloBody?: string;
  readonly timeoutMs?: number;
}

/** `tls://host:port` (or the Go form `tls:host:port`) → host and port. */
export function parseRouterUrl(url: string): { host: string; port: number } {
  const match = /^tls:(?:\/\/)?(\[[^\]]+\]|[^:/]+):(\d{1,5})\/?$/.exec(url);
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65_535) throw new EdgeSdkError('router-unreachable', `edge router address ${JSON.stringify(url)} is not tls://host:port`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

export class EdgeRouterChannel {
  private readonly connection: FramedConnection;
  private readonly pending = new Map<number, Pending>();
  private readonly sinks = new Map<number, ConnectionSink>();
  /** Connections whose readers are full: the channel stops reading while any is. */
  private readonly backedUp = new Set<number>();
  private sequence = 0;
  private connIdCounter = 0;
  private readonly closeHandlers: Array<(reason: string) => void> = [];
  hello: RouterHello | undefined;

  constructor(
    socket: Duplex,
    private readonly timeoutMs = 10_000,
  ) {
    this.connection = new FramedConnection(socket, { codec: edgeFrameCodec({ listener: false }), writes: 'direct' });
    this.connection.onClose((reason) => this.closed(reason));
  }

  /** TLS to the router with the identity's certificate, then the hello; an EdgeSdkError when either fails. */
  static async open(options: OpenChannelOptions): Promise<EdgeRouterChannel> {
    const { host, port } = parseRouterUrl(options.url);
    const timeoutMs = options.timeoutMs ?? 10_000;
    const socket = await new Promise<Duplex>((resolve, reject) => {
      const tls = tlsConnect({ host, port, cert: options.tls.cert, key: options.tls.key, ca: options.tls.ca, ALPNProtocols: ['ziti-edge'], servername: /^[\d.:]+$/.test(host) ? undefined : host });
      const timer = setTimeout(() => tls.destroy(new Error(`no TLS handshake within ${timeoutMs} ms`)), timeoutMs);
      tls.once('secureConnect', () => {
        clearTimeout(timer);
        // Nagle off: many connections share the channel, and a small frame (a Connect, a few bytes) behind one the
        // router has not acknowledged yet would otherwise wait for its delayed ACK (up to 40 ms).
        tls.setNoDelay(true);
        tls.removeAllListeners('error');
        resolve(tls);
      });
      tls.once('error', (error) => {
        clearTimeout(timer);
        reject(new EdgeSdkError('router-unreachable', `edge router ${options.url}: ${error.message}`, { cause: error }));
      });
    });
    const channel = new EdgeRouterChannel(socket, timeoutMs);
    try {
      await channel.sayHello(options.apiSessionToken, options.helloBody ?? 'edgeward-sdk');
    } catch (error) {
      channel.close('hello failed');
      throw error;
    }
    return channel;
  }

  get isClosed(): boolean {
    return this.connection.closed;
  }

  /** Sends the hello (sequence -1) and reads its Result: success, or an EdgeSdkError with the router's text. */
  async sayHello(apiSessionToken: string, body: string): Promise<RouterHello> {
    this.connection.send(buildMessage.hello({ sessionToken: apiSessionToken, body }));
    let frame: EdgeMessage;
    try {
      frame = (await this.connection.next(this.timeoutMs)) as EdgeMessage;
    } catch (error) {
      throw new EdgeSdkError('router-unreachable', `edge router hello: ${(error as Error).message}`, { cause: error });
    }
    let result: ReturnType<typeof parseMessage.helloResult>;
    try {
      result = parseMessage.helloResult(frame);
    } catch (error) {
      throw new EdgeSdkError('protocol', `edge router hello: ${(error as Error).message}`, { cause: error });
    }
    if (result.replyFor !== -1) throw new EdgeSdkError('protocol', 'edge router hello: channel synchronization error (the Result does not answer sequence -1)');
    if (!result.success) throw new EdgeSdkError('router-unreachable', `edge router refused the hello: ${result.text || 'no reason given'}`);
    const hello: RouterHello = { version: result.version ?? '', capabilities: result.capabilities ?? [] };
    this.hello = hello;
    this.connection.onFrame((message) => this.dispatch(message as EdgeMessage));
    return hello;
  }

  /** A connection id not in use on this channel. */
  newConnId(): number {
    for (let tries = 0; tries < 1000; tries++) {
      this.connIdCounter = (this.connIdCounter % maxConnId) + 1;
      if (!this.sinks.has(this.connIdCounter)) return this.connIdCounter;
    }
    throw new EdgeSdkError('protocol', 'no free connection id on this channel');
  }

  nextSequence(): number {
    this.sequence = this.sequence >= 0x7fff_ffff ? 1 : this.sequence + 1;
    return this.sequence;
  }

  register(connId: number, sink: ConnectionSink): void {
    this.sinks.set(connId, sink);
  }

  unregister(connId: number): void {
    this.sinks.delete(connId);
    this.readerCaughtUp(connId);
  }

  /** Sends a message; false when the channel is closed. */
  send(message: EdgeMessage): boolean {
    return this.connection.send(message);
  }

  /** True while the socket has more written than the kernel took. */
  get writeBackedUp(): boolean {
    return this.connection.socket.writableNeedDrain;
  }

  drained(): Promise<boolean> {
    return this.connection.drained();
  }

  /** Sends `message` (built with a fresh sequence) and waits for the reply that names its sequence. */
  request(build: (sequence: number) => EdgeMessage, what: string): Promise<EdgeMessage> {
    const message = build(this.nextSequence());
    if (this.connection.closed) return Promise.reject(new EdgeSdkError('closed', `${what}: the channel to the edge router is closed (${this.connection.closeReason})`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(message.sequence);
        reject(new EdgeSdkError('timeout', `${what}: no answer from the edge router within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(message.sequence, { resolve, reject, timer });
      this.connection.send(message);
    });
  }

  /** A latency probe (content type 3, header 128): the round trip in milliseconds. */
  async probeLatency(): Promise<number> {
    const started = process.hrtime.bigint();
    const answer = await this.request((sequence) => buildMessage.latencyProbe({ sequence, timestamp: started }), 'latency probe');
    const reflected = readHeader.uint64(answer.headers.get(channelHeader.reflected));
    if (answer.contentType !== channelContentType.result || reflected !== started) throw new EdgeSdkError('protocol', 'latency probe: the answer does not reflect the probe');
    return Number(process.hrtime.bigint() - started) / 1e6;
  }

  /** A connection's reader is full: stop reading the channel until it (and every other full one) catches up. */
  readerFull(connId: number): void {
    this.backedUp.add(connId);
    if (!this.connection.isReadingPaused) this.connection.pauseReading();
  }

  readerCaughtUp(connId: number): void {
    if (!this.backedUp.delete(connId)) return;
    if (this.backedUp.size === 0 && this.connection.isReadingPaused) this.connection.resumeReading();
  }

  onClose(handler: (reason: string) => void): void {
    if (this.connection.closed) handler(this.connection.closeReason ?? 'closed');
    else this.closeHandlers.push(handler);
  }

  close(reason: string): void {
    this.connection.close(reason);
  }

  private dispatch(message: EdgeMessage): void {
    const replyFor = readHeader.int32(message.headers.get(channelHeader.replyFor));
    const waiting = replyFor === undefined ? undefined : this.pending.get(replyFor);
    if (waiting) {
      this.pending.delete(replyFor!);
      clearTimeout(waiting.timer);
      // The connection sees its reply first (it may buffer Data that follows at once), then the caller.
      this.routeToConnection(message);
      waiting.resolve(message);
      return;
    }
    if (!this.routeToConnection(message) && message.contentType === edgeContentType.data) {
      // Data for a connection this side no longer has: tell the router, as the C SDK does.
      const connId = readHeader.uint32(message.headers.get(edgeHeader.connId));
      if (connId !== undefined) this.send(buildMessage.stateClosed({ sequence: this.nextSequence(), connId, reason: 'unknown connection' }));
    }
    // Messages for no connection of this side (a Dial for a listener already closed, say) are dropped.
  }

  private routeToConnection(message: EdgeMessage): boolean {
    const connId = readHeader.uint32(message.headers.get(edgeHeader.connId));
    const sink = connId === undefined ? undefined : this.sinks.get(connId);
    if (!sink) return false;
    sink.message(message);
    return true;
  }

  private closed(reason: string): void {
    for (const [, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(new EdgeSdkError('closed', `the channel to the edge router closed: ${reason}`));
    }
    this.pending.clear();
    const sinks = [...this.sinks.values()];
    this.sinks.clear();
    for (const sink of sinks) sink.channelClosed(reason);
    for (const handler of this.closeHandlers.splice(0)) handler(reason);
  }
}

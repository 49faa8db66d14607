// A minimal SDK end of OpenZiti's edge protocol for tests that check a router at the wire level: TLS to an edge
// listener (ALPN ziti-edge, the identity's certificate), frames out as built, frames in as read; every wait bounded.
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { EdgeFrameReader, encodeEdgeMessage, type EdgeMessage } from '../../common/edge-protocol/edge-frame-codec.ts';
import { headerValue, readHeader } from '../../common/edge-protocol/header-values.ts';

/** Matches the reply to the request sent with `sequence` (header 1). */
export const replyTo = (sequence: number) => (frame: EdgeMessage) => readHeader.int32(frame.headers.get(1)) === sequence;

/** A minimal SDK end of the wire: frames out, frames in (each wait bounded). */
export class WireClient {
  private readonly reader = new EdgeFrameReader();
  private readonly frames: EdgeMessage[] = [];
  private waiter: (() => void) | undefined;
  private sequence = 0;
  closed = false;

  private constructor(readonly socket: TLSSocket) {
    socket.on('data', (chunk: Buffer) => {
      this.reader.append(chunk);
      for (let frame = this.reader.next(); frame; frame = this.reader.next()) this.frames.push(frame);
      this.waiter?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiter?.();
    });
    socket.on('error', () => undefined);
  }

  static open(listener: { readonly port: number; readonly caPem: string }, identity: { cert: string; key: string } | undefined): Promise<WireClient> {
    return new Promise((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port: listener.port, ca: listener.caPem, servername: 'localhost', ALPNProtocols: ['ziti-edge'], ...(identity ? { cert: identity.cert, key: identity.key } : {}) }, () => resolve(new WireClient(socket)));
      socket.once('error', reject);
    });
  }

  send(contentType: number, headers: Array<[number, Buffer]>, body: Buffer | string = Buffer.alloc(0), sequence = ++this.sequence): number {
    this.socket.write(encodeEdgeMessage({ contentType, sequence, headers: new Map(headers), body: Buffer.from(body) }));
    return sequence;
  }

  /** The next frame that `matches` (10 s), or undefined when the channel closed first. */
  async next(matches: (frame: EdgeMessage) => boolean, what: string): Promise<EdgeMessage | undefined> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const index = this.frames.findIndex(matches);
      if (index >= 0) return this.frames.splice(index, 1)[0];
      if (this.closed) return undefined;
      if (Date.now() > deadline) throw new Error(`no ${what} within 10 s`);
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        setTimeout(resolve, 200);
      });
    }
  }

  async hello(token: string): Promise<EdgeMessage | undefined> {
    this.send(0, [[1002, headerValue.string(token)]], 'edgeward-test', -1);
    return this.next((frame) => frame.contentType === 2, 'hello result');
  }

  /** Closes the TLS connection and waits (5 s at most) until it is closed. */
  async close(): Promise<void> {
    this.socket.destroy();
    const deadline = Date.now() + 5000;
    while (!this.closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}


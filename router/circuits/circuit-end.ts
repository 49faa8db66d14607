// One end of a circuit: the TCP connection a tunnel listener accepted (ingress) or the one a router dialed to a
// terminator's address (egress), joined to the circuit's frames. Flow control is end to end, by credit: an end sends
// at most `windowBytes` that the far end has not acknowledged, pausing its socket when it has, and the far end
// acknowledges bytes once its socket has taken them (coalesced to one acknowledgement per turn of the event loop).
// So a slow reader at one end slows the writer at the other, and what any router on the path buffers for a
// circuit is bounded by the window. Half-close: a socket that ends sends `fin`; a `fin` received ends the socket
// once what came before it is written. When this end has sent its `fin` and its socket has written the far end's,
// the circuit is done (graceful close); an error or reset before that aborts it.
import type { Socket } from 'node:net';
import { FramedSocket } from '../links/framed-socket.ts';

export type EndOutput =
  | { readonly kind: 'data'; readonly data: Buffer }
  | { readonly kind: 'ack'; readonly bytes: number }
  | { readonly kind: 'fin' }
  | { readonly kind: 'close'; readonly graceful: boolean; readonly reason: string };

export interface EndCounters {
  /** Bytes read from this end's socket (sent into the circuit). */
  readonly bytesIn: number;
  /** Bytes written to this end's socket (received from the circuit). */
  readonly bytesOut: number;
}

/** Bytes an end may have unacknowledged (both directions have their own window). */
export const defaultWindowBytes = 4 * 1024 * 1024;

export class CircuitEnd implements EndCounters {
  bytesIn = 0;
  bytesOut = 0;
  private inFlight = 0;
  private paused = false;
  private pendingAck = 0;
  private ackScheduled = false;
  private finSent = false;
  private finReceived = false;
  private written = false;
  private ended = false;

  constructor(
    readonly socket: Socket,
    private readonly out: (output: EndOutput) => void,
    private readonly windowBytes = defaultWindowBytes,
  ) {}

  /** Starts reading (the socket should have been created or accepted paused, and with allowHalfOpen). */
  start(): void {
    const { socket } = this;
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('end', () => {
      if (this.ended || this.finSent) return;
      this.finSent = true;
      this.out({ kind: 'fin' });
      this.checkDone();
    });
    socket.on('finish', () => {
      this.written = true;
      this.checkDone();
    });
    socket.on('error', (error: Error) => this.abort(`connection error: ${error.message}`));
    socket.on('close', () => this.abort('connection closed'));
    socket.setNoDelay(true);
    if (socket.readableEnded) {
      // The client sent everything and its FIN before the circuit was up.
      this.finSent = true;
      this.out({ kind: 'fin' });
    }
    socket.resume();
  }

  /** Bytes from the far end. */
  deliver(data: Buffer): void {
    if (this.ended) return;
    this.bytesOut += data.length;
    const length = data.length;
    this.socket.write(data, (error) => {
      if (error || this.ended) return;
      this.pendingAck += length;
      if (this.ackScheduled) return;
      this.ackScheduled = true;
      setImmediate(() => this.flushAck());
    });
  }

  /** The far end took `bytes` more of what this end sent. */
  acknowledged(bytes: number): void {
    if (this.ended || !(bytes > 0)) return;
    this.inFlight = Math.max(0, this.inFlight - bytes);
    if (this.paused && this.inFlight < this.windowBytes) {
      this.paused = false;
      this.socket.resume();
    }
  }

  /** The far end half-closed: end this socket's writing side once what came before is written. */
  finished(): void {
    if (this.ended || this.finReceived) return;
    this.finReceived = true;
    this.socket.end();
  }

  /**
   * The circuit is gone: a graceful close lets the socket finish writing; any other resets it (RST, not FIN), so
   * that a client cut off by a lost link does not take a truncated stream for a whole one.
   */
  close(graceful: boolean): void {
    if (this.ended) return;
    this.ended = true;
    if (graceful) this.socket.end();
    else if (typeof this.socket.resetAndDestroy === 'function' && !this.socket.destroyed && this.socket.readyState !== 'opening') this.socket.resetAndDestroy();
    else this.socket.destroy();
  }

  get unacknowledged(): number {
    return this.inFlight;
  }

  private read(chunk: Buffer): void {
    if (this.ended) return;
    this.bytesIn += chunk.length;
    for (let offset = 0; offset < chunk.length; offset += FramedSocket.maxDataBytes) {
      const piece = offset === 0 && chunk.length <= FramedSocket.maxDataBytes ? chunk : chunk.subarray(offset, offset + FramedSocket.maxDataBytes);
      this.inFlight += piece.length;
      this.out({ kind: 'data', data: piece });
    }
    if (this.inFlight >= this.windowBytes && !this.paused) {
      this.paused = true;
      this.socket.pause();
    }
  }

  private flushAck(): void {
    this.ackScheduled = false;
    if (this.ended || this.pendingAck === 0) return;
    const bytes = this.pendingAck;
    this.pendingAck = 0;
    this.out({ kind: 'ack', bytes });
  }

  private checkDone(): void {
    if (this.ended || !this.finSent || !this.finReceived || !this.written) return;
    this.flushAck();
    this.ended = true;
    this.out({ kind: 'close', graceful: true, reason: 'both ends closed' });
  }

  private abort(reason: string): void {
    if (this.ended) return;
    // A socket that closes after both halves ended is done, not aborted.
    if (this.finSent && this.finReceived && this.written) return this.checkDone();
    this.ended = true;
    this.socket.destroy();
    this.out({ kind: 'close', graceful: false, reason });
  }
}

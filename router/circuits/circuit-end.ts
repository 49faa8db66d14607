// One end of a circuit: the TCP connection a tunnel listener accepted (ingress) or the one a router dialed to a
// terminator's address (egress), joined to the circuit's frames. Flow control is end to end, by credit: an end sends
// at most `windowBytes` that the far end's socket has not taken, pausing its socket when it has, and the far end
// acknowledges how many bytes its socket has taken in all (cumulative). Acknowledgements are coalesced: one once the
// socket has taken a quarter of the window since the last (in the turn of the event loop it did), else one
// `ackDelayMs` after the first byte not yet acknowledged; never one per chunk, so bulk transfer costs a credit frame
// (and a wake-up of the sending router) per MiB rather than per 64 KiB, and a request/response exchange none at all
// between its messages. A sender is never held up by that: it pauses only with a whole window unacknowledged, and
// the far end acknowledges at a quarter. So a slow reader at one end slows the writer at the other, and what any router on the path
// buffers for a circuit is bounded by the window. Half-close: a socket that ends sends `fin`; a `fin` received ends
// the socket once what came before it is written. When this end has sent its `fin` and its socket has written the
// far end's, the circuit is done (graceful close); an error or reset before that aborts it.
//
// The receiving end enforces the window it grants: what it has been handed and its socket has not yet taken is at most
// `windowBytes` plus one frame (a sender pauses only after the read that reaches its window). A sender that ignores
// acknowledgements (a faulty or hostile router on the path) would make it buffer without limit, so data beyond that
// closes the circuit (`overrun`): the receiver holds at most one window per circuit and direction.
//
// Re-routing: an end keeps what it sent until the far end's socket has taken it (at most the window). When a link of
// the path is lost, the end is suspended (it reads nothing more); once a new path is up, each end learns how much the
// other has received and sends the rest again (`resume`), then its `fin` again if it had sent one. Nothing is lost
// or doubled, and neither connection notices more than a pause.
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { resetSocket } from './socket-reset.ts';
import { FramedSocket } from '../links/framed-socket.ts';

/** What an end reads and writes: a TCP or TLS socket, or an SDK's virtual connection (router/edge/sdk-connection.ts). */
export type EndStream = Duplex & { setNoDelay(noDelay?: boolean): unknown };

export type EndOutput =
  | { readonly kind: 'data'; readonly data: Buffer }
  /** `bytes`: everything this end's socket has taken so far (cumulative). */
  | { readonly kind: 'ack'; readonly bytes: number }
  | { readonly kind: 'fin' }
  /** `overrun`: the far end sent beyond the window this end granted (bytes held when it did). */
  | { readonly kind: 'close'; readonly graceful: boolean; readonly reason: string; readonly overrun?: { readonly heldBytes: number } };

export interface EndCounters {
  /** Bytes read from this end's socket (sent into the circuit). */
  readonly bytesIn: number;
  /** Bytes written to this end's socket (received from the circuit). */
  readonly bytesOut: number;
}

/** Bytes an end may have unacknowledged (both directions have their own window). */
export const defaultWindowBytes = 4 * 1024 * 1024;

/** What a receiving end may hold beyond the window: one frame, as a sender pauses only after the read that reaches it. */
export const windowSlackBytes = FramedSocket.maxDataBytes;

/** The reason an end gives when its sender overran the window. */
export const windowOverrunReason = 'flow control: the sender exceeded the window this end granted';

/** An end acknowledges at once when its socket has taken this fraction of the window since its last acknowledgement... */
export const ackWindowFraction = 1 / 4;
/** ... and otherwise this many ms after the first byte not yet acknowledged (what a sender keeps for re-routing is
 * so released soon after a quiet spell). */
export const ackDelayMs = 10;

export class CircuitEnd implements EndCounters {
  /** Bytes read from the socket, all sent into the circuit. */
  bytesIn = 0;
  /** Bytes received from the circuit (all handed to the socket). */
  bytesOut = 0;
  /** What the far end's socket has taken of bytesIn (its cumulative acknowledgement). */
  private peerWritten = 0;
  /** Sent bytes from peerWritten on, kept to send again after a re-route. */
  private unacknowledged: Buffer[] = [];
  /** What this end's socket has taken of bytesOut. */
  private written = 0;
  /** The last acknowledgement sent (of `written`). */
  private ackedThrough = 0;
  /** The delayed acknowledgement for bytes under the threshold. */
  private ackTimer: NodeJS.Timeout | undefined;
  private readonly ackThresholdBytes: number;
  private paused = false;
  private suspended = false;
  private ackScheduled = false;
  private finSent = false;
  private finReceived = false;
  private finished_ = false;
  private ended = false;
  /** The socket is corked until the end of this turn of the event loop (gatherWrites). */
  private corked = false;

  constructor(
    readonly socket: EndStream,
    private readonly out: (output: EndOutput) => void,
    private readonly windowBytes = defaultWindowBytes,
  ) {
    this.ackThresholdBytes = Math.max(1, Math.floor(windowBytes * ackWindowFraction));
  }

  /** Starts reading (the socket should have been created or accepted paused, and with allowHalfOpen). */
  start(): void {
    const { socket } = this;
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('end', () => {
      if (this.ended || this.finSent) return;
      this.finSent = true;
      if (!this.suspended) this.out({ kind: 'fin' });
      this.checkDone();
    });
    socket.on('finish', () => {
      this.finished_ = true;
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

  /** Bytes from the far end: one buffer, or the parts a data frame was read in (`length` in all). */
  deliver(data: Buffer | readonly Buffer[], length = Buffer.isBuffer(data) ? data.length : sumOfLengths(data)): void {
    if (this.ended) return;
    const held = this.heldBytes + length;
    if (held > this.windowBytes + windowSlackBytes) return this.overrun(this.heldBytes);
    this.bytesOut += length;
    const taken = this.takenCallback(length);
    const { socket } = this;
    if (Buffer.isBuffer(data)) socket.write(data, taken);
    else if (data.length === 1) socket.write(data[0]!, taken);
    else if (socket instanceof Socket) {
      // A TCP (or TLS) socket writes the parts uncopied, and with every other frame delivered in this turn of the
      // event loop: one writev per turn, not one per frame.
      this.gatherWrites();
      for (let index = 0; index < data.length; index++) socket.write(data[index]!, index === data.length - 1 ? taken : undefined);
    } else {
      // An SDK's connection or an end-to-end stream makes one message of each write: one per frame, as sent.
      socket.write(Buffer.concat(data, length), taken);
    }
  }

  /** The far end's socket has taken `through` bytes of what this end sent, in all. */
  acknowledged(through: number): void {
    if (this.ended || !(through > this.peerWritten) || through > this.bytesIn) return;
    this.drop(through - this.peerWritten);
    this.peerWritten = through;
    this.maybeResume();
  }

  /** The far end half-closed: end this socket's writing side once what came before is written. */
  finished(): void {
    if (this.ended || this.finReceived) return;
    this.finReceived = true;
    this.socket.end();
  }

  /** A link of the path is lost: read nothing more until resume() (what arrives meanwhile waits in the socket). */
  suspend(): void {
    if (this.ended || this.suspended) return;
    this.suspended = true;
    this.socket.pause();
  }

  /** A new path is up and the far end has received `peerReceived` bytes in all: send the rest again, and go on. */
  resume(peerReceived: number): void {
    if (this.ended) return;
    if (peerReceived > this.peerWritten && peerReceived <= this.bytesIn) {
      // The far end has these (written or on their way into its socket): they are acknowledged by its receipt.
      this.drop(peerReceived - this.peerWritten);
      this.peerWritten = peerReceived;
    }
    this.suspended = false;
    for (const piece of this.unacknowledged) this.out({ kind: 'data', data: piece });
    if (this.finSent) this.out({ kind: 'fin' });
    // An acknowledgement sent on the old path may be lost with it: the new path hears the count again.
    this.flushAck(true);
    if (!this.paused) this.socket.resume();
    else this.maybeResume();
    this.checkDone();
  }

  /** Bytes received from the circuit so far: where the far end resumes sending. */
  get received(): number {
    return this.bytesOut;
  }

  /** The circuit is gone: a graceful close lets the socket finish writing; any other resets it (RST, not FIN), so
   * that a client cut off by a lost link does not take a truncated stream for a whole one. */
  close(graceful: boolean): void {
    if (this.ended) return;
    this.ended = true;
    this.stopAcks();
    if (graceful) this.socket.end();
    else resetSocket(this.socket);
  }

  /** Bytes received from the circuit that this end's socket has not taken yet: what this end buffers. */
  get heldBytes(): number {
    return this.bytesOut - this.written;
  }

  get unacknowledgedBytes(): number {
    return this.bytesIn - this.peerWritten;
  }

  private read(chunk: Buffer): void {
    if (this.ended) return;
    this.bytesIn += chunk.length;
    for (let offset = 0; offset < chunk.length; offset += FramedSocket.maxDataBytes) {
      const piece = offset === 0 && chunk.length <= FramedSocket.maxDataBytes ? chunk : chunk.subarray(offset, offset + FramedSocket.maxDataBytes);
      this.unacknowledged.push(piece);
      if (!this.suspended) this.out({ kind: 'data', data: piece });
    }
    if (this.unacknowledgedBytes >= this.windowBytes && !this.paused) {
      this.paused = true;
      this.socket.pause();
    }
  }

  /** Corks the socket for the rest of this turn (once per turn): a link delivers a turn's frames for a circuit (every
   * TLS record of one read) one by one, and one writev for all of them costs a system call and a write request per
   * turn instead of per 64 KiB frame. end() and destroy() write or drop what is corked; the late uncork is then a no-op. */
  private gatherWrites(): void {
    if (this.corked) return;
    this.corked = true;
    this.socket.cork();
    setImmediate(() => {
      this.corked = false;
      this.socket.uncork();
    });
  }

  /** Forgets the first `count` bytes kept for re-sending. */
  private drop(count: number): void {
    let left = count;
    while (left > 0 && this.unacknowledged.length > 0) {
      const head = this.unacknowledged[0]!;
      if (head.length <= left) {
        left -= head.length;
        this.unacknowledged.shift();
      } else {
        this.unacknowledged[0] = head.subarray(left);
        left = 0;
      }
    }
  }

  private maybeResume(): void {
    if (this.paused && !this.suspended && this.unacknowledgedBytes < this.windowBytes) {
      this.paused = false;
      this.socket.resume();
    }
  }

  /** What runs once the socket has taken `length` delivered bytes. A method, not a named const closure: under tsx each
   * named closure costs a `__name` helper call, here once per frame (0.7% of an egress router's profile). */
  private takenCallback(length: number): (error?: Error | null) => void {
    return (error) => {
      if (error || this.ended) return;
      this.written += length;
      this.scheduleAck();
    };
  }

  /** The socket took more bytes: acknowledge them at the end of this turn when they reach the threshold, else soon. */
  private scheduleAck(): void {
    if (this.ackScheduled) return;
    if (this.written - this.ackedThrough >= this.ackThresholdBytes) {
      this.ackScheduled = true;
      setImmediate(() => this.flushAck());
    } else if (this.ackTimer === undefined) {
      this.ackTimer = setTimeout(() => this.flushAck(), ackDelayMs);
    }
  }

  /** Sends the count of bytes the socket has taken, when it grew since the last acknowledgement (or `again`). */
  private flushAck(again = false): void {
    this.stopAcks();
    if (this.ended || this.suspended || this.written === 0) return;
    if (this.written === this.ackedThrough && !again) return;
    this.ackedThrough = this.written;
    this.out({ kind: 'ack', bytes: this.written });
  }

  private stopAcks(): void {
    this.ackScheduled = false;
    if (this.ackTimer !== undefined) clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
  }

  private checkDone(): void {
    if (this.ended || this.suspended || !this.finSent || !this.finReceived || !this.finished_) return;
    this.flushAck();
    this.ended = true;
    this.out({ kind: 'close', graceful: true, reason: 'both ends closed' });
  }

  /** The far end ignored the window: reset this end's connection and close the circuit, taking nothing more. */
  private overrun(heldBytes: number): void {
    this.close(false);
    this.out({ kind: 'close', graceful: false, reason: windowOverrunReason, overrun: { heldBytes } });
  }

  private abort(reason: string): void {
    if (this.ended) return;
    // A socket that closes after both halves ended is done, not aborted.
    if (this.finSent && this.finReceived && this.finished_ && !this.suspended) return this.checkDone();
    this.ended = true;
    this.stopAcks();
    this.socket.destroy();
    this.out({ kind: 'close', graceful: false, reason });
  }
}

function sumOfLengths(parts: readonly Buffer[]): number {
  let length = 0;
  for (const part of parts) length += part.length;
  return length;
}

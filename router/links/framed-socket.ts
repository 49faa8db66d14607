// A TLS socket that speaks length-prefixed JSON frames (common/framing/frame-codec.ts): the handshake awaits single
// frames with `next`, the live link then takes every frame with `onFrame`. A malformed frame, an error or the peer
// closing ends it once, with a reason; frames that arrive before anyone listens are kept in order.

import type { TLSSocket } from 'node:tls';
import { formatHostPort } from '../../common/config/address.ts';
import type { LinkMessage } from '../../common/control-channel/control-messages.ts';
import { encodeDataFrame, encodeFrame, FrameDecoder } from '../../common/framing/frame-codec.ts';
import { linkFrameLimits } from '../../common/framing/frame-limits.ts';
import type { LinkHelloFrame } from './link-hello.ts';

export class FramedSocket {
  private readonly decoder = new FrameDecoder(undefined, linkFrameLimits);
  private readonly queued: unknown[] = [];
  private handler: ((frame: unknown) => void) | undefined;
  private waiter: { resolve: (frame: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout } | undefined;
  private readonly closeHandlers: Array<(reason: string) => void> = [];
  private reason: string | undefined;
  private readingPaused = false;

  /** Bytes one data frame may carry on a link (a circuit's reads are cut to this). */
  static readonly maxDataBytes = 64 * 1024;

  constructor(readonly socket: TLSSocket) {
    this.decoder.maxDataBytes = FramedSocket.maxDataBytes;
    socket.on('data', (chunk: Buffer) => {
      // One frame at a time, so that the frames before a malformed one still arrive before the link closes.
      this.decoder.append(chunk);
      while (this.reason === undefined) {
        let frame: unknown;
        try {
          frame = this.decoder.next();
        } catch (error) {
          this.close((error as Error).message);
          return;
        }
        if (frame === undefined) return;
        this.deliver(frame);
      }
    });
    socket.on('error', (error: Error) => this.finish(`connection error: ${error.message}`));
    socket.on('close', () => this.finish('connection closed by peer'));
  }

  get closed(): boolean {
    return this.reason !== undefined;
  }

  get closeReason(): string | undefined {
    return this.reason;
  }

  /** `host:port` of this end ('' when the socket is gone). */
  get localAddr(): string {
    return this.socket.localAddress === undefined ? '' : formatHostPort({ host: this.socket.localAddress, port: this.socket.localPort ?? 0 });
  }

  get remoteAddr(): string {
    return this.socket.remoteAddress === undefined ? '' : formatHostPort({ host: this.socket.remoteAddress, port: this.socket.remotePort ?? 0 });
  }

  send(message: LinkMessage | LinkHelloFrame | { readonly type: string; readonly [key: string]: unknown }): void {
    if (this.reason !== undefined || this.socket.destroyed) return;
    this.socket.write(encodeFrame(message));
  }

  /** One circuit's bytes (at most maxDataBytes) as a data frame, without copying them. `onWritten` runs once the
   * socket has taken them, or failed to (at once when the socket is already gone). */
  sendData(circuitId: string, data: Buffer, onWritten?: () => void): void {
    if (this.reason !== undefined || this.socket.destroyed) {
      if (onWritten) queueMicrotask(onWritten);
      return;
    }
    const [header, body] = encodeDataFrame(circuitId, data);
    this.socket.cork();
    this.socket.write(header);
    this.socket.write(body, onWritten && (() => onWritten()));
    this.socket.uncork();
  }

  /** Stop reading (frames already read still arrive); the kernel's buffers then push back on the peer. */
  pauseReading(): void {
    this.readingPaused = true;
    this.socket.pause();
  }

  resumeReading(): void {
    this.readingPaused = false;
    this.socket.resume();
  }

  /** Whether pauseReading() holds this socket now. */
  get isReadingPaused(): boolean {
    return this.readingPaused;
  }

  /** Bytes written but not yet handed to the kernel. */
  get pendingBytes(): number {
    return this.socket.writableLength;
  }

  /** The next frame; rejects when none comes within `timeoutMs` or the socket ends first. Handshake only. */
  next(timeoutMs: number): Promise<unknown> {
    if (this.queued.length > 0) return Promise.resolve(this.queued.shift());
    if (this.reason !== undefined) return Promise.reject(new Error(this.reason));
    if (this.waiter !== undefined) return Promise.reject(new Error('already awaiting a frame'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new Error(`no answer within ${timeoutMs}ms`));
      }, timeoutMs);
      this.waiter = { resolve, reject, timer };
    });
  }

  /** Every later frame (and those already queued) goes to `handler`. */
  onFrame(handler: (frame: unknown) => void): void {
    this.handler = handler;
    while (this.queued.length > 0 && this.reason === undefined) handler(this.queued.shift());
  }

  /** Called once when the socket ends (at once, asynchronously, if it already has). */
  onClose(handler: (reason: string) => void): void {
    if (this.reason !== undefined) {
      const reason = this.reason;
      queueMicrotask(() => handler(reason));
      return;
    }
    this.closeHandlers.push(handler);
  }

  close(reason: string): void {
    this.finish(reason);
    this.socket.destroy();
  }

  private deliver(frame: unknown): void {
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      clearTimeout(waiter.timer);
      waiter.resolve(frame);
    } else if (this.handler !== undefined) {
      this.handler(frame);
    } else {
      this.queued.push(frame);
    }
  }

  private finish(reason: string): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      clearTimeout(waiter.timer);
      waiter.reject(new Error(reason));
    }
    for (const handler of this.closeHandlers.splice(0)) handler(reason);
  }
}

/** A frame as a record with a string `type`, or undefined. */
export function frameType(frame: unknown): string | undefined {
  if (typeof frame !== 'object' || frame === null) return undefined;
  const type = (frame as { type?: unknown }).type;
  return typeof type === 'string' ? type : undefined;
}

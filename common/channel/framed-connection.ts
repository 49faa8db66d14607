// One framed channel over a stream socket, whatever its frames mean: the codec turns bytes into frames and back, the
// connection delivers frames in order (one at a time, so the frames before a malformed one still arrive before the
// channel closes), keeps those that arrive before anyone listens, answers and measures heartbeats once asked to
// (channel-heartbeat.ts), bounds what waits to be written, and ends exactly once with a reason. The peer network,
// the router channel, the router's control channel and links are this connection plus their own frame types.
import type { Duplex } from 'node:stream';
import type { FrameCodec, FrameReader } from './channel-codec.ts';
import { ChannelHeartbeat, type HeartbeatHooks, type HeartbeatOptions } from './channel-heartbeat.ts';

export type TraceDirection = 'send' | 'recv';

/** How a connection words the ways it can end (each channel keeps the texts its logs and tests know). */
export interface CloseReasons {
  /** The peer closed the socket. */
  readonly peerClosed: string;
  readonly socketError: (error: Error & { code?: string }) => string;
  /** The codec refused a frame. */
  readonly badFrame: (message: string) => string;
  /** The heartbeat found the channel silent. */
  readonly silent: (silentMs: number, limitMs: number) => string;
}

export const defaultCloseReasons: CloseReasons = {
  peerClosed: 'connection closed',
  socketError: (error) => error.message,
  badFrame: (message) => `bad frame: ${message}`,
  silent: (_silentMs, limitMs) => `no traffic for ${limitMs} ms`,
};

export interface FramedConnectionOptions {
  readonly codec: FrameCodec;
  readonly reasons?: Partial<CloseReasons>;
  /**
   * How writes leave. `direct`: each at once. `coalesce`: frames sent in the same tick leave as one write (one TLS
   * record and one system call instead of one each). `bounded`: while the socket is backed up, at most
   * `maxQueuedFrames` frames wait here and more are refused. `gather`: a frame written while the socket holds nothing
   * unwritten leaves at once; from the first write that finds the socket backed up (bytes the kernel has not taken),
   * the socket is corked until the end of that turn of the event loop (setImmediate), so every frame written meanwhile
   * (all the circuits' reads of one poll) leaves in one writev, uncopied here: one system call, and on TLS full-size
   * records. Under load the turn's frames are gathered; a lone message on an idle connection does not wait.
   */
  readonly writes?: 'direct' | 'coalesce' | 'bounded' | 'gather';
  /**
   * With `direct` or `bounded` writes: the first frame written in a turn of the event loop corks the socket until the
   * end of that turn (setImmediate), so every frame of the turn (the requests, answers and reports of many circuits)
   * leaves in one writev: one system call, and on TLS one record, instead of one each. A frame waits at most for the
   * rest of the turn it was written in; closing the connection writes what the turn holds first.
   */
  readonly gatherTurns?: boolean;
  readonly maxQueuedFrames?: number;
  /**
   * `direct` writes only: a frame over this many bytes is written in slices of this size, each once the socket has
   * taken the one before, and frames sent meanwhile wait behind it, in order. A TLS socket handed a large buffer at
   * once keeps memory of about that size for as long as it is open (0.8 MB per socket for an edge model; measured in
   * bench/RESULTS.md, router-sim notes); written in slices, it keeps about one.
   */
  readonly paceOver?: number;
  /** Called with a frame the codec refused, before the connection closes. */
  readonly onRefusedFrame?: (message: string) => void;
  /** Every frame decoded or sent as a frame (not pre-encoded bytes). */
  readonly trace?: (direction: TraceDirection, frame: unknown) => void;
}

type Waiter = { resolve: (frame: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout };

export class FramedConnection {
  private readonly reader: FrameReader;
  private readonly reasons: CloseReasons;
  private readonly queued: unknown[] = [];
  private handler: ((frame: unknown) => void) | undefined;
  private waiter: Waiter | undefined;
  private readonly closeHandlers: Array<(reason: string) => void> = [];
  private reason: string | undefined;
  /** Set by endAfterFlush: the reason the socket's close will carry. */
  private endingReason: string | undefined;
  private readingPaused = false;
  private heartbeat: ChannelHeartbeat | undefined;
  /** coalesce: the frames of this tick and their callbacks. */
  private outgoing: Buffer[] = [];
  private written: Array<() => void> = [];
  /** bounded: frames waiting for the socket to drain. */
  private readonly waiting: Array<{ readonly bytes: Buffer; readonly onWritten: (() => void) | undefined }> = [];
  /** Frames refused because the bounded queue was full. */
  droppedFrames = 0;
  /** gather: the socket is corked until the end of this turn. */
  private corked = false;
  /** paceOver: slices (and the frames behind them) still to write, their bytes, whether one is being written, and
   * who waits for them all to be written. */
  private readonly paced: Array<{ readonly bytes: Buffer; readonly onWritten: (() => void) | undefined }> = [];
  private pacedBytes = 0;
  private pacing = false;
  private pacedIdle: Array<() => void> = [];
  private endWhenPaced = false;

  constructor(
    readonly socket: Duplex,
    private readonly options: FramedConnectionOptions,
  ) {
    this.reader = options.codec.newReader();
    this.reasons = { ...defaultCloseReasons, ...(options.reasons ?? {}) };
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', (error: Error) => this.finish(this.endingReason ?? this.reasons.socketError(error)));
    socket.on('close', () => this.finish(this.endingReason ?? this.reasons.peerClosed));
    if (options.writes === 'bounded') socket.on('drain', () => this.flushBounded());
  }

  get closed(): boolean {
    return this.reason !== undefined;
  }

  get closeReason(): string | undefined {
    return this.reason;
  }

  /** Starts heartbeats and the silence check; from then on `hb`/`hbAck` frames are handled here, never delivered. */
  startHeartbeat(options: HeartbeatOptions, hooks: Omit<HeartbeatHooks, 'send' | 'silent'> = {}): ChannelHeartbeat {
    if (this.heartbeat !== undefined) return this.heartbeat;
    const heartbeat = new ChannelHeartbeat(options, {
      ...hooks,
      send: (frame, onWritten) => {
        this.send(frame, onWritten);
      },
      silent: (silentMs) => this.close(this.reasons.silent(silentMs, options.unresponsiveMs)),
    });
    this.heartbeat = heartbeat;
    if (this.reason === undefined) heartbeat.start();
    return heartbeat;
  }

  /** Sends a frame; false when the connection is closed or the bounded queue is full. */
  send(frame: unknown, onWritten?: () => void): boolean {
    if (this.reason !== undefined || this.socket.destroyed) return false;
    const sent = this.sendEncoded(this.options.codec.encode(frame), onWritten);
    // Traced once taken: a frame the bounded queue refused was never sent.
    if (sent) this.options.trace?.('send', frame);
    return sent;
  }

  /**
   * Bytes already framed (one buffer, or a frame's parts written with one cork, uncopied); `onWritten` runs once the
   * socket has taken them, or failed to (at once when the connection is gone). False when they were not taken.
   */
  sendEncoded(bytes: Buffer | readonly Buffer[], onWritten?: () => void): boolean {
    if (this.reason !== undefined || this.socket.destroyed) {
      if (onWritten) queueMicrotask(onWritten);
      return false;
    }
    const writes = this.options.writes ?? 'direct';
    const paceOver = this.options.paceOver;
    if (writes === 'direct' && paceOver !== undefined && (this.paced.length > 0 || this.pacing || byteLength(bytes) > paceOver)) {
      this.pace(Buffer.isBuffer(bytes) ? bytes : Buffer.concat(bytes), paceOver, onWritten);
      return true;
    }
    if (writes === 'direct' || writes === 'gather' || !Buffer.isBuffer(bytes)) return this.writeNow(bytes, onWritten);
    if (writes === 'coalesce') {
      this.outgoing.push(bytes);
      if (onWritten) this.written.push(onWritten);
      if (this.outgoing.length === 1) process.nextTick(() => this.flushTick());
      return true;
    }
    if (this.waiting.length > 0 || this.socket.writableNeedDrain) {
      if (this.queueIsFull()) return false;
      this.waiting.push({ bytes, onWritten });
      return true;
    }
    return this.writeNow(bytes, onWritten);
  }

  /** Stop reading (frames already read still arrive); the kernel's buffers then push back on the peer. Silence is
   * not counted meanwhile. */
  pauseReading(): void {
    this.readingPaused = true;
    this.socket.pause();
  }

  /** Reads again; what the peer sent meanwhile is still to be read, so the silence check starts again from now. */
  resumeReading(): void {
    this.readingPaused = false;
    this.socket.resume();
    this.heartbeat?.heard();
  }

  get isReadingPaused(): boolean {
    return this.readingPaused;
  }

  /** Bytes written but not yet handed to the kernel (frames still waiting here included). */
  get pendingBytes(): number {
    const waiting = this.waiting.reduce((sum, { bytes }) => sum + bytes.length, 0);
    return this.socket.writableLength + waiting + this.pacedBytes + this.outgoing.reduce((sum, frame) => sum + frame.length, 0);
  }

  /** Resolves once the socket is no longer backed up (true), or the connection closed (false). */
  async drained(): Promise<boolean> {
    while (this.reason === undefined && (this.paced.length > 0 || this.pacing)) await new Promise<void>((resolve) => this.pacedIdle.push(resolve));
    while (this.reason === undefined && this.socket.writableNeedDrain) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.socket.off('drain', done);
          this.socket.off('close', done);
          resolve();
        };
        this.socket.on('drain', done);
        this.socket.on('close', done);
      });
    }
    return this.reason === undefined;
  }

  /** The next frame; rejects when none comes within `timeoutMs` or the connection ends first (handshakes). */
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
    while (this.queued.length > 0 && this.reason === undefined) {
      const frame = this.queued.shift();
      // Heartbeats that came before anyone listened (a peer whose side started first) are the heartbeat's.
      if (!this.heartbeat?.receive(frame)) handler(frame);
    }
  }

  /** Called once when the connection ends (at once, asynchronously, if it already has). */
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
    // What this turn gathered (a last refusal) goes to the socket before it is destroyed, as an uncorked write would.
    if (this.corked) {
      this.corked = false;
      this.socket.uncork();
    }
    this.socket.destroy();
  }

  /** Writes what is queued, then closes (the peer reads a last frame, a refusal); destroyed after `graceMs` if the
   * peer never closes. The connection ends with `reason`. */
  endAfterFlush(reason: string, graceMs = 1000): void {
    if (this.reason !== undefined || this.endingReason !== undefined) return;
    this.endingReason = reason;
    this.heartbeat?.stop();
    // Frames coalescing for this tick go first, and paced frames are written whole.
    this.flushTick();
    if (this.paced.length > 0 || this.pacing) this.endWhenPaced = true;
    else this.socket.end();
    const force = setTimeout(() => this.close(reason), graceMs);
    force.unref();
    this.socket.once('close', () => clearTimeout(force));
  }

  private read(chunk: Buffer): void {
    // Cut off before its hello by the control port, or closed by an earlier frame.
    if (this.reason !== undefined || this.socket.destroyed) return;
    this.heartbeat?.heard();
    this.reader.append(chunk);
    while (this.reason === undefined) {
      let frame: unknown;
      try {
        frame = this.reader.next();
      } catch (error) {
        const message = (error as Error).message;
        this.options.onRefusedFrame?.(message);
        this.close(this.reasons.badFrame(message));
        return;
      }
      if (frame === undefined) return;
      this.options.trace?.('recv', frame);
      if (this.heartbeat?.receive(frame)) continue;
      this.deliver(frame);
    }
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

  private writeNow(bytes: Buffer | readonly Buffer[], onWritten?: () => void): boolean {
    // gather: a frame for an idle socket leaves at once (a lone message does not wait for the end of its turn); once
    // the socket holds bytes it has not handed on, the rest of the turn is corked into one writev.
    if (this.options.gatherTurns || (this.options.writes === 'gather' && (this.corked || this.socket.writableLength > 0))) this.gather();
    const done = onWritten && (() => onWritten());
    if (Buffer.isBuffer(bytes)) {
      this.socket.write(bytes, done);
      return true;
    }
    this.socket.cork();
    bytes.forEach((part, index) => this.socket.write(part, index === bytes.length - 1 ? done : undefined));
    this.socket.uncork();
    return true;
  }

  /** Queues a frame in slices behind any paced before it, and starts writing them if none is being written. */
  private pace(bytes: Buffer, sliceBytes: number, onWritten: (() => void) | undefined): void {
    for (let offset = 0; offset < bytes.length; offset += sliceBytes) {
      const last = offset + sliceBytes >= bytes.length;
      this.paced.push({ bytes: bytes.subarray(offset, offset + sliceBytes), onWritten: last ? onWritten : undefined });
    }
    if (bytes.length === 0) this.paced.push({ bytes, onWritten });
    this.pacedBytes += bytes.length;
    this.writePaced();
  }

  /** Writes the next slice once the socket has taken the last one; when none is left, wakes who waits for that. */
  private writePaced(): void {
    if (this.pacing) return;
    const next = this.paced.shift();
    if (next === undefined) {
      for (const resolve of this.pacedIdle.splice(0)) resolve();
      if (this.endWhenPaced && !this.socket.destroyed) this.socket.end();
      return;
    }
    this.pacedBytes -= next.bytes.length;
    if (this.reason !== undefined || this.socket.destroyed) {
      next.onWritten?.();
      setImmediate(() => this.writePaced());
      return;
    }
    this.pacing = true;
    this.socket.write(next.bytes, () => {
      this.pacing = false;
      next.onWritten?.();
      setImmediate(() => this.writePaced());
    });
  }

  /** Corks the socket for the rest of this turn (once per turn). */
  private gather(): void {
    if (this.corked) return;
    this.corked = true;
    this.socket.cork();
    setImmediate(() => {
      this.corked = false;
      this.socket.uncork();
    });
  }

  private queueIsFull(): boolean {
    if (this.waiting.length < (this.options.maxQueuedFrames ?? Infinity)) return false;
    this.droppedFrames++;
    return true;
  }

  private flushTick(): void {
    const frames = this.outgoing;
    const callbacks = this.written;
    this.outgoing = [];
    this.written = [];
    if (this.reason !== undefined || frames.length === 0) return;
    const data = frames.length === 1 ? frames[0]! : Buffer.concat(frames);
    this.socket.write(data, callbacks.length === 0 ? undefined : () => callbacks.forEach((callback) => callback()));
  }

  private flushBounded(): void {
    while (this.waiting.length > 0 && this.reason === undefined) {
      const { bytes, onWritten } = this.waiting.shift()!;
      if (!this.socket.write(bytes, onWritten && (() => onWritten()))) break;
    }
  }

  private finish(reason: string): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.heartbeat?.stop();
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      clearTimeout(waiter.timer);
      waiter.reject(new Error(reason));
    }
    for (const handler of this.closeHandlers.splice(0)) handler(reason);
    for (const resolve of this.pacedIdle.splice(0)) resolve();
  }
}

function byteLength(bytes: Buffer | readonly Buffer[]): number {
  return Buffer.isBuffer(bytes) ? bytes.length : bytes.reduce((sum, part) => sum + part.length, 0);
}

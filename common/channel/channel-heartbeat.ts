// Heartbeats and the silence check of one channel, the only implementation of them: every `sendIntervalMs` the
// channel sends `hb {sentAt}`; each `hb` heard is answered with `hbAck` echoing `sentAt`; the round trip of each
// echo of ours is a sample. Anything heard from the peer counts as it being alive; a channel silent for longer than
// `unresponsiveMs` (checked every `checkIntervalMs`) is reported silent once. Time is the monotonic clock, so a
// wall-clock step never closes a healthy channel or keeps a dead one.
import { performance } from 'node:perf_hooks';

export interface HeartbeatTiming {
  /** ms between heartbeats sent. */
  readonly sendIntervalMs: number;
  /** ms between silence checks. */
  readonly checkIntervalMs: number;
  /** ms of silence after which the channel is reported silent. */
  readonly unresponsiveMs: number;
}

export type HeartbeatFrame = { readonly type: 'hb' | 'hbAck'; readonly sentAt: number };

export interface HeartbeatHooks {
  /** Writes a heartbeat frame; `onWritten` (when asked for) runs once the socket took it. */
  send(frame: HeartbeatFrame, onWritten?: () => void): void;
  /** The channel was silent too long; `silentMs` is how long. Called once. */
  silent(silentMs: number): void;
  /** One round trip of a heartbeat of ours, in ms. */
  roundTrip?(ms: number): void;
  /** How long each heartbeat waited in this end's send queue (ms): measured only when given. */
  queued?(ms: number): void;
  /** Heartbeats go out only while this is true (a router's channel: once welcomed). */
  sendWhile?(): boolean;
  /** Silence is not counted while this is true (this end stopped reading: the peer's frames wait unread). */
  exempt?(): boolean;
}

export interface HeartbeatOptions extends HeartbeatTiming {
  /** Send one heartbeat at once (so latency is known quickly). */
  readonly beatAtStart?: boolean;
  /** The monotonic clock in ms (performance.now). */
  readonly now?: () => number;
}

export class ChannelHeartbeat {
  private readonly now: () => number;
  private readonly startedAt: number;
  private lastHeard: number;
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(
    private readonly options: HeartbeatOptions,
    private readonly hooks: HeartbeatHooks,
  ) {
    this.now = options.now ?? (() => performance.now());
    this.startedAt = this.now();
    this.lastHeard = this.startedAt;
  }

  /** Starts the timers (unref'd: a channel alone never keeps the process up). */
  start(): void {
    if (this.stopped || this.timers.length > 0) return;
    if (this.options.beatAtStart) this.beat();
    this.timers.push(
      setInterval(() => this.beat(), this.options.sendIntervalMs),
      setInterval(() => this.check(), this.options.checkIntervalMs),
    );
    for (const timer of this.timers) timer.unref();
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }

  /** The peer was heard from now (any bytes, or reading resumed after this end paused it). */
  heard(): void {
    this.lastHeard = this.now();
  }

  get silentForMs(): number {
    return this.now() - this.lastHeard;
  }

  /** A frame from the peer: true when it was a heartbeat or its echo, handled here. Counts as hearing the peer. */
  receive(frame: unknown): boolean {
    this.heard();
    if (typeof frame !== 'object' || frame === null) return false;
    const { type, sentAt } = frame as { type?: unknown; sentAt?: unknown };
    if (type !== 'hb' && type !== 'hbAck') return false;
    if (type === 'hb') {
      this.hooks.send({ type: 'hbAck', sentAt: typeof sentAt === 'number' && Number.isFinite(sentAt) ? sentAt : 0 });
      return true;
    }
    const ms = this.roundTripOf(sentAt);
    if (ms !== undefined) this.hooks.roundTrip?.(ms);
    return true;
  }

  /** The round trip an echoed `sentAt` measures; undefined when it is not one of ours (not a number, from before
   * this channel started, from the future, or older than the silence limit). */
  roundTripOf(sentAt: unknown): number | undefined {
    if (typeof sentAt !== 'number' || !Number.isFinite(sentAt) || sentAt < this.startedAt) return undefined;
    const ms = this.now() - sentAt;
    return ms >= 0 && ms <= this.options.unresponsiveMs ? ms : undefined;
  }

  private beat(): void {
    if (this.stopped || (this.hooks.sendWhile && !this.hooks.sendWhile())) return;
    const sentAt = this.now();
    const queued = this.hooks.queued;
    this.hooks.send({ type: 'hb', sentAt }, queued && (() => queued(this.now() - sentAt)));
  }

  private check(): void {
    if (this.stopped || this.hooks.exempt?.()) return;
    const silentMs = this.silentForMs;
    if (silentMs <= this.options.unresponsiveMs) return;
    this.stop();
    this.hooks.silent(silentMs);
  }
}

/** The mean of the last `count` samples, rounded to µs (a link's latency). */
export class RecentMean {
  private readonly samples: number[] = [];

  constructor(private readonly count: number) {}

  add(sample: number): void {
    this.samples.push(sample);
    if (this.samples.length > this.count) this.samples.shift();
  }

  get size(): number {
    return this.samples.length;
  }

  get mean(): number | null {
    if (this.samples.length === 0) return null;
    const mean = this.samples.reduce((sum, sample) => sum + sample, 0) / this.samples.length;
    return Math.round(mean * 1000) / 1000;
  }
}

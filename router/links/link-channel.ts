// A live link after its handshake: both ends send `hb` every heartbeatIntervalMs (and one at once, so latency is
// known quickly) and answer every `hb` with `hbAck` carrying the sender's `sentAt`; the round trip of each ack is
// one latency sample and the link's latency is the mean of the last few. A link from which nothing at all has
// been heard for unresponsiveTimeoutMs is closed (checked on each heartbeat tick, so it closes within one
// interval after the timeout).

import { performance } from 'node:perf_hooks';
import { frameType, type FramedSocket } from './framed-socket.ts';

export interface LinkTiming {
  /** ms between heartbeats. OpenZiti's link.heartbeats.sendInterval default: 10 s. */
  readonly heartbeatIntervalMs: number;
  /** ms of silence after which the link is closed. OpenZiti's closeUnresponsiveTimeout default: 1 m. */
  readonly unresponsiveTimeoutMs: number;
}

export const defaultLinkTiming: LinkTiming = { heartbeatIntervalMs: 10_000, unresponsiveTimeoutMs: 60_000 };

/** How many recent round trips the latency averages. */
export const latencySampleCount = 5;

export type LinkDirection = 'dialed' | 'accepted';

export interface LinkChannelEvents {
  /** A new latency sample changed `latencyMs`. */
  onLatency(channel: LinkChannel): void;
  /** The link ended (once). */
  onClose(channel: LinkChannel, reason: string): void;
}

export class LinkChannel {
  readonly localAddr: string;
  readonly remoteAddr: string;
  private readonly samples: number[] = [];
  private lastHeard = performance.now();
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    private readonly framed: FramedSocket,
    readonly id: string,
    readonly destRouterId: string,
    readonly direction: LinkDirection,
    private readonly timing: LinkTiming,
    private readonly events: LinkChannelEvents,
  ) {
    this.localAddr = framed.localAddr;
    this.remoteAddr = framed.remoteAddr;
  }

  start(): void {
    this.framed.onClose((reason) => this.end(reason));
    this.framed.onFrame((frame) => this.receive(frame));
    if (this.ended) return;
    this.heartbeat();
    this.timer = setInterval(() => this.tick(), this.timing.heartbeatIntervalMs);
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Mean of the recent round trips in ms, null before the first. */
  get latencyMs(): number | null {
    if (this.samples.length === 0) return null;
    const mean = this.samples.reduce((sum, sample) => sum + sample, 0) / this.samples.length;
    return Math.round(mean * 1000) / 1000;
  }

  get sampleCount(): number {
    return this.samples.length;
  }

  close(reason: string): void {
    this.framed.close(reason);
    this.end(reason);
  }

  private tick(): void {
    const silentFor = performance.now() - this.lastHeard;
    if (silentFor > this.timing.unresponsiveTimeoutMs) {
      this.close(`unresponsive: nothing heard for ${Math.round(silentFor)}ms (limit ${this.timing.unresponsiveTimeoutMs}ms)`);
      return;
    }
    this.heartbeat();
  }

  private heartbeat(): void {
    this.framed.send({ type: 'hb', sentAt: performance.now() });
  }

  private receive(frame: unknown): void {
    if (this.ended) return;
    this.lastHeard = performance.now();
    const type = frameType(frame);
    const sentAt = type === undefined ? undefined : (frame as { sentAt?: unknown }).sentAt;
    if (type === 'hb' && typeof sentAt === 'number') {
      this.framed.send({ type: 'hbAck', sentAt });
    } else if (type === 'hbAck' && typeof sentAt === 'number') {
      const roundTrip = performance.now() - sentAt;
      // An ack for a heartbeat this end never sent (or from another process's clock) is not a sample.
      if (!(roundTrip >= 0 && roundTrip <= this.timing.unresponsiveTimeoutMs)) return;
      this.samples.push(roundTrip);
      if (this.samples.length > latencySampleCount) this.samples.shift();
      this.events.onLatency(this);
    }
    // Other frames are not part of this protocol version; hearing them still counts as the peer being alive.
  }

  private end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.events.onClose(this, reason);
  }
}

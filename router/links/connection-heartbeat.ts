// Heartbeats on one connection of a live link: `beat()` sends `hb {sentAt}`; every `hb` heard is answered with
// `hbAck` carrying the sender's `sentAt`; the round trip of each ack is one latency sample and the connection's
// latency is the mean of the last few. Any frame heard counts as the peer being alive (`silentForMs`). The link
// channel owns the timer and decides what silence means.

import { performance } from 'node:perf_hooks';
import { frameType, type FramedSocket } from './framed-socket.ts';

/** How many recent round trips the latency averages. */
export const latencySampleCount = 5;

export class ConnectionHeartbeat {
  private readonly samples: number[] = [];
  private lastHeard = performance.now();

  /**
   * @param maxRoundTripMs an ack older than this is no sample (a stale or foreign `sentAt`)
   * @param onSample called after each new latency sample
   */
  constructor(
    readonly framed: FramedSocket,
    private readonly maxRoundTripMs: number,
    private readonly onSample: () => void,
  ) {}

  /** Mean of the recent round trips in ms, null before the first. */
  get latencyMs(): number | null {
    if (this.samples.length === 0) return null;
    const mean = this.samples.reduce((sum, sample) => sum + sample, 0) / this.samples.length;
    return Math.round(mean * 1000) / 1000;
  }

  get sampleCount(): number {
    return this.samples.length;
  }

  get silentForMs(): number {
    return performance.now() - this.lastHeard;
  }

  /** Counts as hearing from the peer now (reading resumed after this end paused it). */
  heardNow(): void {
    this.lastHeard = performance.now();
  }

  beat(): void {
    this.framed.send({ type: 'hb', sentAt: performance.now() });
  }

  /** A frame from the peer on this connection; true when it was a heartbeat or its answer (handled here). */
  receive(frame: unknown): boolean {
    this.lastHeard = performance.now();
    const type = frameType(frame);
    if (type !== 'hb' && type !== 'hbAck') return false;
    const sentAt = (frame as { sentAt?: unknown }).sentAt;
    if (typeof sentAt !== 'number') return true;
    if (type === 'hb') {
      this.framed.send({ type: 'hbAck', sentAt });
      return true;
    }
    const roundTrip = performance.now() - sentAt;
    // An ack for a heartbeat this end never sent (or from another process's clock) is not a sample.
    if (!(roundTrip >= 0 && roundTrip <= this.maxRoundTripMs)) return true;
    this.samples.push(roundTrip);
    if (this.samples.length > latencySampleCount) this.samples.shift();
    this.onSample();
    return true;
  }
}

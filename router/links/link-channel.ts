// A live link after its handshake, over its one `single` connection or the `payload` and `ack` connections of a
// split link. Each connection carries its own heartbeats (the channel's, common/channel/channel-heartbeat.ts): both
// ends send `hb` on each connection every heartbeatIntervalMs (and one at once, so latency is known quickly) and
// answer every `hb` with `hbAck`. The link's latency is the mean of the payload (or single) connection's last few
// round trips. A connection from which nothing at all has been heard for unresponsiveTimeoutMs closes the link
// (checked every heartbeat interval, so it closes within one interval after the timeout), unless this end stopped
// reading it; so does any connection ending. Either way every connection of the link is closed and `onClose` runs
// once: a link is never left half up.

import { RecentMean } from '../../common/channel/channel-heartbeat.ts';
import type { FramedSocket } from './framed-socket.ts';
import type { LinkConnType, LinkShape } from './link-hello.ts';
import { connectionsOf, type LinkSockets } from './link-sockets.ts';

/** How many recent round trips the latency averages. */
export const latencySampleCount = 5;

export interface LinkTiming {
  /** ms between heartbeats. OpenZiti's link.heartbeats.sendInterval default: 10 s. */
  readonly heartbeatIntervalMs: number;
  /** ms of silence after which the link is closed. OpenZiti's closeUnresponsiveTimeout default: 1 m. */
  readonly unresponsiveTimeoutMs: number;
}

export const defaultLinkTiming: LinkTiming = { heartbeatIntervalMs: 10_000, unresponsiveTimeoutMs: 60_000 };

/**
 * The timing `forwarder.latencyProbeInterval` (ms) asks for: heartbeats, and so latency samples, every that many ms;
 * absent or 0 (what OpenZiti's generated files write) is the default 10 s. The silence timeout stays 60 s unless
 * three intervals are longer, so that a slow probe never passes for a dead link.
 */
export function linkTimingFor(latencyProbeIntervalMs: number | undefined): LinkTiming {
  const heartbeatIntervalMs = latencyProbeIntervalMs === undefined || latencyProbeIntervalMs <= 0 ? defaultLinkTiming.heartbeatIntervalMs : latencyProbeIntervalMs;
  return { heartbeatIntervalMs, unresponsiveTimeoutMs: Math.max(defaultLinkTiming.unresponsiveTimeoutMs, 3 * heartbeatIntervalMs) };
}

export type LinkDirection = 'dialed' | 'accepted';

export interface LinkChannelEvents {
  /** A new latency sample changed `latencyMs`. */
  onLatency(channel: LinkChannel): void;
  /** The link ended (once). */
  onClose(channel: LinkChannel, reason: string): void;
  /** A frame that is not a heartbeat (circuit traffic: router/circuits), from either connection. */
  onFrame?(channel: LinkChannel, frame: unknown): void;
}

/** Which connection of a split link a frame goes on: bytes and circuit control on payload, acknowledgements on ack. */
export type LinkLane = 'payload' | 'ack';

interface ChannelConnection {
  readonly connType: LinkConnType;
  readonly framed: FramedSocket;
}

export class LinkChannel {
  readonly shape: LinkShape;
  /** The payload (or single) connection's addresses. */
  readonly localAddr: string;
  readonly remoteAddr: string;
  /** Every connection's addresses, by connType. */
  readonly addresses: Readonly<Partial<Record<LinkConnType, { readonly localAddr: string; readonly remoteAddr: string }>>>;
  private readonly connections: readonly ChannelConnection[];
  private readonly latency = new RecentMean(latencySampleCount);
  private ended = false;

  constructor(
    sockets: LinkSockets,
    readonly id: string,
    readonly destRouterId: string,
    readonly direction: LinkDirection,
    private readonly timing: LinkTiming,
    private readonly events: LinkChannelEvents,
  ) {
    this.shape = sockets.shape;
    this.connections = connectionsOf(sockets).map(({ connType, framed }) => ({ connType, framed }));
    const first = this.connections[0]!.framed;
    this.localAddr = first.localAddr;
    this.remoteAddr = first.remoteAddr;
    this.addresses = Object.fromEntries(this.connections.map(({ connType, framed }) => [connType, { localAddr: framed.localAddr, remoteAddr: framed.remoteAddr }]));
  }

  start(): void {
    const { heartbeatIntervalMs, unresponsiveTimeoutMs } = this.timing;
    this.connections.forEach((connection, index) => {
      const { framed } = connection;
      framed.onClose((reason) => this.end(this.describe(connection, reason)));
      if (this.ended) return;
      framed.startHeartbeat(
        { sendIntervalMs: heartbeatIntervalMs, checkIntervalMs: heartbeatIntervalMs, unresponsiveMs: unresponsiveTimeoutMs, beatAtStart: true },
        {
          // Only the payload (or single) connection's round trips are the link's latency.
          ...(index === 0 ? { roundTrip: (ms: number) => this.sampled(ms) } : {}),
          // A connection this end stopped reading is not silent: its frames wait unread (transit backpressure).
          exempt: () => framed.isReadingPaused,
        },
      );
      framed.onFrame((frame) => {
        if (!this.ended) this.events.onFrame?.(this, frame);
      });
    });
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Mean of the recent round trips on the payload (or single) connection in ms, null before the first. */
  get latencyMs(): number | null {
    return this.latency.mean;
  }

  get sampleCount(): number {
    return this.latency.size;
  }

  close(reason: string): void {
    this.end(reason);
  }

  /** A circuit frame on the lane's connection (a single link has one for both). */
  send(frame: { readonly type: string; readonly [key: string]: unknown }, lane: LinkLane = 'payload'): void {
    if (!this.ended) this.lane(lane).send(frame);
  }

  /** A circuit's bytes, on the payload connection; `onWritten` once its socket took them (or failed to). */
  sendData(circuitId: string, data: Buffer | readonly Buffer[], onWritten?: () => void): void {
    if (!this.ended) this.lane('payload').sendData(circuitId, data, onWritten);
    else if (onWritten) queueMicrotask(onWritten);
  }

  /** Stop reading the payload (or single) connection; its silence is then this end's doing, not the peer's. */
  pauseReading(): void {
    if (!this.ended) this.lane('payload').pauseReading();
  }

  resumeReading(): void {
    // What the peer sent meanwhile is still to be read: the silence check starts again from now.
    if (!this.ended) this.lane('payload').resumeReading();
  }

  /** Bytes written to and read from the link's connections (TLS payload, every connection), since it came up. */
  get bytesSent(): number {
    return this.connections.reduce((sum, { framed }) => sum + (framed.socket.bytesWritten ?? 0), 0);
  }

  get bytesReceived(): number {
    return this.connections.reduce((sum, { framed }) => sum + (framed.socket.bytesRead ?? 0), 0);
  }

  /** Bytes waiting to be written on the payload connection: what a sender holds back for. */
  get pendingBytes(): number {
    return this.lane('payload').pendingBytes;
  }

  private lane(lane: LinkLane): FramedSocket {
    const connections = this.connections;
    return (lane === 'ack' && connections.length > 1 ? connections[1]! : connections[0]!).framed;
  }

  private sampled(ms: number): void {
    if (this.ended) return;
    this.latency.add(ms);
    this.events.onLatency(this);
  }

  /** A reason about one connection; a split link's says which connection it was. */
  private describe(connection: ChannelConnection, reason: string): string {
    return this.shape === 'single' ? reason : `${connection.connType} connection: ${reason}`;
  }

  private end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    // Closing the others makes them report closing too; `ended` keeps that from running onClose again.
    for (const { framed } of this.connections) framed.close(reason);
    this.events.onClose(this, reason);
  }
}

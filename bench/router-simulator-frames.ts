// The pure parts of the router simulator (bench/router-simulator.ts): reading the controller's frames cheaply, and
// what each simulated router says. A simulated router needs only a few of the controller's messages (heartbeats to
// answer, its welcome or refusal, membership changes, requests); the big ones every router is sent (the edge model,
// the welcome's router list, every other router's arrival) would cost the one simulating process a JSON parse per
// router per message, so their type is read from the first bytes and the rest is skipped unparsed (counted by type).
// The controller writes `type` first in every message (its object literals do), which is what makes that possible;
// a frame whose type cannot be read that way is parsed whole.
import type { RouterLinks, RouterMetrics, RouterTerminatorCreate } from '../common/control-channel/control-messages.ts';
import { terminatorLimits } from '../common/control-channel/hosted-services.ts';
import { maxFrameBytes } from '../common/framing/frame-codec.ts';

/** A frame the simulator reads: its type and, for the types it asked for, the parsed message. */
export interface ReadFrame {
  readonly type: string;
  readonly message?: Record<string, unknown>;
}

/** Bytes needed to read a frame's type without parsing it (`{"type":"` and the longest type name). */
const sniffBytes = 64;
const typePrefix = /^\{"type":"([A-Za-z.]{1,40})"/;

/**
 * Splits the controller's length-prefixed JSON frames out of a TLS stream. Frames whose type is in `parsed` are
 * parsed and returned; any other frame is returned by type only and its bytes are dropped as they arrive (never
 * buffered whole). `bytesByType` says how many bytes of each type went by.
 */
export class ControlFrameReader {
  readonly bytesByType = new Map<string, number>();
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes of the current skipped frame still to come. */
  private skipping = 0;

  constructor(private readonly parsed: ReadonlySet<string>) {}

  /** The frames completed by `chunk`; throws on a frame over the codec's byte limit or a parsed frame that is not JSON. */
  push(chunk: Buffer): ReadFrame[] {
    const frames: ReadFrame[] = [];
    let data = chunk;
    for (;;) {
      if (this.skipping > 0) {
        const skipped = Math.min(this.skipping, data.length);
        this.skipping -= skipped;
        data = data.subarray(skipped);
        if (this.skipping > 0) return frames;
      }
      if (data.length > 0) {
        this.pending.push(data);
        this.pendingBytes += data.length;
        data = Buffer.alloc(0);
      }
      if (this.pendingBytes < 4) return frames;
      const length = this.peek(4).readUInt32BE(0);
      if (length > maxFrameBytes) throw new Error(`frame of ${length} bytes exceeds ${maxFrameBytes}`);
      const available = this.pendingBytes - 4;
      const sniffLength = Math.min(length, sniffBytes);
      if (available < sniffLength) return frames;
      const type = typePrefix.exec(this.peek(4 + sniffLength).toString('latin1', 4, 4 + sniffLength))?.[1];
      if (type !== undefined && !this.parsed.has(type)) {
        this.count(type, length);
        frames.push({ type });
        const here = Math.min(length, available);
        this.skipping = length - here;
        data = this.rest(4 + here);
        continue;
      }
      // A frame to parse waits whole (its chunks joined once, when the last one is in).
      if (available < length) return frames;
      const whole = this.peek(4 + length);
      const message = JSON.parse(whole.toString('utf8', 4, 4 + length)) as Record<string, unknown>;
      const parsedType = typeof message?.type === 'string' ? message.type : '?';
      this.count(parsedType, length);
      frames.push({ type: parsedType, message });
      data = this.rest(4 + length);
    }
  }

  /** The pending bytes as one buffer of at least `bytes` (joining chunks only when the first is shorter). */
  private peek(bytes: number): Buffer {
    if (this.pending[0]!.length < bytes && this.pending.length > 1) this.pending = [Buffer.concat(this.pending, this.pendingBytes)];
    return this.pending[0]!;
  }

  /** Drops the first `bytes` pending bytes (a frame's) and returns what follows them, emptying the pending list. */
  private rest(bytes: number): Buffer {
    const all = this.peek(this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    return all.subarray(bytes);
  }

  private count(type: string, length: number): void {
    this.bytesByType.set(type, (this.bytesByType.get(type) ?? 0) + length + 4);
  }
}

/** The services the router at `index` hosts: `perRouter` consecutive ones of `serviceIds`, wrapping around. */
export function hostedServiceIds(index: number, serviceIds: readonly string[], perRouter: number): string[] {
  if (serviceIds.length === 0 || perRouter === 0) return [];
  const count = Math.min(perRouter, serviceIds.length);
  const start = (index * perRouter) % serviceIds.length;
  return Array.from({ length: count }, (_, offset) => serviceIds[(start + offset) % serviceIds.length]!);
}

/** `router.terminator.create` messages for these services at one address, at most terminatorLimits.maxPerMessage each. */
export function terminatorCreates(serviceIds: readonly string[], address: string): RouterTerminatorCreate[] {
  const messages: RouterTerminatorCreate[] = [];
  for (let start = 0; start < serviceIds.length; start += terminatorLimits.maxPerMessage) {
    messages.push({ type: 'router.terminator.create', terminators: serviceIds.slice(start, start + terminatorLimits.maxPerMessage).map((serviceId) => ({ serviceId, address })) });
  }
  return messages;
}

/** The links router `index` reports: one to each of the next `perRouter` routers (never itself), a steady latency each. */
export function linksOf(index: number, routerIds: readonly string[], perRouter: number): RouterLinks['links'] {
  const count = Math.min(perRouter, routerIds.length - 1);
    return Array.from({ length: Math.max(0, count) }, (_, offset) => {
    const destRouterId = routerIds[(index + offset + 1) % routerIds.length]!;
    return { id: `sim${index}x${offset}`, destRouterId, latencyMs: 1 + ((index + offset) % 20) / 10 };
  });
}

/** One interval's `router.metrics`, with the gauges a real router reports for its control channel and links. */
export function metricsOf(routerId: string, links: RouterLinks['links'], ctrlLatencyMs: number | undefined, timestamp: number, rssBytes: number): RouterMetrics {
  const gauges: Record<string, number> = {
    'link.count': links.length,
    'ctrl.connected': 1,
    'process.rss_bytes': rssBytes,
    'metrics.dropped_messages': 0,
  };
  if (ctrlLatencyMs !== undefined) gauges['ctrl.latency_ms'] = Math.round(ctrlLatencyMs * 1000) / 1000;
  for (const link of links) if (link.latencyMs !== null) gauges[`link.${link.id}.latency_ms`] = link.latencyMs;
  return { type: 'router.metrics', routerId, timestamp, gauges };
}

/** The next controller address after a channel to `current` ended (round robin; the first when `current` is unknown). */
export function nextAddress(addresses: readonly string[], current: string | undefined): string {
  if (addresses.length === 0) throw new Error('no controller address to dial');
  const at = current === undefined ? -1 : addresses.indexOf(current);
  return addresses[(at + 1) % addresses.length]!;
}

/** How long to wait before dialing again after `failures` failed attempts in a row: doubling from 1 s to 30 s, with jitter. */
export function retryDelayMs(failures: number, random: number): number {
  const base = Math.min(30_000, 1000 * 2 ** Math.max(0, failures - 1));
  return Math.round(base * (0.5 + random / 2));
}

/** A loopback address of its own for router `index` (127.100.0.1 onwards; 250 per /24, never .0 or .255). */
export function loopbackSource(index: number): string {
  const block = Math.floor(index / 250);
  if (block > 255 * 256) throw new Error(`no loopback address left for router ${index}`);
  return `127.${100 + Math.floor(block / 256)}.${block % 256}.${1 + (index % 250)}`;
}

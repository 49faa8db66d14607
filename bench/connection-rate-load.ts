// New TCP connections as fast as a path takes them, closed loop: `concurrency` loops each open a connection, write
// `payloadBytes`, read the same number of bytes back (the far end echoes), close, and go again, until `seconds` have
// passed. A connection's setup time is from connect() to the last echoed byte: through the overlay that is the
// circuit's whole setup (the controller's `circuit.create`, the routers' route checks, the egress dial) plus one
// round trip. Used by the benchmarks that measure circuit setup (overlay, circuits, scale) against socat's
// new connections per second.
import { connect, type Socket } from 'node:net';
import { percentile } from './raft-bench-report.ts';

export interface ConnectionRateOptions {
  readonly host: string;
  readonly port: number;
  readonly seconds: number;
  readonly concurrency: number;
  /** Bytes written and awaited back on each connection (default 64). */
  readonly payloadBytes?: number;
  /** How long one connection may take from connect to its whole echo before it counts as failed (default 10 s). */
  readonly deadlineMs?: number;
}

export interface ConnectionRate {
  /** Connections whose whole echo came back within the measured time. */
  readonly completed: number;
  readonly failed: number;
  /** completed over the seconds actually measured. */
  readonly perSecond: number;
  /** connect → whole echo, of the completed connections, in ms (0 when none completed). */
  readonly setupMs: { readonly p50: number; readonly p99: number; readonly max: number };
  /** The first failure's cause, when any failed. */
  readonly firstFailure?: string;
}

/** One connection: connect, write, read the echo, close. Resolves its setup time in ms, rejects with the cause. */
function oneConnection(host: string, port: number, payload: Buffer, deadlineMs: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const began = performance.now();
    const socket: Socket = connect({ host, port, noDelay: true });
    let received = 0;
    let settled = false;
    const finish = (error: Error | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        socket.destroy();
        reject(error);
        return;
      }
      const ms = performance.now() - began;
      // A graceful close, as a client that is done would; the far end's half-close is not waited for.
      socket.end();
      socket.destroySoon();
      resolve(ms);
    };
    const timer = setTimeout(() => finish(new Error(`no whole echo within ${deadlineMs} ms (${received} of ${payload.length} bytes)`)), deadlineMs);
    socket.on('connect', () => socket.write(payload));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received >= payload.length) finish(undefined);
    });
    socket.on('error', (error) => finish(error));
    socket.on('close', () => finish(received >= payload.length ? undefined : new Error(`closed after ${received} of ${payload.length} echoed bytes`)));
  });
}

export async function measureConnectionRate(options: ConnectionRateOptions): Promise<ConnectionRate> {
  const payload = Buffer.alloc(options.payloadBytes ?? 64, 0x61);
  const deadlineMs = options.deadlineMs ?? 10_000;
  const started = performance.now();
  const endsAt = started + options.seconds * 1000;
  const times: number[] = [];
  let failed = 0;
  let firstFailure: string | undefined;
  const loop = async () => {
    while (performance.now() < endsAt) {
      try {
        const ms = await oneConnection(options.host, options.port, payload, deadlineMs);
        if (performance.now() <= endsAt) times.push(ms);
      } catch (error) {
        failed++;
        firstFailure ??= (error as Error).message;
        // A refusing path would otherwise spin: a failed connection costs its loop a short pause.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, loop));
  const measuredSeconds = Math.min(performance.now(), endsAt) - started;
  times.sort((a, b) => a - b);
  return {
    completed: times.length,
    failed,
    perSecond: times.length / (measuredSeconds / 1000),
    setupMs: times.length === 0 ? { p50: 0, p99: 0, max: 0 } : { p50: percentile(times, 0.5), p99: percentile(times, 0.99), max: times[times.length - 1]! },
    ...(firstFailure !== undefined ? { firstFailure } : {}),
  };
}

/** One message echoed through `port` on 127.0.0.1: true once it comes back whole within 5 s (a path's readiness
 * check before it is measured). */
export function echoOnce(port: number): Promise<boolean> {
  return oneConnection('127.0.0.1', port, Buffer.from('bench readiness probe'), 5_000).then(
    () => true,
    () => false,
  );
}

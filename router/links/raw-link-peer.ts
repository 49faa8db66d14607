// Test support: a link to a router driven by hand, as a faulty or hostile router would drive it (mutual TLS,
// `link.hello`, circuit frames and data frames with no regard for flow control), one `single` connection or a split
// pair. It answers heartbeats and sends its own, and records what it receives. Not used by the router.
import { performance } from 'node:perf_hooks';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { DataFrame, encodeDataFrame, encodeFrame, FrameDecoder } from '../../common/framing/frame-codec.ts';
import { FramedSocket } from './framed-socket.ts';
import type { LinkTlsMaterial } from './link-manager-api.ts';
import { waitFor } from './link-test-support.ts';

const chunk = FramedSocket.maxDataBytes;

/** A link connection to a router, driven by hand: it answers heartbeats and nothing else by itself. */
export interface RawLinkPeer {
  readonly socket: TLSSocket;
  /** JSON frames received (heartbeats left out). */
  readonly frames: Array<Record<string, unknown>>;
  /** Data bytes received, by circuit. */
  readonly dataBytes: Map<string, number>;
  send(frame: Record<string, unknown>): void;
  /** One data frame; resolves once the socket took it (waits for 'drain' when it is full, at most `timeoutMs`). */
  sendData(circuitId: string, data: Buffer, timeoutMs?: number): Promise<'written' | 'stalled' | 'closed'>;
  frame(what: string, match: (frame: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  readonly closed: boolean;
}

/** One TLS connection of a raw link: sends the hello, answers heartbeats and sends its own (read or not, like a real
 * router: a peer that stops reading is not silent), and hands every other frame to `onFrame`. */
async function rawConnection(port: number, tls: LinkTlsMaterial, hello: Record<string, unknown>, onFrame: (frame: unknown) => void): Promise<TLSSocket> {
  const socket = connectTls({ host: '127.0.0.1', port, cert: tls.certPem, key: tls.keyPem, ca: tls.caPem });
  const decoder = new FrameDecoder(undefined, 16 * 1024 * 1024);
  decoder.maxDataBytes = chunk;
  socket.on('error', () => undefined);
  socket.on('data', (bytes: Buffer) => {
    for (const frame of decoder.push(bytes)) {
      const type = (frame as { type?: unknown }).type;
      if (type === 'hb') socket.write(encodeFrame({ type: 'hbAck', sentAt: (frame as { sentAt?: unknown }).sentAt }));
      else if (type !== 'hbAck') onFrame(frame);
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', () => resolve());
    socket.once('close', () => reject(new Error('the link peer closed before TLS was up')));
  });
  socket.write(encodeFrame(hello));
  const heartbeats = setInterval(() => socket.write(encodeFrame({ type: 'hb', sentAt: performance.now() })), 100);
  socket.once('close', () => clearInterval(heartbeats));
  return socket;
}

/** A link to the router under test driven by hand: one `single` connection, or (`split`) a payload and an ack one;
 * `socket` is the payload (or single) one, which carries what the peer sends. */
export async function rawLinkPeer(port: number, tls: LinkTlsMaterial, routerId: string, linkId: string, split = false): Promise<RawLinkPeer> {
  const frames: Array<Record<string, unknown>> = [];
  const dataBytes = new Map<string, number>();
  const onFrame = (frame: unknown) => {
    if (frame instanceof DataFrame) dataBytes.set(frame.circuitId, (dataBytes.get(frame.circuitId) ?? 0) + frame.length);
    else frames.push(frame as Record<string, unknown>);
  };
  const connTypes = split ? ['payload', 'ack'] : ['single'];
  const sockets = await Promise.all(connTypes.map((connType) => rawConnection(port, tls, { type: 'link.hello', routerId, linkId, connType }, onFrame)));
  const socket = sockets[0]!;
  let closed = false;
  socket.once('close', () => {
    closed = true;
    for (const other of sockets) other.destroy();
  });
  const peer: RawLinkPeer = {
    socket,
    frames,
    dataBytes,
    send: (frame) => void socket.write(encodeFrame(frame)),
    sendData: (circuitId, data, timeoutMs = 2_000) => {
      if (closed || socket.destroyed) return Promise.resolve('closed');
      const [header, body] = encodeDataFrame(circuitId, data);
      socket.cork();
      socket.write(header!);
      const room = socket.write(body!);
      socket.uncork();
      if (room) return Promise.resolve('written');
      return new Promise((resolve) => {
        const timer = setTimeout(() => done('stalled'), timeoutMs);
        const onDrain = () => done('written');
        const onClose = () => done('closed');
        function done(outcome: 'written' | 'stalled' | 'closed') {
          clearTimeout(timer);
          socket.off('drain', onDrain);
          socket.off('close', onClose);
          resolve(outcome);
        }
        socket.once('drain', onDrain);
        socket.once('close', onClose);
      });
    },
    frame: async (what, match, timeoutMs = 5_000) => {
      await waitFor(what, () => frames.some(match), timeoutMs);
      return frames.find(match)!;
    },
    get closed() {
      return closed;
    },
  };
  await waitFor('link.welcome on every connection', () => frames.filter((frame) => frame.type === 'link.welcome').length === sockets.length);
  return peer;
}

// A link's TLS connection: the common framed connection (common/channel/framed-connection.ts) with the links' codec
// (length-prefixed JSON and data frames, common/framing/frame-codec.ts) and their close texts. The handshake awaits
// single frames with `next`, the live link then takes every frame with `onFrame` and starts heartbeats
// (link-channel.ts). A frame for an idle socket leaves at once; once the socket is backed up, the turn's frames are
// gathered (one writev, so TLS makes full-size records and one system call carries every circuit's frames of that
// turn). Nagle is off: a lone small frame (a request, an acknowledgement) leaves at once rather than waiting for the
// peer's TCP ack.

import type { TLSSocket } from 'node:tls';
import { jsonFrameCodec } from '../../common/channel/channel-codec.ts';
import { FramedConnection } from '../../common/channel/framed-connection.ts';
import { formatHostPort } from '../../common/config/address.ts';
import { encodeDataFrame } from '../../common/framing/frame-codec.ts';
import { linkFrameLimits } from '../../common/framing/frame-limits.ts';

/** Bytes one data frame may carry on a link (a circuit's reads are cut to this). */
const maxDataBytes = 64 * 1024;

const linkCodec = jsonFrameCodec({ limits: linkFrameLimits, maxDataBytes });

export class FramedSocket extends FramedConnection {
  declare readonly socket: TLSSocket;

  static readonly maxDataBytes = maxDataBytes;

  constructor(socket: TLSSocket) {
    super(socket, {
      codec: linkCodec,
      writes: 'gather',
      reasons: {
        peerClosed: 'connection closed by peer',
        socketError: (error) => `connection error: ${error.message}`,
        badFrame: (message) => message,
        silent: (silentMs, limitMs) => `unresponsive: nothing heard for ${Math.round(silentMs)}ms (limit ${limitMs}ms)`,
      },
    });
    socket.setNoDelay(true);
  }

  /** `host:port` of this end ('' when the socket is gone). */
  get localAddr(): string {
    return this.socket.localAddress === undefined ? '' : formatHostPort({ host: this.socket.localAddress, port: this.socket.localPort ?? 0 });
  }

  get remoteAddr(): string {
    return this.socket.remoteAddress === undefined ? '' : formatHostPort({ host: this.socket.remoteAddress, port: this.socket.remotePort ?? 0 });
  }

  /** One circuit's bytes (at most maxDataBytes; one buffer or several parts) as a data frame, without copying them. `onWritten` runs once the
   * socket has taken them, or failed to (at once when the socket is already gone). */
  sendData(circuitId: string, data: Buffer | readonly Buffer[], onWritten?: () => void): void {
    this.sendEncoded(encodeDataFrame(circuitId, data), onWritten);
  }
}

/** A frame as a record with a string `type`, or undefined. */
export function frameType(frame: unknown): string | undefined {
  if (typeof frame !== 'object' || frame === null) return undefined;
  const type = (frame as { type?: unknown }).type;
  return typeof type === 'string' ? type : undefined;
}

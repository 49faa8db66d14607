// The OpenZiti channel framing that SDKs speak to an edge router (v2, all integers little-endian): a 20-byte prefix
// (magic 03 06 09 0C, content type, sequence, header-block length, body length), a block of packed header entries
// (int32 id, uint32 length, value), then the body. Header order carries no meaning and a block never repeats an id.
// A frame over the reader's limits, a header entry running past its block, a block of 1-7 bytes or another magic
// is refused (the channel closes): a peer's frame costs at most the limits' bytes, never a crash. The first frame of
// a connection is its hello and is held to the listener's smaller hello limits.
import type { FrameCodec, FrameReader } from '../channel/channel-codec.ts';

export const v2Magic = Buffer.from([0x03, 0x06, 0x09, 0x0c]);
/** What a listener writes (then closes) to a dialer speaking another version: it speaks 1 and 2. */
export const versionNegotiationMagic = Buffer.from([0x03, 0x06, 0x09, 0x0a]);
const prefixBytes = 20;
const headerEntryBytes = 8;

export interface EdgeMessage {
  readonly contentType: number;
  readonly sequence: number;
  readonly headers: ReadonlyMap<number, Buffer>;
  readonly body: Buffer;
}

export interface EdgeFrameLimits {
  readonly maxHeaderBytes: number;
  readonly maxBodyBytes: number;
}

/** The listener's limits on a hello (OpenZiti's channel: header block ≤ 16384, body ≤ 4192 bytes). */
export const helloLimits: EdgeFrameLimits = { maxHeaderBytes: 16_384, maxBodyBytes: 4_192 };

/**
 * Limits on every later frame. The protocol sets none; these bound what one frame may cost: SDKs write at most
 * 32 KiB of data per Data message (the C SDK coalesces to 31 KiB plus crypto overhead), and their headers are a few
 * hundred bytes.
 */
export const edgeFrameLimits: EdgeFrameLimits = { maxHeaderBytes: 64 * 1024, maxBodyBytes: 1024 * 1024 };

export class EdgeFrameError extends Error {}

export function encodeEdgeMessage(message: EdgeMessage): Buffer {
  let headerBytes = 0;
  for (const value of message.headers.values()) headerBytes += headerEntryBytes + value.length;
  const frame = Buffer.allocUnsafe(prefixBytes + headerBytes + message.body.length);
  v2Magic.copy(frame, 0);
  frame.writeInt32LE(message.contentType, 4);
  frame.writeInt32LE(message.sequence, 8);
  frame.writeUInt32LE(headerBytes, 12);
  frame.writeUInt32LE(message.body.length, 16);
  let offset = prefixBytes;
  for (const [id, value] of message.headers) {
    frame.writeInt32LE(id, offset);
    frame.writeUInt32LE(value.length, offset + 4);
    value.copy(frame, offset + headerEntryBytes);
    offset += headerEntryBytes + value.length;
  }
  message.body.copy(frame, offset);
  return frame;
}

/** The header block of a frame as a map; refuses a block of 1-7 bytes, an entry past its end and a repeated id. */
export function decodeHeaders(block: Buffer): Map<number, Buffer> {
  const headers = new Map<number, Buffer>();
  if (block.length > 0 && block.length < headerEntryBytes) throw new EdgeFrameError(`a header block of ${block.length} bytes`);
  let offset = 0;
  while (offset < block.length) {
    if (block.length - offset < headerEntryBytes) throw new EdgeFrameError('a header entry cut short');
    const id = block.readInt32LE(offset);
    const length = block.readUInt32LE(offset + 4);
    const start = offset + headerEntryBytes;
    if (length > block.length - start) throw new EdgeFrameError(`header ${id} runs past its block`);
    if (headers.has(id)) throw new EdgeFrameError(`header ${id} appears twice`);
    // A copy: the frame's buffer is not kept alive by one small header.
    headers.set(id, Buffer.from(block.subarray(start, start + length)));
    offset = start + length;
  }
  return headers;
}

/** Reads frames from a connection's bytes; the first is held to `firstLimits` (a listener's hello limits). */
export class EdgeFrameReader implements FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private framesRead = 0;

  constructor(
    private readonly limits: EdgeFrameLimits = edgeFrameLimits,
    private readonly firstLimits: EdgeFrameLimits = limits,
  ) {}

  append(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  next(): EdgeMessage | undefined {
    if (this.buffered < prefixBytes) {
      if (this.buffered >= 4) this.checkMagic(this.peek(4));
      return undefined;
    }
    const prefix = this.peek(prefixBytes);
    this.checkMagic(prefix);
    const headerBytes = prefix.readUInt32LE(12);
    const bodyBytes = prefix.readUInt32LE(16);
    const limits = this.framesRead === 0 ? this.firstLimits : this.limits;
    if (headerBytes > limits.maxHeaderBytes) throw new EdgeFrameError(`a header block of ${headerBytes} bytes exceeds ${limits.maxHeaderBytes}`);
    if (bodyBytes > limits.maxBodyBytes) throw new EdgeFrameError(`a body of ${bodyBytes} bytes exceeds ${limits.maxBodyBytes}`);
    const total = prefixBytes + headerBytes + bodyBytes;
    if (this.buffered < total) return undefined;
    const frame = this.take(total);
    this.framesRead++;
    return {
      contentType: frame.readInt32LE(4),
      sequence: frame.readInt32LE(8),
      headers: decodeHeaders(frame.subarray(prefixBytes, prefixBytes + headerBytes)),
      body: frame.subarray(prefixBytes + headerBytes),
    };
  }

  private checkMagic(bytes: Buffer): void {
    if (bytes.compare(v2Magic, 0, 4, 0, 4) === 0) return;
    const seen = bytes.subarray(0, 4).toString('hex');
    throw new EdgeFrameError(seen === '0306090d' || seen === '0306090a' ? `protocol version ${seen} is not spoken here` : `protocol error: invalid header (magic ${seen})`);
  }

  private peek(bytes: number): Buffer {
    if (this.chunks[0]!.length >= bytes) return this.chunks[0]!.subarray(0, bytes);
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined.subarray(0, bytes);
  }

  private take(bytes: number): Buffer {
    const first = this.chunks[0]!;
    let frame: Buffer;
    if (first.length >= bytes) {
      frame = first.subarray(0, bytes);
      if (first.length === bytes) this.chunks.shift();
      else this.chunks[0] = first.subarray(bytes);
    } else {
      const joined = Buffer.concat(this.chunks);
      frame = joined.subarray(0, bytes);
      this.chunks = joined.length > bytes ? [joined.subarray(bytes)] : [];
    }
    this.buffered -= bytes;
    return frame;
  }
}

/** The codec for a common FramedConnection (common/channel/): an edge listener's (hello limits first) or a client's. */
export function edgeFrameCodec(options: { readonly listener: boolean }): FrameCodec {
  return {
    newReader: () => new EdgeFrameReader(edgeFrameLimits, options.listener ? helloLimits : edgeFrameLimits),
    encode: (frame) => encodeEdgeMessage(frame as EdgeMessage),
  };
}

/** The version-negotiation answer a listener writes before closing: versions 1 and 2 (16 bytes). */
export function versionNegotiationAnswer(): Buffer {
  const answer = Buffer.alloc(16);
  versionNegotiationMagic.copy(answer, 0);
  answer.writeUInt32LE(2, 4);
  answer.writeUInt32LE(1, 8);
  answer.writeUInt32LE(2, 12);
  return answer;
}

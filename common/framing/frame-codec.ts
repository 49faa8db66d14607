// Length-prefixed frames: a 4-byte big-endian length, then that many bytes of UTF-8 JSON. The decoder takes the
// stream in whatever chunks TCP delivers and yields whole frames; a frame over its limits (bytes, nesting depth,
// keys and items in all: frame-limits.ts) or one that is not JSON is an error that closes the channel, never a
// crash. The structure is checked on the text, before it is parsed, so a hostile frame costs a scan, not the memory
// of millions of parsed values.
import { jsonTextShapeProblem, jsonTextWithinShape } from '../json/json-shape.ts';

export const maxFrameBytes = 256 * 1024 * 1024;

export interface FrameLimits {
  readonly maxBytes: number;
  /** Objects and arrays nested inside one another (the frame itself is depth 1); unset: not checked. */
  readonly maxDepth?: number;
  /** Keys of every object plus items of every array, over the whole frame; unset: not checked. */
  readonly maxMembers?: number;
}

export function encodeFrame(value: unknown): Buffer {
  return encodeJsonFrame(JSON.stringify(value));
}

/** A frame of JSON text the caller already has (written straight after the length, without an extra copy). */
export function encodeJsonFrame(json: string, limit = maxFrameBytes): Buffer {
  const length = Buffer.byteLength(json, 'utf8');
  if (length > limit) throw new Error(`frame of ${length} bytes exceeds ${limit}`);
  const frame = Buffer.allocUnsafe(4 + length);
  frame.writeUInt32BE(length, 0);
  frame.write(json, 4, 'utf8');
  return frame;
}

/**
 * A frame of bytes for one circuit (links only): the length word has its top bit set, and the body is one byte of
 * circuit id length, the circuit id (ASCII) and the bytes. JSON frames never have that bit (they are at most
 * maxFrameBytes), so a decoder that does not take data frames refuses one as over its byte limit.
 */
export class DataFrame {
  /** The bytes in pieces, uncopied: a frame the decoder read across several TCP (or TLS record) reads is several. */
  readonly parts: readonly Buffer[];
  /** Bytes in all. */
  readonly length: number;
  private joined: Buffer | undefined;

  constructor(
    readonly circuitId: string,
    data: Buffer | readonly Buffer[],
  ) {
    this.parts = Buffer.isBuffer(data) ? [data] : data;
    this.length = this.parts.reduce((sum, part) => sum + part.length, 0);
    if (this.parts.length === 1) this.joined = this.parts[0];
  }

  /** The bytes in one buffer (copied together on first use when in several parts). */
  get data(): Buffer {
    this.joined ??= Buffer.concat(this.parts, this.length);
    return this.joined;
  }
}

const dataFrameFlag = 0x80000000;
/** Longest circuit id a data frame carries. */
export const maxCircuitIdLength = 64;

/** The buffers of one data frame (header, then the caller's bytes, one buffer or its parts, uncopied): written with
 * one cork. */
export function encodeDataFrame(circuitId: string, data: Buffer | readonly Buffer[]): Buffer[] {
  const idLength = Buffer.byteLength(circuitId, 'latin1');
  if (idLength === 0 || idLength > maxCircuitIdLength) throw new Error(`circuit id of ${idLength} bytes`);
  const parts = Buffer.isBuffer(data) ? [data] : data;
  let length = 0;
  for (const part of parts) length += part.length;
  const header = Buffer.allocUnsafe(5 + idLength);
  header.writeUInt32BE((dataFrameFlag | (1 + idLength + length)) >>> 0, 0);
  header.writeUInt8(idLength, 4);
  header.write(circuitId, 5, 'latin1');
  return [header, ...parts];
}

export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private limits: FrameLimits;

  /**
   * `withText` sees each frame beside the text it was parsed from (a raft append keeps its entries' texts);
   * `limits` is a byte limit alone or a FrameLimits.
   */
  constructor(
    private readonly withText?: (frame: unknown, text: string) => void,
    limits: number | FrameLimits = maxFrameBytes,
  ) {
    this.limits = typeof limits === 'number' ? { maxBytes: limits } : limits;
  }

  /** Bytes a data frame may carry (0: data frames are refused). Links set it; control channels never do. */
  maxDataBytes = 0;

  /** Changes the limits from the next frame on (a channel takes small frames until the peer's hello). */
  setLimits(limits: FrameLimits): void {
    this.limits = limits;
  }

  /** Adds bytes; returns every frame now complete. Throws on a frame over the limits or a body that is not JSON. */
  push(chunk: Buffer): unknown[] {
    this.append(chunk);
    const frames: unknown[] = [];
    for (let frame = this.next(); frame !== undefined; frame = this.next()) frames.push(frame);
    return frames;
  }

  /** Adds bytes without decoding them: next() then takes the frames one at a time. */
  append(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /** The next complete frame, or undefined when none is complete yet (no JSON text parses to undefined). */
  next(): unknown {
    if (this.buffered < 4) return undefined;
    const word = this.peek(4).readUInt32BE(0);
    if (word & dataFrameFlag && this.maxDataBytes > 0) return this.nextData(word & ~dataFrameFlag);
    const length = word;
    const { maxBytes, maxDepth, maxMembers } = this.limits;
    if (length > maxBytes) throw new Error(`peer sent a frame of ${length} bytes (limit ${maxBytes})`);
    if (this.buffered < 4 + length) return undefined;
    const text = this.take(4 + length).subarray(4).toString('utf8');
    // A frame shorter than the depth limit cannot pass it, nor hold more members than it has characters.
    const shape = { maxDepth: maxDepth ?? Infinity, maxMembers: maxMembers ?? Infinity };
    if (text.length > shape.maxDepth || text.length > shape.maxMembers) {
      if (!jsonTextWithinShape(text, shape)) {
        const problem = jsonTextShapeProblem(text, shape);
        if (problem) throw new Error(`peer sent a frame that ${problem.reason}${problem.path.length > 0 ? ` (at ${problem.path.join('.')})` : ''}`);
      }
    }
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      throw new Error('peer sent a frame that is not JSON');
    }
    this.withText?.(frame, text);
    return frame;
  }

  /** A data frame's bytes stay in the chunks they arrived in (subarrays, not a copy): a 64 KiB frame over TLS spans
   * five 16 KiB records, and joining them would cost a copy and an allocation per frame. */
  private nextData(length: number): DataFrame | undefined {
    if (length < 2 || length > 1 + maxCircuitIdLength + this.maxDataBytes) throw new Error(`peer sent a data frame of ${length} bytes (limit ${1 + maxCircuitIdLength + this.maxDataBytes})`);
    if (this.buffered < 4 + length) return undefined;
    const idLength = this.peek(5).readUInt8(4);
    if (idLength === 0 || idLength > maxCircuitIdLength || 1 + idLength > length) throw new Error('peer sent a data frame with a bad circuit id');
    const circuitId = this.peek(5 + idLength).toString('latin1', 5, 5 + idLength);
    this.skip(5 + idLength);
    return new DataFrame(circuitId, this.takeParts(length - 1 - idLength));
  }

  /** The first chunk, made at least `bytes` long by joining only as many chunks as that needs. */
  private peek(bytes: number): Buffer {
    if (this.chunks[0]!.length >= bytes) return this.chunks[0]!;
    let count = 0;
    for (let joined = 0; joined < bytes; count++) joined += this.chunks[count]!.length;
    this.chunks.splice(0, count, Buffer.concat(this.chunks.slice(0, count)));
    return this.chunks[0]!;
  }

  /** Drops `bytes` from the front (they are in the first chunk: peeked). */
  private skip(bytes: number): void {
    const head = this.chunks[0]!;
    if (head.length === bytes) this.chunks.shift();
    else this.chunks[0] = head.subarray(bytes);
    this.buffered -= bytes;
  }

  /** The next `bytes` as subarrays of the chunks they are in. */
  private takeParts(bytes: number): Buffer[] {
    const parts: Buffer[] = [];
    let left = bytes;
    while (left > 0) {
      const head = this.chunks[0]!;
      if (head.length <= left) {
        parts.push(head);
        this.chunks.shift();
        left -= head.length;
      } else {
        parts.push(head.subarray(0, left));
        this.chunks[0] = head.subarray(left);
        left = 0;
      }
    }
    this.buffered -= bytes;
    return parts;
  }

  /** The next `bytes` in one buffer, joining only the chunks they span (not the data frames queued behind). */
  private take(bytes: number): Buffer {
    const taken = this.peek(bytes).subarray(0, bytes);
    this.skip(bytes);
    return taken;
  }
}

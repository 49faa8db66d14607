// Length-prefixed frames: a 4-byte big-endian length, then that many bytes of UTF-8 JSON. The decoder takes the
// stream in whatever chunks TCP delivers and yields whole frames; an oversize or malformed frame is an error that
// closes the channel, never a crash.

export const maxFrameBytes = 256 * 1024 * 1024;

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

export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** `withText` sees each frame beside the text it was parsed from (a raft append keeps its entries' texts). */
  constructor(
    private readonly withText?: (frame: unknown, text: string) => void,
    private readonly limit = maxFrameBytes,
  ) {}

  /** Adds bytes; returns every frame now complete. Throws on an oversize length or a body that is not JSON. */
  push(chunk: Buffer): unknown[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: unknown[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const head = this.peek(4);
      const length = head.readUInt32BE(0);
      if (length > this.limit) throw new Error(`peer sent a frame of ${length} bytes (limit ${this.limit})`);
      if (this.buffered < 4 + length) break;
      const whole = this.take(4 + length);
      const text = whole.subarray(4).toString('utf8');
      let frame: unknown;
      try {
        frame = JSON.parse(text);
      } catch {
        throw new Error('peer sent a frame that is not JSON');
      }
      this.withText?.(frame, text);
      frames.push(frame);
    }
    return frames;
  }

  private peek(bytes: number): Buffer {
    if (this.chunks[0]!.length >= bytes) return this.chunks[0]!;
    this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!;
  }

  private take(bytes: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const taken = all.subarray(0, bytes);
    const rest = all.subarray(bytes);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return taken;
  }
}

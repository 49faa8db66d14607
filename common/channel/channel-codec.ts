// How a channel turns frames into bytes and back: the one thing that differs between the control port's channels
// (length-prefixed JSON, common/framing/frame-codec.ts) and protocols to come (the SDK edge protocol's framing).
// A reader takes the stream in whatever chunks TCP delivers and yields whole frames one at a time; it throws on a
// frame it refuses (over its limits, malformed), which closes the channel.
import { encodeFrame, FrameDecoder, type FrameLimits } from '../framing/frame-codec.ts';

export interface FrameReader {
  append(chunk: Buffer): void;
  /** The next whole frame, or undefined until more bytes arrive. */
  next(): unknown;
}

export interface FrameCodec {
  /** A reader for one connection's incoming bytes. */
  newReader(): FrameReader;
  encode(frame: unknown): Buffer;
}

export interface JsonCodecOptions {
  readonly limits: number | FrameLimits;
  /** Sees each frame beside the text it was parsed from (raft keeps its entries' texts). */
  readonly withText?: (frame: unknown, text: string) => void;
  /** Bytes one data frame may carry (links); unset: data frames are refused. */
  readonly maxDataBytes?: number;
}

/** Length-prefixed JSON frames (and, on links, data frames): the control port's and the links' codec. */
export function jsonFrameCodec(options: JsonCodecOptions): FrameCodec {
  return {
    newReader() {
      const decoder = new FrameDecoder(options.withText, options.limits);
      if (options.maxDataBytes !== undefined) decoder.maxDataBytes = options.maxDataBytes;
      return decoder;
    },
    encode: encodeFrame,
  };
}

// Header values of the OpenZiti channel as they go on the wire: fixed widths, little-endian. A reader is strict
// where the Go channel is (a uint32 that is not 4 bytes is absent), so a value edgeward accepts is one every SDK
// would read the same way; writers always write exactly 1, 2, 4 or 8 bytes.

export const headerValue = {
  bool: (value: boolean): Buffer => Buffer.from([value ? 1 : 0]),
  byte: (value: number): Buffer => Buffer.from([value & 0xff]),
  uint16: (value: number): Buffer => {
    const bytes = Buffer.alloc(2);
    bytes.writeUInt16LE(value);
    return bytes;
  },
  uint32: (value: number): Buffer => {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32LE(value >>> 0);
    return bytes;
  },
  int32: (value: number): Buffer => {
    const bytes = Buffer.alloc(4);
    bytes.writeInt32LE(value);
    return bytes;
  },
  uint64: (value: bigint): Buffer => {
    const bytes = Buffer.alloc(8);
    bytes.writeBigUInt64LE(value);
    return bytes;
  },
  string: (value: string): Buffer => Buffer.from(value, 'utf8'),
};

/** Most entries in a string slice or map, and most bytes in one string of them (the Go channel's caps). */
export const maxSliceEntries = 128;
export const maxSliceStringBytes = 8192;

export const readHeader = {
  /** true only when the first byte is 1 (the Go channel's reading); absent: undefined. */
  bool: (value: Buffer | undefined): boolean | undefined => (value === undefined || value.length === 0 ? undefined : value[0] === 1),
  byte: (value: Buffer | undefined): number | undefined => (value === undefined || value.length === 0 ? undefined : value[0]),
  uint16: (value: Buffer | undefined): number | undefined => (value?.length === 2 ? value.readUInt16LE(0) : undefined),
  uint32: (value: Buffer | undefined): number | undefined => (value?.length === 4 ? value.readUInt32LE(0) : undefined),
  int32: (value: Buffer | undefined): number | undefined => (value?.length === 4 ? value.readInt32LE(0) : undefined),
  uint64: (value: Buffer | undefined): bigint | undefined => (value?.length === 8 ? value.readBigUInt64LE(0) : undefined),
  string: (value: Buffer | undefined): string | undefined => value?.toString('utf8'),
  /** u32 count, then each string as u32 length + bytes; undefined when malformed or over the caps. */
  stringSlice: (value: Buffer | undefined): string[] | undefined => {
    if (value === undefined) return undefined;
    if (value.length === 0) return [];
    if (value.length < 4) return undefined;
    const count = value.readUInt32LE(0);
    if (count > maxSliceEntries) return undefined;
    const out: string[] = [];
    let offset = 4;
    for (let i = 0; i < count; i++) {
      if (value.length - offset < 4) return undefined;
      const length = value.readUInt32LE(offset);
      offset += 4;
      if (length > maxSliceStringBytes || length > value.length - offset) return undefined;
      out.push(value.toString('utf8', offset, offset + length));
      offset += length;
    }
    return offset === value.length ? out : undefined;
  },
};

export function encodeStringSlice(values: readonly string[]): Buffer {
  if (values.length === 0) return Buffer.alloc(0);
  const parts = values.map((value) => Buffer.from(value, 'utf8'));
  const out = Buffer.alloc(4 + parts.reduce((sum, part) => sum + 4 + part.length, 0));
  out.writeUInt32LE(parts.length, 0);
  let offset = 4;
  for (const part of parts) {
    out.writeUInt32LE(part.length, offset);
    part.copy(out, offset + 4);
    offset += 4 + part.length;
  }
  return out;
}

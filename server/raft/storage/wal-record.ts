// One write-ahead log record: [u32 BE payload length > 0][u32 BE crc32 of the payload][payload: UTF-8 JSON].
// A length of 0 is the end of written data (segments are preallocated with zeros). The payload holds any of:
//   e  entries {index, term, type, data}; the first one replaces every entry at or after its index
//   h  the hard state {term, vote, commit}
//   c  the last index compacted away
//   k  a checkpoint {h, c, r}: the hard state and compacted position when the segment began; the first record of
//      every segment is one. r marks a reset: the log before it was replaced by a snapshot.
import { crc32 } from 'node:zlib';
import { entriesJson } from '../core/entry-json.ts';
import type { Entry, EntryType, HardState } from '../core/types.ts';

export interface Checkpoint {
  readonly h?: HardState;
  readonly c: number;
  readonly r?: true;
}

export interface WalRecord {
  readonly e?: readonly Entry[];
  readonly h?: HardState;
  readonly c?: number;
  readonly k?: Checkpoint;
}

export const recordHeaderBytes = 8;

export type ReadResult =
  | { readonly kind: 'record'; readonly record: WalRecord; readonly length: number }
  | { readonly kind: 'end' }
  /** Truncated, failing its checksum or not JSON: what a write cut short by a crash leaves. */
  | { readonly kind: 'torn'; readonly reason: string }
  /** Intact bytes that do not hold a record: never a crash, always a bug or tampering. */
  | { readonly kind: 'invalid'; readonly reason: string };

/** The records as one buffer, so a persist (and a rotation's checkpoint with it) is one write. */
export function encodeRecords(records: readonly WalRecord[]): Buffer {
  const payloads = records.map(toJson);
  let total = 0;
  for (const json of payloads) total += recordHeaderBytes + Buffer.byteLength(json, 'utf8');
  const buffer = Buffer.allocUnsafe(total);
  let offset = 0;
  for (const json of payloads) {
    const length = buffer.write(json, offset + recordHeaderBytes, 'utf8');
    buffer.writeUInt32BE(length, offset);
    buffer.writeUInt32BE(crc32(buffer.subarray(offset + recordHeaderBytes, offset + recordHeaderBytes + length)), offset + 4);
    offset += recordHeaderBytes + length;
  }
  return buffer;
}

/** Reads the record at `offset` of a segment's bytes. */
export function readRecord(bytes: Buffer, offset: number): ReadResult {
  if (offset + 4 > bytes.length) {
    // Too short for a length: the end if it is zeros (a segment sized exactly to its records), else a cut header.
    return bytes.subarray(offset).every((byte) => byte === 0) ? { kind: 'end' } : { kind: 'torn', reason: 'truncated header' };
  }
  const length = bytes.readUInt32BE(offset);
  if (length === 0) return { kind: 'end' };
  const end = offset + recordHeaderBytes + length;
  if (end > bytes.length) return { kind: 'torn', reason: `truncated: ${length} bytes of payload, ${Math.max(0, bytes.length - offset - recordHeaderBytes)} in the file` };
  const payload = bytes.subarray(offset + recordHeaderBytes, end);
  if (crc32(payload) !== bytes.readUInt32BE(offset + 4)) return { kind: 'torn', reason: 'crc mismatch' };
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch (error) {
    return { kind: 'torn', reason: `not JSON: ${(error as Error).message}` };
  }
  try {
    return { kind: 'record', record: parseRecord(value), length: recordHeaderBytes + length };
  } catch (error) {
    return { kind: 'invalid', reason: (error as Error).message };
  }
}

/**
 * Only the fields we own reach the disk, as copyHardState does for the hard state. Entries are written from their
 * cached JSON (entry-json.ts): on a leader the same text already went out to the followers.
 */
function toJson(record: WalRecord): string {
  const fields: string[] = [];
  if (record.k !== undefined) fields.push(`"k":${JSON.stringify(record.k)}`);
  if (record.c !== undefined) fields.push(`"c":${JSON.stringify(record.c)}`);
  if (record.e !== undefined) fields.push(`"e":${entriesJson(record.e)}`);
  if (record.h !== undefined) fields.push(`"h":${JSON.stringify(record.h)}`);
  return `{${fields.join(',')}}`;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks the shape only; the store rules (contiguity, bounds) are the replay's job. */
function parseRecord(value: unknown): WalRecord {
  if (!isObject(value)) throw new Error('payload is not a JSON object');
  const record: { e?: Entry[]; h?: HardState; c?: number; k?: Checkpoint } = {};
  if (value.k !== undefined) {
    if (!isObject(value.k) || typeof value.k.c !== 'number') throw new Error('checkpoint is not {h, c}');
    if (value.k.r !== undefined && value.k.r !== true) throw new Error('checkpoint reset flag is not true');
    record.k = {
      c: value.k.c,
      ...(value.k.h !== undefined ? { h: parseHardState(value.k.h) } : {}),
      ...(value.k.r === true ? { r: true as const } : {}),
    };
  }
  if (value.c !== undefined) {
    if (typeof value.c !== 'number') throw new Error('compacted index is not a number');
    record.c = value.c;
  }
  if (value.e !== undefined) {
    if (!Array.isArray(value.e) || value.e.length === 0) throw new Error('entries are not a non-empty array');
    record.e = value.e.map(parseEntry);
  }
  if (value.h !== undefined) record.h = parseHardState(value.h);
  return record;
}

function parseEntry(value: unknown): Entry {
  if (!isObject(value) || typeof value.index !== 'number' || typeof value.term !== 'number' || typeof value.type !== 'string') {
    throw new Error(`${JSON.stringify(value)} is not a log entry`);
  }
  // data is absent when it was undefined; keep the key, as the entry that was appended had it.
  return { index: value.index, term: value.term, type: value.type as EntryType, data: value.data };
}

function parseHardState(value: unknown): HardState {
  if (!isObject(value) || typeof value.term !== 'number' || typeof value.commit !== 'number') throw new Error(`${JSON.stringify(value)} is not a hard state`);
  return { term: value.term, vote: value.vote as string | null, commit: value.commit };
}

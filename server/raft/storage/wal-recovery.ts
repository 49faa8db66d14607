// Opening the write-ahead log: replays every segment from the newest reset on, rebuilding the bounds, the hard state
// and where each entry sits. Only the last segment may end in a torn record (the write a crash cut short, never
// acknowledged): an unreadable record with nothing readable after it. It is zeroed and writing resumes there. An
// unreadable record followed by an intact one is corruption, not a torn tail: the records after it were written,
// and acknowledged, after it was. Discarding them would lose entries a quorum counted on, so the log refuses to
// open, naming the segment and byte (docs/runbooks.md, "Raft log corruption"). So is anything unreadable in an
// earlier segment.
import type { HardState } from '../core/types.ts';
import { WalLogIndex } from './wal-log-index.ts';
import { readRecord, recordHeaderBytes, type ReadResult, type WalRecord } from './wal-record.ts';
import { listSegments, readSegment, removeSegments, SegmentReader, segmentLabel, zeroRange } from './wal-segments.ts';
import { checkAppend, checkCompact, checkHardState } from './store-rules.ts';

export interface RecoveredWal {
  readonly log: WalLogIndex;
  readonly hardState: HardState | undefined;
  /** Segments holding records, oldest first; writes continue in the last one. */
  readonly segments: readonly number[];
  /** Where the next record goes in the last segment, and that segment's size. */
  readonly tail: number;
  readonly size: number;
  /** A trailing segment with no records yet (prepared ahead of need); `ready` if full-sized. */
  readonly spare: { readonly seq: number; readonly ready: boolean } | undefined;
  /** The sequence number the next new segment takes. */
  readonly nextSeq: number;
}

export async function recoverWal(dir: string, segmentBytes: number): Promise<RecoveredWal> {
  const all = await listSegments(dir);
  // A reset writes its checkpoint in a new segment before deleting the old ones; finish one a crash interrupted.
  const start = await newestReset(dir, all);
  if (start > 0) await removeSegments(dir, all.slice(0, start));
  const seqs = all.slice(start);
  // A last segment that does not begin with a record is the spare prepared ahead of need (or one whose first write, a
  // rotation, was torn); the torn-tail rule then applies to the segment before it.
  const lastSeq = seqs[seqs.length - 1];
  const hasSpare = lastSeq !== undefined && (await readFirstRecord(dir, lastSeq)).kind !== 'record';
  const tailSegment = seqs.length - (hasSpare ? 2 : 1);

  const log = new WalLogIndex();
  let hardState: HardState | undefined;
  const segments: number[] = [];
  let tail = 0;
  let size = 0;
  let spare: RecoveredWal['spare'];
  for (const [i, seq] of seqs.entries()) {
    const last = i >= tailSegment;
    const bytes = await readSegment(dir, seq);
    let offset = 0;
    for (;;) {
      const result = readRecord(bytes, offset);
      if (result.kind === 'end') break;
      if (result.kind === 'torn' && last) {
        const intact = nextIntactRecord(bytes, offset + 1);
        if (intact === undefined) break;
        throw new Error(
          `${segmentLabel(dir, seq)}: record at byte ${offset} is corrupt (${result.reason}), yet an intact record follows at byte ${intact}: ` +
            `this is not a torn write, and discarding the rest would lose acknowledged entries; the raft log cannot be read${recovery}`,
        );
      }
      if (result.kind !== 'record') throw unreadable(dir, seq, offset, result.kind === 'torn' ? 'corrupt' : 'invalid', result.reason);
      try {
        hardState = replay(result.record, { log, hardState, firstOfSegment: offset === 0, firstSegment: segments.length === 0 }, { segment: seq, offset, length: result.length });
      } catch (error) {
        throw unreadable(dir, seq, offset, 'invalid', (error as Error).message);
      }
      offset += result.length;
    }
    if (last && !isZero(bytes.subarray(offset))) await zeroRange(dir, seq, offset, bytes.length);
    if (offset > 0) {
      segments.push(seq);
      tail = offset;
      size = bytes.length;
    } else if (i === seqs.length - 1) {
      spare = { seq, ready: bytes.length >= segmentBytes };
    } else {
      throw new Error(`${segmentLabel(dir, seq)}: holds no records, yet later segments exist; the raft log cannot be read`);
    }
  }
  return { log, hardState, segments, tail, size, spare, nextSeq: (all[all.length - 1] ?? 0) + 1 };
}

interface ReplayState {
  readonly log: WalLogIndex;
  readonly hardState: HardState | undefined;
  readonly firstOfSegment: boolean;
  readonly firstSegment: boolean;
}

/** Applies one record with the rules live writes follow; returns the hard state after it. */
function replay(record: WalRecord, state: ReplayState, location: { segment: number; offset: number; length: number }): HardState | undefined {
  const { log } = state;
  let hardState = state.hardState;
  if (state.firstOfSegment !== (record.k !== undefined)) {
    throw new Error(state.firstOfSegment ? 'the segment does not begin with a checkpoint' : 'a checkpoint inside a segment');
  }
  if (record.k !== undefined) {
    checkCompact(record.k.c);
    if (record.k.h) checkHardState(record.k.h);
    // Later segments' checkpoints repeat what replay already knows; only the first one starts the log.
    if (state.firstSegment) {
      log.startAt(record.k.c);
      hardState = record.k.h;
    }
  }
  if (record.c !== undefined) {
    checkCompact(record.c);
    log.compact(record.c);
  }
  if (record.e !== undefined) {
    checkAppend(record.e, log.first, log.last);
    log.append(record.e[0]!.index, record.e[record.e.length - 1]!.index, location);
  }
  if (record.h !== undefined) {
    checkHardState(record.h);
    hardState = record.h;
  }
  return hardState;
}

const maxCheckpointBytes = 64 * 1024;

/** Index in `seqs` of the newest segment that begins with a reset checkpoint, or 0. */
async function newestReset(dir: string, seqs: readonly number[]): Promise<number> {
  for (let i = seqs.length - 1; i > 0; i--) {
    const first = await readFirstRecord(dir, seqs[i]!);
    if (first.kind === 'record' && first.record.k?.r === true) return i;
  }
  return 0;
}

/** The first record of a segment, read alone: a checkpoint, or something else that is not a reset. */
async function readFirstRecord(dir: string, seq: number): Promise<ReadResult> {
  const reader = new SegmentReader(dir);
  try {
    const header = await reader.read(seq, 0, recordHeaderBytes);
    if (header.length < recordHeaderBytes) return readRecord(header, 0);
    // A checkpoint is a hard state and two numbers; a longer first record is no checkpoint (or is garbage).
    const length = header.readUInt32BE(0);
    if (length > maxCheckpointBytes) return { kind: 'invalid', reason: `first record of ${length} bytes is no checkpoint` };
    return readRecord(await reader.read(seq, 0, recordHeaderBytes + length), 0);
  } finally {
    await reader.close();
  }
}

/** Where every refusal to read the log points the operator. */
const recovery = ' (see "Raft log corruption" in docs/runbooks.md)';

function unreadable(dir: string, seq: number, offset: number, what: 'corrupt' | 'invalid', reason: string): Error {
  return new Error(`${segmentLabel(dir, seq)}: record at byte ${offset} is ${what} (${reason}); the raft log cannot be read${recovery}`);
}

const openBrace = 0x7b;
const closeBrace = 0x7d;

/**
 * The offset of the first intact record at or after `from`, if any. Every offset is tried, since the bad record's
 * own length may be what is damaged. Cheap where it matters: most offsets fail on the length (zeros, or past the
 * end), a payload is JSON from `{` to `}`, and only then is its checksum computed. A payload never holds bytes below
 * 0x20 (JSON escapes them), so no offset inside one can pass for a header with a plausible length.
 */
function nextIntactRecord(bytes: Buffer, from: number): number | undefined {
  const limit = bytes.length - recordHeaderBytes;
  for (let offset = from; offset < limit; offset++) {
    const length = bytes[offset]! * 0x1000000 + ((bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!);
    if (length === 0 || length > limit - offset) continue;
    const start = offset + recordHeaderBytes;
    if (bytes[start] !== openBrace || bytes[start + length - 1] !== closeBrace) continue;
    if (readRecord(bytes, offset).kind === 'record') return offset;
  }
  return undefined;
}

const zeros = Buffer.alloc(1 << 16);

function isZero(bytes: Buffer): boolean {
  for (let offset = 0; offset < bytes.length; offset += zeros.length) {
    const chunk = bytes.subarray(offset, offset + zeros.length);
    if (!chunk.equals(zeros.subarray(0, chunk.length))) return false;
  }
  return true;
}

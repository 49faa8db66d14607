// The raft log and hard state as a write-ahead log in one directory (<cluster.dataDir>/raft.db) of preallocated
// segment files, wal-<10-digit sequence>.log. One persist() is one record and one O_DSYNC write: the write and its
// sync are a single thread-pool job, about half the CPU and wall time of a synced LevelDB batch. Record format:
// wal-record.ts; replay and torn tails: wal-recovery.ts.
//
// Only bounds, the hard state and each entry's record location are kept in memory; entries() reads records back
// (the node only asks at start-up). The first record of every segment is a checkpoint (hard state and compacted
// position), so segments older than the one holding the oldest live entry can be deleted and a replay from the
// first remaining segment ends where the store stopped.
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Entry, HardState } from '../core/types.ts';
import type { RaftStore } from './raft-storage.ts';
import { checkAppend, checkCompact, checkHardState, copyHardState } from './store-rules.ts';
import { WalLogIndex, type RecordLocation } from './wal-log-index.ts';
import { encodeRecords, readRecord, type Checkpoint, type WalRecord } from './wal-record.ts';
import { recoverWal } from './wal-recovery.ts';
import { closeSegment, openForAppend, prepareSegment, removeSegments, SegmentReader, segmentLabel, syncDirectory, writeAt } from './wal-segments.ts';
import { SerialQueue } from './serial-queue.ts';

export interface WalRaftStoreOptions {
  /** Segment files are preallocated to this size; a record larger than a segment gets one of its own size. */
  readonly segmentBytes?: number;
}

/** 8 MiB: a rotation every few seconds at full load, and 16 MiB of preallocated files per controller (active and spare). */
export const defaultSegmentBytes = 8 * 1024 * 1024;
/** Below a page, nearly every record would start a segment. */
const minSegmentBytes = 4096;

interface Segment {
  readonly seq: number;
  readonly fd: number;
  readonly size: number;
}

interface ActiveSegment extends Segment {
  /** Where the next record goes. */
  tail: number;
}

export class WalRaftStore implements RaftStore {
  private closed = false;
  /** Set by a failed write: what is on disk after it is unknown until a reopen replays it, so nothing more is written. */
  private failure: Error | undefined;
  /** Reads and writes run one at a time, in order: each write starts from the bounds the previous one left. */
  private readonly queue = new SerialQueue();
  /** The next segment, zeroed and synced in the background so a rotation costs one write. */
  private spare: Promise<Segment> | undefined;
  private spareSeq = 0;

  private constructor(
    private readonly dir: string,
    private readonly segmentBytes: number,
    private readonly log: WalLogIndex,
    private hard: HardState | undefined,
    /** Segments holding records, oldest first; the last is `active`. */
    private segments: number[],
    private active: ActiveSegment | undefined,
  ) {}

  static async open(dir: string, options: WalRaftStoreOptions = {}): Promise<WalRaftStore> {
    const segmentBytes = options.segmentBytes ?? defaultSegmentBytes;
    if (!Number.isSafeInteger(segmentBytes) || segmentBytes < minSegmentBytes) {
      throw new Error(`raft store: segmentBytes ${String(segmentBytes)} must be an integer of at least ${minSegmentBytes}`);
    }
    await makeDirectory(dir);
    const recovered = await recoverWal(dir, segmentBytes);
    const last = recovered.segments[recovered.segments.length - 1];
    const active = last === undefined ? undefined : { seq: last, fd: await openForAppend(dir, last), size: recovered.size, tail: recovered.tail };
    const store = new WalRaftStore(dir, segmentBytes, recovered.log, recovered.hardState, [...recovered.segments], active);
    const { spare } = recovered;
    if (spare?.ready) {
      store.spareSeq = spare.seq;
      store.spare = openForAppend(dir, spare.seq).then((fd) => ({ seq: spare.seq, fd, size: segmentBytes }));
      store.spare.catch(() => undefined);
    } else {
      store.prepareSpare(spare?.seq ?? recovered.nextSeq);
    }
    return store;
  }

  /** Resolves once the spare segment prepared in the background is ready (a new store zero-fills its first segments
   * at open: a benchmark waits for that rather than measure it). */
  async spareReady(): Promise<void> {
    await this.spare?.catch(() => undefined);
  }

  async firstIndex(): Promise<number> {
    this.assertOpen();
    return this.log.first;
  }

  async lastIndex(): Promise<number> {
    this.assertOpen();
    return this.log.last;
  }

  /** Reads the records holding [from, to] back from disk; queued behind writes, so it sees them all. */
  entries(from: number, to: number): Promise<Entry[]> {
    return this.enqueue(async () => {
      const start = Math.max(Math.ceil(from), this.log.first);
      const end = Math.min(Math.floor(to), this.log.last);
      if (!(start <= end)) return [];
      const reader = new SegmentReader(this.dir);
      try {
        const entries: Entry[] = [];
        for (const run of this.log.runs(start, end)) {
          const { segment, offset, length } = run.location;
          const result = readRecord(await reader.read(segment, offset, length), 0);
          const stored = result.kind === 'record' && result.length === length ? result.record.e : undefined;
          const firstStored = stored?.[0]?.index ?? 0;
          for (let index = run.from; index <= run.to; index++) {
            const entry = stored?.[index - firstStored];
            if (entry?.index !== index) {
              const reason = result.kind === 'record' ? `entry ${index} is not in it` : result.kind === 'end' ? 'no record there' : result.reason;
              throw new Error(`${segmentLabel(this.dir, segment)}: record at byte ${offset} is unreadable (${reason})`);
            }
            entries.push(entry);
          }
        }
        return entries;
      } finally {
        await reader.close();
      }
    });
  }

  append(entries: readonly Entry[]): Promise<void> {
    return this.persist(entries, undefined);
  }

  /** One record, one O_DSYNC write. `sync: false` is not needed: the descriptor syncs every write anyway. */
  persist(entries: readonly Entry[], state: HardState | undefined): Promise<void> {
    return this.mutate(async () => {
      if (state) checkHardState(state);
      if (entries.length > 0) checkAppend(entries, this.log.first, this.log.last);
      else if (!state) return;
      const hard = state && copyHardState(state);
      const record: WalRecord = entries.length === 0 ? { h: hard! } : hard ? { e: entries, h: hard } : { e: entries };
      const location = await this.write(record);
      if (entries.length > 0) this.log.append(entries[0]!.index, entries[entries.length - 1]!.index, location);
      if (hard) this.hard = hard;
    });
  }

  compact(index: number): Promise<void> {
    return this.mutate(async () => {
      checkCompact(index);
      if (index < this.log.first) return;
      await this.write({ c: index });
      this.log.compact(index);
      // Every segment before the one holding the oldest live entry is history a replay no longer needs.
      await this.removeSegmentsBefore(Math.min(this.log.oldestSegment ?? Infinity, this.active!.seq));
    });
  }

  /** A new segment begins with a reset checkpoint; then every older one goes (recovery finishes this after a crash). */
  reset(): Promise<void> {
    return this.mutate(async () => {
      await this.startSegment(encodeRecords([{ k: { ...this.checkpoint(), c: 0, r: true } }]));
      this.log.startAt(0);
      await this.removeSegmentsBefore(this.active!.seq);
    });
  }

  async hardState(): Promise<HardState | undefined> {
    this.assertOpen();
    return this.hard && copyHardState(this.hard);
  }

  setHardState(state: HardState): Promise<void> {
    return this.persist([], state);
  }

  /** Writes accepted before close() still complete: close waits for them. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.idle();
    const spare = await this.spare?.catch(() => undefined);
    this.spare = undefined;
    if (spare) await closeSegment(spare.fd);
    if (this.active) await closeSegment(this.active.fd);
  }

  /** Appends one record, or starts a new segment with it when it does not fit in the rest of this one. */
  private async write(record: WalRecord): Promise<RecordLocation> {
    const buffer = encodeRecords([record]);
    const active = this.active;
    if (active !== undefined && active.tail + buffer.length <= active.size) {
      await this.failOnError(writeAt(active.fd, buffer, active.tail));
      const location = { segment: active.seq, offset: active.tail, length: buffer.length };
      active.tail += buffer.length;
      return location;
    }
    const checkpoint = encodeRecords([{ k: this.checkpoint() }]);
    await this.startSegment(Buffer.concat([checkpoint, buffer]));
    return { segment: this.active!.seq, offset: checkpoint.length, length: buffer.length };
  }

  /** Writes `records` (beginning with a checkpoint) at the start of the spare segment, which becomes the active one. */
  private async startSegment(records: Buffer): Promise<void> {
    const next = await this.failOnError(this.takeSpare());
    try {
      await this.failOnError(writeAt(next.fd, records, 0));
    } catch (error) {
      this.spare = Promise.resolve(next); // closed by close()
      throw error;
    }
    const previous = this.active;
    // A record larger than a segment extended the file past its preallocated size.
    this.active = { seq: next.seq, fd: next.fd, size: Math.max(next.size, records.length), tail: records.length };
    this.segments.push(next.seq);
    this.prepareSpare(next.seq + 1);
    if (previous) await closeSegment(previous.fd);
  }

  private prepareSpare(seq: number): void {
    this.spareSeq = seq;
    this.spare = prepareSegment(this.dir, seq, this.segmentBytes).then((fd) => ({ seq, fd, size: this.segmentBytes }));
    this.spare.catch(() => undefined); // awaited by takeSpare or close
  }

  /** The prepared spare, or one prepared now if the background preparation has not run or failed. */
  private async takeSpare(): Promise<Segment> {
    const pending = this.spare;
    this.spare = undefined;
    try {
      if (pending) return await pending;
    } catch {
      // Try once more inline: a transient failure in the background should not stop the log.
    }
    const fd = await prepareSegment(this.dir, this.spareSeq, this.segmentBytes);
    return { seq: this.spareSeq, fd, size: this.segmentBytes };
  }

  private checkpoint(): Checkpoint {
    const position = this.log.first - 1;
    return this.hard ? { h: this.hard, c: position } : { c: position };
  }

  private async removeSegmentsBefore(keep: number): Promise<void> {
    const doomed = this.segments.filter((seq) => seq < keep);
    if (doomed.length === 0) return;
    await removeSegments(this.dir, doomed);
    this.segments = this.segments.filter((seq) => seq >= keep);
  }

  private async failOnError<T>(io: Promise<T>): Promise<T> {
    try {
      return await io;
    } catch (error) {
      this.failure ??= error as Error;
      throw error;
    }
  }

  private mutate(write: () => Promise<void>): Promise<void> {
    return this.enqueue(async () => {
      if (this.failure) throw new Error(`raft store refuses writes after a failed write: ${this.failure.message}`);
      await write();
    });
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    return this.queue.run(job);
  }

  private assertOpen(): void {
    if (this.closed) throw closedError();
  }
}

const closedError = () => new Error('raft store is closed');

/** Creates the directory, syncing each parent that gained an entry, so a crash cannot lose the log's directory. */
async function makeDirectory(dir: string): Promise<void> {
  const created = await mkdir(dir, { recursive: true });
  if (created === undefined) return;
  for (let path = resolve(dir); ; path = dirname(path)) {
    await syncDirectory(dirname(path));
    if (path === resolve(created) || path === dirname(path)) return;
  }
}

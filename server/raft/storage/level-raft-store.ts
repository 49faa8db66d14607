// The raft log and hard state in one LevelDB (<cluster.dataDir>/raft.db), so one fsync covers both. Layout:
//   log!<16-digit index>  an entry, JSON {index, term, type, data}; data dirs from single-voter-log.ts hold
//                         {term, command} here instead, read as normal entries
//   stable!hardState      {term, vote, commit}; older data dirs only have stable!term (a number)
//   stable!compacted      the last index compacted away, so an empty log keeps its position across restarts
// Every write is synced before it resolves, because the messages that depend on it are sent next.
import { Level } from 'level';
import { writeBatch, type LevelOperation } from '../../store/level-batch.ts';
import type { Entry, HardState } from '../core/types.ts';
import type { RaftStore } from './raft-storage.ts';
import { checkAppend, checkCompact, checkHardState, copyHardState } from './store-rules.ts';
import { SerialQueue } from './serial-queue.ts';

const logPrefix = 'log!';
const logEnd = 'log!~';
const hardStateKey = 'stable!hardState';
const legacyTermKey = 'stable!term';
const compactedKey = 'stable!compacted';
/** Deletes per batch when compacting or resetting a long log, to bound the memory a single batch takes. */
const deleteChunk = 4096;

export const entryKey = (index: number): string => `${logPrefix}${index.toString().padStart(16, '0')}`;

type Operation = LevelOperation;

export class LevelRaftStore implements RaftStore {
  private closed = false;
  /** Writes run one at a time: each computes its deletes from the cached bounds the previous one left. */
  private readonly writes = new SerialQueue();

  private constructor(
    private readonly db: Level<string, unknown>,
    /** Cached bounds; the log is empty when first === last + 1. */
    private first: number,
    private last: number,
  ) {}

  static async open(path: string): Promise<LevelRaftStore> {
    const db = new Level<string, unknown>(path, { valueEncoding: 'json' });
    await db.open();
    try {
      let first: number | undefined;
      let last: number | undefined;
      for await (const key of db.keys({ gte: logPrefix, lt: logEnd, limit: 1 })) first = indexOf(key);
      for await (const key of db.keys({ gte: logPrefix, lt: logEnd, limit: 1, reverse: true })) last = indexOf(key);
      if (first === undefined || last === undefined) {
        const compacted = await db.get(compactedKey);
        const position = compacted === undefined ? 0 : Number(compacted);
        if (!Number.isSafeInteger(position) || position < 0) throw new Error(`raft.db: ${compactedKey} holds ${JSON.stringify(compacted)}`);
        return new LevelRaftStore(db, position + 1, position);
      }
      return new LevelRaftStore(db, first, last);
    } catch (error) {
      await db.close();
      throw error;
    }
  }

  async firstIndex(): Promise<number> {
    this.assertOpen();
    return this.first;
  }

  async lastIndex(): Promise<number> {
    this.assertOpen();
    return this.last;
  }

  async entries(from: number, to: number): Promise<Entry[]> {
    this.assertOpen();
    const start = Math.max(Math.ceil(from), this.first);
    const end = Math.min(Math.floor(to), this.last);
    if (start > end) return [];
    const entries: Entry[] = [];
    for await (const [key, value] of this.db.iterator({ gte: entryKey(start), lte: entryKey(end) })) {
      entries.push(decodeEntry(key, value));
    }
    return entries;
  }

  append(entries: readonly Entry[]): Promise<void> {
    return this.persist(entries, undefined);
  }

  persist(entries: readonly Entry[], state: HardState | undefined, options: { sync?: boolean } = {}): Promise<void> {
    const sync = options.sync ?? true;
    return this.serialise(async () => {
      if (state) checkHardState(state);
      if (entries.length === 0) {
        if (state) await this.db.put(hardStateKey, copyHardState(state), { sync });
        return;
      }
      checkAppend(entries, this.first, this.last);
      const start = entries[0]!.index;
      const end = entries[entries.length - 1]!.index;
      const empty = this.first > this.last;
      // Keys the new entries overwrite need no delete; only a longer conflicting tail beyond them does.
      const operations: Operation[] = [];
      for (let index = Math.max(this.first, end + 1); !empty && index <= this.last; index++) {
        operations.push({ type: 'del', key: entryKey(index) });
      }
      for (const entry of entries) {
        operations.push({ type: 'put', key: entryKey(entry.index), value: { index: entry.index, term: entry.term, type: entry.type, data: entry.data } });
      }
      if (state) operations.push({ type: 'put', key: hardStateKey, value: copyHardState(state) });
      await writeBatch(this.db, operations, { sync: true });
      this.first = empty ? start : Math.min(this.first, start);
      this.last = end;
    });
  }

  compact(index: number): Promise<void> {
    return this.serialise(async () => {
      checkCompact(index);
      if (index < this.first) return;
      await this.deleteFromFront(Math.min(index, this.last), { type: 'put', key: compactedKey, value: index });
      this.first = index + 1;
      this.last = Math.max(this.last, index);
    });
  }

  reset(): Promise<void> {
    return this.serialise(async () => {
      await this.deleteFromFront(this.last, { type: 'del', key: compactedKey });
      this.first = 1;
      this.last = 0;
    });
  }

  async hardState(): Promise<HardState | undefined> {
    this.assertOpen();
    const stored = await this.db.get(hardStateKey);
    if (stored !== undefined) return decodeHardState(stored);
    const legacyTerm = await this.db.get(legacyTermKey);
    if (legacyTerm === undefined) return undefined;
    // A single-voter data dir: it only ever voted for itself, and nothing is known committed until raft says so.
    return decodeHardState({ term: legacyTerm, vote: null, commit: 0 });
  }

  setHardState(state: HardState): Promise<void> {
    return this.serialise(async () => {
      checkHardState(state);
      await this.db.put(hardStateKey, copyHardState(state), { sync: true });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes.idle();
    await this.db.close();
  }

  /**
   * Deletes entries first..to in chunks, oldest first, with `final` in the last batch. A crash between chunks leaves
   * a shorter log that is still contiguous; the cached first index follows each chunk so a failure leaves it right.
   */
  private async deleteFromFront(to: number, final: Operation): Promise<void> {
    let from = this.first;
    do {
      const chunkEnd = Math.min(to, from + deleteChunk - 1);
      const operations: Operation[] = [];
      for (let index = from; index <= chunkEnd; index++) operations.push({ type: 'del', key: entryKey(index) });
      if (chunkEnd >= to) operations.push(final);
      await writeBatch(this.db, operations, { sync: true });
      from = chunkEnd + 1;
      if (from <= this.last) this.first = from;
    } while (from <= to);
  }

  /** Writes accepted before close() still complete: close waits for them. */
  private serialise(write: () => Promise<void>): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    return this.writes.run(write);
  }

  private assertOpen(): void {
    if (this.closed) throw closedError();
  }
}

const closedError = () => new Error('raft store is closed');

function indexOf(key: string): number {
  const index = Number(key.slice(logPrefix.length));
  if (!Number.isSafeInteger(index) || index < 1) throw new Error(`raft.db: malformed log key ${JSON.stringify(key)}`);
  return index;
}

function decodeEntry(key: string, value: unknown): Entry {
  const index = indexOf(key);
  const stored = value as { term?: unknown; type?: unknown; data?: unknown; command?: unknown } | null;
  if (typeof stored !== 'object' || stored === null || typeof stored.term !== 'number') {
    throw new Error(`raft.db: ${key} holds ${JSON.stringify(value)}, not a log entry`);
  }
  if (typeof stored.type === 'string') return { index, term: stored.term, type: stored.type as Entry['type'], data: stored.data };
  // Written by single-voter-log.ts: every entry there is a state machine command.
  if ('command' in stored) return { index, term: stored.term, type: 'normal', data: stored.command };
  throw new Error(`raft.db: ${key} holds ${JSON.stringify(value)}, not a log entry`);
}

function decodeHardState(value: unknown): HardState {
  const state = value as HardState;
  try {
    checkHardState(state);
  } catch (error) {
    throw new Error(`raft.db: stored hard state ${JSON.stringify(value)} is invalid: ${(error as Error).message}`);
  }
  return copyHardState(state);
}

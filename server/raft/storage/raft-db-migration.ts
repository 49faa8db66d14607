// Opens <dataDir>/raft.db as a WalRaftStore, first migrating a LevelDB raft.db (any earlier release's, including
// the first release's {term, command} entries that LevelRaftStore reads) into a write-ahead log. The WAL is built
// beside it in <path>.wal-migration and swapped in by two renames, so a crash at any point leaves either the LevelDB
// to migrate again or the finished WAL:
//   crash while building       the LevelDB is still at <path>; the partial .wal-migration is discarded and redone
//   crash between the renames  <path> is missing; the set-aside <path>.leveldb-<ms> is moved back and redone
//   crash before the cleanup   <path> is the WAL; the set-aside LevelDB is removed on the next open
import { access, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Entry } from '../core/types.ts';
import { LevelRaftStore } from './level-raft-store.ts';
import { WalRaftStore, type WalRaftStoreOptions } from './wal-raft-store.ts';
import { syncDirectory } from './wal-segments.ts';

export interface OpenRaftStoreOptions extends WalRaftStoreOptions {
  /** Names the LevelDB directory set aside during a migration (`<path>.leveldb-<unix ms>`). */
  readonly now?: () => number;
  /** Told once a LevelDB raft.db has been migrated, with the entries it held. */
  readonly onMigrated?: (migrated: { firstIndex: number; lastIndex: number }) => void;
}

const stagingSuffix = '.wal-migration';
const setAsidePrefix = '.leveldb-';
/** Entries per migrated record are capped near this many bytes of JSON, so no record needs a huge buffer. */
const maxRecordBytes = 1 << 20;
/** Entries read from LevelDB at a time. */
const readChunk = 1024;

export async function openRaftStore(path: string, options: OpenRaftStoreOptions = {}): Promise<WalRaftStore> {
  const { now = Date.now, onMigrated, ...storeOptions } = options;
  await restoreSetAside(path);
  if (await exists(join(path, 'CURRENT'))) {
    const migrated = await migrate(path, storeOptions, now);
    onMigrated?.(migrated);
  } else {
    await removeLeftovers(path);
  }
  return WalRaftStore.open(path, storeOptions);
}

async function migrate(path: string, options: WalRaftStoreOptions, now: () => number): Promise<{ firstIndex: number; lastIndex: number }> {
  const staging = path + stagingSuffix;
  await rm(staging, { recursive: true, force: true });
  const level = await LevelRaftStore.open(path);
  let bounds: { firstIndex: number; lastIndex: number };
  try {
    const wal = await WalRaftStore.open(staging, options);
    try {
      await copyLog(level, wal);
      bounds = { firstIndex: await wal.firstIndex(), lastIndex: await wal.lastIndex() };
    } finally {
      await wal.close();
    }
  } finally {
    await level.close();
  }
  const setAside = `${path}${setAsidePrefix}${now()}`;
  await rename(path, setAside);
  await rename(staging, path);
  await syncDirectory(dirname(path));
  await rm(setAside, { recursive: true, force: true });
  return bounds;
}

/** Hard state, then the compacted position, then the entries in records of about 1 MiB. */
async function copyLog(level: LevelRaftStore, wal: WalRaftStore): Promise<void> {
  const hardState = await level.hardState();
  if (hardState) await wal.setHardState(hardState);
  const first = await level.firstIndex();
  const last = await level.lastIndex();
  if (first > 1) await wal.compact(first - 1);
  let batch: Entry[] = [];
  let bytes = 0;
  for (let from = first; from <= last; from += readChunk) {
    for (const entry of await level.entries(from, Math.min(last, from + readChunk - 1))) {
      const size = JSON.stringify(entry).length;
      if (batch.length > 0 && bytes + size > maxRecordBytes) {
        await wal.append(batch);
        batch = [];
        bytes = 0;
      }
      batch.push(entry);
      bytes += size;
    }
  }
  if (batch.length > 0) await wal.append(batch);
  // A gap in the LevelDB log fails the append above; a missing tail would fail here.
  if ((await wal.lastIndex()) !== last || (await wal.firstIndex()) !== first) {
    throw new Error(`raft.db migration: the LevelDB log holds ${first}..${last}, the copy ${await wal.firstIndex()}..${await wal.lastIndex()}`);
  }
}

/** A crash between the two renames left no <path>: put the LevelDB back so the migration runs again. */
async function restoreSetAside(path: string): Promise<void> {
  if (await exists(path)) return;
  const newest = (await setAsideDirs(path)).at(-1);
  if (newest === undefined) return;
  await rename(join(dirname(path), newest), path);
  await syncDirectory(dirname(path));
}

/** <path> is a WAL: whatever a finished migration did not get to remove goes now. */
async function removeLeftovers(path: string): Promise<void> {
  const parent = dirname(path);
  for (const name of [...(await setAsideDirs(path)), basename(path) + stagingSuffix]) {
    await rm(join(parent, name), { recursive: true, force: true });
  }
}

/** Set-aside LevelDB directories of `path`, oldest first. */
async function setAsideDirs(path: string): Promise<string[]> {
  const prefix = basename(path) + setAsidePrefix;
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)));
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

// What the raft data takes on disk: bytes under <dataDir>/raft.db and <dataDir>/snapshots, and the newest snapshot
// file's index, size and time. Measured asynchronously and cached: a scrape reads the last measurement and, when
// it is older than the refresh interval, starts the next one in the background (never more than one at a time),
// so /metrics never waits on the disk and an unscraped controller does no work.
import type { Dirent } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { snapshotFileMeta } from '../raft/storage/file-snapshot-store.ts';

export interface NewestSnapshot {
  readonly index: number;
  readonly term: number;
  readonly bytes: number;
  /** Unix time (seconds) the file was last written. */
  readonly writtenAtSeconds: number;
}

export interface DataDirUsage {
  readonly raftLogBytes: number;
  readonly snapshotsBytes: number;
  /** Undefined before the first snapshot. */
  readonly newestSnapshot: NewestSnapshot | undefined;
}

export const emptyUsage: DataDirUsage = Object.freeze({ raftLogBytes: 0, snapshotsBytes: 0, newestSnapshot: undefined });

export interface DataDirUsageOptions {
  /** A measurement younger than this is served as is (default 10 s). */
  readonly refreshMs?: number;
  /** Monotonic milliseconds (default performance.now). */
  readonly now?: () => number;
}

export class DataDirUsageCache {
  private usage: DataDirUsage = emptyUsage;
  private measuredAt = Number.NEGATIVE_INFINITY;
  private running: Promise<void> | undefined;
  private readonly refreshMs: number;
  private readonly now: () => number;

  constructor(
    private readonly dataDir: string,
    options: DataDirUsageOptions = {},
  ) {
    this.refreshMs = options.refreshMs ?? 10_000;
    this.now = options.now ?? (() => performance.now());
  }

  /** The last measurement, at once; starts the next one when this one is stale. */
  current(): DataDirUsage {
    if (this.running === undefined && this.now() - this.measuredAt >= this.refreshMs) void this.refresh();
    return this.usage;
  }

  /** Measures now (or joins the measurement already running). A failed measurement keeps the previous one. */
  refresh(): Promise<void> {
    this.running ??= measure(this.dataDir)
      .then(
        (usage) => {
          this.usage = usage;
        },
        () => undefined,
      )
      .finally(() => {
        this.measuredAt = this.now();
        this.running = undefined;
      });
    return this.running;
  }
}

async function measure(dataDir: string): Promise<DataDirUsage> {
  const snapshotsDir = join(dataDir, 'snapshots');
  const [raftLogBytes, snapshotsBytes, newestSnapshot] = await Promise.all([treeBytes(join(dataDir, 'raft.db')), treeBytes(snapshotsDir), newestSnapshotIn(snapshotsDir)]);
  return { raftLogBytes, snapshotsBytes, newestSnapshot };
}

/** Bytes of every file under `dir` (0 when it does not exist); symbolic links are not followed. */
async function treeBytes(dir: string): Promise<number> {
  const entries = await entriesOf(dir);
  let total = 0;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await treeBytes(path);
    else if (entry.isFile()) total += await lstat(path).then((info) => info.size, () => 0);
  }
  return total;
}

async function newestSnapshotIn(dir: string): Promise<NewestSnapshot | undefined> {
  let newest: { name: string; index: number; term: number } | undefined;
  for (const entry of await entriesOf(dir)) {
    const meta = entry.isFile() ? snapshotFileMeta(entry.name) : undefined;
    if (meta && (!newest || meta.index > newest.index || (meta.index === newest.index && meta.term > newest.term))) newest = { name: entry.name, ...meta };
  }
  if (!newest) return undefined;
  // Pruned between the listing and now: the next measurement sees the newer set.
  const info = await stat(join(dir, newest.name)).catch(() => undefined);
  return info ? { index: newest.index, term: newest.term, bytes: info.size, writtenAtSeconds: Math.floor(info.mtimeMs / 1000) } : undefined;
}

async function entriesOf(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

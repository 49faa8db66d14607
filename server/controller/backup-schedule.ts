// `cluster.backup`: every interval (the first one an interval after start, each a little later at random so the
// members of a cluster do not all write at once) the controller writes an online backup of the model into the
// backup folder, then deletes the oldest `model-*.json` files there beyond `retain`. A failed backup or delete is
// logged and the schedule goes on; it never stops the controller. A driver: the timers, the randomness and the
// folder are injected so a test can run it step by step.
import { mkdirSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../common/log/logger.ts';
import { isBackupFileName } from '../store/model-backup-file.ts';

/** What the schedule asks of the database admin (server/edge/database-admin.ts). */
export interface ScheduledSnapshotter {
  snapshot(options: { dir: string; trigger: 'schedule' }): Promise<{ readonly path: string }>;
}

export interface BackupTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The backup folder as the retention sees it. */
export interface BackupFolder {
  /** Names of the folder's entries, each with its modification time (ms). */
  list(dir: string): Promise<ReadonlyArray<{ readonly name: string; readonly modifiedMs: number }>>;
  remove(path: string): Promise<void>;
}

export interface BackupScheduleOptions {
  /** Milliseconds between backups; 0: no schedule. */
  readonly intervalMs: number;
  readonly dir: string;
  /** Scheduled backups kept (at least 1). */
  readonly retain: number;
  readonly database: ScheduledSnapshotter;
  readonly logger: Logger;
  readonly timers?: BackupTimers;
  /** In [0, 1); the share of the jitter added to each wait. */
  readonly random?: () => number;
  readonly folder?: BackupFolder;
}

/** The most a wait is stretched at random: a tenth of the interval, at most a minute. */
export function backupJitterMs(intervalMs: number): number {
  return Math.min(Math.floor(intervalMs / 10), 60_000);
}


const systemTimers: BackupTimers = {
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

const diskFolder: BackupFolder = {
  async list(dir) {
    const entries = await readdir(dir, { withFileTypes: true });
    const files = entries.filter((entry) => entry.isFile() && isBackupFileName(entry.name));
    return Promise.all(files.map(async (entry) => ({ name: entry.name, modifiedMs: (await stat(join(dir, entry.name))).mtimeMs })));
  },
  remove: (path) => rm(path),
};

/** Starts the schedule (nothing when the interval is 0); the returned function stops it and waits for a backup in progress. */
export function startBackupSchedule(options: BackupScheduleOptions): () => Promise<void> {
  const { intervalMs, dir, retain, database, logger } = options;
  if (intervalMs <= 0) {
    logger.info('backup schedule off', { interval: 0 });
    return async () => undefined;
  }
  const timers = options.timers ?? systemTimers;
  const random = options.random ?? Math.random;
  const folder = options.folder ?? diskFolder;
  // Made now so that a folder that cannot be made shows in the log at start, not hours later.
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    logger.warn('backup folder not created', { dir, error: (error as Error).message });
  }
  let stopped = false;
  let handle: unknown;
  let running: Promise<void> | undefined;

  const backUp = async (): Promise<void> => {
    try {
      const written = await database.snapshot({ dir, trigger: 'schedule' });
      logger.info('scheduled backup written', { path: written.path });
    } catch (error) {
      logger.warn('scheduled backup failed', { dir, error: (error as Error).message });
      return;
    }
    await pruneOldBackups(folder, dir, retain, logger);
  };
  const arm = () => {
    if (stopped) return;
    handle = timers.setTimeout(() => {
      running = backUp().finally(() => {
        running = undefined;
        arm();
      });
    }, intervalMs + Math.floor(random() * backupJitterMs(intervalMs)));
  };
  logger.info('backup schedule started', { dir, intervalMs, retain });
  arm();
  return async () => {
    stopped = true;
    timers.clearTimeout(handle);
    await running;
  };
}

/** Deletes the oldest backups beyond `retain` (by modification time, then name): only files named as backups are
 * (model-<index>-<time>.json), nothing else in the folder; a failed delete is logged. */
async function pruneOldBackups(folder: BackupFolder, dir: string, retain: number, logger: Logger): Promise<void> {
  let files;
  try {
    files = (await folder.list(dir)).filter((file) => isBackupFileName(file.name));
  } catch (error) {
    logger.warn('old backup not deleted', { dir, error: (error as Error).message });
    return;
  }
  const newestFirst = [...files].sort((a, b) => b.modifiedMs - a.modifiedMs || b.name.localeCompare(a.name));
  for (const file of newestFirst.slice(retain)) {
    const path = join(dir, file.name);
    try {
      await folder.remove(path);
      logger.info('old backup deleted', { path });
    } catch (error) {
      logger.warn('old backup not deleted', { path, error: (error as Error).message });
    }
  }
}

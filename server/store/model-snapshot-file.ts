// A snapshot of the model on disk (`POST /database/snapshot`; the disaster-recovery tooling reads it back): every
// table's rows and the raft index they were applied up to, taken in one synchronous step (applies run on the same
// thread, so no apply lands half-way), written to a temporary file, synced, and renamed into place, so a crash
// leaves either the whole snapshot or none. Named `model-<index>-<time>.json` under the snapshot folder.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Row } from './entity-table.ts';

export const modelSnapshotFormat = 'edgeward-model-snapshot/1';

export interface ModelSnapshot {
  readonly format: typeof modelSnapshotFormat;
  readonly appliedIndex: number;
  /** RFC 3339: when it was taken. */
  readonly takenAt: string;
  readonly tables: Readonly<Record<string, readonly Row[]>>;
}

/** Writes the snapshot atomically into `dir` (made if needed, mode 0700); answers its path. */
export function writeModelSnapshot(dir: string, rows: { appliedIndex: number; tables: Record<string, Row[]> }, takenAtMs: number): string {
  const takenAt = new Date(takenAtMs).toISOString();
  const snapshot: ModelSnapshot = { format: modelSnapshotFormat, appliedIndex: rows.appliedIndex, takenAt, tables: rows.tables };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `model-${rows.appliedIndex}-${takenAt.replace(/[:.]/g, '-')}.json`);
  const temporary = `${path}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(snapshot));
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, path);
  const folder = openSync(dir, 'r');
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
  return path;
}

/** Reads a snapshot written by writeModelSnapshot; anything else is an error naming the file. */
export function readModelSnapshot(path: string): ModelSnapshot {
  const data = JSON.parse(readFileSync(path, 'utf8')) as Partial<ModelSnapshot> | null;
  if (!data || data.format !== modelSnapshotFormat || typeof data.appliedIndex !== 'number' || typeof data.tables !== 'object' || data.tables === null) {
    throw new Error(`${path} is not an edgeward model snapshot`);
  }
  return data as ModelSnapshot;
}

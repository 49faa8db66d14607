// Rotated event files, named and pruned as lumberjack (the real controller's file handler) does: the full file is
// renamed to `<name>-<UTC time>.<ext>` beside it, time written 2006-01-02T15-04-05.000, and when `maxbackups` is
// above 0 only that many of the newest rotated files are kept (0 keeps them all). Pure: names in, names out.
import { basename, extname } from 'node:path';

const stamp = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}$/;

function parts(path: string): { prefix: string; ext: string } {
  const name = basename(path);
  const ext = extname(name);
  return { prefix: `${name.slice(0, name.length - ext.length)}-`, ext };
}

/** The file name (no folder) a file at `path` is renamed to when it is rotated at `at`. */
export function rotatedName(path: string, at: Date): string {
  const { prefix, ext } = parts(path);
  const time = at.toISOString().slice(0, 23).replace(/:/g, '-');
  return `${prefix}${time}${ext}`;
}

/** Of the names in the file's folder, those that are its rotated files, oldest first. */
export function rotatedFiles(path: string, names: readonly string[]): string[] {
  const { prefix, ext } = parts(path);
  return names
    .filter((name) => name.startsWith(prefix) && name.endsWith(ext) && stamp.test(name.slice(prefix.length, name.length - ext.length)))
    .sort();
}

/** The rotated files to delete so that at most `maxBackups` remain (none when `maxBackups` is 0: keep all). */
export function backupsToRemove(path: string, names: readonly string[], maxBackups: number): string[] {
  if (maxBackups <= 0) return [];
  const rotated = rotatedFiles(path, names);
  return rotated.slice(0, Math.max(0, rotated.length - maxBackups));
}

// A backup of the model on disk (`POST /database/snapshot`, `agent controller snapshot`, the backup schedule) and
// its reader (`controller restore`). One JSON document per line, so neither side holds the whole file as one string:
//   line 1      the header: format, edgeward version, cluster id, trust domain, controller, raft index and term,
//               when, and each table's row count;
//   lines 2..n  {"table": name, "rows": [...]}, at most `rowsPerLine` rows each;
//   last line   {"end": true, "sha256": <hex>}: the SHA-256 of every byte before it.
// A file without that last line was cut short; one whose checksum or row counts disagree was damaged. The writer
// serializes a bounded number of rows at a time and awaits each write, so a large model never holds the event loop
// for long; it writes a temporary file, syncs it, renames it into place and syncs the folder: a crash leaves the
// whole backup or none. The rows it is given must not change while it runs (the model's rows are replaced, never
// edited in place, so a list of them taken in one step stays a consistent copy).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Row } from './entity-table.ts';

export const backupFormat = 'edgeward-backup/2';
/** The first release's snapshot format: recognised so that restore can say what it is. */
const firstReleaseFormat = 'edgeward-model-snapshot/1';
const rowsPerLine = 500;
/** A line longer than this is not one edgeward wrote (500 rows of a few kilobytes each at most). */
const maxLineBytes = 256 * 1024 * 1024;

export interface BackupHeader {
  readonly format: typeof backupFormat;
  readonly edgewardVersion: string;
  readonly clusterId: string;
  readonly trustDomain: string;
  readonly controllerId: string;
  /** The raft index the model was applied up to, and that entry's term. */
  readonly index: number;
  readonly term: number;
  /** RFC 3339. */
  readonly takenAt: string;
  /** Rows per table. */
  readonly tables: Readonly<Record<string, number>>;
}

export interface BackupContents {
  readonly header: BackupHeader;
  readonly tables: Record<string, Row[]>;
  readonly sizeBytes: number;
  readonly sha256: string;
}

export interface BackupFileWritten {
  readonly path: string;
  readonly sizeBytes: number;
  readonly sha256: string;
}

/** Why a file is not a backup this edgeward can restore. */
export type BackupProblem = 'unreadable' | 'not-a-backup' | 'wrong-format' | 'truncated' | 'corrupt';

export class BackupFileError extends Error {
  constructor(
    readonly problem: BackupProblem,
    message: string,
  ) {
    super(message);
    this.name = 'BackupFileError';
  }
}

/** `model-<index>-<time>.json`: sorts by index, then time. */
export function backupFileName(index: number, takenAt: string): string {
  return `model-${index}-${takenAt.replace(/[:.]/g, '-')}.json`;
}

/** True for the names backupFileName makes (what a retention sweep may delete). */
export function isBackupFileName(name: string): boolean {
  return /^model-\d+-[0-9TZ-]+\.json$/.test(name);
}

/** Writes the backup to `path` atomically (its folder made if needed, mode 0700; the file 0600). */
export async function writeBackupFile(path: string, header: Omit<BackupHeader, 'format' | 'tables'>, tables: Readonly<Record<string, readonly Row[]>>): Promise<BackupFileWritten> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await removeAbandonedTemporaries(folder);
  const temporary = join(folder, `.${basename(path)}.${process.pid}.tmp`);
  const hash = createHash('sha256');
  const file = await open(temporary, 'w', 0o600);
  let sizeBytes = 0;
  const write = async (line: string) => {
    const bytes = Buffer.from(`${line}\n`, 'utf8');
    hash.update(bytes);
    sizeBytes += bytes.length;
    await file.write(bytes);
  };
  try {
    const counts = Object.fromEntries(Object.entries(tables).map(([name, rows]) => [name, rows.length]));
    await write(JSON.stringify({ format: backupFormat, ...header, tables: counts }));
    for (const [name, rows] of Object.entries(tables)) {
      for (let start = 0; start < rows.length; start += rowsPerLine) {
        await write(JSON.stringify({ table: name, rows: rows.slice(start, start + rowsPerLine) }));
      }
    }
    const sha256 = hash.digest('hex');
    const trailer = Buffer.from(`${JSON.stringify({ end: true, sha256 })}\n`, 'utf8');
    await file.write(trailer);
    sizeBytes += trailer.length;
    await file.sync();
    await file.close();
    await rename(temporary, path);
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    return { path, sizeBytes, sha256 };
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Temporary files of writers that died (a crash, a kill) mid-backup: each names its writer's process id. */
async function removeAbandonedTemporaries(folder: string): Promise<void> {
  for (const name of await readdir(folder)) {
    const match = /^\.model-.+\.(\d+)\.tmp$/.exec(name);
    if (!match || isRunning(Number(match[1]))) continue;
    await rm(join(folder, name), { force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The newest backup in `folder` by its header's time (only the first line of each is read): what a starting
 * controller reports as its last backup. Undefined when the folder holds none it can read. */
export async function newestBackupIn(folder: string): Promise<{ readonly path: string; readonly takenAt: string; readonly sizeBytes: number } | undefined> {
  let names: string[];
  try {
    names = (await readdir(folder)).filter(isBackupFileName);
  } catch {
    return undefined;
  }
  let newest: { path: string; takenAt: string; sizeBytes: number } | undefined;
  for (const name of names) {
    const path = join(folder, name);
    const header = await readFirstLine(path).catch(() => undefined);
    const takenAt = header?.format === backupFormat && typeof header.takenAt === 'string' ? header.takenAt : undefined;
    if (!takenAt || Number.isNaN(Date.parse(takenAt))) continue;
    if (newest && Date.parse(newest.takenAt) >= Date.parse(takenAt)) continue;
    newest = { path, takenAt, sizeBytes: (await stat(path)).size };
  }
  return newest;
}

/** The first line of a file (at most 64 KiB of it), parsed as JSON. */
async function readFirstLine(path: string): Promise<{ format?: unknown; takenAt?: unknown } | undefined> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    const end = buffer.subarray(0, bytesRead).indexOf(10);
    return end < 0 ? undefined : (JSON.parse(buffer.subarray(0, end).toString('utf8')) as { format?: unknown; takenAt?: unknown });
  } finally {
    await file.close();
  }
}

/** Reads and checks a whole backup: any problem is a BackupFileError naming the file and what is wrong. */
export async function readBackupFile(path: string): Promise<BackupContents> {
  const hash = createHash('sha256');
  const tables: Record<string, Row[]> = {};
  let header: BackupHeader | undefined;
  let trailer: { sha256: string } | undefined;
  let lineNumber = 0;
  let sizeBytes = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const fail = (problem: BackupProblem, why: string): never => {
    throw new BackupFileError(problem, `${path}: ${why}`);
  };
  const takeLine = (bytes: Buffer) => {
    lineNumber += 1;
    if (trailer) fail('corrupt', `data after the end mark (line ${lineNumber})`);
    const text = bytes.toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (lineNumber === 1) {
      header = checkHeader(value, fail);
      hash.update(bytes).update('\n');
      return;
    }
    const record = value as { end?: unknown; sha256?: unknown; table?: unknown; rows?: unknown } | undefined;
    if (record && record.end === true && typeof record.sha256 === 'string') {
      trailer = { sha256: record.sha256 };
      return;
    }
    hash.update(bytes).update('\n');
    if (!record || typeof record.table !== 'string' || !Array.isArray(record.rows)) return fail('corrupt', `line ${lineNumber} is not a table's rows`);
    if (!Object.hasOwn(header!.tables, record.table)) return fail('corrupt', `line ${lineNumber} holds rows of table ${record.table}, which the header does not list`);
    const rows = (tables[record.table] ??= []);
    for (const row of record.rows as unknown[]) {
      if (!row || typeof row !== 'object' || typeof (row as Row).id !== 'string') return fail('corrupt', `line ${lineNumber} holds a row without an id`);
      rows.push(row as Row);
    }
  };
  let stream: AsyncIterable<Buffer>;
  try {
    stream = createReadStream(path);
    for await (const chunk of stream) {
      sizeBytes += chunk.length;
      let from = 0;
      for (let newline = chunk.indexOf(10, from); newline >= 0; newline = chunk.indexOf(10, from)) {
        pending.push(chunk.subarray(from, newline));
        takeLine(Buffer.concat(pending));
        pending = [];
        pendingBytes = 0;
        from = newline + 1;
      }
      if (from < chunk.length) {
        pending.push(chunk.subarray(from));
        pendingBytes += chunk.length - from;
        if (pendingBytes > maxLineBytes) fail(lineNumber === 0 ? 'not-a-backup' : 'corrupt', `line ${lineNumber + 1} is longer than ${maxLineBytes} bytes`);
      }
    }
  } catch (error) {
    if (error instanceof BackupFileError) throw error;
    return fail('unreadable', (error as Error).message);
  }
  if (lineNumber === 0 && pendingBytes > 0) {
    // One line and no newline: the first release's single-document snapshot, or not a backup at all.
    takeLine(Buffer.concat(pending));
    pending = [];
  }
  if (!header) return fail('not-a-backup', 'the file is empty');
  if (!trailer) return fail('truncated', `the file ends after ${sizeBytes} bytes without its end mark: it was cut short`);
  const sha256 = hash.digest('hex');
  if (sha256 !== trailer.sha256) return fail('corrupt', `checksum mismatch: the contents hash to ${sha256}, the file says ${trailer.sha256}`);
  for (const [name, count] of Object.entries(header.tables)) {
    const found = tables[name]?.length ?? 0;
    if (found !== count) fail('corrupt', `table ${name} holds ${found} rows, the header says ${count}`);
    tables[name] ??= [];
  }
  return { header, tables, sizeBytes, sha256 };
}

function checkHeader(value: unknown, fail: (problem: BackupProblem, why: string) => never): BackupHeader {
  const header = value as Partial<BackupHeader> & { format?: unknown } | undefined;
  if (!header || typeof header !== 'object' || typeof header.format !== 'string') return fail('not-a-backup', 'this is not an edgeward backup (no format header on its first line)');
  if ((header.format as string) === firstReleaseFormat) return fail('wrong-format', `this is a ${firstReleaseFormat} file of an earlier release; this edgeward restores ${backupFormat} backups (take a new one with agent controller snapshot)`);
  if (header.format !== backupFormat) return fail('wrong-format', `the backup's format is ${header.format}; this edgeward restores ${backupFormat}`);
  const numbers = ['index', 'term'] as const;
  for (const key of numbers) if (typeof header[key] !== 'number' || !Number.isSafeInteger(header[key]) || header[key] < 0) return fail('corrupt', `the header's ${key} is not a raft ${key}`);
  const strings = ['edgewardVersion', 'clusterId', 'trustDomain', 'controllerId', 'takenAt'] as const;
  for (const key of strings) if (typeof header[key] !== 'string') return fail('corrupt', `the header has no ${key}`);
  if (!header.tables || typeof header.tables !== 'object') return fail('corrupt', 'the header lists no tables');
  for (const [name, count] of Object.entries(header.tables)) if (!Number.isSafeInteger(count) || count < 0) fail('corrupt', `the header's row count of ${name} is not a count`);
  return header as BackupHeader;
}

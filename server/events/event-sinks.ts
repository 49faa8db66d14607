// Where events go: JSON lines appended to a file, or stdout. The events of one tick (an apply batch emits several)
// are gathered and appended in one write, made directly (a small append to the page cache costs microseconds)
// rather than through the thread pool, whose hand-off and wake-up cost the apply path more than the write itself.
// Nothing here is awaited on the apply path, and a failing write is reported, never thrown at the apply.
// A file that a write would take past `maxBytes` is rotated first (event-file-rotation.ts names and prunes).
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { backupsToRemove, rotatedName } from './event-file-rotation.ts';

export interface EventSink {
  write(event: Record<string, unknown>): void;
  close(): Promise<void>;
}

/** Told when an append fails (disk full, file removed from under a read-only mount…), once per failing run. */
export type EventSinkFailure = (error: Error) => void;

export interface EventFileRotation {
  /** Rotate before a write that would take the file past this size (the handler's `maxsizemb`). */
  readonly maxBytes: number;
  /** Rotated files to keep, newest first; 0 keeps them all (the handler's `maxbackups`). */
  readonly maxBackups: number;
  readonly now?: () => Date;
}

export function fileEventSink(path: string, onFailure: EventSinkFailure = () => undefined, rotation?: EventFileRotation): EventSink {
  mkdirSync(dirname(path), { recursive: true });
  let fd = openSync(path, 'a', 0o640);
  let size = fstatSync(fd).size;
  let pending: string[] = [];
  let closed = false;
  // Failing appends and failing rotations are each reported once per run of failures.
  let failing = false;
  let rotationFailing = false;
  const rotate = ({ maxBackups, now = () => new Date() }: EventFileRotation) => {
    const folder = dirname(path);
    let at = now();
    // Two rotations within a millisecond must not overwrite the first one's file.
    while (existsSync(join(folder, rotatedName(path, at)))) at = new Date(at.getTime() + 1);
    try {
      renameSync(path, join(folder, rotatedName(path, at)));
    } catch (error) {
      // Removed from under us (by hand or by another rotator): start a new file, as lumberjack does.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    // Should the new file fail to open, appends go on into the renamed one.
    const next = openSync(path, 'a', 0o640);
    closeSync(fd);
    fd = next;
    size = 0;
    for (const name of backupsToRemove(path, readdirSync(folder), maxBackups)) unlinkSync(join(folder, name));
  };
  const flush = () => {
    if (pending.length === 0 || closed) return;
    const text = pending.join('');
    pending = [];
    const bytes = Buffer.byteLength(text);
    if (rotation && size > 0 && size + bytes > rotation.maxBytes) {
      try {
        rotate(rotation);
        rotationFailing = false;
      } catch (error) {
        // Keep appending to the file we have: losing events is worse than a file past its size.
        if (!rotationFailing) onFailure(new Error(`rotation failed: ${(error as Error).message}`));
        rotationFailing = true;
      }
    }
    try {
      writeSync(fd, text);
      size += bytes;
      failing = false;
    } catch (error) {
      if (!failing) onFailure(error as Error);
      failing = true;
    }
  };
  return {
    write: (event) => {
      if (closed) return;
      if (pending.push(`${JSON.stringify(event)}\n`) === 1) setImmediate(flush);
    },
    close: async () => {
      if (closed) return;
      flush();
      closed = true;
      closeSync(fd);
    },
  };
}

export function stdoutEventSink(): EventSink {
  return {
    write: (event) => void process.stdout.write(`${JSON.stringify(event)}\n`),
    close: async () => undefined,
  };
}

// Follows one controller's event file by name: at first its last `backlogBytes` (recent events, without reading a
// large file whole), then what is appended. A rotated file (the name now points at another inode) or a truncated one
// is read again from its start; a file that does not exist yet is looked for again on every read. Lines longer than
// `maxLineBytes` are skipped; a partial last line waits for its newline. Never holds more than backlogBytes plus one
// line.

import { open, stat } from 'node:fs/promises';

export interface EventsFileReaderOptions {
  readonly backlogBytes: number;
  readonly maxLineBytes: number;
}

export class EventsFileReader {
  private inode: number | undefined;
  private offset = 0;
  private partial = '';
  /** Dropping the rest of an over-long line, up to its newline. */
  private skipping = false;
  /** Lines dropped for their length. */
  skippedLines = 0;
  lastError: string | undefined;

  constructor(
    readonly path: string,
    private readonly options: EventsFileReaderOptions,
  ) {}

  /** The complete lines written since the last call (at first, those of the backlog). */
  async readNew(): Promise<string[]> {
    let info;
    try {
      info = await stat(this.path);
    } catch (error) {
      this.lastError = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file does not exist (yet)' : (error as Error).message;
      return [];
    }
    this.lastError = undefined;
    const firstLook = this.inode === undefined;
    if (firstLook || info.ino !== this.inode || info.size < this.offset) {
      // First look: the backlog only. Rotated or truncated: the new file from its start.
      this.offset = firstLook ? Math.max(0, info.size - this.options.backlogBytes) : 0;
      this.partial = '';
      this.skipping = firstLook && this.offset > 0;
      this.inode = info.ino;
    }
    if (info.size - this.offset > this.options.backlogBytes) {
      // Too far behind (a burst of writes): skip to the backlog before the end, from the next line on.
      this.offset = info.size - this.options.backlogBytes;
      this.partial = '';
      this.skipping = true;
    }
    if (info.size === this.offset) return [];
    const length = info.size - this.offset;
    const buffer = Buffer.alloc(length);
    const handle = await open(this.path, 'r');
    let read = 0;
    try {
      while (read < length) {
        const { bytesRead } = await handle.read(buffer, read, length - read, this.offset + read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
    } finally {
      await handle.close();
    }
    this.offset += read;
    return this.split(buffer.subarray(0, read).toString('utf8'));
  }

  private split(text: string): string[] {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const newline = text.indexOf('\n', start);
      if (newline < 0) break;
      const piece = text.slice(start, newline);
      start = newline + 1;
      if (this.skipping) {
        this.skipping = false;
        this.partial = '';
        continue;
      }
      const line = this.partial + piece;
      this.partial = '';
      if (Buffer.byteLength(line) > this.options.maxLineBytes) this.skippedLines++;
      else if (line.trim() !== '') lines.push(line);
    }
    if (!this.skipping) {
      this.partial += text.slice(start);
      if (Buffer.byteLength(this.partial) > this.options.maxLineBytes) {
        this.skippedLines++;
        this.partial = '';
        this.skipping = true;
      }
    }
    return lines;
  }
}

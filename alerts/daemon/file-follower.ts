// Follows one file by name, the way `tail -F` does, and hands its bytes to a consumer in chunks. It survives
// rotation (the old file is read to its end first, then any copies rotated after it, then the new file from its
// start), truncation (read again from 0) and a file that appears later. Its position (device, inode and the end of
// the last complete line) is what the daemon persists; on restart it resumes there, and if that file was rotated
// meanwhile it is found among the rotated copies and finished first. The watcher only says when to look: every
// decision is taken from stat(), so a missed or merged event costs latency, never a line.

import { open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { Logger } from '../../common/log/logger.ts';
import { rotatedFiles } from './rotated-files.ts';
import type { FileIdentity, RotatedFile } from './rotated-files.ts';

export interface ChunkConsumer {
  consume(chunk: Buffer): void;
  /** Bytes after the last newline it has seen (an unfinished line). */
  readonly pendingBytes: number;
  /** Forget any unfinished line: the next bytes come from another file or from a new start. */
  reset(): void;
}

export interface SavedPosition extends FileIdentity {
  /** Byte offset of the end of the last complete line consumed. */
  readonly offset: number;
}

export interface FileFollowerOptions {
  /** With no saved position, where a file that exists at start is read from. */
  readonly initialPosition: 'end' | 'start';
  readonly chunkBytes: number;
  readonly logger: Logger;
}

/** How far back from the end to look for the last newline when starting at the end. */
const tailProbeBytes = 64 * 1024;

export class FileFollower {
  private handle: FileHandle | undefined;
  private identity: FileIdentity | undefined;
  private readOffset = 0;
  private started = false;
  private stopped = false;
  private running: Promise<void> | undefined;
  private again = false;
  private readonly buffer: Buffer;

  constructor(
    readonly path: string,
    private readonly consumer: ChunkConsumer,
    private readonly options: FileFollowerOptions,
    private saved?: SavedPosition,
  ) {
    this.buffer = Buffer.allocUnsafe(options.chunkBytes);
  }

  /** Where a restart should resume; the saved position until a file has been opened. */
  position(): SavedPosition | undefined {
    if (!this.identity) return this.saved;
    return { ...this.identity, offset: Math.max(0, this.readOffset - this.consumer.pendingBytes) };
  }

  /** Reads whatever is new; calls made while a read is running coalesce into one more pass. */
  poke(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running?.catch(() => undefined);
    await this.close();
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.pass();
      } catch (error) {
        this.options.logger.warn('reading a followed file failed; trying again on the next change', { path: this.path, error: (error as Error).message });
        return;
      }
    } while (this.again && !this.stopped);
  }

  private async pass(): Promise<void> {
    if (!this.started) {
      await this.resume();
      this.started = true;
    }
    // Each turn handles one rotation or truncation; more than a few in one pass means the file is churning.
    for (let turn = 0; turn < 16 && !this.stopped; turn++) {
      if (this.handle) await this.drain();
      const current = await statOf(this.path);
      // Removed by hand: the writer keeps writing to the removed file until it rotates, so keep reading that.
      if (!current) return;
      if (!this.handle) {
        await this.openAt(this.path, 0);
        continue;
      }
      if (!sameFile(current, this.identity)) {
        await this.followRotation(current);
        continue;
      }
      if (current.size < this.readOffset) {
        this.options.logger.info('followed file was truncated; reading it from the start', { path: this.path, size: current.size, offset: this.readOffset });
        this.consumer.reset();
        this.readOffset = 0;
        continue;
      }
      return;
    }
  }

  /** First pass after start: pick up where the saved position says, finishing a file rotated meanwhile. */
  private async resume(): Promise<void> {
    const saved = this.saved;
    const current = await statOf(this.path);
    if (!saved) {
      if (current) await this.openAt(this.path, this.options.initialPosition === 'end' ? 'end' : 0);
      return;
    }
    if (current && sameFile(current, saved)) {
      await this.openAt(this.path, saved.offset);
      return;
    }
    const copies = await rotatedFiles(this.path);
    const index = copies.findIndex((copy) => sameFile(copy, saved));
    if (index === -1) {
      this.options.logger.warn('the file read before the restart is gone; reading the current one from its start', { path: this.path, ino: saved.ino, offset: saved.offset });
      return;
    }
    await this.readCopy(copies[index]!, saved.offset);
    for (const later of copies.slice(index + 1)) if (!current || !sameFile(later, current)) await this.readCopy(later, 0);
  }

  /** The name now points at another file: finish the old one, then the copies rotated after it. */
  private async followRotation(current: FileIdentity): Promise<void> {
    const old = this.identity;
    await this.drain();
    await this.close();
    const copies = await rotatedFiles(this.path);
    const index = old === undefined ? -1 : copies.findIndex((copy) => sameFile(copy, old));
    if (index >= 0) for (const later of copies.slice(index + 1)) if (!sameFile(later, current)) await this.readCopy(later, 0);
    // The loop opens the new file at 0.
  }

  private async readCopy(copy: RotatedFile, offset: number): Promise<void> {
    if (!(await this.openAt(copy.path, offset))) return;
    await this.drain();
    await this.close();
  }

  /** Opens `path` and positions the read; identity comes from the open handle, not an earlier stat. */
  private async openAt(path: string, offset: number | 'end'): Promise<boolean> {
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    const info = await handle.stat({ bigint: true });
    const size = Number(info.size);
    this.handle = handle;
    this.identity = { dev: String(info.dev), ino: String(info.ino) };
    this.consumer.reset();
    if (offset === 'end') this.readOffset = await this.endOfLastLine(size);
    else if (offset > size || !(await this.followsNewline(offset))) {
      this.options.logger.info('followed file no longer matches the saved offset (truncated); reading it from the start', { path, size, offset });
      this.readOffset = 0;
    } else this.readOffset = offset;
    return true;
  }

  /** A saved offset always follows a newline; if it does not, the file was truncated and written again. */
  private async followsNewline(offset: number): Promise<boolean> {
    if (offset === 0) return true;
    const byte = Buffer.alloc(1);
    const { bytesRead } = await this.handle!.read(byte, 0, 1, offset - 1);
    return bytesRead === 1 && byte[0] === 0x0a;
  }

  /** Just after the last newline before `size`, so an unfinished last line is read whole once it is written. */
  private async endOfLastLine(size: number): Promise<number> {
    const from = Math.max(0, size - tailProbeBytes);
    const probe = Buffer.allocUnsafe(size - from);
    const { bytesRead } = await this.handle!.read(probe, 0, probe.length, from);
    const newline = probe.subarray(0, bytesRead).lastIndexOf(0x0a);
    return newline === -1 ? (from === 0 ? 0 : size) : from + newline + 1;
  }

  private async drain(): Promise<void> {
    const handle = this.handle;
    if (!handle) return;
    for (;;) {
      if (this.stopped) return;
      const { bytesRead } = await handle.read(this.buffer, 0, this.buffer.length, this.readOffset);
      if (bytesRead === 0) return;
      this.readOffset += bytesRead;
      this.consumer.consume(this.buffer.subarray(0, bytesRead));
    }
  }

  private async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close().catch(() => undefined);
  }
}

async function statOf(path: string): Promise<(FileIdentity & { size: number }) | undefined> {
  try {
    const info = await stat(path, { bigint: true });
    return { dev: String(info.dev), ino: String(info.ino), size: Number(info.size) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function sameFile(a: FileIdentity, b: FileIdentity | undefined): boolean {
  return b !== undefined && a.dev === b.dev && a.ino === b.ino;
}

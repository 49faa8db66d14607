// Snapshots as files in one directory (<cluster.dataDir>/snapshots/), named <term>-<index>.snap. Each file is a JSON
// header line {index, term, configuration, checksum, size} then the data as JSON; checksum is the sha256 (hex) of
// those data bytes and size their length. A save goes to <name>.tmp, is fsynced, renamed into place, and the
// directory is fsynced, so a crash leaves either the old set of snapshots or the new one, plus at most a .tmp.
import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Snapshot, SnapshotMeta } from '../core/types.ts';
import type { SnapshotStore } from './raft-storage.ts';
import { encodeJsonInPieces, setImmediateYield } from './chunked-json.ts';
import { checkRetain, checkSnapshotMeta, copyMeta, isConfiguration, newestFirst, notSerialisable } from './store-rules.ts';

export interface FileSnapshotStoreOptions {
  /** How many snapshots to keep, newest by (index, term); default 5. */
  readonly retain?: number;
  /** Told about every file skipped because its header or checksum does not verify; the file is left for inspection. */
  readonly onCorrupt?: (name: string, reason: string) => void;
}

interface Header {
  readonly meta: SnapshotMeta;
  readonly checksum: string;
  readonly size: number;
}

interface Named {
  readonly name: string;
  readonly index: number;
  readonly term: number;
}

const snapshotName = /^(\d+)-(\d+)\.snap$/;
const tmpSuffix = '.tmp';
/** A header is a few hundred bytes plus the member ids; anything longer than this has lost its newline. */
const maxHeaderBytes = 1 << 20;
/** Text encoded between pauses when a snapshot is written, and how much is gathered into one file write. */
const snapshotPieceChars = 64 * 1024;
const snapshotWriteBytes = 1 << 20;

export const snapshotFileName = (meta: Pick<SnapshotMeta, 'index' | 'term'>): string => `${meta.term}-${meta.index}.snap`;

/** The term and index a snapshot file's name carries, or undefined for any other file (a `.tmp`, a stranger). */
export function snapshotFileMeta(name: string): { readonly term: number; readonly index: number } | undefined {
  const match = snapshotName.exec(name);
  return match === null ? undefined : { term: Number(match[1]), index: Number(match[2]) };
}

/** Why a file was skipped; never escapes the store. */
class CorruptSnapshot extends Error {}

export class FileSnapshotStore implements SnapshotStore {
  private closed = false;
  /** Saves run one at a time, so pruning never races a rename. */
  private saves: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly dir: string,
    private readonly retain: number,
    private readonly onCorrupt: (name: string, reason: string) => void,
  ) {}

  /** Creates the directory if needed and removes temp files a crash mid-save left behind. */
  static async open(dir: string, options: FileSnapshotStoreOptions = {}): Promise<FileSnapshotStore> {
    const retain = checkRetain(options.retain ?? 5);
    await mkdir(dir, { recursive: true });
    for (const name of await readdir(dir)) {
      if (name.endsWith(tmpSuffix)) await unlinkIfPresent(join(dir, name));
    }
    return new FileSnapshotStore(dir, retain, options.onCorrupt ?? (() => undefined));
  }

  save(snapshot: Snapshot): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    const run = this.saves.then(() => this.write(snapshot));
    this.saves = run.catch(() => undefined);
    return run;
  }

  async latest(): Promise<Snapshot | undefined> {
    this.assertOpen();
    for (const file of await this.files()) {
      let bytes: Buffer;
      try {
        bytes = await readFile(join(this.dir, file.name));
      } catch (error) {
        if (isMissing(error)) continue; // pruned by a concurrent save
        throw error;
      }
      try {
        return decode(file, bytes);
      } catch (error) {
        if (!(error instanceof CorruptSnapshot)) throw error;
        this.onCorrupt(file.name, error.message);
      }
    }
    return undefined;
  }

  /** Newest first. Only headers are read, so a file whose data fails its checksum is listed until latest() reads it. */
  async list(): Promise<SnapshotMeta[]> {
    this.assertOpen();
    const metas: SnapshotMeta[] = [];
    for (const file of await this.files()) {
      try {
        metas.push((await this.readHeader(file)).meta);
      } catch (error) {
        if (isMissing(error)) continue;
        if (!(error instanceof CorruptSnapshot)) throw error;
        this.onCorrupt(file.name, error.message);
      }
    }
    return metas;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.saves;
  }

  private async write(snapshot: Snapshot): Promise<void> {
    checkSnapshotMeta(snapshot.meta);
    const meta = copyMeta(snapshot.meta);
    const name = snapshotFileName(meta);
    const path = join(this.dir, name);
    const tmp = path + tmpSuffix;
    // The header comes first, but its checksum and size are known last: the data goes in after room for the longest
    // header this snapshot can have, and the header is written into that room at the end, padded with spaces (JSON
    // whitespace, so any reader parses it as before). The data is written as it is encoded, in 64 KiB pieces
    // (chunked-json.ts) that die young: held whole until the end, at 800k identities its 300 MB of text and buffers
    // took the leader three back-to-back full garbage collections to release, and writes stopped for seconds.
    const headerText = (checksum: string, size: number) => JSON.stringify({ index: meta.index, term: meta.term, configuration: meta.configuration, checksum, size });
    const headerRoom = Buffer.byteLength(headerText('0'.repeat(64), Number.MAX_SAFE_INTEGER), 'utf8') + 1;
    const hash = createHash('sha256');
    let size = 0;
    let waiting: Buffer[] = [];
    let waitingBytes = 0;
    let written = false;
    const file = await open(tmp, 'w');
    try {
      const writeWaiting = async () => {
        if (waiting.length === 0) return;
        const buffers = waiting;
        const at = headerRoom + size - waitingBytes;
        waiting = [];
        waitingBytes = 0;
        await file.writev(buffers, at);
      };
      const encoded = await encodeJsonInPieces(
        snapshot.data,
        (text) => {
          const piece = Buffer.from(text, 'utf8');
          hash.update(piece);
          size += piece.length;
          waiting.push(piece);
          waitingBytes += piece.length;
        },
        {
          pieceChars: snapshotPieceChars,
          // A write per megabyte, awaited: the event loop runs meanwhile, and no more than that waits in memory.
          yieldNow: async () => {
            if (waitingBytes >= snapshotWriteBytes) await writeWaiting();
            else await setImmediateYield();
          },
        },
      );
      if (!encoded) throw notSerialisable(snapshot.data);
      await writeWaiting();
      const header = Buffer.from(headerText(hash.digest('hex'), size), 'utf8');
      const line = Buffer.alloc(headerRoom, ' ');
      header.copy(line);
      line[headerRoom - 1] = 0x0a;
      await file.write(line, 0, headerRoom, 0);
      await file.sync();
      written = true;
    } finally {
      await file.close();
      // A save that failed part-way leaves no partial file behind.
      if (!written) await unlinkIfPresent(tmp);
    }
    await rename(tmp, path);
    // The rename is only durable once the directory entry is.
    const dir = await open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
    for (const old of (await this.files()).slice(this.retain)) await unlinkIfPresent(join(this.dir, old.name));
  }

  /** Snapshot files by name, newest first. */
  private async files(): Promise<Named[]> {
    const files: Named[] = [];
    for (const name of await readdir(this.dir)) {
      const meta = snapshotFileMeta(name);
      if (meta !== undefined) files.push({ name, ...meta });
    }
    return files.sort(newestFirst);
  }

  private async readHeader(file: Named): Promise<Header> {
    const handle = await open(join(this.dir, file.name), 'r');
    try {
      const chunks: Buffer[] = [];
      let read = 0;
      for (;;) {
        const chunk = Buffer.alloc(Math.min(64 * 1024, maxHeaderBytes - read + 1));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, read);
        const newline = chunk.subarray(0, bytesRead).indexOf(0x0a);
        if (newline >= 0) {
          chunks.push(chunk.subarray(0, newline));
          return parseHeader(file, Buffer.concat(chunks).toString('utf8'));
        }
        if (bytesRead === 0) throw new CorruptSnapshot('header line is not terminated');
        chunks.push(chunk.subarray(0, bytesRead));
        read += bytesRead;
        if (read > maxHeaderBytes) throw new CorruptSnapshot(`header line is longer than ${maxHeaderBytes} bytes`);
      }
    } finally {
      await handle.close();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw closedError();
  }
}

function decode(file: Named, bytes: Buffer): Snapshot {
  const newline = bytes.indexOf(0x0a);
  if (newline < 0) throw new CorruptSnapshot('header line is not terminated');
  const header = parseHeader(file, bytes.subarray(0, newline).toString('utf8'));
  const data = bytes.subarray(newline + 1);
  if (data.length !== header.size) throw new CorruptSnapshot(`data is ${data.length} bytes, header says ${header.size}`);
  const checksum = createHash('sha256').update(data).digest('hex');
  if (checksum !== header.checksum) throw new CorruptSnapshot(`checksum mismatch: data hashes to ${checksum}, header says ${header.checksum}`);
  try {
    return { meta: header.meta, data: JSON.parse(data.toString('utf8')) as unknown };
  } catch (error) {
    // The checksum matched, so the writer itself wrote bad JSON: still not something to restore from.
    throw new CorruptSnapshot(`data is not JSON: ${(error as Error).message}`);
  }
}

function parseHeader(file: Named, line: string): Header {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new CorruptSnapshot(`header is not JSON: ${(error as Error).message}`);
  }
  const header = value as { index?: unknown; term?: unknown; configuration?: unknown; checksum?: unknown; size?: unknown } | null;
  if (typeof header !== 'object' || header === null) throw new CorruptSnapshot('header is not an object');
  if (header.index !== file.index || header.term !== file.term) {
    throw new CorruptSnapshot(`header says index ${String(header.index)} term ${String(header.term)}, the file name says index ${file.index} term ${file.term}`);
  }
  if (!isConfiguration(header.configuration)) throw new CorruptSnapshot('header configuration is malformed');
  if (typeof header.checksum !== 'string' || !/^[0-9a-f]{64}$/.test(header.checksum)) throw new CorruptSnapshot('header checksum is not a sha256 hex digest');
  if (!Number.isSafeInteger(header.size) || (header.size as number) < 0) throw new CorruptSnapshot('header size is not a byte count');
  return {
    meta: copyMeta({ index: file.index, term: file.term, configuration: header.configuration }),
    checksum: header.checksum,
    size: header.size as number,
  };
}

async function unlinkIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

const closedError = () => new Error('snapshot store is closed');

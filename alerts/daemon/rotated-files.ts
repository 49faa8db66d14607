// The rotated copies of a followed file, oldest first: the controller renames `events.jsonl` to
// `events-<UTC time>.jsonl` (docs/operator-guide.md, "Entity change events"), and logrotate's `controller.log.1` or
// `controller.log-20261124` are found too. Compressed copies cannot be read and are left out. Ordered by the time of
// their last write, which is the order they were written in whatever the naming.

import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';

export interface FileIdentity {
  /** Device and inode, as decimal text (inodes may pass 2^53). */
  readonly dev: string;
  readonly ino: string;
}

export interface RotatedFile extends FileIdentity {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
}

export function isRotatedName(followed: string, candidate: string): boolean {
  const name = basename(followed);
  const ext = extname(name);
  const stem = ext === '' ? name : name.slice(0, -ext.length);
  if (candidate === name || /\.(gz|bz2|xz|zst|zip)$/.test(candidate)) return false;
  if (candidate.startsWith(`${name}.`) || candidate.startsWith(`${name}-`)) return true;
  return candidate.startsWith(`${stem}-`) && candidate.endsWith(ext) && candidate.length > stem.length + 1 + ext.length;
}

export async function rotatedFiles(followed: string): Promise<RotatedFile[]> {
  const dir = dirname(followed);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const found: RotatedFile[] = [];
  for (const name of names.filter((candidate) => isRotatedName(followed, candidate))) {
    const path = join(dir, name);
    try {
      const info = await stat(path, { bigint: true });
      if (!info.isFile()) continue;
      found.push({ path, dev: String(info.dev), ino: String(info.ino), size: Number(info.size), mtimeMs: Number(info.mtimeMs) });
    } catch {
      // Removed meanwhile (the oldest copies are deleted as new ones are made).
    }
  }
  return found.sort((a, b) => a.mtimeMs - b.mtimeMs || a.path.localeCompare(b.path));
}

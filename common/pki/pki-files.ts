// Puts PKI files on disk safely: each appears whole (temp file, then link or rename), an existing file is never
// replaced unless forced, private keys are 0600 and the directories holding them 0700 whatever the umask.
import { randomBytes } from 'node:crypto';
import { chmod, link, lstat, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PkiError } from './pki-error.ts';

export interface PkiFile {
  path: string;
  contents: string;
  /** A private key: mode 0600 instead of 0644. */
  secret: boolean;
}

export const secretFileMode = 0o600;
export const publicFileMode = 0o644;
export const privateDirectoryMode = 0o700;

/** Writes in the given order (put keys before certificates, so a certificate never appears without its key). */
export async function writeFiles(files: PkiFile[], options: { force: boolean }): Promise<void> {
  if (!options.force) {
    const existing = (await Promise.all(files.map(async (file) => ((await exists(file.path)) ? file.path : undefined)))).filter(
      (path): path is string => path !== undefined,
    );
    if (existing.length > 0) {
      throw new PkiError('ALREADY_EXISTS', `refusing to overwrite ${existing.join(', ')} (use --force to replace)`);
    }
  }
  for (const file of files) await writeOne(file, options.force);
}

async function writeOne(file: PkiFile, force: boolean): Promise<void> {
  const temporary = join(dirname(file.path), `.${basename(file.path)}.${randomBytes(6).toString('hex')}.tmp`);
  const mode = file.secret ? secretFileMode : publicFileMode;
  try {
    await writeFile(temporary, file.contents, { mode, flag: 'wx' });
    await chmod(temporary, mode); // the umask may have cleared bits we want set
    if (force) {
      await rename(temporary, file.path);
    } else {
      // link() fails if the target appeared meanwhile, where rename() would silently replace it.
      await link(temporary, file.path);
      await unlink(temporary);
    }
  } catch (cause) {
    await unlink(temporary).catch(() => undefined);
    if (errorCode(cause) === 'EEXIST') {
      throw new PkiError('ALREADY_EXISTS', `refusing to overwrite ${file.path} (use --force to replace)`, { cause });
    }
    throw ioError(`cannot write ${file.path}`, cause);
  }
}

/** Creates the directory (and parents) and sets it to 0700, as it holds private keys. */
export async function ensurePrivateDirectory(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true, mode: privateDirectoryMode });
    await chmod(path, privateDirectoryMode);
  } catch (cause) {
    throw ioError(`cannot create directory ${path}`, cause);
  }
}

/** The file's text, or undefined when it does not exist. */
export async function readTextFile(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (cause) {
    if (errorCode(cause) === 'ENOENT') return undefined;
    throw ioError(`cannot read ${path}`, cause);
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (cause) {
    if (errorCode(cause) === 'ENOENT') return false;
    throw ioError(`cannot inspect ${path}`, cause);
  }
}

const reasons: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a parent is not a directory',
  EISDIR: 'it is a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
};

// Node's messages name the temporary file; the operator only needs the reason.
function ioError(what: string, cause: unknown): PkiError {
  const code = errorCode(cause);
  const reason = (code && reasons[code]) ?? (cause instanceof Error ? cause.message : String(cause));
  return new PkiError('IO', `${what}: ${reason}`, { cause });
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

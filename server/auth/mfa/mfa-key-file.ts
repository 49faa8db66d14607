// The MFA key on disk: 32 random bytes as 64 hex characters, created (mode 0600) on first use when missing. Clustered
// controllers must share one file: any of them may verify a code sealed by another.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

export function loadOrCreateMfaKey(path: string): Buffer {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read the MFA key file ${path}: ${(error as Error).message}`);
    const key = randomBytes(32);
    try {
      writeFileSync(path, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
      return key;
    } catch (writeError) {
      // Another process created it first: use theirs.
      if ((writeError as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateMfaKey(path);
      throw new Error(`cannot create the MFA key file ${path}: ${(writeError as Error).message}`);
    }
  }
  const hex = text.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error(`the MFA key file ${path} must hold 64 hex characters (32 bytes), e.g. from: openssl rand -hex 32`);
  return Buffer.from(hex, 'hex');
}

// Recovery codes: 20 single-use codes of 6 base32 characters, as the real controller issues them. Only keyed hashes
// are compared (HMAC-SHA256 under the MFA key), in constant time.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';

export const recoveryCodeCount = 20;
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function newRecoveryCodes(): string[] {
  const codes = new Set<string>();
  while (codes.size < recoveryCodeCount) {
    let code = '';
    for (let i = 0; i < 6; i++) code += alphabet[randomInt(alphabet.length)];
    codes.add(code);
  }
  return [...codes];
}

export function hashRecoveryCode(key: Buffer, code: string): string {
  return createHmac('sha256', key).update(`recovery-code:${code.trim().toUpperCase()}`).digest('hex');
}

/** The stored hash `code` matches, checking every entry in constant time, or undefined. */
export function findRecoveryCode(key: Buffer, code: string, hashes: readonly string[]): string | undefined {
  if (!/^[A-Za-z2-7]{6}$/.test(code.trim())) return undefined;
  const candidate = Buffer.from(hashRecoveryCode(key, code), 'hex');
  let found: string | undefined;
  for (const hash of hashes) {
    const stored = Buffer.from(hash, 'hex');
    if (stored.length === candidate.length && timingSafeEqual(stored, candidate)) found = hash;
  }
  return found;
}

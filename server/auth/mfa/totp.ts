// RFC 6238 TOTP as authenticator apps do it: SHA-1, 6 digits, 30-second steps, base32 secrets; a code is accepted in
// its own step or one step either side. The matching step is returned so a code can be refused once used.
import { randomBytes } from 'node:crypto';
import { authenticator } from 'otplib';

export const totpStepSeconds = 30;
export const totpDigits = 6;
export const totpWindow = 1;

const base32Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** 10 random bytes (80 bits) as 16 base32 characters, the length the real controller uses. */
export function newTotpSecret(): string {
  const bytes = randomBytes(10);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += base32Alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/** The time step a code is for, at `nowMs`. */
export function totpStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / totpStepSeconds);
}

/** The step within ±1 of now whose code equals `code`, or undefined. */
export function matchTotp(secret: string, code: string, nowMs: number): number | undefined {
  if (!/^[0-9]{6}$/.test(code)) return undefined;
  const checker = authenticator.clone({ epoch: nowMs, window: totpWindow, step: totpStepSeconds, digits: totpDigits });
  const delta = checker.checkDelta(code, secret);
  return delta === null ? undefined : totpStep(nowMs) + delta;
}

/** The code for `nowMs`: what an authenticator app shows (for tests and tools). */
export function totpCode(secret: string, nowMs: number): string {
  return authenticator.clone({ epoch: nowMs, step: totpStepSeconds, digits: totpDigits }).generate(secret);
}

/** `otpauth://totp/<issuer>:<name>?secret=...&issuer=...`, which authenticator apps accept. */
export function provisioningUrl(issuer: string, accountName: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(accountName)}`;
  return `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(issuer)}`;
}

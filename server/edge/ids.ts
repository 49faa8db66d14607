// Identifiers: entity ids are short random ids from [0-9a-zA-Z.-] like the real controller's shortids; session
// tokens are UUIDv4 (122 random bits) and are stored only as their SHA-256.
import { hash, randomBytes, randomUUID } from 'node:crypto';

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-';

/** 10 characters of a 64-symbol alphabet: 60 random bits, plenty for entity ids that are not secrets. */
export function newEntityId(): string {
  const bytes = randomBytes(10);
  let id = '';
  for (const byte of bytes) id += alphabet[byte & 63];
  // Ids never start or end with punctuation, so they are easy to select and paste.
  return id.replace(/^[.-]/, 'x').replace(/[.-]$/, 'y');
}

export function newSessionToken(): string {
  return randomUUID();
}

export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

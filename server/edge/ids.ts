// Identifiers: entity ids are short random ids from [0-9a-zA-Z.-] like the real controller's shortids; session
// tokens are UUIDv4 (122 random bits) and are stored only as their SHA-256.
import { hash, randomFillSync, randomUUID } from 'node:crypto';

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-';

// Random bytes drawn in blocks: one call per id costs more than the rest of building it, and ids are made on every
// create (the hot path of the management API).
const pool = Buffer.alloc(1280);
let poolOffset = pool.length;

function randomByteAt(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** 10 characters of a 64-symbol alphabet: 60 random bits, plenty for entity ids that are not secrets. */
export function newEntityId(): string {
  let id = '';
  for (let i = 0; i < 10; i++) id += alphabet[randomByteAt() & 63];
  // Ids never start or end with punctuation, so they are easy to select and paste.
  return id.replace(/^[.-]/, 'x').replace(/[.-]$/, 'y');
}

export function newSessionToken(): string {
  return randomUUID();
}

export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

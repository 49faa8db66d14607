// Passwords are hashed with scrypt (memory-hard) and a 16-byte per-user salt; the parameters are stored with each
// hash. N=2^14, r=8, p=1 costs 16 MiB and tens of milliseconds per hash: cheap for a login, dear for a guesser.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { PasswordHash } from '../model/entities.ts';

export const scryptParameters = { N: 16384, r: 8, p: 1, keyLength: 32, saltLength: 16 } as const;

function derive(password: string, salt: Buffer, N: number, r: number, p: number, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLength, { N, r, p, maxmem: 256 * N * r }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<PasswordHash> {
  const { N, r, p, keyLength, saltLength } = scryptParameters;
  const salt = randomBytes(saltLength);
  const hash = await derive(password, salt, N, r, p, keyLength);
  return { algorithm: 'scrypt', hash: hash.toString('base64'), salt: salt.toString('base64'), N, r, p };
}

export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64');
  const actual = await derive(password, Buffer.from(stored.salt, 'base64'), stored.N, stored.r, stored.p, expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Burns the same work as a real verification, so an unknown username costs what a wrong password costs. */
export async function verifyAgainstNothing(password: string): Promise<false> {
  const { N, r, p, keyLength, saltLength } = scryptParameters;
  await derive(password, randomBytes(saltLength), N, r, p, keyLength);
  return false;
}

/** Where a hash waits for a slot: the controller's bounded hash queue (server/edge/login/hash-queue.ts). */
export interface HashSlots {
  run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** The hash functions above, each through a controller's bounded hash queue. */
export class PasswordHasher {
  constructor(private readonly queue: HashSlots) {}

  hash(password: string, signal?: AbortSignal): Promise<PasswordHash> {
    return this.queue.run(() => hashPassword(password), signal);
  }

  verify(password: string, stored: PasswordHash, signal?: AbortSignal): Promise<boolean> {
    return this.queue.run(() => verifyPassword(password, stored), signal);
  }

  verifyAgainstNothing(password: string, signal?: AbortSignal): Promise<false> {
    return this.queue.run(() => verifyAgainstNothing(password), signal);
  }
}

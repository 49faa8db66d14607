// Refused authentication attempts, counted per client address and per user (a username, or an identity for MFA
// codes) on this controller only: no raft write per attempt, so a flood of guesses costs the cluster nothing.
// Each key is a generic cell rate (GCRA): `maxFailures` refusals in a burst, then one more every window/maxFailures.
// Only credential refusals are charged: successes never count, so owners logging in correctly (many of them behind
// one NAT address, all at once) are not slowed. Over the limit an attempt is answered 429 RATE_LIMITED with
// Retry-After at once, without running (no scrypt, no code check). Guesses already in flight when a key fills
// (bounded by the hash queue) are still charged when refused, which keeps the key closed that much longer: over
// time no key gets more than its rate. Memory is bounded: a table holds at most `maxTrackedKeys` keys; recovered
// keys are dropped as they are met, and when a table is full the key charged longest ago is forgotten.
import type { Clock } from '../../../common/time/clock.ts';
import type { Logger } from '../../../common/log/logger.ts';
import { EdgeError } from '../edge-error.ts';

export interface LoginThrottleLimits {
  readonly enabled: boolean;
  readonly windowMs: number;
  /** Refusals per client address in a window; 0: addresses are not counted. */
  readonly maxFailuresPerAddress: number;
  /** Refusals per username (passwords) or identity (MFA codes) in a window; 0: users are not counted. */
  readonly maxFailuresPerUser: number;
  /** Keys each table (addresses, users) holds at most. */
  readonly maxTrackedKeys: number;
}

export const defaultLoginThrottleLimits: LoginThrottleLimits = {
  enabled: true,
  windowMs: 5 * 60_000,
  maxFailuresPerAddress: 50,
  maxFailuresPerUser: 10,
  maxTrackedKeys: 50_000,
};

/** Who an attempt is charged to: always its address; a user key (`username:<name>` or `identity:<id>`) when known. */
export interface AttemptKeys {
  readonly address: string;
  readonly user?: string;
}

type KeyKind = 'address' | 'user';

/** A refusal that counts: a primary login refused, a wrong current password, a wrong MFA code. */
export function isCredentialRefusal(error: unknown): boolean {
  return error instanceof EdgeError && (error.refusal !== undefined || error.code === 'MFA_INVALID_TOKEN');
}

/** One kind of key with its GCRA state: for each key the time at which its charges will have drained. */
class KeyTable {
  private readonly drainedAt = new Map<string, number>();
  /** Milliseconds each refusal costs; the budget is the window. */
  private readonly cost: number;
  private readonly room: number;
  evicted = 0;

  constructor(
    readonly kind: KeyKind,
    readonly maxFailures: number,
    windowMs: number,
    private readonly maxKeys: number,
  ) {
    this.cost = windowMs / Math.max(1, maxFailures);
    this.room = windowMs - this.cost;
  }

  get size(): number {
    return this.drainedAt.size;
  }

  /** Milliseconds until the key may be charged once more; 0 when it may be now. */
  waitMs(key: string, now: number): number {
    const drained = this.drainedAt.get(key);
    return drained === undefined ? 0 : Math.max(0, drained - now - this.room);
  }

  /** Charges one refusal; true when that used the key's last one (it had room before, and the next attempt waits). */
  charge(key: string, now: number): boolean {
    const hadRoom = this.waitMs(key, now) === 0;
    const drained = Math.max(this.drainedAt.get(key) ?? now, now) + this.cost;
    // Re-inserted, so the map's order is the order keys were last charged in: the front is what to forget first.
    this.drainedAt.delete(key);
    if (this.drainedAt.size >= this.maxKeys) this.forgetOldest();
    this.drainedAt.set(key, drained);
    return hadRoom && drained - now > this.room;
  }

  /** Drops recovered keys at the front (charged longest ago), at most `limit` of them: amortised, never a full scan. */
  sweep(now: number, limit: number): void {
    let looked = 0;
    for (const [key, drained] of this.drainedAt) {
      if (drained > now || looked++ >= limit) return;
      this.drainedAt.delete(key);
    }
  }

  private forgetOldest(): void {
    const oldest = this.drainedAt.keys().next();
    if (oldest.done) return;
    this.drainedAt.delete(oldest.value);
    this.evicted++;
  }
}

export class LoginThrottle {
  private readonly addresses: KeyTable;
  private readonly users: KeyTable;
  private lastEvictionWarning = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly limits: LoginThrottleLimits,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.addresses = new KeyTable('address', limits.maxFailuresPerAddress, limits.windowMs, limits.maxTrackedKeys);
    this.users = new KeyTable('user', limits.maxFailuresPerUser, limits.windowMs, limits.maxTrackedKeys);
  }

  /** How many keys each table holds now. */
  trackedKeys(): { addresses: number; users: number } {
    return { addresses: this.addresses.size, users: this.users.size };
  }

  /**
   * Runs `work` unless a key of the attempt is over its limit (then 429 RATE_LIMITED with Retry-After, and `work`
   * never runs). A credential refusal (isCredentialRefusal) is charged to every key; nothing else is.
   */
  async attempt<T>(keys: AttemptKeys, work: () => Promise<T>): Promise<T> {
    if (!this.limits.enabled) return work();
    const tables = this.tablesFor(keys);
    this.refuseWhenOver(tables, this.clock.now());
    try {
      return await work();
    } catch (error) {
      if (isCredentialRefusal(error)) this.charge(tables, keys.address);
      throw error;
    }
  }

  private tablesFor(keys: AttemptKeys): Array<[KeyTable, string]> {
    const tables: Array<[KeyTable, string]> = [];
    if (this.addresses.maxFailures > 0) tables.push([this.addresses, keys.address]);
    if (this.users.maxFailures > 0 && keys.user !== undefined) tables.push([this.users, keys.user]);
    return tables;
  }

  private refuseWhenOver(tables: ReadonlyArray<[KeyTable, string]>, now: number): void {
    for (const [table] of tables) table.sweep(now, 4);
    let waitMs = 0;
    let limitedBy: KeyKind | undefined;
    for (const [table, key] of tables) {
      const wait = table.waitMs(key, now);
      if (wait > waitMs) [waitMs, limitedBy] = [wait, table.kind];
    }
    if (limitedBy !== undefined) {
      const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
      const what = limitedBy === 'address' ? 'from this address' : 'for this user';
      throw new EdgeError('RATE_LIMITED', { code: 'AUTHENTICATION_THROTTLED', message: `too many failed authentication attempts ${what}; retry after ${retryAfter} s` })
        .withRetryAfter(retryAfter);
    }
  }

  /** Charges a refusal to each key; one that used a key's last room is logged, since attempts from there now wait. */
  private charge(tables: ReadonlyArray<[KeyTable, string]>, address: string): void {
    const now = this.clock.now();
    for (const [table, key] of tables) {
      if (!table.charge(key, now)) continue;
      this.logger.warn('authentication throttled: too many failed attempts', { limit: table.kind, address, windowSeconds: this.limits.windowMs / 1000 });
    }
    this.warnIfForgetting(now);
  }

  /** A full table forgets its oldest keys; said at most once a window, since a flood of new keys is what causes it. */
  private warnIfForgetting(now: number): void {
    const evicted = this.addresses.evicted + this.users.evicted;
    if (evicted === 0 || now - this.lastEvictionWarning < this.limits.windowMs) return;
    this.logger.warn('authentication throttle is full: forgetting the oldest keys', { maxTrackedKeys: this.limits.maxTrackedKeys, forgotten: evicted });
    this.addresses.evicted = 0;
    this.users.evicted = 0;
    this.lastEvictionWarning = now;
  }
}

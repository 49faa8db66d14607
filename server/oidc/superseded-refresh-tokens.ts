// Refresh tokens a refresh has replaced. Each refresh hands out a new refresh token; the old one is revoked by its
// jti so that a stolen copy is worth nothing once its owner refreshed. On the controller that refreshed, at once (in
// memory); on every controller within one flush (a few seconds), as revocations written many to a command, never one
// command per refresh. Bounded: at most `maxQueued` wait for a flush, and these revocations may fill at most
// `maxTableShare` of the revocation table, so a client refreshing in a loop cannot crowd out an administrator's.
import type { Clock } from '../../common/time/clock.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import type { ModelWriter } from '../edge/model-writer.ts';
import type { Revocation } from '../model/revocation-entities.ts';

export interface SupersededLimits {
  readonly maxQueued: number;
  readonly batchSize: number;
  /** How many revocations the table holds at most (RevocationLimits.maxRevocations). */
  readonly maxRevocations: number;
  readonly maxTableShare: number;
}

export const defaultSupersededLimits: SupersededLimits = { maxQueued: 25_000, batchSize: 500, maxRevocations: 100_000, maxTableShare: 0.5 };

export class SupersededRefreshTokens {
  private queue: Revocation[] = [];
  /** jti → when the token expires (ms): refused here at once, before the revocation is replicated. */
  private readonly recent = new Map<string, number>();
  private dropped = 0;

  constructor(
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
    private readonly revocationCount: () => number,
    private readonly limits: SupersededLimits = defaultSupersededLimits,
  ) {}

  supersede(jti: string, expiresAtMs: number): void {
    const now = this.clock.now();
    if (expiresAtMs <= now) return;
    if (this.recent.size >= this.limits.maxQueued * 2) this.forgetOldest(now);
    this.recent.set(jti, expiresAtMs);
    if (this.queue.length >= this.limits.maxQueued) {
      this.dropped++;
      return;
    }
    const at = isoTime(now);
    this.queue.push({ id: jti, type: 'JTI', tags: { reason: 'refresh token superseded' }, expiresAt: isoTime(expiresAtMs), createdAt: at, updatedAt: at });
  }

  /** True when this controller saw the token replaced (the replicated revocation covers the others). */
  isSuperseded(jti: string): boolean {
    const expiresAt = this.recent.get(jti);
    return expiresAt !== undefined && expiresAt > this.clock.now();
  }

  /** Writes what is queued, a batch per command; answers how many were written and how many were dropped since. */
  async flush(): Promise<{ written: number; dropped: number }> {
    let written = 0;
    const dropped = this.dropped;
    this.dropped = 0;
    while (this.queue.length > 0) {
      const room = Math.floor(this.limits.maxRevocations * this.limits.maxTableShare) - this.revocationCount();
      if (room <= 0) {
        // The table is as full of these as allowed: the rest stay refused here only, until they expire.
        return { written, dropped: dropped + this.queue.splice(0).length };
      }
      const batch = this.queue.slice(0, Math.min(this.limits.batchSize, room));
      try {
        await this.writer.write({ type: 'revocation.createJtis', revocations: batch });
      } catch (error) {
        this.dropped += dropped;
        throw error;
      }
      this.queue.splice(0, batch.length);
      written += batch.length;
    }
    return { written, dropped };
  }

  private forgetOldest(now: number): void {
    for (const [jti, expiresAt] of this.recent) if (expiresAt <= now) this.recent.delete(jti);
    // Still full: the oldest entries go (insertion order); their revocations are replicated by now.
    for (const jti of this.recent.keys()) {
      if (this.recent.size < this.limits.maxQueued) break;
      this.recent.delete(jti);
    }
  }
}

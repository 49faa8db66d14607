// Revocations (`/revocations`): what an administrator revokes and until when. A revocation lives `lifetimeMs` (at
// least as long as whatever it names could still be presented: a JTI revocation of a pending enrollment JWT lives
// until that JWT expires, if later), then the leader prunes it (prune, run by a driver). Its effect is applied with
// the row, in log order, on every controller (revocation-commands.ts).
import type { Clock } from '../../common/time/clock.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import type { ApiSession, Enrollment, Identity } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import { revocationTables, type Revocation, type RevocationType } from '../model/revocation-entities.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { routerTables } from '../model/router-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import type { ModelWriter } from './model-writer.ts';

export interface RevocationLimits {
  /** How long a revocation is kept (OpenZiti keeps one for its refresh-token lifetime). */
  readonly lifetimeMs: number;
  /** At most this many revocations at once: a create past it is refused until pruning makes room. */
  readonly maxRevocations: number;
  /** At most this many rows pruned by one command. */
  readonly pruneBatch: number;
}

export const defaultRevocationLimits: RevocationLimits = { lifetimeMs: 24 * 3_600_000, maxRevocations: 100_000, pruneBatch: 1_000 };

export interface RevocationInput {
  readonly id: string;
  readonly type: RevocationType;
  readonly tags: Readonly<Record<string, unknown>>;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class RevocationService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
    private readonly limits: RevocationLimits = defaultRevocationLimits,
  ) {}

  list(): Revocation[] {
    return this.store.table<Revocation>(revocationTables.revocations).all();
  }

  count(): number {
    return this.store.table<Revocation>(revocationTables.revocations).size;
  }

  get(id: string): Revocation {
    const revocation = this.store.table<Revocation>(revocationTables.revocations).get(id);
    if (!revocation) throw EdgeError.notFound('revocation', id);
    return revocation;
  }

  /** True when `id` is revoked as `type` and the revocation has not expired (what issue 40's token checks ask). */
  isRevoked(type: RevocationType, id: string): boolean {
    const revocation = this.store.table<Revocation>(revocationTables.revocations).get(id);
    return revocation !== undefined && revocation.type === type && Date.parse(revocation.expiresAt) > this.clock.now();
  }

  /** `lifetimeMs`: how long this one is kept when its caller knows better (an OIDC session: its tokens' lifetime). */
  async create(input: RevocationInput, lifetimeMs = this.limits.lifetimeMs): Promise<{ id: string }> {
    const nowMs = this.clock.now();
    let expiresAtMs = nowMs + lifetimeMs;
    switch (input.type) {
      case 'IDENTITY':
        if (!this.store.table<Identity>(tables.identities).get(input.id)) throw EdgeError.notFound('identity', input.id);
        break;
      case 'API_SESSION':
        if (!uuid.test(input.id) && !this.store.table<ApiSession>(tables.apiSessions).get(input.id)) {
          throw EdgeError.validation('id', 'must be a valid UUID v4 or the id of an API session', input.id);
        }
        break;
      case 'JTI': {
        const pending = this.pendingEnrollmentExpiry(input.id);
        if (!uuid.test(input.id) && pending === undefined) throw EdgeError.validation('id', 'must be a valid UUID v4 or the jti of a pending enrollment JWT', input.id);
        if (pending !== undefined) expiresAtMs = Math.max(expiresAtMs, pending);
        break;
      }
    }
    const table = this.store.table<Revocation>(revocationTables.revocations);
    if (!table.get(input.id) && table.size >= this.limits.maxRevocations) {
      throw EdgeError.validation('id', `there are ${this.limits.maxRevocations} revocations already, the most kept at once: retry after the oldest expire`);
    }
    const at = isoTime(nowMs);
    const revocation: Revocation = { id: input.id, type: input.type, tags: input.tags, expiresAt: isoTime(expiresAtMs), createdAt: at, updatedAt: at };
    await this.writer.write({ type: 'revocation.create', revocation });
    return { id: input.id };
  }

  /** Removes revocations that expired, one bounded command; how many went. None to remove: no command. */
  async prune(): Promise<number> {
    const before = isoTime(this.clock.now());
    if (!this.list().some((row) => row.expiresAt <= before)) return 0;
    const written = await this.writer.write<{ pruned: number }>({ type: 'revocation.prune', before, limit: this.limits.pruneBatch });
    return written.value.pruned;
  }

  /** When the enrollment JWT whose jti (its one-time token) is `jti` expires, for an identity's or a router's. */
  private pendingEnrollmentExpiry(jti: string): number | undefined {
    const enrollment = this.store.table<Enrollment>(tables.enrollments).findUnique('token', jti);
    if (enrollment) return Date.parse(enrollment.expiresAt);
    const router = this.store.table<EdgeRouter>(routerTables.edgeRouters).findUnique('enrollmentToken', jti);
    return router?.enrollmentExpiresAt ? Date.parse(router.enrollmentExpiresAt) : undefined;
  }
}

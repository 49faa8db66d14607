// `/current-api-session/service-updates`: when an identity's service list last changed, so a client polls this one
// timestamp instead of its whole service list. The list is summed up in a digest of everything a client's list
// shows that can change (each service, its permissions, its configs and the identity's own configs for it, the
// granting policies, their posture checks and whether each passes for the session); lastChangeAt is when this controller first saw the current digest. The
// first answer for an identity is the moment of asking, as on the real controller. Kept in memory, bounded.
import { createHash } from 'node:crypto';
import type { Clock } from '../../common/time/clock.ts';
import type { Config } from '../model/config-entities.ts';
import { evaluateGrant, type PostureState } from './posture-evaluation.ts';
import type { ServiceAccess } from './service-access.ts';

/** Identities remembered at most; past it the longest-unasked one is forgotten (its next answer is the time of asking). */
export const serviceUpdateIdentityLimit = 100_000;

/** The digest of an identity's service list as a client with this posture sees it. */
export function serviceListDigest(
  access: ReadonlyMap<string, ServiceAccess>,
  configOf: (id: string) => Config | undefined,
  posture: PostureState,
  nowMs: number,
  /** The identity's own configs for its services (service id → config type id → config id). */
  overrides: ReadonlyMap<string, ReadonlyMap<string, string>> = new Map(),
): string {
  const facts = [...access.values()]
    .sort((a, b) => (a.service.id < b.service.id ? -1 : 1))
    .map(({ service, permissions, grants }) => [
      service.id,
      service.updatedAt,
      permissions,
      service.configs.map((id) => [id, configOf(id)?.updatedAt ?? null]),
      [...(overrides.get(service.id) ?? new Map<string, string>())].sort().map(([typeId, id]) => [typeId, id, configOf(id)?.updatedAt ?? null]),
      grants.map((grant) => {
        const result = evaluateGrant(grant, posture, nowMs);
        return [grant.policy.id, grant.policy.updatedAt, result.checks.map((check) => [check.check.id, check.check.updatedAt, check.isPassing])];
      }),
    ]);
  return createHash('sha256').update(JSON.stringify(facts)).digest('base64url');
}

export class ServiceUpdateTracker {
  private readonly seen = new Map<string, { digest: string; at: string }>();

  constructor(
    private readonly clock: Clock,
    private readonly limit = serviceUpdateIdentityLimit,
  ) {}

  /** RFC 3339: when the identity's list last had another digest than `digest` (now, if it changed or is new). */
  lastChangeAt(identityId: string, digest: string): string {
    const known = this.seen.get(identityId);
    this.seen.delete(identityId);
    const entry = known && known.digest === digest ? known : { digest, at: new Date(this.clock.now()).toISOString() };
    this.seen.set(identityId, entry);
    if (this.seen.size > this.limit) this.seen.delete(this.seen.keys().next().value!);
    return entry.at;
  }
}

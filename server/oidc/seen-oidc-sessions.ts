// The OIDC API sessions this controller has seen a valid access token for, by session id (`z_asid`): a session that
// was never written down has no row to ask about, so a live circuit dialed with it (re-checked by session id, not by
// token) is judged from the newest claims seen here. Bounded: past `maxSessions` the session seen least recently
// goes first (its circuits then read as ended, the safe side).
import type { VerifiedClaims } from './oidc-claims.ts';

/** OIDC sessions remembered at most (about 1 KB each). */
export const defaultMaxSeenSessions = 100_000;

export class SeenOidcSessions {
  /** z_asid → the newest valid access token's claims; oldest-seen first (a sighting moves an entry to the end). */
  private readonly sessions = new Map<string, VerifiedClaims>();

  constructor(private readonly maxSessions = defaultMaxSeenSessions) {}

  /** A valid access token of this session was presented: its claims are kept when they are the newest seen. */
  saw(claims: VerifiedClaims): void {
    const known = this.sessions.get(claims.z_asid);
    this.sessions.delete(claims.z_asid);
    this.sessions.set(claims.z_asid, known !== undefined && known.exp > claims.exp ? known : claims);
    if (this.sessions.size > this.maxSessions) this.sessions.delete(this.sessions.keys().next().value!);
  }

  get(apiSessionId: string): VerifiedClaims | undefined {
    return this.sessions.get(apiSessionId);
  }

  forget(apiSessionId: string): void {
    this.sessions.delete(apiSessionId);
  }

  get size(): number {
    return this.sessions.size;
  }
}

// The routes this router terminated (was the egress of), so that each is used once: a router that once carried a
// signed route cannot send it again to open another connection to the service as the client, or to take over a
// circuit with an old re-route. A route is remembered until its setup window has passed (after that every router
// refuses it as too old anyway), so memory is bounded by the routes terminated within one window, and at most
// `maxRoutes` of them: when that many are remembered a new one is refused rather than an old one forgotten (forgetting
// would let it be replayed). The table lives in memory, so a route issued before it was made (before this router
// started) is refused too: the router cannot tell whether it used that route before a restart; the ingress asks for a
// new one. Pure: the time is a parameter.

export type TerminationVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Routes remembered at most (about 120 bytes each, measured: 30 MB when full): 830 new circuits a second terminated
 * here for five minutes. */
export const defaultMaxTerminatedRoutes = 250_000;

export class TerminatedRoutes {
  /** route digest → when it may be forgotten (unix ms) */
  private readonly expiries = new Map<string, number>();
  private nextSweepAt = 0;

  constructor(
    /** How long after its issue a route is still accepted (routeSetupWindowMs). */
    private readonly windowMs: number,
    private readonly maxRoutes = defaultMaxTerminatedRoutes,
    /** When this table began remembering (unix ms): routes issued earlier are refused. */
    private readonly rememberingSince = Number.NEGATIVE_INFINITY,
  ) {}

  /** Claims the route for this one use: refused when it was used before, or when too many are remembered. */
  claim(digest: string, issuedAt: number, nowMs: number): TerminationVerdict {
    this.sweep(nowMs);
    if (issuedAt < this.rememberingSince) return { ok: false, reason: 'the route was issued before this router started: it may have been used already' };
    if (this.expiries.has(digest)) return { ok: false, reason: 'the route was used before: a route sets up one circuit once' };
    if (this.expiries.size >= this.maxRoutes) return { ok: false, reason: `this router terminated ${this.maxRoutes} routes within the setup window: try again later` };
    this.expiries.set(digest, issuedAt + this.windowMs);
    return { ok: true };
  }

  get size(): number {
    return this.expiries.size;
  }

  /** Forgets what has expired, at most once a second (or at once when full). */
  private sweep(nowMs: number): void {
    if (nowMs < this.nextSweepAt && this.expiries.size < this.maxRoutes) return;
    this.nextSweepAt = nowMs + 1000;
    for (const [digest, expiry] of this.expiries) if (expiry < nowMs) this.expiries.delete(digest);
  }
}

// Logins to the status page, held to two budgets before any reaches a controller. An attempt reserves a slot first and
// holds it while the controller is asked, so concurrent guesses count as soon as they arrive, not when they fail:
//
// - per client address: at most `maxFailuresPerAddress` refused or in-flight attempts within `windowMs`;
// - for the whole page: at most `maxFailures` refused or in-flight attempts within `windowMs` from all addresses.
//
// The second exists because every login reaches the controllers from this server's one address, and they refuse an
// address after `edge.authThrottle.maxFailuresPerAddress` (50 by default) refusals: without it five guessing addresses
// would get the page's own address locked out at the controllers, and with it every operator. Kept below that budget,
// the page refuses guesses itself (429) and the controllers never lock it out. `reservedForKnown` more slots are kept
// for addresses that logged in successfully within `knownForMs`, so a flood from strangers does not keep out the
// operators who use the page. At most `maxAddresses` addresses are tracked (the stalest go first).

export interface LoginThrottleOptions {
  readonly now: () => number;
  readonly maxFailuresPerAddress?: number;
  readonly maxFailures?: number;
  readonly reservedForKnown?: number;
  readonly windowMs?: number;
  /** How long a successful login makes its address known. */
  readonly knownForMs?: number;
  readonly maxAddresses?: number;
}

export const loginThrottleDefaults = {
  maxFailuresPerAddress: 10,
  maxFailures: 40,
  reservedForKnown: 8,
  windowMs: 5 * 60_000,
  knownForMs: 12 * 3600_000,
  maxAddresses: 10_000,
} as const;

/** A reserved attempt: end it with exactly one of the three. */
export interface LoginSlot {
  /** The credentials were refused: the slot stays counted as a failure for the window. */
  failed(): void;
  /** Logged in: the address's failures are forgotten and it is known. */
  succeeded(): void;
  /** Neither (no controller answered, a malformed request): the slot is given back. */
  released(): void;
}

export type Reservation = { readonly ok: true; readonly slot: LoginSlot } | { readonly ok: false; readonly retryAfterSeconds: number; readonly scope: 'address' | 'page' };

export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly inFlight = new Map<string, number>();
  private readonly known = new Map<string, number>();
  private pageFailures: number[] = [];
  private pageInFlight = 0;
  private readonly limits: Required<Omit<LoginThrottleOptions, 'now'>>;

  constructor(private readonly options: LoginThrottleOptions) {
    this.limits = { ...loginThrottleDefaults, ...Object.fromEntries(Object.entries(options).filter(([key, value]) => key !== 'now' && value !== undefined)) };
  }

  /** Takes a slot for an attempt from `address`, or says how long to wait. */
  reserve(address: string): Reservation {
    const now = this.options.now();
    const recent = this.recent(address, now);
    const mine = this.inFlight.get(address) ?? 0;
    if (recent.length + mine >= this.limits.maxFailuresPerAddress) return { ok: false, scope: 'address', retryAfterSeconds: this.waitFor(recent, now) };
    this.pageFailures = this.pageFailures.filter((at) => at > now - this.limits.windowMs);
    const limit = this.limits.maxFailures + (this.isKnown(address, now) ? this.limits.reservedForKnown : 0);
    if (this.pageFailures.length + this.pageInFlight >= limit) return { ok: false, scope: 'page', retryAfterSeconds: this.waitFor(this.pageFailures, now) };
    this.inFlight.set(address, mine + 1);
    this.pageInFlight++;
    let ended = false;
    const end = (outcome: 'failed' | 'succeeded' | 'released') => {
      if (ended) return;
      ended = true;
      this.release(address);
      if (outcome === 'failed') this.recordFailure(address);
      if (outcome === 'succeeded') this.recordSuccess(address);
    };
    return { ok: true, slot: { failed: () => end('failed'), succeeded: () => end('succeeded'), released: () => end('released') } };
  }

  private waitFor(failures: readonly number[], now: number): number {
    // Only attempts in flight: they end within the login timeout; ask again shortly.
    if (failures.length === 0) return 1;
    return Math.max(1, Math.ceil((failures[0]! + this.limits.windowMs - now) / 1000));
  }

  private release(address: string): void {
    const left = (this.inFlight.get(address) ?? 1) - 1;
    if (left > 0) this.inFlight.set(address, left);
    else this.inFlight.delete(address);
    this.pageInFlight--;
  }

  private recordFailure(address: string): void {
    const now = this.options.now();
    const recent = this.recent(address, now);
    recent.push(now);
    this.failures.delete(address);
    this.failures.set(address, recent.slice(-this.limits.maxFailuresPerAddress));
    this.trim(this.failures);
    this.pageFailures.push(now);
  }

  private recordSuccess(address: string): void {
    this.failures.delete(address);
    this.known.delete(address);
    this.known.set(address, this.options.now());
    this.trim(this.known);
  }

  private isKnown(address: string, now: number): boolean {
    const at = this.known.get(address);
    return at !== undefined && now - at < this.limits.knownForMs;
  }

  private trim(map: Map<string, unknown>): void {
    while (map.size > this.limits.maxAddresses) map.delete(map.keys().next().value!);
  }

  private recent(address: string, now: number): number[] {
    const since = now - this.limits.windowMs;
    return (this.failures.get(address) ?? []).filter((at) => at > since);
  }
}

// Failed logins to the status page, counted per client address: after `maxFailures` within `windowMs`, that address
// gets 429 until the oldest failure leaves the window. The controllers throttle too, but per address as they see it,
// and every login reaches them from this server's address: without this, one guesser would lock everyone out. At most
// `maxAddresses` are tracked (the stalest go first), so a flood from many addresses cannot grow it without bound.

export interface LoginThrottleOptions {
  readonly now: () => number;
  readonly maxFailures?: number;
  readonly windowMs?: number;
  readonly maxAddresses?: number;
}

export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly maxAddresses: number;

  constructor(private readonly options: LoginThrottleOptions) {
    this.maxFailures = options.maxFailures ?? 10;
    this.windowMs = options.windowMs ?? 5 * 60_000;
    this.maxAddresses = options.maxAddresses ?? 10_000;
  }

  /** 0 when the address may try; else the seconds to wait. */
  retryAfterSeconds(address: string): number {
    const recent = this.recent(address);
    if (recent.length < this.maxFailures) return 0;
    return Math.max(1, Math.ceil((recent[0]! + this.windowMs - this.options.now()) / 1000));
  }

  failed(address: string): void {
    const recent = this.recent(address);
    recent.push(this.options.now());
    this.failures.delete(address);
    this.failures.set(address, recent.slice(-this.maxFailures));
    while (this.failures.size > this.maxAddresses) this.failures.delete(this.failures.keys().next().value!);
  }

  succeeded(address: string): void {
    this.failures.delete(address);
  }

  private recent(address: string): number[] {
    const since = this.options.now() - this.windowMs;
    return (this.failures.get(address) ?? []).filter((at) => at > since);
  }
}

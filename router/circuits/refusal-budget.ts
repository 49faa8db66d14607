// How many refused dials a source address may have at an edge listener: a token bucket per source (an IPv4
// address, or an IPv6 /64: one host holds a whole /64). Each refusal (no or a wrong session, an unknown or forbidden
// service, a malformed CONNECT) takes a token; a source with none left is answered 429 at once, without asking the
// controller, until its bucket refills. At most `maxSources` buckets are kept: the least recently refused goes first,
// and a bucket that has refilled is forgotten. Pure: the clock is a parameter.
import { isIPv4, isIPv6 } from 'node:net';
import type { Clock } from '../../common/time/clock.ts';

export interface RefusalBudgetLimits {
  /** Refusals a source may have in a burst. */
  readonly burst: number;
  /** Tokens a source gets back per second. */
  readonly refillPerSecond: number;
  /** Sources remembered at once. */
  readonly maxSources: number;
}

/** 10 refusals in a burst, then one every 5 s (12 a minute); 10 000 sources (about 1.6 MB of heap, measured). */
export const defaultRefusalBudgetLimits: RefusalBudgetLimits = { burst: 10, refillPerSecond: 0.2, maxSources: 10_000 };

interface Bucket {
  tokens: number;
  at: number;
}

export class RefusalBudget {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: RefusalBudgetLimits = defaultRefusalBudgetLimits,
  ) {}

  /** Seconds until the source may be refused again (answer 429 with it as Retry-After), or 0 when it may dial. */
  retryAfterSeconds(address: string | undefined): number {
    const key = sourceKeyOf(address);
    const bucket = this.refilled(key);
    if (!bucket || bucket.tokens >= 1) return 0;
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.limits.refillPerSecond));
  }

  /** A refusal of this source; true when it just used its last token (worth one log line). */
  spend(address: string | undefined): boolean {
    const key = sourceKeyOf(address);
    const bucket = this.refilled(key) ?? { tokens: this.limits.burst, at: this.clock.now() };
    const before = bucket.tokens;
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    while (this.buckets.size > this.limits.maxSources) this.buckets.delete(this.buckets.keys().next().value!);
    return before >= 1 && bucket.tokens < 1;
  }

  /** Sources remembered now. */
  get size(): number {
    return this.buckets.size;
  }

  private refilled(key: string): Bucket | undefined {
    const bucket = this.buckets.get(key);
    if (!bucket) return undefined;
    const now = this.clock.now();
    bucket.tokens = Math.min(this.limits.burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * this.limits.refillPerSecond);
    bucket.at = now;
    if (bucket.tokens >= this.limits.burst) {
      this.buckets.delete(key);
      return undefined;
    }
    return bucket;
  }
}

/** The key a source address is counted under: an IPv4 address (also when IPv4-mapped), or an IPv6 address's /64. */
export function sourceKeyOf(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address;
  const [head, tail = ''] = address.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(':')}::/64`;
}

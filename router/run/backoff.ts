// Retry delays for the control channel: exponential between a floor and a ceiling, with jitter so that routers cut
// off together do not all redial at the same instant. Pure: the randomness is a parameter.

export interface BackoffPolicy {
  /** First delay, ms. */
  readonly minMs: number;
  /** Ceiling, ms: no delay is ever above it. */
  readonly maxMs: number;
  /** Each further failure multiplies the delay by this (at least 1). */
  readonly factor: number;
  /** 0..1: the delay is drawn from [delay * (1 - jitter), delay]. */
  readonly jitter: number;
}

/** The control channel's policy: a quick first retry, at most 30 s between attempts. */
export const controlChannelBackoff: BackoffPolicy = { minMs: 250, maxMs: 30_000, factor: 2, jitter: 0.2 };

export class Backoff {
  private failures = 0;

  constructor(
    private readonly policy: BackoffPolicy,
    private readonly random: () => number = () => 1,
  ) {
    if (!(policy.minMs >= 0 && policy.maxMs >= policy.minMs && policy.factor >= 1 && policy.jitter >= 0 && policy.jitter <= 1)) {
      throw new Error(`invalid backoff policy ${JSON.stringify(policy)}`);
    }
  }

  /** The delay before the next attempt; each call counts one more failure. */
  next(): number {
    const base = Math.min(this.policy.maxMs, this.policy.minMs * this.policy.factor ** this.failures);
    this.failures++;
    const draw = Math.min(1, Math.max(0, this.random()));
    return Math.round(base * (1 - this.policy.jitter * (1 - draw)));
  }

  /** After a success: the next failure waits the minimum again. */
  reset(): void {
    this.failures = 0;
  }

  get attempts(): number {
    return this.failures;
  }
}

/**
 * The controller addresses a router knows, tried round robin: a failed or lost controller moves the router to the
 * next one. Replacing the list (new cluster membership) keeps the current address when it is still a member.
 */
export class EndpointRotation {
  private list: string[];
  private index = 0;

  constructor(endpoints: readonly string[]) {
    this.list = dedupe(endpoints);
  }

  get endpoints(): readonly string[] {
    return this.list;
  }

  current(): string | undefined {
    return this.list[this.index];
  }

  /** Moves to the next address (wrapping) and returns it. */
  advance(): string | undefined {
    if (this.list.length === 0) return undefined;
    this.index = (this.index + 1) % this.list.length;
    return this.list[this.index];
  }

  /** New membership: the current address stays current when it is still listed, else the first listed is. An empty list is ignored. */
  replace(endpoints: readonly string[]): void {
    const next = dedupe(endpoints);
    if (next.length === 0) return;
    const current = this.current();
    this.list = next;
    const kept = current === undefined ? -1 : next.indexOf(current);
    this.index = kept >= 0 ? kept : 0;
  }
}

function dedupe(values: readonly string[]): string[] {
  return [...new Set(values)];
}

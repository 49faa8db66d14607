// Retry intervals for link dials (the link dialers' `healthyDialBackoff` / `unhealthyDialBackoff`): the first retry
// waits minRetryInterval, each further one multiplies the interval by retryBackoffFactor, never above
// maxRetryInterval. A little jitter spreads routers that lost a peer together: the wait is drawn from
// [interval × (1 − 0.1), interval], so maxRetryInterval stays a true ceiling and no wait is below
// 0.9 × minRetryInterval. Pure: the randomness is a parameter.

import type { DialBackoffConfig } from '../config/router-config.ts';

/** healthy: the dialed router is connected to the controller; unhealthy: it is not. */
export type DialPolicyKind = 'healthy' | 'unhealthy';

export type DialPolicies = Readonly<Record<DialPolicyKind, DialBackoffConfig>>;

/** The largest share of an interval that jitter takes off. */
export const linkDialJitter = 0.1;

/** The interval after `previous` (undefined: the first retry): min, then × factor, capped at max (and never below min). */
export function nextRetryInterval(policy: DialBackoffConfig, previous: number | undefined): number {
  if (previous === undefined) return policy.minRetryInterval;
  return Math.min(policy.maxRetryInterval, Math.max(policy.minRetryInterval, previous * policy.retryBackoffFactor));
}

/** The wait for an interval given a draw in [0, 1): interval × (1 − jitter × draw), in whole ms. */
export function jitteredDelay(intervalMs: number, draw: number, jitter: number = linkDialJitter): number {
  const bounded = Number.isFinite(draw) ? Math.min(1, Math.max(0, draw)) : 0;
  return Math.max(0, Math.round(intervalMs * (1 - jitter * bounded)));
}

export interface RetryStep {
  readonly policy: DialPolicyKind;
  /** The un-jittered interval of this step. */
  readonly intervalMs: number;
  /** What to wait: the interval less its jitter. */
  readonly delayMs: number;
}

/**
 * One dial target's retry sequence. Switching policy (`use`) restarts the sequence at the new policy's minimum;
 * `reset` (after a link is established, or when the peer router connects) restarts it too.
 */
export class DialBackoff {
  private kind: DialPolicyKind = 'healthy';
  private previous: number | undefined;

  constructor(
    private readonly policies: DialPolicies,
    private readonly random: () => number,
    private readonly jitter: number = linkDialJitter,
  ) {
    for (const kind of ['healthy', 'unhealthy'] as const) {
      const p = policies[kind];
      if (!(p.minRetryInterval > 0 && p.maxRetryInterval >= p.minRetryInterval && p.retryBackoffFactor >= 1)) {
        throw new Error(`invalid ${kind} dial backoff ${JSON.stringify(p)}`);
      }
    }
  }

  get policy(): DialPolicyKind {
    return this.kind;
  }

  /** Selects the policy; returns true when it changed (the sequence then starts over). */
  use(kind: DialPolicyKind): boolean {
    if (kind === this.kind) return false;
    this.kind = kind;
    this.previous = undefined;
    return true;
  }

  /** The next wait; each call is one more failed attempt. */
  next(): RetryStep {
    const intervalMs = nextRetryInterval(this.policies[this.kind], this.previous);
    this.previous = intervalMs;
    return { policy: this.kind, intervalMs, delayMs: jitteredDelay(intervalMs, this.random(), this.jitter) };
  }

  reset(): void {
    this.previous = undefined;
  }
}

// The router's health checks as the health-checks API reports them, with the controller's JSON shape:
// `{data: {healthy, checks: [{id, healthy, lastCheckDuration, lastCheckTime, err?, consecutiveFailures?,
// failingSince?, details?}]}, meta: {}}`. A check that has not run yet reports the state it starts in (failing with
// "didn't run yet", or passing) and no details; after a run, `details` is always present (null when the check has
// none). Pure: times and durations are parameters.

import type { LinkInfo } from '../links/link-manager-api.ts';

export const didNotRunYet = "didn't run yet";

export interface CheckOutcome {
  readonly ok: boolean;
  /** Why it failed (ignored when ok). */
  readonly error?: string;
  readonly details?: unknown;
  /** Unix ms when the run ended. */
  readonly at: number;
  readonly durationMs: number;
}

export interface CheckView {
  readonly id: string;
  readonly healthy: boolean;
  readonly lastCheckDuration?: string;
  readonly lastCheckTime?: string | null;
  readonly err?: { readonly message: string };
  readonly consecutiveFailures?: number;
  readonly failingSince?: string;
  readonly details?: unknown;
}

export class CheckState {
  private healthy: boolean;
  private error: string | undefined;
  private consecutiveFailures = 0;
  private failingSince: number | undefined;
  private lastTime: number | undefined;
  private lastDurationMs = 0;
  private ran = false;
  private details: unknown = null;

  /** `initiallyHealthy` false: failing with "didn't run yet" since `createdAt` until the first run. */
  constructor(
    readonly id: string,
    initiallyHealthy: boolean,
    createdAt: number,
  ) {
    this.healthy = initiallyHealthy;
    if (!initiallyHealthy) {
      this.error = didNotRunYet;
      this.failingSince = createdAt;
    }
  }

  get isHealthy(): boolean {
    return this.healthy;
  }

  record(outcome: CheckOutcome): void {
    this.ran = true;
    this.lastTime = outcome.at;
    this.lastDurationMs = outcome.durationMs;
    this.details = outcome.details ?? null;
    if (outcome.ok) {
      this.healthy = true;
      this.error = undefined;
      this.consecutiveFailures = 0;
      this.failingSince = undefined;
      return;
    }
    if (this.healthy || this.failingSince === undefined) this.failingSince = outcome.at;
    this.healthy = false;
    this.error = outcome.error ?? 'check failed';
    this.consecutiveFailures++;
  }

  view(short: boolean): CheckView {
    if (short) return { id: this.id, healthy: this.healthy };
    return {
      id: this.id,
      healthy: this.healthy,
      lastCheckDuration: formatGoDuration(this.lastDurationMs),
      lastCheckTime: this.lastTime === undefined ? null : rfc3339Seconds(this.lastTime),
      ...(this.healthy
        ? {}
        : { err: { message: this.error ?? 'check failed' }, consecutiveFailures: this.consecutiveFailures, ...(this.failingSince === undefined ? {} : { failingSince: rfc3339Seconds(this.failingSince) }) }),
      ...(this.ran ? { details: this.details } : {}),
    };
  }
}

export interface HealthReport {
  readonly data: { readonly healthy: boolean; readonly checks: readonly CheckView[] };
  readonly meta: Record<string, never>;
}

export function healthReport(checks: readonly CheckState[], short: boolean): HealthReport {
  const views = checks.map((check) => check.view(short));
  return { data: { healthy: checks.every((check) => check.isHealthy), checks: views }, meta: {} };
}

/** The ping check's verdict from what the control channel reports. */
export function controllerPingFailure(state: { readonly connected: boolean; readonly answered: boolean }): string | undefined {
  if (!state.connected) return 'no control channels established yet';
  if (!state.answered) return 'control channels are slow';
  return undefined;
}

/** The link check's verdict. */
export function linkCountFailure(count: number, minLinks: number): string | undefined {
  return count < minLinks ? `link count ${count} less than configured minimum of ${minLinks}` : undefined;
}

/** Go `time.Duration.String()` for a run time: "0s", "27.46µs", "1.2ms", "1.5s". */
export function formatGoDuration(ms: number): string {
  if (!(ms > 0)) return '0s';
  if (ms < 0.001) return `${Math.round(ms * 1e6)}ns`;
  if (ms < 1) return `${trim(ms * 1000)}µs`;
  if (ms < 1000) return `${trim(ms)}ms`;
  return `${trim(ms / 1000)}s`;
}

function trim(value: number): string {
  return String(Number(value.toPrecision(4)));
}

/** RFC 3339 in UTC with second precision, as Go formats the check times. */
export function rfc3339Seconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface LinkDetail {
  readonly linkId: string;
  readonly destRouterId: string;
  /** Mean round trip in nanoseconds, as OpenZiti reports it; null before the first measurement. */
  readonly latency: number | null;
  readonly addresses: Readonly<Record<string, { readonly localAddr: string; readonly remoteAddr: string }>>;
}

/** The link check's details: one entry per link, in OpenZiti's shape: the ends of each connection by kind
 * (`single`, or `payload` and `ack` for a split link; `single` from localAddr/remoteAddr when not given). */
export function linkDetails(links: ReadonlyArray<LinkInfo>): LinkDetail[] {
  return links.map((link) => ({
    linkId: link.id,
    destRouterId: link.destRouterId,
    latency: link.latencyMs === null ? null : link.latencyMs * 1e6,
    addresses: link.addresses !== undefined && Object.keys(link.addresses).length > 0 ? link.addresses : { single: { localAddr: link.localAddr, remoteAddr: link.remoteAddr } },
  }));
}

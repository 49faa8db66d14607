// What has to reach which Alertmanager, and when: pure bookkeeping, driven by the delivery driver with the clock.
// A new or just-resolved alert is due at once; a firing one again every resendInterval, with endsAt a few intervals
// ahead, as Prometheus does, so that Alertmanager resolves it by itself if the daemon stops. A failed POST puts
// that Alertmanager in exponential backoff, and nothing is dropped meanwhile: an alert leaves the queue only once
// resolved and accepted by every Alertmanager (or, resolved and undeliverable, after resolvedRetention). The state
// is plain data, persisted with the rest, so a restart neither loses nor repeats a delivery.

import { instanceKey } from '../evaluator/alert-change.ts';
import type { AlertInstance } from '../evaluator/alert-change.ts';

export interface DeliverySettings {
  readonly urls: readonly string[];
  readonly resendInterval: number;
  readonly retryInitialBackoff: number;
  readonly retryMaxBackoff: number;
  readonly resolvedRetention: number;
}

/** Firing alerts are sent with endsAt this many resend intervals ahead. */
export const endsAtIntervals = 4;
/** Alerts per POST. */
export const maxBatch = 500;

export interface QueuedAlert {
  /** instanceKey@startsAt: an instance that fires again after resolving is a new entry. */
  readonly id: string;
  readonly key: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly startsAt: number;
  endsAt?: number;
  /** Bumped when the alert resolves, so each Alertmanager is sent the new state. */
  version: number;
  /** url → the version it accepted, and when. */
  readonly accepted: Record<string, { version: number; at: number }>;
}

export interface DeliveryState {
  readonly version: 1;
  readonly alerts: QueuedAlert[];
  /** url → consecutive failures and when to try again. */
  readonly targets: Record<string, { failures: number; retryAt?: number }>;
}

/** Alertmanager's postable alert. */
export interface PostableAlert {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly startsAt: string;
  readonly endsAt: string;
}

export interface Batch {
  readonly url: string;
  readonly alerts: readonly PostableAlert[];
  /** What acceptance of this batch means for the queue. */
  readonly sent: readonly { readonly id: string; readonly version: number }[];
}

export function emptyDeliveryState(): DeliveryState {
  return { version: 1, alerts: [], targets: {} };
}

export class DeliveryQueue {
  private readonly state: DeliveryState;

  constructor(
    private readonly settings: DeliverySettings,
    state?: DeliveryState,
  ) {
    this.state = state ? structuredClone(state) : emptyDeliveryState();
    // Alertmanagers no longer configured are forgotten; new ones are owed everything.
    for (const url of Object.keys(this.state.targets)) if (!settings.urls.includes(url)) delete this.state.targets[url];
    for (const alert of this.state.alerts) for (const url of Object.keys(alert.accepted)) if (!settings.urls.includes(url)) delete alert.accepted[url];
    this.collect();
  }

  fire(instance: AlertInstance, labels: Readonly<Record<string, string>>, annotations: Readonly<Record<string, string>>): void {
    const key = instanceKey(instance.alert, instance.labels);
    if (this.state.alerts.some((alert) => alert.key === key && alert.endsAt === undefined)) return;
    this.state.alerts.push({ id: `${key}@${instance.startsAt}`, key, labels, annotations, startsAt: instance.startsAt, version: 1, accepted: {} });
  }

  resolve(instance: AlertInstance, endsAt: number, labels: Readonly<Record<string, string>>, annotations: Readonly<Record<string, string>>): void {
    const key = instanceKey(instance.alert, instance.labels);
    const open = this.state.alerts.find((alert) => alert.key === key && alert.endsAt === undefined);
    if (open) {
      open.endsAt = endsAt;
      open.version++;
      return;
    }
    // The firing entry is gone (a lost state file): the resolve is still owed.
    this.state.alerts.push({ id: `${key}@${instance.startsAt}`, key, labels, annotations, startsAt: instance.startsAt, endsAt, version: 1, accepted: {} });
  }

  /** What to POST to `url` now, if anything. */
  due(url: string, now: number): Batch | undefined {
    const target = this.state.targets[url];
    if (target?.retryAt !== undefined && target.retryAt > now) return undefined;
    const chosen = this.state.alerts
      .filter((alert) => this.owed(alert, url, now))
      .sort((a, b) => a.startsAt - b.startsAt)
      .slice(0, maxBatch);
    if (chosen.length === 0) return undefined;
    return {
      url,
      alerts: chosen.map((alert) => ({
        labels: alert.labels,
        annotations: alert.annotations,
        startsAt: new Date(alert.startsAt).toISOString(),
        endsAt: new Date(alert.endsAt ?? now + endsAtIntervals * this.settings.resendInterval).toISOString(),
      })),
      sent: chosen.map((alert) => ({ id: alert.id, version: alert.version })),
    };
  }

  accepted(batch: Batch, now: number): void {
    for (const sent of batch.sent) {
      const alert = this.state.alerts.find((candidate) => candidate.id === sent.id);
      if (alert) alert.accepted[batch.url] = { version: sent.version, at: now };
    }
    this.state.targets[batch.url] = { failures: 0 };
    this.collect();
  }

  /** Records a failed POST; returns how long until the next try. */
  failed(url: string, now: number): number {
    const failures = (this.state.targets[url]?.failures ?? 0) + 1;
    const delay = Math.min(this.settings.retryMaxBackoff, this.settings.retryInitialBackoff * 2 ** Math.min(failures - 1, 30));
    this.state.targets[url] = { failures, retryAt: now + delay };
    return delay;
  }

  /** The earliest time something becomes due for an Alertmanager not in `busy`; undefined when nothing is owed. */
  nextDue(now: number, busy: ReadonlySet<string> = new Set()): number | undefined {
    let next: number | undefined;
    for (const url of this.settings.urls) {
      if (busy.has(url)) continue;
      const retryAt = this.state.targets[url]?.retryAt;
      for (const alert of this.state.alerts) {
        const accepted = alert.accepted[url];
        let at: number | undefined;
        if (accepted?.version !== alert.version) at = now;
        else if (alert.endsAt === undefined) at = accepted.at + this.settings.resendInterval;
        if (at === undefined) continue;
        if (retryAt !== undefined) at = Math.max(at, retryAt);
        next = next === undefined ? at : Math.min(next, at);
      }
    }
    return next;
  }

  /** Drops resolved alerts that could not be delivered within resolvedRetention; returns how many. */
  expire(now: number): number {
    const before = this.state.alerts.length;
    const kept = this.state.alerts.filter((alert) => alert.endsAt === undefined || alert.endsAt + this.settings.resolvedRetention >= now);
    this.state.alerts.splice(0, this.state.alerts.length, ...kept);
    return before - kept.length;
  }

  /** Alerts some Alertmanager has not accepted in their current state. */
  waiting(): number {
    return this.state.alerts.filter((alert) => this.settings.urls.some((url) => alert.accepted[url]?.version !== alert.version)).length;
  }

  snapshot(): DeliveryState {
    return structuredClone(this.state);
  }

  private owed(alert: QueuedAlert, url: string, now: number): boolean {
    const accepted = alert.accepted[url];
    if (accepted?.version !== alert.version) return true;
    return alert.endsAt === undefined && now - accepted.at >= this.settings.resendInterval;
  }

  /** Resolved alerts every Alertmanager has accepted are done. */
  private collect(): void {
    const kept = this.state.alerts.filter((alert) => alert.endsAt === undefined || this.settings.urls.some((url) => alert.accepted[url]?.version !== alert.version));
    this.state.alerts.splice(0, this.state.alerts.length, ...kept);
  }
}

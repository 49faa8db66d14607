// Sends the delivery queue to every Alertmanager: `POST <url>/api/v2/alerts` with a JSON array, one request at a
// time per Alertmanager, with a timeout. A new alert goes out at once (the engine kicks this), resends and retries
// on a timer set to the queue's next due time. A failure is logged and retried with the queue's backoff; nothing
// is dropped.

import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { Batch, DeliveryQueue } from '../core/delivery/delivery-queue.ts';
import type { DaemonMetrics } from './daemon-metrics.ts';

export interface AlertDeliveryOptions {
  readonly urls: readonly string[];
  readonly timeout: number;
}

export interface AlertDeliveryDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: DaemonMetrics;
}

/** setTimeout's ceiling; a longer wait is cut into pieces by the kicks in between anyway. */
const maxTimerMs = 2 ** 31 - 1;

export function alertsEndpoint(base: string): string {
  return new URL('api/v2/alerts', base.endsWith('/') ? base : `${base}/`).href;
}

export class AlertDelivery {
  private readonly inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly options: AlertDeliveryOptions,
    private readonly deps: AlertDeliveryDeps,
  ) {}

  /** Sends whatever is due to every Alertmanager not already busy, and sets the timer for the next due time. */
  kick(): void {
    if (this.stopped) return;
    const now = this.deps.clock.now();
    const dropped = this.queue.expire(now);
    if (dropped > 0) {
      this.deps.logger.warn('resolved alerts dropped: no Alertmanager accepted them within alertmanager.resolvedRetention', { dropped });
    }
    for (const url of this.options.urls) {
      if (this.inFlight.has(url)) continue;
      const batch = this.queue.due(url, now);
      if (batch) this.send(batch);
    }
    this.deps.metrics.setQueue(this.queue.waiting());
    this.schedule(now);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const { controller } of this.inFlight.values()) controller.abort();
    await Promise.all([...this.inFlight.values()].map(({ done }) => done));
  }

  private schedule(now: number): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    // A busy Alertmanager is kicked again when its request ends.
    const next = this.queue.nextDue(now, new Set(this.inFlight.keys()));
    if (next === undefined) return;
    this.timer = setTimeout(() => this.kick(), Math.min(maxTimerMs, Math.max(10, next - now)));
    this.timer.unref();
  }

  private send(batch: Batch): void {
    const controller = new AbortController();
    const done = this.post(batch, controller).finally(() => {
      this.inFlight.delete(batch.url);
      this.deps.metrics.setQueue(this.queue.waiting());
      this.kick();
    });
    this.inFlight.set(batch.url, { controller, done });
  }

  private async post(batch: Batch, controller: AbortController): Promise<void> {
    const timeout = setTimeout(() => controller.abort(new Error(`no answer within ${this.options.timeout} ms (alertmanager.timeout)`)), this.options.timeout);
    try {
      const response = await fetch(alertsEndpoint(batch.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(batch.alerts),
        signal: controller.signal,
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 200).trim()}`);
      this.queue.accepted(batch, this.deps.clock.now());
      this.deps.metrics.delivery('accepted');
    } catch (error) {
      if (this.stopped) return; // left in the queue, saved, and sent after the restart
      const retryInMs = this.queue.failed(batch.url, this.deps.clock.now());
      this.deps.metrics.delivery('failed');
      const reason = error instanceof Error ? (error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message) : String(error);
      this.deps.logger.warn('alert delivery failed; retrying', { url: batch.url, alerts: batch.alerts.length, error: reason, retryInMs });
    } finally {
      clearTimeout(timeout);
    }
  }
}

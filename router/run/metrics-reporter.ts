// The router's metrics timers (the `metrics` section): every `reportInterval` one `router.metrics` message is built
// and queued (metrics-queue.ts); every check interval (≤ 1 s, ≤ a tenth of `intervalAgeThreshold`, ≥ 10 ms) the
// messages at least `intervalAgeThreshold` old are sent, oldest first, until one cannot go (no welcomed channel, or
// its send queue is full): that one and the younger ones wait for the next check or `flush()`. A run of drops from
// a full queue is logged once.

import type { RouterMetrics } from '../../common/control-channel/control-messages.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import { MetricsQueue, metricsCheckIntervalMs } from './metrics-queue.ts';

export interface MetricsReporterOptions {
  /** metrics.reportInterval, ms */
  readonly reportIntervalMs: number;
  /** metrics.messageQueueSize */
  readonly messageQueueSize: number;
  /** metrics.intervalAgeThreshold, ms */
  readonly intervalAgeThresholdMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** One interval's message at `now`; `dropped` is how many messages the full queue has dropped so far. */
  readonly build: (now: number, dropped: number) => RouterMetrics;
  /** Sends on the control channel; false when the message cannot go now (it stays queued). */
  readonly send: (message: RouterMetrics) => boolean;
}

export class MetricsReporter {
  private readonly queue: MetricsQueue;
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(private readonly options: MetricsReporterOptions) {
    this.queue = new MetricsQueue({ maxMessages: options.messageQueueSize, minAgeMs: options.intervalAgeThresholdMs });
  }

  /** Messages waiting (too young, or the controller is unreachable). */
  get queued(): number {
    return this.queue.size;
  }

  get dropped(): number {
    return this.queue.dropped;
  }

  /** The interval at which due messages are looked for. */
  get checkIntervalMs(): number {
    return metricsCheckIntervalMs(this.options.intervalAgeThresholdMs);
  }

  start(): void {
    const build = setInterval(() => this.report(), this.options.reportIntervalMs);
    const check = setInterval(() => this.flush(), this.checkIntervalMs);
    build.unref();
    check.unref();
    this.timers.push(build, check);
  }

  stop(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }

  /** Sends every due message, oldest first, until one cannot go. */
  flush(): void {
    const now = this.options.clock.now();
    for (let message = this.queue.due(now); message !== undefined; message = this.queue.due(now)) {
      if (!this.options.send(message)) return;
      this.queue.sent();
    }
  }

  private report(): void {
    const message = this.options.build(this.options.clock.now(), this.queue.dropped);
    if (this.queue.push(message)) {
      this.options.logger.warn('metrics queue full: dropping the oldest messages until one can be sent', {
        messageQueueSize: this.options.messageQueueSize,
        dropped: this.queue.dropped,
      });
    }
    this.flush();
  }
}

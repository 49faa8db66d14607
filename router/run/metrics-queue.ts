// Metrics messages on their way to the controller. Each message (one `reportInterval`) is held until it is at least
// `intervalAgeThreshold` old (the spec's "minimum age of a batch before it is sent"), then handed out oldest first.
// At most `messageQueueSize` wait: a push onto a full queue drops the oldest. Nothing is dropped for being old: while
// the controller is unreachable the messages stay (bounded) and go out once it is back. Pure: the time is a parameter.

import type { RouterMetrics } from '../../common/control-channel/control-messages.ts';

export interface MetricsQueueLimits {
  /** metrics.messageQueueSize */
  readonly maxMessages: number;
  /** metrics.intervalAgeThreshold, ms: how old a message must be before it is sent. */
  readonly minAgeMs: number;
}

export class MetricsQueue {
  private readonly queued: RouterMetrics[] = [];
  private dropping = false;
  /** Messages dropped because the queue was full. */
  dropped = 0;

  constructor(private readonly limits: MetricsQueueLimits) {
    if (limits.maxMessages < 1) throw new Error('metrics queue needs room for at least one message');
  }

  get size(): number {
    return this.queued.length;
  }

  /**
   * Queues a message, dropping the oldest when the queue is full. True when this drop starts a run of drops (the
   * first since a message was last sent), so the caller can log a run once.
   */
  push(message: RouterMetrics): boolean {
    this.queued.push(message);
    if (this.queued.length <= this.limits.maxMessages) return false;
    this.queued.shift();
    this.dropped++;
    const started = !this.dropping;
    this.dropping = true;
    return started;
  }

  /** The oldest message when it is at least `minAgeMs` old at `now`; it stays queued until `sent()`. */
  due(now: number): RouterMetrics | undefined {
    const oldest = this.queued[0];
    return oldest !== undefined && now - oldest.timestamp >= this.limits.minAgeMs ? oldest : undefined;
  }

  /** The oldest message went out: it leaves the queue, and a run of drops ends. */
  sent(): void {
    if (this.queued.shift() !== undefined) this.dropping = false;
  }
}

/**
 * How often the sender looks for due messages, so none waits more than this beyond its threshold: a second or a
 * tenth of the threshold, whichever is smaller, and at least 10 ms.
 */
export function metricsCheckIntervalMs(minAgeMs: number): number {
  return Math.max(10, Math.min(1000, Math.floor(minAgeMs / 10)));
}

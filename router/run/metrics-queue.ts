// Metrics messages waiting for the control channel: at most `messageQueueSize` (the oldest is dropped to make
// room) and none older than `intervalAgeThreshold` is ever sent (an interval that waited too long is stale and is
// dropped when the channel comes back). Pure: the time is a parameter.

import type { RouterMetrics } from '../../common/control-channel/control-messages.ts';

export interface MetricsQueueLimits {
  /** metrics.messageQueueSize */
  readonly maxMessages: number;
  /** metrics.intervalAgeThreshold, ms */
  readonly maxAgeMs: number;
}

export class MetricsQueue {
  private readonly queued: RouterMetrics[] = [];
  /** Messages dropped because the queue was full. */
  droppedFull = 0;
  /** Messages dropped because they were older than the threshold when they could have been sent. */
  droppedStale = 0;

  constructor(private readonly limits: MetricsQueueLimits) {
    if (limits.maxMessages < 1) throw new Error('metrics queue needs room for at least one message');
  }

  get size(): number {
    return this.queued.length;
  }

  push(message: RouterMetrics): void {
    this.queued.push(message);
    while (this.queued.length > this.limits.maxMessages) {
      this.queued.shift();
      this.droppedFull++;
    }
  }

  /** Empties the queue: the messages still young enough to send at `now`, oldest first. */
  drain(now: number): RouterMetrics[] {
    const all = this.queued.splice(0);
    const fresh = all.filter((message) => now - message.timestamp <= this.limits.maxAgeMs);
    this.droppedStale += all.length - fresh.length;
    return fresh;
  }
}

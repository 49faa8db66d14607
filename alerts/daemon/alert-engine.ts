// The evaluator with the daemon around it: every observation steps it, and the alert changes it returns go to the
// delivery queue (with Alertmanager's labels and annotations) and to the firing gauge. It also counts what the
// consumers read.

import type { Clock } from '../../common/time/clock.ts';
import type { AlertName } from '../catalogue/alert-catalogue.ts';
import { alertAnnotations, alertLabels } from '../core/delivery/alert-payload.ts';
import type { PayloadSettings } from '../core/delivery/alert-payload.ts';
import type { DeliveryQueue } from '../core/delivery/delivery-queue.ts';
import type { AlertChange } from '../core/evaluator/alert-change.ts';
import type { Evaluator } from '../core/evaluator/evaluator.ts';
import type { Observation } from '../core/evaluator/observations.ts';
import type { DaemonMetrics, FileKind } from './daemon-metrics.ts';
import type { RecordSink } from './record-sink.ts';

export interface AlertEngineDeps {
  readonly clock: Clock;
  readonly metrics: DaemonMetrics;
  /** Alerts were queued (deliver them now). */
  readonly onQueued: (changes: readonly AlertChange[]) => void;
}

export class AlertEngine implements RecordSink {
  constructor(
    private readonly evaluator: Evaluator,
    private readonly queue: DeliveryQueue,
    private readonly payload: PayloadSettings,
    private readonly deps: AlertEngineDeps,
  ) {
    this.updateFiring();
  }

  now(): number {
    return this.deps.clock.now();
  }

  observe(observation: Observation): void {
    const changes = this.evaluator.step(observation);
    if (changes.length === 0) return;
    for (const change of changes) {
      const labels = alertLabels(change, this.payload);
      const annotations = alertAnnotations(change, this.payload);
      if (change.change === 'firing') this.queue.fire(change, labels, annotations);
      else this.queue.resolve(change, change.endsAt, labels, annotations);
    }
    this.updateFiring();
    this.deps.onQueued(changes);
  }

  lines(kind: FileKind, count: number): void {
    this.deps.metrics.lines(kind, count);
  }

  matched(rule: string, count = 1): void {
    this.deps.metrics.matched(rule, count);
  }

  skipped(kind: FileKind, reason: string, count = 1): void {
    this.deps.metrics.skippedRecords(kind, reason, count);
  }

  private updateFiring(): void {
    const counts = new Map<AlertName, number>();
    for (const instance of this.evaluator.firing()) counts.set(instance.alert, (counts.get(instance.alert) ?? 0) + 1);
    this.deps.metrics.setFiring(counts);
  }
}

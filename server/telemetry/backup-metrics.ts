// Online backups of the model, as Prometheus sees them: when the last one succeeded, its size and how long it took,
// the configured schedule's interval, and every backup counted by what started it (the schedule, or a request:
// `agent controller snapshot`, `POST /database/snapshot`) and its result. Fed by the database admin's snapshot
// outcomes, so every backup counts whatever started it. The counter's four series start at 0, so an alert's
// increase() works from the first scrape; the gauges are 0 until the first success.
import type { Attributes, Counter, Meter } from '@opentelemetry/api';

export type BackupTrigger = 'request' | 'schedule';

/** One snapshot's outcome, as the database admin reports it (its `BackupOutcome`, the fields counted here). */
export type BackupOutcomeReport =
  | { readonly ok: true; readonly trigger: BackupTrigger; readonly written: { readonly sizeBytes: number; readonly takenAt: string; readonly durationMs: number } }
  | { readonly ok: false; readonly trigger: BackupTrigger; readonly error: string };

const triggers: readonly BackupTrigger[] = ['schedule', 'request'];
const results = ['success', 'failure'] as const;

export class BackupMetrics {
  private readonly backups: Counter;
  private readonly labels = new Map<string, Attributes>();
  private last: { seconds: number; bytes: number; durationSeconds: number } = { seconds: 0, bytes: 0, durationSeconds: 0 };

  /** `intervalMs`: `cluster.backup.interval` (0: no schedule). */
  constructor(meter: Meter, intervalMs: number) {
    this.backups = meter.createCounter('backups', { description: 'Online backups of the model by trigger (schedule, request) and result (success, failure)' });
    for (const trigger of triggers) for (const result of results) this.backups.add(0, this.attributes(trigger, result));
    const lastSuccess = meter.createObservableGauge('backup.last_success_timestamp_seconds', { description: 'Unix time the model was read for the last successful backup, in seconds; 0 until the first' });
    const lastSize = meter.createObservableGauge('backup.last_size_bytes', { description: 'Size of the last successful backup file, in bytes; 0 until the first' });
    const lastDuration = meter.createObservableGauge('backup.last_duration_seconds', { description: 'Time the last successful backup took to write, in seconds; 0 until the first' });
    meter.addBatchObservableCallback(
      (result) => {
        result.observe(lastSuccess, this.last.seconds);
        result.observe(lastSize, this.last.bytes);
        result.observe(lastDuration, this.last.durationSeconds);
      },
      [lastSuccess, lastSize, lastDuration],
    );
    meter
      .createObservableGauge('backup.interval_seconds', { description: 'The backup schedule\'s interval (cluster.backup.interval), in seconds; 0 when the schedule is off' })
      .addCallback((result) => result.observe(intervalMs / 1000));
  }

  /** The last backup a previous run of this controller left (found on disk at start), until a newer one. */
  seedLast(backup: { readonly takenAt: string; readonly sizeBytes: number }): void {
    const takenAtMs = Date.parse(backup.takenAt);
    if (!Number.isFinite(takenAtMs) || takenAtMs / 1000 <= this.last.seconds) return;
    this.last = { seconds: takenAtMs / 1000, bytes: backup.sizeBytes, durationSeconds: 0 };
  }

  /** One backup's outcome, whatever started it. */
  record(outcome: BackupOutcomeReport): void {
    this.backups.add(1, this.attributes(outcome.trigger, outcome.ok ? 'success' : 'failure'));
    if (!outcome.ok) return;
    const takenAtMs = Date.parse(outcome.written.takenAt);
    this.last = {
      seconds: Number.isFinite(takenAtMs) ? takenAtMs / 1000 : this.last.seconds,
      bytes: outcome.written.sizeBytes,
      durationSeconds: outcome.written.durationMs / 1000,
    };
  }

  private attributes(trigger: BackupTrigger, result: (typeof results)[number]): Attributes {
    const key = `${trigger}|${result}`;
    let attributes = this.labels.get(key);
    if (!attributes) this.labels.set(key, (attributes = { trigger, result }));
    return attributes;
  }
}

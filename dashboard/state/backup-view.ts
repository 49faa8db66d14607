// A controller's last online backup as the status page shows it, from the backup gauges of its /metrics: off (no
// schedule and no backup), none yet, or when and how big, flagged stale past the EdgewardBackupsStopped threshold
// (the monitoring mixin's intervals), so the page and the alert agree. Pure.
import { monitoringMixin } from '../../alerts/mixin/monitoring-mixin.ts';

export interface BackupReading {
  /** Unix seconds of the last successful backup; 0 before the first. */
  readonly lastSuccessSeconds: number;
  readonly lastSizeBytes?: number;
  /** `cluster.backup.interval` in seconds; 0: no schedule. */
  readonly intervalSeconds: number;
}

export type BackupView =
  | { readonly state: 'off' }
  | { readonly state: 'none'; readonly intervalSeconds: number }
  | {
      readonly state: 'written';
      /** When the last successful backup was taken (ms since the epoch). */
      readonly at: number;
      readonly sizeBytes?: number;
      /** 0: no schedule (the backup was taken by hand). */
      readonly intervalSeconds: number;
      /** Older than the alert's threshold while the schedule is on. */
      readonly stale?: true;
    };

export function backupView(reading: BackupReading, now: number): BackupView {
  const { lastSuccessSeconds, intervalSeconds } = reading;
  if (lastSuccessSeconds <= 0) return intervalSeconds > 0 ? { state: 'none', intervalSeconds } : { state: 'off' };
  const at = lastSuccessSeconds * 1000;
  const stale = intervalSeconds > 0 && now - at > monitoringMixin.backupsStopped.intervals * intervalSeconds * 1000;
  return { state: 'written', at, ...(reading.lastSizeBytes === undefined ? {} : { sizeBytes: reading.lastSizeBytes }), intervalSeconds, ...(stale ? { stale: true as const } : {}) };
}

// Online backups in a running controller: every backup's outcome (scheduled or asked for) counted in the metrics and
// logged when it failed, the last backup a previous run left in the schedule's folder reported until a newer one, and the `cluster.backup` schedule started (backup-schedule.ts). The returned function stops
// the schedule, waiting for a backup in progress.
import type { Logger } from '../../common/log/logger.ts';
import type { DatabaseAdmin } from '../edge/database-admin.ts';
import { newestBackupIn } from '../store/model-backup-file.ts';
import { BackupMetrics } from '../telemetry/backup-metrics.ts';
import type { ControllerMetrics } from '../telemetry/controller-metrics.ts';
import { startBackupSchedule } from './backup-schedule.ts';
import type { ControllerOptions } from './controller-options.ts';

export function startBackups(options: ControllerOptions, database: DatabaseAdmin, metrics: ControllerMetrics, logger: Logger): () => Promise<void> {
  const intervalMs = options.backup?.intervalMs ?? 0;
  const backupMetrics = new BackupMetrics(metrics.meter, intervalMs);
  database.onSnapshot((outcome) => backupMetrics.record(outcome));
  // After a restart the last backup is the newest the schedule's folder holds, not "none yet".
  if (options.backup && intervalMs > 0) {
    void newestBackupIn(options.backup.dir)
      .then((newest) => newest && backupMetrics.seedLast(newest))
      .catch((error: Error) => logger.warn('could not read the backup folder for the last backup', { error: error.message }));
  }
  if (!options.backup || intervalMs <= 0) return startBackupSchedule({ intervalMs: 0, dir: '', retain: 1, database, logger });
  return startBackupSchedule({ intervalMs, dir: options.backup.dir, retain: options.backup.retain, database, logger });
}

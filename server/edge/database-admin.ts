// The management API's `/database` operations: a backup of the model written to disk (store/model-backup-file.ts,
// a driver the wiring injects) on request or on the backup schedule, and the data-integrity check
// (model/data-integrity.ts) run in the background, one at a time, its results kept on this controller until the next
// run; the fixing run proposes each finding's fixing command through raft like any write, so every controller is
// fixed. A backup is the model as applied at one instant (its rows are taken in one synchronous step; applies run on
// the same thread), written while the controller goes on serving; backups are written one at a time.
import { join } from 'node:path';
import type { Clock } from '../../common/time/clock.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import { clusterIdOf } from '../model/cluster-identity.ts';
import { checkDataIntegrity } from '../model/data-integrity.ts';
import type { Row } from '../store/entity-table.ts';
import { backupFileName, type BackupFileWritten, type BackupHeader } from '../store/model-backup-file.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import type { ModelWriter } from './model-writer.ts';

/** Findings beyond this many are counted as `tooManyErrors`, not listed. */
export const maxIntegrityResults = 1000;

export interface IntegrityReport {
  readonly inProgress: boolean;
  readonly fixingErrors: boolean;
  readonly tooManyErrors: boolean;
  readonly startTime: string;
  readonly endTime: string;
  readonly error: string;
  readonly results: ReadonlyArray<{ readonly description: string; readonly fixed: boolean }>;
}

export interface DatabaseAdminDeps {
  readonly store: ModelStore;
  readonly writer: ModelWriter;
  readonly clock: Clock;
  /** Where backups go when no folder or file is named (`<dataDir>/db-snapshots`). */
  readonly defaultBackupDir: string;
  /** What a backup's header says about who wrote it. */
  readonly origin: { readonly controllerId: string; readonly trustDomain: string; readonly edgewardVersion: string };
  /** Writes a backup file atomically (a driver: model-backup-file.ts). */
  readonly writeBackup: (path: string, header: Omit<BackupHeader, 'format' | 'tables'>, tables: Readonly<Record<string, readonly Row[]>>) => Promise<BackupFileWritten>;
}

export interface BackupWritten {
  readonly path: string;
  readonly index: number;
  readonly term: number;
  readonly clusterId: string;
  readonly sizeBytes: number;
  readonly sha256: string;
  /** RFC 3339. */
  readonly takenAt: string;
  readonly durationMs: number;
}

export type BackupTrigger = 'request' | 'schedule';
export type BackupOutcome = { ok: true; trigger: BackupTrigger; written: BackupWritten } | { ok: false; trigger: BackupTrigger; error: string };

/** Backups waiting behind the one being written beyond this many are refused (429): each holds a copy's worth of
 * row lists, and a burst of requests must not queue without bound. */
export const maxQueuedBackups = 4;

const epoch = new Date(0).toISOString();

export class DatabaseAdmin {
  private report: IntegrityReport = { inProgress: false, fixingErrors: false, tooManyErrors: false, startTime: epoch, endTime: epoch, error: '', results: [] };
  private running: Promise<void> | undefined;
  private backups: Promise<unknown> = Promise.resolve();
  private backupsWaiting = 0;
  private readonly backupListeners: Array<(outcome: BackupOutcome) => void> = [];

  constructor(private readonly deps: DatabaseAdminDeps) {}

  /**
   * Writes a backup of the model as applied when its turn comes: to `out` (a file) if given, else into `dir`
   * (default `<dataDir>/db-snapshots`) as model-<index>-<time>.json. Backups are written one at a time.
   */
  snapshot(options: { out?: string; dir?: string; trigger?: BackupTrigger } = {}): Promise<BackupWritten> {
    const trigger = options.trigger ?? 'request';
    if (this.backupsWaiting >= maxQueuedBackups) {
      return Promise.reject(new EdgeError('SERVER_TOO_MANY_REQUESTS', { code: 'SERVER_TOO_MANY_REQUESTS', message: `${maxQueuedBackups} backups are already waiting to be written` }));
    }
    this.backupsWaiting += 1;
    const result = this.backups.then(() => {
      this.backupsWaiting -= 1;
      return this.writeBackupNow(options, trigger);
    });
    this.backups = result.catch(() => undefined);
    return result;
  }

  /** Hears every backup's outcome, whatever started it. */
  onSnapshot(listener: (outcome: BackupOutcome) => void): void {
    this.backupListeners.push(listener);
  }

  private async writeBackupNow(options: { out?: string; dir?: string }, trigger: BackupTrigger): Promise<BackupWritten> {
    const started = this.deps.clock.now();
    try {
      // One synchronous step: every table's rows as of one applied index.
      const rows = this.deps.store.exportRows();
      const takenAt = isoTime(started);
      const clusterId = clusterIdOf(this.deps.store) ?? '';
      const path = options.out ?? join(options.dir ?? this.deps.defaultBackupDir, backupFileName(rows.appliedIndex, takenAt));
      const header = { ...this.deps.origin, clusterId, index: rows.appliedIndex, term: rows.appliedTerm, takenAt };
      const file = await this.deps.writeBackup(path, header, rows.tables);
      const written: BackupWritten = { path: file.path, index: rows.appliedIndex, term: rows.appliedTerm, clusterId, sizeBytes: file.sizeBytes, sha256: file.sha256, takenAt, durationMs: this.deps.clock.now() - started };
      this.tell({ ok: true, trigger, written });
      return written;
    } catch (error) {
      this.tell({ ok: false, trigger, error: (error as Error).message });
      throw error;
    }
  }

  private tell(outcome: BackupOutcome): void {
    for (const listener of this.backupListeners) {
      try {
        listener(outcome);
      } catch {
        // A listener (metrics, logs) must not turn a written backup into a failed one.
      }
    }
  }

  /** The last (or running) check's report. */
  results(): IntegrityReport {
    return this.report;
  }

  /** Starts a check (fixing what it can when `fix`); refused while one runs. Resolves when it has started. */
  start(fix: boolean): void {
    if (this.running) throw new EdgeError('SERVER_TOO_MANY_REQUESTS', { code: 'SERVER_TOO_MANY_REQUESTS', message: 'a data integrity check is already running' });
    const startTime = isoTime(this.deps.clock.now());
    this.report = { inProgress: true, fixingErrors: fix, tooManyErrors: false, startTime, endTime: startTime, error: '', results: [] };
    this.running = this.run(fix, startTime).finally(() => (this.running = undefined));
  }

  /** Waits for the running check, if any (tests and shutdown). */
  async settled(): Promise<void> {
    await this.running;
  }

  private async run(fix: boolean, startTime: string): Promise<void> {
    const results: Array<{ description: string; fixed: boolean }> = [];
    let error = '';
    let tooMany = false;
    try {
      const findings = checkDataIntegrity(this.deps.store, startTime);
      tooMany = findings.length > maxIntegrityResults;
      for (const finding of findings.slice(0, maxIntegrityResults)) {
        let fixed = false;
        if (fix && finding.fix) {
          try {
            await this.deps.writer.write(finding.fix);
            fixed = true;
          } catch (failure) {
            error = `a fix was refused: ${(failure as Error).message}`;
          }
        }
        results.push({ description: finding.description, fixed });
      }
    } catch (failure) {
      error = (failure as Error).message;
    }
    this.report = { inProgress: false, fixingErrors: fix, tooManyErrors: tooMany, startTime, endTime: isoTime(this.deps.clock.now()), error, results };
  }
}

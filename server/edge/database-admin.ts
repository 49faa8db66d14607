// The management API's `/database` operations: a snapshot of the model written to disk (model-snapshot-file.ts, in
// a driver the wiring injects), and the data-integrity check (model/data-integrity.ts) run in the background, one at
// a time, its results kept on this controller until the next run; the fixing run proposes each finding's fixing
// command through raft like any write, so every controller is fixed; an index that disagrees with its rows is rebuilt
// in this controller's memory (indexes are not replicated or stored), once per table.
import type { Clock } from '../../common/time/clock.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import { checkDataIntegrity, checkIndexes, type IntegrityFinding } from '../model/data-integrity.ts';
import type { Row } from '../store/entity-table.ts';
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
  /** Writes a snapshot of these rows; answers where (a driver: model-snapshot-file.ts under `<dataDir>/db-snapshots`). */
  readonly writeSnapshot: (rows: { appliedIndex: number; tables: Record<string, Row[]> }, nowMs: number) => string;
  /** How the check lets other work in between tables (one event-loop turn by default). */
  readonly yieldNow?: () => Promise<void>;
}

/** One turn of the event loop: at 100k identities a table's index check holds the thread for ~0.1-0.8 s, the whole
 * check for seconds, so requests and raft heartbeats get their turn between tables. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const epoch = new Date(0).toISOString();

export class DatabaseAdmin {
  private report: IntegrityReport = { inProgress: false, fixingErrors: false, tooManyErrors: false, startTime: epoch, endTime: epoch, error: '', results: [] };
  private running: Promise<void> | undefined;

  constructor(private readonly deps: DatabaseAdminDeps) {}

  /** Writes a snapshot of the model as applied now; answers its path and raft index. */
  snapshot(): { path: string; appliedIndex: number } {
    const rows = this.deps.store.exportRows();
    return { path: this.deps.writeSnapshot(rows, this.deps.clock.now()), appliedIndex: rows.appliedIndex };
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
      const findings: IntegrityFinding[] = [];
      for (const table of this.deps.store.entityTables()) {
        await (this.deps.yieldNow ?? nextTurn)();
        findings.push(...checkIndexes([table]));
      }
      await (this.deps.yieldNow ?? nextTurn)();
      findings.push(...checkDataIntegrity(this.deps.store, startTime));
      tooMany = findings.length > maxIntegrityResults;
      const rebuilt = new Map<string, string>();
      for (const finding of findings.slice(0, maxIntegrityResults)) {
        let fixed = false;
        if (fix && (finding.fix || finding.rebuildIndexesOf)) {
          try {
            await this.repair(finding, rebuilt);
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

  /** Proposes the finding's fix through raft, or rebuilds its table's indexes here (once per run; a refused rebuild
   * is refused again for that table's other findings). */
  private async repair(finding: IntegrityFinding, rebuilt: Map<string, string>): Promise<void> {
    if (finding.fix) {
      await this.deps.writer.write(finding.fix);
      return;
    }
    const table = finding.rebuildIndexesOf!;
    if (!rebuilt.has(table)) {
      try {
        this.deps.store.table(table).rebuildIndexes();
        rebuilt.set(table, '');
      } catch (failure) {
        rebuilt.set(table, (failure as Error).message);
      }
    }
    const refusal = rebuilt.get(table);
    if (refusal) throw new Error(refusal);
  }
}

// Every benchmark's process lifecycle: cleanups run newest first (processes stop before their temp folders go),
// and a time budget, SIGINT or SIGTERM stops everything before the process exits.
import { stopAllChildren } from './child-processes.ts';

export type Cleanup = () => Promise<void> | void;

export interface BenchLifecycle {
  readonly cleanups: Cleanup[];
  /** Runs and forgets every cleanup (newest first), then stops any child still running. */
  runCleanups(): Promise<void>;
  /** Says why, cleans up and exits with `code`; only the first call acts. */
  abort(reason: string, code: number): Promise<void>;
  /** The run is finishing normally: a late signal or budget no longer aborts it. */
  markFinishing(): void;
}

export function benchLifecycle(budgetMs: number, progress: (line: string) => void): BenchLifecycle {
  const cleanups: Cleanup[] = [];
  let finishing = false;
  const runCleanups = async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        progress(`cleanup: ${(error as Error).message}`);
      }
    }
    cleanups.length = 0;
    await stopAllChildren();
  };
  const abort = async (reason: string, code: number) => {
    if (finishing) return;
    finishing = true;
    progress(`${reason}; stopping every process`);
    await runCleanups();
    process.exit(code);
  };
  setTimeout(() => void abort(`the benchmark ran past its ${budgetMs / 1000} s budget`, 1), budgetMs).unref();
  process.once('SIGINT', () => void abort('interrupted', 130));
  process.once('SIGTERM', () => void abort('terminated', 143));
  return { cleanups, runCleanups, abort, markFinishing: () => void (finishing = true) };
}

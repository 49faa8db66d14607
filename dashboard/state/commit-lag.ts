// Commit lag from the controllers' own entity change events, for the status page when no alerts daemon is
// configured or it does not answer: the same recipe as the daemon's, computed by the one module both use
// (alerts/core/metrics/commit-lag-figures.ts). Pure: events in (with their own timestamps), figures out.
import { lagFigures, noteLagEvent, type CommitLag, type LagProgress } from '../../alerts/core/metrics/commit-lag-figures.ts';

export type LagFigures = CommitLag;

export class CommitLagTracker {
  private readonly progress = new Map<string, LagProgress>();

  constructor(controllers: readonly string[]) {
    for (const controller of controllers) this.progress.set(controller, {});
  }

  /** An entity change event `controller` wrote for `raftIndex`, at `at` (its timestamp). */
  note(controller: string, raftIndex: number, at: number): void {
    const entry = this.progress.get(controller);
    if (!entry) return;
    noteLagEvent(entry, this.progress.values(), raftIndex, at);
  }

  /** Each controller's lag now; empty until some controller has written an event. */
  lag(now: number): Record<string, LagFigures> {
    return lagFigures(this.progress, now) ?? {};
  }
}

// Commit lag from the controllers' own entity change events (each controller writing what it applies, with
// `propagateAlways: true`), by the recipe the alerts daemon follows (docs/alerts.md, "Commit lag"): in raft entries,
// the highest raftIndex any controller wrote minus this controller's own; in seconds, the age of its newest event,
// counted only while another controller has written a newer raftIndex. Used when no alerts daemon is configured or
// it does not answer. Pure: events in (with their own timestamps), figures out.

export interface LagFigures {
  /** Undefined while the controller has written no event. */
  readonly entries?: number;
  readonly seconds: number;
}

interface Progress {
  index?: number;
  at?: number;
  /** With no event of its own yet: when another controller first wrote one. */
  behindSince?: number;
}

export class CommitLagTracker {
  private readonly progress = new Map<string, Progress>();

  constructor(controllers: readonly string[]) {
    for (const controller of controllers) this.progress.set(controller, {});
  }

  /** An entity change event `controller` wrote for `raftIndex`, at `at` (its timestamp). */
  note(controller: string, raftIndex: number, at: number): void {
    const entry = this.progress.get(controller);
    if (!entry) return;
    if (entry.index === undefined || raftIndex >= entry.index) {
      entry.index = raftIndex;
      entry.at = at;
    }
    delete entry.behindSince;
    for (const other of this.progress.values()) if (other.index === undefined) other.behindSince ??= at;
  }

  /** Each controller's lag now; empty until some controller has written an event. */
  lag(now: number): Record<string, LagFigures> {
    const indexes = [...this.progress.values()].map((entry) => entry.index).filter((index): index is number => index !== undefined);
    if (indexes.length === 0) return {};
    const highest = Math.max(...indexes);
    const lags: Record<string, LagFigures> = {};
    for (const [controller, entry] of this.progress) {
      if (entry.index === undefined) {
        lags[controller] = { seconds: entry.behindSince === undefined ? 0 : Math.max(0, now - entry.behindSince) / 1000 };
      } else {
        const behind = highest - entry.index;
        lags[controller] = { entries: behind, seconds: behind > 0 && entry.at !== undefined ? Math.max(0, now - entry.at) / 1000 : 0 };
      }
    }
    return lags;
  }
}

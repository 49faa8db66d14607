// Commit lag from the controllers' own entity change events (each controller writing what it applies, with
// `propagateAlways: true`), the spec's recipe, computed here once for the alerts daemon and the status page: in raft
// entries, the highest raftIndex any controller wrote minus this controller's own; in seconds, the age of its newest
// event, counted only while another controller has written a newer raftIndex (a controller at the highest index has
// no lag). A controller with no event of its own yet is behind from the moment another controller writes one.
// Pure: events in (with their own timestamps), figures out. Prometheus computes the same entries from the applied
// index: `commitLagEntriesPromQL` in alerts/mixin/monitoring-mixin.ts.

export interface CommitLag {
  /** Undefined while the controller has written no event. */
  readonly entries?: number;
  readonly seconds: number;
}

/** What one controller has written so far. */
export interface LagProgress {
  index?: number;
  /** The timestamp of its event with the highest raftIndex. */
  at?: number;
  /** With no event of its own yet: when another controller first wrote one. */
  behindSince?: number;
}

/** `entry`'s controller wrote an event for `raftIndex` at `at`; `all` is every controller's progress, `entry`'s too. */
export function noteLagEvent(entry: LagProgress, all: Iterable<LagProgress>, raftIndex: number, at: number): void {
  if (entry.index === undefined || raftIndex >= entry.index) {
    entry.index = raftIndex;
    entry.at = at;
  }
  delete entry.behindSince;
  for (const other of all) if (other.index === undefined) other.behindSince ??= at;
}

/** Each controller's lag at `now`; undefined while no controller has written an event. */
export function lagFigures(progress: Iterable<readonly [string, LagProgress]>, now: number): Record<string, CommitLag> | undefined {
  const entries = [...progress];
  const indexes = entries.map(([, entry]) => entry.index).filter((index): index is number => index !== undefined);
  if (indexes.length === 0) return undefined;
  const highest = Math.max(...indexes);
  const lags: Record<string, CommitLag> = {};
  for (const [controller, entry] of entries) {
    if (entry.index === undefined) {
      lags[controller] = { seconds: entry.behindSince === undefined ? 0 : Math.max(0, now - entry.behindSince) / 1000 };
    } else {
      const behind = highest - entry.index;
      lags[controller] = { entries: behind, seconds: behind > 0 && entry.at !== undefined ? Math.max(0, now - entry.at) / 1000 : 0 };
    }
  }
  return lags;
}

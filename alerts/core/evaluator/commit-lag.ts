// Commit lag from entity change events written by every controller (`propagateAlways: true`), each into its own
// file. In raft entries: the highest raftIndex any controller wrote minus this controller's own. In time: how long
// ago this controller wrote its newest event, counted only while another controller has written a newer raftIndex
// (a controller at the highest index has no lag). A controller with no event of its own yet is behind from the
// moment another controller writes one. The warning needs the lag to stay over a threshold for the duration.

import { formatMs } from './rule-context.ts';
import type { RuleContext } from './rule-context.ts';

export interface CommitLag {
  /** Undefined while the controller has written no event. */
  readonly entries?: number;
  readonly seconds: number;
}

export function noteEntityChange(ctx: RuleContext, controller: string, raftIndex: number, at: number): void {
  const entry = (ctx.state.commitLag[controller] ??= {});
  entry.index = Math.max(entry.index ?? 0, raftIndex);
  entry.at = at;
  delete entry.behindSince;
  for (const other of ctx.settings.commitLagControllers) {
    const otherEntry = (ctx.state.commitLag[other] ??= {});
    if (otherEntry.index === undefined) otherEntry.behindSince ??= at;
  }
  evaluateCommitLag(ctx);
}

export function commitLag(ctx: Pick<RuleContext, 'state' | 'settings' | 'now'>): Record<string, CommitLag> {
  const entries = ctx.settings.commitLagControllers.map((controller) => [controller, ctx.state.commitLag[controller] ?? {}] as const);
  const indexes = entries.map(([, entry]) => entry.index).filter((index): index is number => index !== undefined);
  const lags: Record<string, CommitLag> = {};
  if (indexes.length === 0) {
    for (const [controller] of entries) lags[controller] = { seconds: 0 };
    return lags;
  }
  const highest = Math.max(...indexes);
  for (const [controller, entry] of entries) {
    if (entry.index === undefined) {
      lags[controller] = { seconds: entry.behindSince === undefined ? 0 : Math.max(0, ctx.now - entry.behindSince) / 1000 };
    } else {
      const behind = highest - entry.index;
      lags[controller] = { entries: behind, seconds: behind > 0 && entry.at !== undefined ? Math.max(0, ctx.now - entry.at) / 1000 : 0 };
    }
  }
  return lags;
}

export function evaluateCommitLag(ctx: RuleContext): void {
  const { entries: entryLimit, behindFor, sustainedFor } = ctx.settings.rules.commitLag;
  for (const [controller, lag] of Object.entries(commitLag(ctx))) {
    const entry = (ctx.state.commitLag[controller] ??= {});
    const labels = { controller };
    const lagging = (lag.entries ?? 0) >= entryLimit || lag.seconds * 1000 >= behindFor;
    if (!lagging) {
      delete entry.laggingSince;
      ctx.book.resolve('EdgewardCommitLagHigh', labels, ctx.now);
      continue;
    }
    entry.laggingSince ??= ctx.now;
    if (ctx.now - entry.laggingSince < sustainedFor) continue;
    const detail =
      lag.entries === undefined
        ? `${controller} has written no entity change event for ${formatMs(lag.seconds * 1000)} while others have (held ${formatMs(sustainedFor)}).`
        : `${controller} is ${lag.entries} raft entries behind; its newest event is ${formatMs(lag.seconds * 1000)} old while others are ahead (held ${formatMs(sustainedFor)}).`;
    ctx.book.fire('EdgewardCommitLagHigh', labels, entry.laggingSince + sustainedFor, detail, lag.entries ?? lag.seconds);
  }
}

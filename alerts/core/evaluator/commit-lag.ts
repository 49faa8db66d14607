// Commit lag from entity change events written by every controller (`propagateAlways: true`), each into its own
// file, by the one recipe of ../metrics/commit-lag-figures.ts; only the controllers with an event file take part.
// The warning needs the lag to stay over a threshold for the duration.

import { lagFigures, noteLagEvent } from '../metrics/commit-lag-figures.ts';
import type { CommitLag } from '../metrics/commit-lag-figures.ts';
import { formatMs } from './rule-context.ts';
import type { RuleContext } from './rule-context.ts';

export type { CommitLag } from '../metrics/commit-lag-figures.ts';

export function noteEntityChange(ctx: RuleContext, controller: string, raftIndex: number, at: number): void {
  const all = ctx.settings.commitLagControllers.map((other) => (ctx.state.commitLag[other] ??= {}));
  noteLagEvent((ctx.state.commitLag[controller] ??= {}), all, raftIndex, at);
  evaluateCommitLag(ctx);
}

export function commitLag(ctx: Pick<RuleContext, 'state' | 'settings' | 'now'>): Record<string, CommitLag> {
  const entries = ctx.settings.commitLagControllers.map((controller) => [controller, ctx.state.commitLag[controller] ?? {}] as const);
  return lagFigures(entries, ctx.now) ?? Object.fromEntries(entries.map(([controller]) => [controller, { seconds: 0 }]));
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

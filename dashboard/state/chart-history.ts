// The charts' recent past: one point per gather, kept for `historyMs` (and never more than `maxPoints`), oldest
// first. Pure: the caller gives each point its time.

import type { HistoryPoint } from './snapshot.ts';

export class ChartHistory {
  private readonly list: HistoryPoint[] = [];

  constructor(
    private readonly historyMs: number,
    private readonly maxPoints: number,
  ) {}

  add(point: HistoryPoint): void {
    this.list.push(point);
    let drop = 0;
    while (drop < this.list.length - 1 && this.list[drop]!.t < point.t - this.historyMs) drop++;
    drop = Math.max(drop, this.list.length - this.maxPoints);
    if (drop > 0) this.list.splice(0, drop);
  }

  points(): readonly HistoryPoint[] {
    return this.list;
  }

  latest(): HistoryPoint | undefined {
    return this.list.at(-1);
  }
}

/** Trims a list of points the same way, for the browser's copy. */
export function trimHistory(points: readonly HistoryPoint[], historyMs: number, maxPoints: number): HistoryPoint[] {
  const newest = points.at(-1)?.t ?? 0;
  const kept = points.filter((point) => point.t >= newest - historyMs);
  return kept.slice(Math.max(0, kept.length - maxPoints));
}

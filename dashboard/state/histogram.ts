// Prometheus histograms as the controllers expose them (cumulative `_bucket{le}`, `_sum`, `_count`): the difference
// between two readings, and a quantile of it, interpolated inside its bucket as Prometheus's histogram_quantile()
// does. Pure.

export interface Histogram {
  /** `[le, cumulative count]`, ascending; the last `le` is +Inf. */
  readonly buckets: readonly (readonly [number, number])[];
  readonly count: number;
  readonly sum: number;
}

/** What was observed between `older` and `newer`; `newer` itself when a counter went back (a restart). */
export function histogramDelta(newer: Histogram, older: Histogram | undefined): Histogram {
  if (!older) return newer;
  const olderCounts = new Map(older.buckets);
  const buckets: [number, number][] = [];
  for (const [le, count] of newer.buckets) {
    const before = olderCounts.get(le) ?? 0;
    if (count < before) return newer;
    buckets.push([le, count - before]);
  }
  if (newer.count < older.count) return newer;
  return { buckets, count: newer.count - older.count, sum: Math.max(0, newer.sum - older.sum) };
}

/** The q-quantile (0..1) of the observations, or undefined when there are none. */
export function histogramQuantile(q: number, histogram: Histogram): number | undefined {
  const buckets = histogram.buckets;
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total <= 0 || buckets.length === 0) return undefined;
  const rank = q * total;
  let previousLe = 0;
  let previousCount = 0;
  for (const [le, count] of buckets) {
    if (count >= rank) {
      if (le === Number.POSITIVE_INFINITY) return previousLe;
      const inBucket = count - previousCount;
      const lower = previousLe === 0 && le <= 0 ? le : previousLe;
      return inBucket <= 0 ? le : lower + (le - lower) * ((rank - previousCount) / inBucket);
    }
    previousLe = le;
    previousCount = count;
  }
  return previousLe;
}

/** Each key's recent readings, so that a quantile can be taken over the last `windowMs` (like rate over a range). */
export class HistogramWindow {
  private readonly readings = new Map<string, { t: number; histogram: Histogram }[]>();

  constructor(private readonly windowMs: number) {}

  /** Records a reading and returns what was observed since the reading `windowMs` before it (or the oldest kept);
   * undefined for a key's first reading, as a Prometheus rate needs two samples in its range. */
  observe(key: string, t: number, histogram: Histogram): Histogram | undefined {
    let list = this.readings.get(key);
    if (!list) this.readings.set(key, (list = []));
    // A reading older than the window is needed only while it is the newest such one.
    while (list.length > 1 && list[1]!.t <= t - this.windowMs) list.shift();
    const base = list[0];
    list.push({ t, histogram });
    return base === undefined ? undefined : histogramDelta(histogram, base.histogram);
  }

  /** Forgets keys with no reading within the window (a channel that closed, a leader that stepped down). */
  prune(now: number): void {
    for (const [key, list] of this.readings) if ((list.at(-1)?.t ?? 0) < now - this.windowMs) this.readings.delete(key);
  }

  get size(): number {
    return this.readings.size;
  }
}

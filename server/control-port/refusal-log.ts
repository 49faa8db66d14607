// Refusals are logged at most once per interval for each source (a peer id, a remote address): a removed controller
// retries every election timeout and a flood of connections comes from a few addresses, and either would otherwise
// fill the log. The line that is written says how many were left out since the last one.

export class RefusalLog {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number,
    /** Sources remembered at most (many distinct addresses must not grow the map without bound). */
    private readonly maxSources = 10_000,
  ) {}

  /** Undefined when `source` was logged within the interval (this one is counted); else how many were left out. */
  admit(source: string): number | undefined {
    const now = this.now();
    const seen = this.last.get(source);
    if (seen && now - seen.at < this.intervalMs) {
      seen.suppressed++;
      return undefined;
    }
    const suppressed = seen?.suppressed ?? 0;
    this.last.delete(source);
    if (this.last.size >= this.maxSources) this.forgetOldest(now);
    this.last.set(source, { at: now, suppressed: 0 });
    return suppressed;
  }

  private forgetOldest(now: number): void {
    // Entries are in the order they were last logged: the first ones are the oldest.
    for (const [source, seen] of this.last) {
      if (this.last.size < this.maxSources && now - seen.at < this.intervalMs) return;
      this.last.delete(source);
    }
  }
}

/** The fields of a rate-limited line: `suppressed` only when some were left out. */
export function suppressedField(suppressed: number): { suppressed?: number } {
  return suppressed > 0 ? { suppressed } : {};
}

// Open connections per source address, counted from TCP accept, so that half-open handshakes count too.

export class SourceConnections {
  private readonly open = new Map<string, number>();

  constructor(private readonly maxPerSource: number) {}

  /** Counts a new connection from `source`; false (and not counted) when that source is at the limit. */
  add(source: string): boolean {
    const count = this.open.get(source) ?? 0;
    if (count >= this.maxPerSource) return false;
    this.open.set(source, count + 1);
    return true;
  }

  /** A connection counted by add() closed. */
  remove(source: string): void {
    const count = this.open.get(source) ?? 0;
    if (count <= 1) this.open.delete(source);
    else this.open.set(source, count - 1);
  }

  count(source: string): number {
    return this.open.get(source) ?? 0;
  }
}

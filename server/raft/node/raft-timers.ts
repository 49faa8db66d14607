// The clock and timers a raft node runs on. Production passes the real ones (Date.now, setInterval, setTimeout);
// the simulator passes deterministic ones that it advances itself, so the very node controllers run can be driven
// step by step (issue: the simulator runs the real node). Nothing in the node reads the clock or sets a timer any
// other way.

export interface RaftTimers {
  /** Unix ms. */
  now(): number;
  /** Calls `run` every `ms` until cancelled. */
  every(ms: number, run: () => void): () => void;
  /** Calls `run` once after `ms` unless cancelled first; `background`: it does not keep the process alive. */
  after(ms: number, run: () => void, options?: { readonly background?: boolean }): () => void;
}

export const realRaftTimers: RaftTimers = {
  now: () => Date.now(),
  every(ms, run) {
    const timer = setInterval(run, ms);
    return () => clearInterval(timer);
  },
  after(ms, run, options) {
    const timer = setTimeout(run, ms);
    if (options?.background) timer.unref();
    return () => clearTimeout(timer);
  },
};

/**
 * Timers that run only when `advance` says time has passed: a test or a simulation owns the clock. Timers due at the
 * same moment run in the order they were set.
 */
export class ManualRaftTimers implements RaftTimers {
  private time: number;
  private nextId = 0;
  private readonly timers = new Map<number, { due: number; run: () => void; period: number | undefined }>();

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  every(ms: number, run: () => void): () => void {
    const id = this.nextId++;
    this.timers.set(id, { due: this.time + ms, run, period: Math.max(1, ms) });
    return () => this.timers.delete(id);
  }

  after(ms: number, run: () => void): () => void {
    const id = this.nextId++;
    this.timers.set(id, { due: this.time + ms, run, period: undefined });
    return () => this.timers.delete(id);
  }

  /** Moves the clock `ms` on, running every timer that falls due on the way, in time order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let nextId: number | undefined;
      let next: { due: number; run: () => void; period: number | undefined } | undefined;
      for (const [id, timer] of this.timers) {
        if (timer.due > end) continue;
        if (!next || timer.due < next.due || (timer.due === next.due && id < nextId!)) {
          next = timer;
          nextId = id;
        }
      }
      if (!next || nextId === undefined) break;
      this.time = Math.max(this.time, next.due);
      if (next.period === undefined) this.timers.delete(nextId);
      else next.due += next.period;
      next.run();
    }
    this.time = end;
  }

  /** Timers set and not yet run or cancelled. */
  get pending(): number {
    return this.timers.size;
  }
}

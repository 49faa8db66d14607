// A work queue with the forwarder's two bounds: at most `maxQueued` items wait, at most `workers` run at once. A
// push onto a full queue is refused (the caller decides: drop, answer "busy", count it), so a slow disk or a slow
// controller never grows the router's memory without limit.

export interface BoundedWorkQueueOptions<T> {
  readonly maxQueued: number;
  readonly workers: number;
  readonly handle: (item: T) => Promise<void>;
  /** Called with an item whose handler threw; the queue goes on. */
  readonly onError?: (error: unknown, item: T) => void;
}

export class BoundedWorkQueue<T> {
  private readonly waiting: T[] = [];
  private active = 0;
  private idleWaiters: (() => void)[] = [];
  /** Items refused because the queue was full. */
  refused = 0;

  constructor(private readonly options: BoundedWorkQueueOptions<T>) {
    if (options.maxQueued < 1 || options.workers < 1) throw new Error('a work queue needs room for one item and one worker');
  }

  get queued(): number {
    return this.waiting.length;
  }

  get running(): number {
    return this.active;
  }

  /** False (and nothing queued) when `maxQueued` items already wait. */
  push(item: T): boolean {
    if (this.active < this.options.workers) {
      this.run(item);
      return true;
    }
    if (this.waiting.length >= this.options.maxQueued) {
      this.refused++;
      return false;
    }
    this.waiting.push(item);
    return true;
  }

  /** Resolves once nothing waits and nothing runs. */
  idle(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private run(item: T): void {
    this.active++;
    void (async () => {
      try {
        await this.options.handle(item);
      } catch (error) {
        this.options.onError?.(error, item);
      } finally {
        this.active--;
        const next = this.waiting.shift();
        if (next !== undefined) this.run(next);
        else if (this.active === 0) {
          const waiters = this.idleWaiters;
          this.idleWaiters = [];
          for (const resolve of waiters) resolve();
        }
      }
    })();
  }
}

// Password hashing's own bounded queue. scrypt runs on libuv's thread pool (UV_THREADPOOL_SIZE, 4 threads by
// default), which the raft write-ahead log's synced writes and LevelDB share: unbounded, a login flood takes every
// pool thread and the WAL's writes wait behind scrypt, so commits time out and elections follow. Here at most
// `concurrency` hashes run at once, leaving pool threads (and CPU) to the rest, and at most `maxQueued` wait; past
// that a hash is refused at once (429 RATE_LIMITED, cause PASSWORD_HASH_QUEUE_FULL) rather than queued. A waiting
// hash whose request was abandoned (its deadline answered 503 TIMEOUT, or the client went away) leaves the queue
// without being computed. Concurrency 0 turns the queue off: every hash goes straight to the pool, as before.
import { EdgeError } from '../edge-error.ts';

export interface HashQueueLimits {
  /** Hashes running at once; 0: unbounded, no queue. */
  readonly concurrency: number;
  /** Hashes waiting for a slot; one more is refused at once. */
  readonly maxQueued: number;
}

export const defaultHashQueueLimits: HashQueueLimits = { concurrency: 2, maxQueued: 64 };

interface Waiter {
  readonly start: () => void;
  readonly abandon: () => void;
}

export interface HashQueueStats {
  readonly running: number;
  readonly queued: number;
  /** Refused because the queue was full, since start. */
  readonly refused: number;
  /** Dropped from the queue because their request was abandoned, since start. */
  readonly abandoned: number;
}

export class HashQueue {
  private running = 0;
  /** Insertion-ordered, so the oldest waiter starts first and an abandoned one leaves in O(1). */
  private readonly waiting = new Set<Waiter>();
  private refused = 0;
  private abandoned = 0;

  constructor(private readonly limits: HashQueueLimits) {}

  stats(): HashQueueStats {
    return { running: this.running, queued: this.waiting.size, refused: this.refused, abandoned: this.abandoned };
  }

  /** Runs `job` when a slot is free; `signal` aborting while it waits drops it (the job never runs). */
  async run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.limits.concurrency <= 0) return job();
    if (signal?.aborted) throw abandonedError();
    if (this.running >= this.limits.concurrency) await this.waitForSlot(signal);
    else this.running++;
    try {
      return await job();
    } finally {
      this.release();
    }
  }

  /** Resolves holding a slot (handed over by release), or rejects: queue full, or abandoned while waiting. */
  private waitForSlot(signal: AbortSignal | undefined): Promise<void> {
    if (this.waiting.size >= this.limits.maxQueued) {
      this.refused++;
      return Promise.reject(
        new EdgeError('RATE_LIMITED', { code: 'PASSWORD_HASH_QUEUE_FULL', message: 'too many password checks are waiting on this controller; retry shortly' }).withRetryAfter(1),
      );
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => waiter.abandon();
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        abandon: () => {
          if (!this.waiting.delete(waiter)) return;
          this.abandoned++;
          reject(abandonedError());
        },
      };
      this.waiting.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Hands the slot to the oldest waiter, or frees it. */
  private release(): void {
    const next = this.waiting.values().next();
    if (next.done) {
      this.running--;
      return;
    }
    this.waiting.delete(next.value);
    next.value.start();
  }
}

function abandonedError(): EdgeError {
  return new EdgeError('TIMEOUT', undefined, 'the request was abandoned while its password hash waited');
}

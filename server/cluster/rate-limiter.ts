// The leader's adaptive rate limiter (`cluster.rateLimiter`): every leader-side raft command runs through it. At
// most `window` commands execute at once; the window starts at maxSize and moves between minSize and maxSize on
// the outcomes of finished commands, multiplicatively both ways, as the reference controller's
// AdaptiveRateLimitTracker does:
//   - success: the command finished within applyTimeoutMs;
//   - backoff: it timed out (the work threw a timeout, see `isTimeout`), finished slower than applyTimeoutMs, or
//     was still outstanding after timeoutMs (it is then expired: its slot is freed although it keeps running);
//   - failed: any other error (not leader, closed…): frees the slot, no adjustment.
// Every increaseCheckInterval-th success while below maxSize, if the success rate is above successThreshold, the
// window becomes floor(window × increaseFactor) (at least +1, capped at maxSize); every decreaseCheckInterval-th
// backoff while above minSize, if the rate is below the threshold, floor(window × decreaseFactor) (at least −1,
// floored at minSize). The success rate is the mean of the last `sampleSize` outcomes (1 or 0), a deterministic
// stand-in for the reference's exponentially decaying 128-value sample.
//
// A command arriving while the window is full waits in a FIFO queue of at most maxQueued commands, and is refused
// at once with RateLimitedError beyond that. The reference raft limiter has no queue (a full window is an
// immediate 429), so maxQueued defaults to 0.
//
// Time comes from the injected clock; there are no timers. Overdue commands are expired whenever a command
// arrives or finishes, or when a driver calls expireOverdue().
import type { ConfigProblem } from '../../common/config/problem.ts';
import type { Clock } from '../../common/time/clock.ts';

export interface AdaptiveRateLimiterConfig {
  /** The floor of the window (>= 1). */
  readonly minSize: number;
  /** The ceiling of the window, and its size at start. */
  readonly maxSize: number;
  /** Commands allowed to wait for a slot when the window is full (>= 0); 0 refuses them at once. */
  readonly maxQueued: number;
  /** A command finished slower than this counts as a backoff (the raft commit timeout). */
  readonly applyTimeoutMs: number;
  /** A command outstanding longer than this is expired: its slot is freed and it counts as a backoff. */
  readonly timeoutMs: number;
  /** The success rate (0..1) above which the window may grow and below which it may shrink. */
  readonly successThreshold: number;
  /** Growth factor (>= 1); a growth is at least +1. */
  readonly increaseFactor: number;
  /** Shrink factor (0 < x < 1); a shrink is at least −1. */
  readonly decreaseFactor: number;
  /** The window may grow on every this-many successes (>= 1). */
  readonly increaseCheckInterval: number;
  /** The window may shrink on every this-many backoffs (>= 1). */
  readonly decreaseCheckInterval: number;
  /** How many recent outcomes make up the success rate (>= 1). */
  readonly sampleSize: number;
}

export const rateLimiterDefaults: AdaptiveRateLimiterConfig = Object.freeze({
  minSize: 5,
  maxSize: 250,
  maxQueued: 0,
  applyTimeoutMs: 5_000,
  timeoutMs: 30_000,
  successThreshold: 0.9,
  increaseFactor: 1.02,
  decreaseFactor: 0.9,
  increaseCheckInterval: 10,
  decreaseCheckInterval: 10,
  sampleSize: 128,
});

/** Every problem of a limiter configuration in one pass; `path` is the config key prefix (`cluster.rateLimiter`). */
export function validateRateLimiterConfig(config: AdaptiveRateLimiterConfig, path = 'cluster.rateLimiter'): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const check = (key: keyof AdaptiveRateLimiterConfig, ok: (value: number) => boolean, rule: string, message: string): void => {
    const value = config[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || !ok(value)) {
      problems.push({ severity: 'error', path: `${path}.${key}`, rule, message: `${key} ${message}`, value });
    }
  };
  const integer = (min: number) => (value: number) => Number.isInteger(value) && value >= min;
  check('minSize', integer(1), 'min', 'must be an integer of at least 1');
  check('maxSize', integer(1), 'min', 'must be an integer of at least 1');
  check('maxQueued', integer(0), 'min', 'must be an integer of at least 0');
  check('applyTimeoutMs', (value) => value > 0, 'min', 'must be above 0');
  check('timeoutMs', (value) => value > 0, 'min', 'must be above 0');
  check('successThreshold', (value) => value >= 0 && value <= 1, 'range', 'must be between 0 and 1');
  check('increaseFactor', (value) => value >= 1, 'min', 'must be at least 1');
  check('decreaseFactor', (value) => value > 0 && value < 1, 'range', 'must be above 0 and below 1');
  check('increaseCheckInterval', integer(1), 'min', 'must be an integer of at least 1');
  check('decreaseCheckInterval', integer(1), 'min', 'must be an integer of at least 1');
  check('sampleSize', integer(1), 'min', 'must be an integer of at least 1');
  if (Number.isInteger(config.minSize) && Number.isInteger(config.maxSize) && config.minSize > config.maxSize) {
    problems.push({ severity: 'error', path: `${path}.minSize`, rule: 'min-not-above-max', message: `minSize (${config.minSize}) must not be above maxSize (${config.maxSize})`, value: config.minSize });
  }
  return problems;
}

export type WorkOutcome = 'success' | 'backoff' | 'failed';

/** Hears every command that ran, when it settles: its execution time (queue wait excluded) and its outcome. */
export type WorkObserver = (durationMs: number, outcome: WorkOutcome) => void;

export interface WindowChange {
  readonly from: number;
  readonly to: number;
  readonly successRate: number;
}

export interface AdaptiveRateLimiterOptions extends Partial<AdaptiveRateLimiterConfig> {
  readonly clock: Clock;
  /** Which errors thrown by the work are timeouts (backoffs); default: errors named `TimeoutError`. */
  readonly isTimeout?: (error: unknown) => boolean;
  /** The work timer (`raft.rate_limiter.work_timer`). */
  readonly onWork?: WorkObserver;
  /** Told whenever the window moves (for a debug log). */
  readonly onWindowChange?: (change: WindowChange) => void;
}

export interface RunOptions {
  /** Overrides the limiter's `isTimeout` for this command. */
  readonly isTimeout?: (error: unknown) => boolean;
}

/** The window and the queue are full: the command was not run. The API answers 429. */
export class RateLimitedError extends Error {
  constructor(
    readonly window: number,
    readonly inFlight: number,
    readonly queued: number,
  ) {
    super(`too many updates: ${inFlight} commands in flight fill the window of ${window} and ${queued} wait in a full queue`);
    this.name = 'RateLimitedError';
  }
}

function isNamedTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

interface Running {
  readonly startedAt: number;
  /** The slot was freed before the work settled (it was expired). */
  released: boolean;
}

export class AdaptiveRateLimiter {
  readonly config: AdaptiveRateLimiterConfig;
  private readonly clock: Clock;
  private readonly isTimeout: (error: unknown) => boolean;
  private readonly onWork: WorkObserver | undefined;
  private readonly onWindowChange: ((change: WindowChange) => void) | undefined;
  private window: number;
  /** Commands holding a slot, oldest first. */
  private readonly running = new Set<Running>();
  private readonly waiting: (() => void)[] = [];
  private readonly outcomes: Uint8Array;
  private outcomeCount = 0;
  private outcomeNext = 0;
  private outcomeSum = 0;
  private successCounter = 0;
  private backoffCounter = 0;

  constructor(options: AdaptiveRateLimiterOptions) {
    const { clock, isTimeout, onWork, onWindowChange, ...overrides } = options;
    const config: AdaptiveRateLimiterConfig = Object.freeze({ ...rateLimiterDefaults, ...definedOnly(overrides) });
    const problems = validateRateLimiterConfig(config);
    if (problems.length > 0) throw new Error(`invalid rate limiter configuration: ${problems.map((problem) => problem.message).join('; ')}`);
    this.config = config;
    this.clock = clock;
    this.isTimeout = isTimeout ?? isNamedTimeout;
    this.onWork = onWork;
    this.onWindowChange = onWindowChange;
    this.window = config.maxSize;
    this.outcomes = new Uint8Array(config.sampleSize);
  }

  /**
   * Runs the work when a slot is free, after the commands already waiting; rejects at once with RateLimitedError
   * when the window and the queue are full. Settles as the work does.
   */
  run<T>(work: () => Promise<T>, options: RunOptions = {}): Promise<T> {
    this.expireOverdue();
    const isTimeout = options.isTimeout ?? this.isTimeout;
    if (this.waiting.length === 0 && this.running.size < this.window) return this.execute(work, isTimeout);
    if (this.waiting.length >= this.config.maxQueued) {
      return Promise.reject(new RateLimitedError(this.window, this.running.size, this.waiting.length));
    }
    return new Promise<T>((resolve, reject) => {
      this.waiting.push(() => {
        this.execute(work, isTimeout).then(resolve, reject);
      });
    });
  }

  /** Commands admitted and not finished, running or waiting (`raft.rate_limiter.queue_size`); 0 at rest. */
  queueSize(): number {
    return this.running.size + this.waiting.length;
  }

  /** Commands holding a slot. */
  inFlight(): number {
    return this.running.size;
  }

  /** Commands waiting in the queue for a slot. */
  queued(): number {
    return this.waiting.length;
  }

  /** The concurrency window (`raft.rate_limiter.window_size`), between minSize and maxSize. */
  windowSize(): number {
    return this.window;
  }

  /** The mean of the recent outcomes (1 success, 0 backoff); 0 before any. */
  successRate(): number {
    return this.outcomeCount === 0 ? 0 : this.outcomeSum / this.outcomeCount;
  }

  /**
   * Frees the slots of commands outstanding longer than timeoutMs (each a backoff) and starts waiting commands in
   * their place. run() and every finishing command call it; a driver may call it on a tick so that waiting
   * commands do not stay stuck behind hung ones when no other command arrives.
   */
  expireOverdue(): void {
    const now = this.clock.now();
    let expired = false;
    for (const entry of this.running) {
      if (now - entry.startedAt <= this.config.timeoutMs) continue;
      entry.released = true;
      this.running.delete(entry);
      this.adapt('backoff');
      expired = true;
    }
    if (expired) this.dispatch();
  }

  private execute<T>(work: () => Promise<T>, isTimeout: (error: unknown) => boolean): Promise<T> {
    const entry: Running = { startedAt: this.clock.now(), released: false };
    this.running.add(entry);
    let pending: Promise<T>;
    try {
      pending = Promise.resolve(work());
    } catch (error) {
      pending = Promise.reject(error);
    }
    return pending.then(
      (value) => {
        const durationMs = this.clock.now() - entry.startedAt;
        this.settle(entry, durationMs, durationMs > this.config.applyTimeoutMs ? 'backoff' : 'success');
        return value;
      },
      (error: unknown) => {
        this.settle(entry, this.clock.now() - entry.startedAt, isTimeout(error) ? 'backoff' : 'failed');
        throw error;
      },
    );
  }

  private settle(entry: Running, durationMs: number, outcome: WorkOutcome): void {
    if (!entry.released) {
      entry.released = true;
      this.running.delete(entry);
      this.adapt(outcome);
    }
    this.expireOverdue();
    this.dispatch();
    this.onWork?.(durationMs, outcome);
  }

  private dispatch(): void {
    while (this.waiting.length > 0 && this.running.size < this.window) this.waiting.shift()!();
  }

  private adapt(outcome: WorkOutcome): void {
    if (outcome === 'failed') return;
    this.record(outcome === 'success' ? 1 : 0);
    const { minSize, maxSize, successThreshold } = this.config;
    if (outcome === 'success') {
      if (this.window >= maxSize) return;
      this.successCounter += 1;
      if (this.successCounter % this.config.increaseCheckInterval !== 0 || this.successRate() <= successThreshold) return;
      const grown = Math.floor(this.window * this.config.increaseFactor);
      this.resize(Math.min(maxSize, grown > this.window ? grown : this.window + 1));
    } else {
      if (this.window <= minSize) return;
      this.backoffCounter += 1;
      if (this.backoffCounter % this.config.decreaseCheckInterval !== 0 || this.successRate() >= successThreshold) return;
      const shrunk = Math.floor(this.window * this.config.decreaseFactor);
      this.resize(Math.max(minSize, shrunk < this.window ? shrunk : this.window - 1));
    }
  }

  private resize(next: number): void {
    const from = this.window;
    this.window = next;
    this.onWindowChange?.({ from, to: next, successRate: this.successRate() });
  }

  private record(value: 0 | 1): void {
    if (this.outcomeCount === this.outcomes.length) this.outcomeSum -= this.outcomes[this.outcomeNext];
    else this.outcomeCount += 1;
    this.outcomes[this.outcomeNext] = value;
    this.outcomeSum += value;
    this.outcomeNext = (this.outcomeNext + 1) % this.outcomes.length;
  }
}

function definedOnly(values: Partial<AdaptiveRateLimiterConfig>): Partial<AdaptiveRateLimiterConfig> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<AdaptiveRateLimiterConfig>;
}

// Periodic health checks with the real controller's report shape. The checker owns its timer (it is a driver);
// the check itself is injected, so the store's ping stays in the store.
import type { Clock } from '../../common/time/clock.ts';

export interface HealthCheckDefinition {
  readonly id: string;
  readonly run: () => Promise<void>;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly initialDelayMs: number;
}

interface CheckState {
  healthy: boolean;
  lastCheckDurationMs?: number;
  lastCheckTime?: number;
  error?: string;
  consecutiveFailures: number;
  failingSince?: number;
  running: boolean;
}

export class HealthChecker {
  private readonly states = new Map<string, CheckState>();
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly checks: readonly HealthCheckDefinition[],
    private readonly clock: Clock,
  ) {
    for (const check of checks) this.states.set(check.id, { healthy: true, consecutiveFailures: 0, running: false });
  }

  start(): void {
    for (const check of this.checks) {
      const first = setTimeout(() => {
        void this.runOnce(check);
        const repeat = setInterval(() => void this.runOnce(check), check.intervalMs);
        repeat.unref();
        this.timers.push(repeat);
      }, check.initialDelayMs);
      first.unref();
      this.timers.push(first);
    }
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.length = 0;
  }

  /** Runs one check now, out of turn: its cause just changed (the raft node stopped), so the report must not wait. */
  async recheck(id: string): Promise<void> {
    const check = this.checks.find((candidate) => candidate.id === id);
    if (check) await this.runOnce(check);
  }

  /** Runs every check now (used at start-up and by tests). */
  async runAll(): Promise<void> {
    await Promise.all(this.checks.map((check) => this.runOnce(check)));
  }

  async runOnce(check: HealthCheckDefinition): Promise<void> {
    const state = this.states.get(check.id)!;
    if (state.running) return this.fail(state, 'previous check is still running', 0);
    state.running = true;
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        check.run(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${check.id} check timed out`)), check.timeoutMs);
        }),
      ]);
      state.healthy = true;
      state.error = undefined;
      state.consecutiveFailures = 0;
      state.failingSince = undefined;
      state.lastCheckDurationMs = performance.now() - started;
      state.lastCheckTime = this.clock.now();
    } catch (error) {
      this.fail(state, (error as Error).message, performance.now() - started);
    } finally {
      clearTimeout(timer);
      state.running = false;
    }
  }

  report(short: boolean) {
    const checks = this.checks.map((check) => {
      const state = this.states.get(check.id)!;
      if (short) return { id: check.id, healthy: state.healthy };
      return {
        id: check.id,
        healthy: state.healthy,
        lastCheckDuration: state.lastCheckDurationMs === undefined ? '0s' : formatCheckDuration(state.lastCheckDurationMs),
        lastCheckTime: state.lastCheckTime === undefined ? null : new Date(state.lastCheckTime).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        ...(state.healthy ? {} : { err: { message: state.error }, consecutiveFailures: state.consecutiveFailures, failingSince: new Date(state.failingSince ?? this.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z') }),
      };
    });
    return { healthy: checks.every((check) => check.healthy), checks };
  }

  private fail(state: CheckState, message: string, durationMs: number): void {
    if (state.healthy) state.failingSince = this.clock.now();
    state.healthy = false;
    state.error = message;
    state.consecutiveFailures++;
    state.lastCheckDurationMs = durationMs;
    state.lastCheckTime = this.clock.now();
  }
}

/** Go-style duration text for a check's run time: 27.46µs, 1.2ms, 0s. */
function formatCheckDuration(ms: number): string {
  if (ms <= 0) return '0s';
  if (ms < 1) return `${Number((ms * 1000).toPrecision(4))}µs`;
  if (ms < 1000) return `${Number(ms.toPrecision(4))}ms`;
  return `${Number((ms / 1000).toPrecision(4))}s`;
}

// Runs the router's two health checks on their timers: `controllerPing` (healthChecks.ctrlPingCheck: a ping request
// on the control channel, answered within the timeout) and `link.health` (healthChecks.linkCheck: at least minLinks
// links). The verdicts and the report shape are in health-check-state.ts; this file owns the timers.

import type { Clock } from '../../common/time/clock.ts';
import type { HealthChecksConfig } from '../config/router-config.ts';
import type { LinkInfo } from '../links/link-manager-api.ts';
import { CheckState, controllerPingFailure, healthReport, linkCountFailure, linkDetails, type HealthReport } from './health-check-state.ts';

export interface CheckDefinition {
  readonly id: string;
  readonly initiallyHealthy: boolean;
  readonly intervalMs: number;
  readonly initialDelayMs: number;
  /** Resolves with the details on success; throws an Error whose message is the failure (details on `.details`). */
  readonly run: () => Promise<unknown>;
}

export class CheckFailure extends Error {
  constructor(
    message: string,
    readonly details: unknown = null,
  ) {
    super(message);
  }
}

export class HealthCheckRunner {
  private readonly states = new Map<string, CheckState>();
  private readonly running = new Set<string>();
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly checks: readonly CheckDefinition[],
    private readonly clock: Clock,
  ) {
    for (const check of checks) this.states.set(check.id, new CheckState(check.id, check.initiallyHealthy, clock.now()));
  }

  start(): void {
    for (const check of this.checks) {
      const first = setTimeout(() => {
        void this.runOnce(check.id);
        const repeat = setInterval(() => void this.runOnce(check.id), check.intervalMs);
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

  /** Runs one check now; a run still in progress is not started twice. */
  async runOnce(id: string): Promise<void> {
    const check = this.checks.find((candidate) => candidate.id === id);
    const state = this.states.get(id);
    if (!check || !state || this.running.has(id)) return;
    this.running.add(id);
    const started = performance.now();
    try {
      const details = await check.run();
      state.record({ ok: true, details, at: this.clock.now(), durationMs: performance.now() - started });
    } catch (error) {
      const details = error instanceof CheckFailure ? error.details : null;
      state.record({ ok: false, error: (error as Error).message, details, at: this.clock.now(), durationMs: performance.now() - started });
    } finally {
      this.running.delete(id);
    }
  }

  report(short: boolean): HealthReport {
    return healthReport([...this.states.values()], short);
  }
}

export interface RouterCheckSources {
  /** Whether a control channel is up (welcomed). */
  readonly ctrlConnected: () => boolean;
  /** A ping request on the control channel; resolves when answered, rejects on timeout or failure. */
  readonly pingController: (timeoutMs: number) => Promise<void>;
  readonly links: () => readonly LinkInfo[];
}

/** The router's checks, configured by healthChecks. */
export function routerCheckDefinitions(config: HealthChecksConfig, sources: RouterCheckSources): CheckDefinition[] {
  const ping = config.ctrlPingCheck;
  const link = config.linkCheck;
  return [
    {
      id: 'controllerPing',
      initiallyHealthy: false,
      intervalMs: ping.interval,
      initialDelayMs: ping.initialDelay,
      run: async () => {
        const connected = sources.ctrlConnected();
        let answered = false;
        if (connected) {
          try {
            await sources.pingController(ping.timeout);
            answered = true;
          } catch {
            answered = false;
          }
        }
        const failure = controllerPingFailure({ connected, answered });
        if (failure !== undefined) throw new CheckFailure(failure);
        return null;
      },
    },
    {
      id: 'link.health',
      initiallyHealthy: link.minLinks === 0,
      intervalMs: link.interval,
      initialDelayMs: link.initialDelay,
      run: async () => {
        const links = sources.links();
        const details = linkDetails(links);
        const failure = linkCountFailure(links.length, link.minLinks);
        if (failure !== undefined) throw new CheckFailure(failure, details);
        return details;
      },
    },
  ];
}

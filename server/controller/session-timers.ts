// A controller's periodic API-session work: flushing the activity kept in memory as one batched command per
// interval, and (on the leader, for everyone) removing expired sessions.
import type { Logger } from '../../common/log/logger.ts';
import type { ApiSessionService } from '../edge/api-session-service.ts';

export interface SessionTimerOptions {
  readonly activityUpdateIntervalMs: number;
  readonly sessionTimeoutMs: number;
}

/** The sweep runs a quarter of the session timeout apart, between 1 s and 1 min. */
export function sweepIntervalMs(sessionTimeoutMs: number): number {
  return Math.min(60_000, Math.max(1_000, Math.floor(sessionTimeoutMs / 4)));
}

/** Starts both timers; the returned function stops them. */
export function startSessionTimers(sessions: ApiSessionService, isLeader: () => boolean, options: SessionTimerOptions, logger: Logger): () => void {
  const flushTimer = setInterval(() => {
    sessions.flushActivity().catch((error) => logger.warn('api session activity flush failed', { error: (error as Error).message }));
  }, options.activityUpdateIntervalMs);
  const sweepTimer = setInterval(() => {
    // The leader sweeps for everyone: one command, not one per controller.
    if (!isLeader()) return;
    sessions
      .sweepExpired()
      .then((count) => count > 0 && logger.info('expired api sessions removed', { count }))
      .catch((error) => logger.warn('api session sweep failed', { error: (error as Error).message }));
  }, sweepIntervalMs(options.sessionTimeoutMs));
  return () => {
    clearInterval(flushTimer);
    clearInterval(sweepTimer);
  };
}

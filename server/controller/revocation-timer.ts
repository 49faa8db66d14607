// The leader prunes expired revocations for everyone, once a minute: one bounded command per run (at most the
// service's pruneBatch rows), none when nothing expired.
import type { Logger } from '../../common/log/logger.ts';
import type { RevocationService } from '../edge/revocation-service.ts';

export const revocationPruneIntervalMs = 60_000;

/** Starts the timer; the returned function stops it. */
export function startRevocationPruning(revocations: Pick<RevocationService, 'prune'>, isLeader: () => boolean, logger: Logger, intervalMs = revocationPruneIntervalMs): () => void {
  const timer = setInterval(() => {
    if (!isLeader()) return;
    revocations
      .prune()
      .then((count) => count > 0 && logger.info('expired revocations removed', { count }))
      .catch((error) => logger.warn('revocation prune failed', { error: (error as Error).message }));
  }, intervalMs);
  return () => clearInterval(timer);
}

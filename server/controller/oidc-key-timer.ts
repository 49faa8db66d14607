// Keeps this controller's OIDC signing key published and fresh: the first key as soon as the cluster takes writes
// (retried every few seconds until then), a new one every keyRotation; the leader prunes keys retired longer ago
// than the longest token lifetime. Until the first key is committed, logins through /oidc answer 503. Refresh tokens
// replaced by a refresh are revoked cluster-wide every few seconds, many to a command.
import type { Logger } from '../../common/log/logger.ts';
import type { OidcServices } from '../oidc/oidc-services.ts';

export const keyCheckIntervalMs = 2_000;
export const firstKeyRetryMs = 250;
export const keyPruneIntervalMs = 60_000;
export const supersededFlushIntervalMs = 5_000;

/** Starts the timers; the returned function stops them. */
export function startOidcKeyTimers(oidc: OidcServices, isLeader: () => boolean, logger: Logger, checkIntervalMs = keyCheckIntervalMs): () => void {
  if (!oidc.enabled) return () => undefined;
  let running = false;
  let failingSince: number | undefined;
  const check = () => {
    if (running) return;
    running = true;
    const hadKey = oidc.keys.signingKey() !== undefined;
    oidc.keys
      .rotateIfDue(oidc.keyRotationMs)
      .then((rotated) => {
        if (rotated) logger.info(hadKey ? 'oidc signing key rotated' : 'oidc signing key published', { kid: oidc.keys.signingKey()?.kid });
        failingSince = undefined;
      })
      .catch((error: unknown) => {
        // Expected while the cluster has no leader yet: said once, then again only after a minute of it.
        const now = Date.now();
        if (failingSince === undefined || now - failingSince > 60_000) {
          logger.warn('oidc signing key not published yet', { error: (error as Error).message });
          failingSince = now;
        }
      })
      .finally(() => {
        running = false;
      });
  };
  check();
  const checkTimer = setInterval(check, checkIntervalMs);
  // Until the first key is committed, try more often: logins wait on it.
  const firstKeyTimer = setInterval(() => (oidc.keys.signingKey() ? clearInterval(firstKeyTimer) : check()), firstKeyRetryMs);
  // Replaced refresh tokens reach the other controllers' revocation lists as one command per flush.
  const supersededTimer = setInterval(() => {
    oidc.superseded
      .flush()
      .then(({ dropped }) => dropped > 0 && logger.warn('superseded refresh tokens not revoked cluster-wide', { count: dropped, reason: 'queue or revocation table share full' }))
      .catch((error) => logger.warn('superseded refresh tokens not written', { error: (error as Error).message }));
  }, supersededFlushIntervalMs);
  const pruneTimer = setInterval(() => {
    if (!isLeader()) return;
    oidc.keys
      .prune(oidc.tokens.longestLifetimeMs)
      .then((count) => count > 0 && logger.info('retired oidc signing keys removed', { count }))
      .catch((error) => logger.warn('oidc key prune failed', { error: (error as Error).message }));
  }, keyPruneIntervalMs);
  return () => {
    clearInterval(checkTimer);
    clearInterval(firstKeyTimer);
    clearInterval(pruneTimer);
    clearInterval(supersededTimer);
  };
}

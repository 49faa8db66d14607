// Closes SDK edge channels whose OIDC access token expired without an UpdateToken, as OpenZiti's router does: it
// checks every 5 s, so a client must push a new token before the old one's expiry. The sweep itself is pure (the
// time is a parameter); startTokenExpirySweep drives it with a timer.
import type { Logger } from '../../common/log/logger.ts';

/** How often the channels are checked (OpenZiti's router: every 5 s). */
export const tokenExpirySweepIntervalMs = 5_000;

export interface ExpiringChannel {
  readonly identityId: string;
  readonly apiSessionId: string;
  readonly tokenExpiresAtMs: number | undefined;
  tokenExpired(nowMs: number): boolean;
  close(reason: string): void;
}

export class TokenExpirySweep {
  private readonly channels = new Set<ExpiringChannel>();

  constructor(private readonly logger: Logger) {}

  opened(channel: ExpiringChannel): void {
    // A legacy session's channel has no token expiry: nothing to watch.
    if (channel.tokenExpiresAtMs !== undefined) this.channels.add(channel);
  }

  closed(channel: ExpiringChannel): void {
    this.channels.delete(channel);
  }

  /** Closes the channels whose token expired by `nowMs`; answers how many. */
  sweep(nowMs: number): number {
    let closed = 0;
    for (const channel of [...this.channels]) {
      if (!channel.tokenExpired(nowMs)) continue;
      this.channels.delete(channel);
      this.logger.info('edge channel closed: its access token expired without an update', {
        identityId: channel.identityId,
        apiSessionId: channel.apiSessionId,
        expiredAt: new Date(channel.tokenExpiresAtMs!).toISOString(),
      });
      channel.close('the API session token expired');
      closed++;
    }
    return closed;
  }

  get watched(): number {
    return this.channels.size;
  }
}

/** Runs the sweep every `intervalMs`; answers the function that stops it. */
export function startTokenExpirySweep(sweep: TokenExpirySweep, now: () => number, intervalMs = tokenExpirySweepIntervalMs): () => void {
  const timer = setInterval(() => sweep.sweep(now()), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

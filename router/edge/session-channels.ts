// The SDK edge channels of this router by API session, so that a session the controller says has ended (revoked,
// logged out, its identity disabled: `ctrl.edgeSessionsEnded`) loses its channels at once, as OpenZiti's router
// closes the channels of a removed or revoked API session. Channels without a session id are not listed.
import { maxEdgeSessionsPerMessage } from '../../common/control-channel/control-messages.ts';
import type { Logger } from '../../common/log/logger.ts';

export interface SessionChannel {
  readonly apiSessionId: string;
  close(reason: string): void;
}

export class SessionChannels {
  private readonly bySession = new Map<string, Set<SessionChannel>>();

  constructor(private readonly logger: Logger) {}

  opened(channel: SessionChannel): void {
    if (channel.apiSessionId === '') return;
    let held = this.bySession.get(channel.apiSessionId);
    if (!held) this.bySession.set(channel.apiSessionId, (held = new Set()));
    held.add(channel);
  }

  closed(channel: SessionChannel): void {
    const held = this.bySession.get(channel.apiSessionId);
    if (!held?.delete(channel)) return;
    if (held.size === 0) this.bySession.delete(channel.apiSessionId);
  }

  /** `ctrl.edgeSessionsEnded` as it came off the wire: closes each named session's channels; answers how many. */
  ended(message: unknown): number {
    const sessions = (message as { sessions?: unknown } | null)?.sessions;
    if (!Array.isArray(sessions) || sessions.length > maxEdgeSessionsPerMessage) {
      this.logger.warn('edge sessions ended message ignored: malformed');
      return 0;
    }
    let closed = 0;
    for (const entry of sessions as Array<{ apiSessionId?: unknown; reason?: unknown }>) {
      if (typeof entry?.apiSessionId !== 'string') continue;
      const held = this.bySession.get(entry.apiSessionId);
      if (!held) continue;
      const reason = typeof entry.reason === 'string' ? entry.reason.slice(0, 512) : 'the API session ended';
      this.bySession.delete(entry.apiSessionId);
      for (const channel of held) channel.close(`the API session ended: ${reason}`);
      closed += held.size;
      this.logger.info('edge channels closed: their API session ended', { apiSessionId: entry.apiSessionId, reason, channels: held.size });
    }
    return closed;
  }
}

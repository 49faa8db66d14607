// Which API sessions hold an SDK edge channel to this router, for the controller: the spec's "maintained edge router
// connection" keeps a session alive and makes its identity's `hasEdgeRouterConnection` true. Channels are counted
// per session (an SDK may open several); a change of a session's count is sent as `router.edgeSessions` soon after
// it happens (changes within one burst make one message; what could not be sent goes with the next), and the whole
// set after each welcome (`fullReport`), since the controller forgets what an earlier control channel reported. Also the figures behind the edge gauges.
// Pure: sending and scheduling are injected.
import { maxEdgeSessionsPerMessage, type EdgeSessionCount, type RouterEdgeSessions } from '../../common/control-channel/control-messages.ts';

/** An open SDK channel, once its hello was accepted. */
export interface PresentChannel {
  readonly apiSessionId: string;
  readonly identityId: string;
  /** Virtual connections (dials) it holds now. */
  readonly connectionCount: number;
}

export interface EdgeSessionPresenceDeps {
  /** Sends on the control channel; false when it could not (no channel, or its queue full). */
  readonly send: (message: RouterEdgeSessions) => boolean;
  /** Runs `flush` soon (once per burst of changes). */
  readonly schedule: (flush: () => void) => void;
}

export interface EdgeFigures {
  readonly channels: number;
  readonly connections: number;
}

export class EdgeSessionPresence {
  private readonly channels = new Set<PresentChannel>();
  private readonly sessions = new Map<string, { identityId: string; channels: number }>();
  /** Sessions whose count changed since the last message, with their identity (kept when the count reaches 0). */
  private readonly changed = new Map<string, string>();
  private scheduled = false;

  constructor(private readonly deps: EdgeSessionPresenceDeps) {}

  opened(channel: PresentChannel): void {
    if (this.channels.has(channel)) return;
    this.channels.add(channel);
    // A hello without a session id (an older controller's verdict) holds no session the controller could keep.
    if (channel.apiSessionId === '') return;
    const held = this.sessions.get(channel.apiSessionId);
    this.sessions.set(channel.apiSessionId, { identityId: channel.identityId, channels: (held?.channels ?? 0) + 1 });
    this.markChanged(channel.apiSessionId, channel.identityId);
  }

  closed(channel: PresentChannel): void {
    if (!this.channels.delete(channel) || channel.apiSessionId === '') return;
    const held = this.sessions.get(channel.apiSessionId);
    if (!held) return;
    if (held.channels <= 1) this.sessions.delete(channel.apiSessionId);
    else held.channels--;
    this.markChanged(channel.apiSessionId, held.identityId);
  }

  /** Every session held now, as messages of at most `maxEdgeSessionsPerMessage` (the first resets); pending changes are included. */
  fullReport(): RouterEdgeSessions[] {
    this.changed.clear();
    const all = [...this.sessions].map(([apiSessionId, held]): EdgeSessionCount => ({ apiSessionId, identityId: held.identityId, channels: held.channels }));
    const messages: RouterEdgeSessions[] = [{ type: 'router.edgeSessions', reset: true, sessions: all.slice(0, maxEdgeSessionsPerMessage) }];
    for (let start = maxEdgeSessionsPerMessage; start < all.length; start += maxEdgeSessionsPerMessage) {
      messages.push({ type: 'router.edgeSessions', reset: false, sessions: all.slice(start, start + maxEdgeSessionsPerMessage) });
    }
    return messages;
  }

  figures(): EdgeFigures {
    let connections = 0;
    for (const channel of this.channels) connections += channel.connectionCount;
    return { channels: this.channels.size, connections };
  }

  private markChanged(apiSessionId: string, identityId: string): void {
    this.changed.set(apiSessionId, identityId);
    if (this.scheduled) return;
    this.scheduled = true;
    this.deps.schedule(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const changes = [...this.changed].map(([apiSessionId, identityId]): EdgeSessionCount => ({ apiSessionId, identityId, channels: this.sessions.get(apiSessionId)?.channels ?? 0 }));
    this.changed.clear();
    for (let start = 0; start < changes.length; start += maxEdgeSessionsPerMessage) {
      const sessions = changes.slice(start, start + maxEdgeSessionsPerMessage);
      if (this.deps.send({ type: 'router.edgeSessions', reset: false, sessions })) continue;
      // Not sent (no channel, or its queue full): kept for the next message; a welcome's full report covers them too.
      for (const session of sessions) if (!this.changed.has(session.apiSessionId)) this.changed.set(session.apiSessionId, session.identityId);
    }
  }
}

// Ends the SDK edge channels of API sessions that ended: the sessions this controller's routers report holding
// channels (`router.edgeSessions`) are judged again every pass by the same session status live circuits are (revoked,
// logged out, identity disabled or deleted, an OIDC session whose tokens stopped), and a router holding one that no
// longer passes is told once (`ctrl.edgeSessionsEnded`); it closes those channels, as OpenZiti's router closes the
// channels of a removed or revoked API session. Pure but for the deps: the pass is run by a driver.
import { maxEdgeSessionsPerMessage, type CtrlEdgeSessionsEnded } from '../../common/control-channel/control-messages.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { SessionStatus } from '../circuits/live-circuit-check.ts';
import type { EdgeSessionRecord } from './edge-session-registry.ts';

export interface HeldSessionCheckDeps {
  /** The sessions held on this controller's routers. */
  readonly records: () => readonly EdgeSessionRecord[];
  /** How a session is judged by id (undefined until the edge services exist: nothing is ended then). */
  readonly status: () => SessionStatus | undefined;
  /** Sends to a router connected here; false when it is not. */
  readonly sendTo: (routerId: string, frame: CtrlEdgeSessionsEnded) => boolean;
  readonly logger: Logger;
}

export class HeldSessionCheck {
  /** `routerId apiSessionId` pairs the router was told about: not told again while it still reports them. */
  private readonly told = new Set<string>();

  constructor(private readonly deps: HeldSessionCheckDeps) {}

  /** Judges every held session once; answers how many (router, session) pairs were told to end. */
  pass(): number {
    const status = this.deps.status();
    if (!status) return 0;
    const verdicts = new Map<string, ReturnType<SessionStatus>>();
    const ended = new Map<string, Array<{ apiSessionId: string; reason: string }>>();
    const held = new Set<string>();
    for (const record of this.deps.records()) {
      if (record.channels <= 0) continue;
      const key = `${record.routerId} ${record.apiSessionId}`;
      held.add(key);
      if (this.told.has(key)) continue;
      let verdict = verdicts.get(record.apiSessionId);
      if (!verdict) verdicts.set(record.apiSessionId, (verdict = status(record.apiSessionId)));
      if (verdict.ok) continue;
      const list = ended.get(record.routerId) ?? [];
      list.push({ apiSessionId: record.apiSessionId, reason: verdict.message });
      ended.set(record.routerId, list);
    }
    // A pair the router no longer reports (its channels closed) may be told again should it come back.
    for (const key of this.told) if (!held.has(key)) this.told.delete(key);
    let count = 0;
    for (const [routerId, sessions] of ended) {
      for (let start = 0; start < sessions.length; start += maxEdgeSessionsPerMessage) {
        const batch = sessions.slice(start, start + maxEdgeSessionsPerMessage);
        if (!this.deps.sendTo(routerId, { type: 'ctrl.edgeSessionsEnded', sessions: batch })) continue;
        for (const session of batch) this.told.add(`${routerId} ${session.apiSessionId}`);
        count += batch.length;
      }
      this.deps.logger.info('edge sessions ended: their router closes their channels', { routerId, count: sessions.length, apiSessions: sessions.slice(0, 20).map((session) => session.apiSessionId) });
    }
    return count;
  }
}

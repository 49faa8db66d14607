// The controller side of `router.edgeSessions`: each report checked (a session must be one of the identity it names,
// by this controller's model) and kept in the registry; a change announced to the other controllers; the API
// sessions held on this controller's routers kept alive (the spec: "activity or a maintained edge router connection
// resets the timer"): touched every keep-alive interval while held, and once more when their last channel closes or
// their router's control channel does, so their inactivity timeout runs from then.
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import { EdgeSessionIndex } from './edge-session-index.ts';
import { EdgeSessionRegistry, readEdgeSessions, type EdgeSessionRecord } from './edge-session-registry.ts';
import type { RouterEdgeSessionsSink, RouterEvent } from './router-hub.ts';

export interface EdgeSessionControlDeps {
  readonly controllerId: string;
  /** The terminators' grace: a disconnected router's sessions are listed this long. */
  readonly graceMs: number;
  /** The identity an API session belongs to, by this controller's model (undefined: no such session). */
  readonly sessionIdentity: (apiSessionId: string) => string | undefined;
  /** The other controllers' records (their replicas in cluster-router-presence.ts). */
  readonly remote: () => Promise<readonly EdgeSessionRecord[]>;
  readonly announce: (event: RouterEvent) => void;
  /** Tells a router to close the channels of sessions that no longer exist (`ctrl.edgeSessionsEnded`). */
  readonly endSessions: (routerId: string, sessions: ReadonlyArray<{ readonly apiSessionId: string; readonly reason: string }>) => void;
  /** How long after such a report the router is told (the held-session check's interval, 2 s). */
  readonly endDelayMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How often the other controllers are asked again without an announcement (5 s). */
  readonly refreshIntervalMs: number;
}

export interface EdgeSessionControl extends RouterEdgeSessionsSink {
  readonly index: EdgeSessionIndex;
  /** This controller's routers' records, for the peer answer. */
  records(): EdgeSessionRecord[];
  /** One router's records, for its presence entry. */
  recordsOf(routerId: string): EdgeSessionRecord[];
  /** Another controller announced a change: ask again. */
  remoteChanged(): void;
  /** How held sessions are kept alive: `touch` at each interval and at release (none until set). */
  setKeeper(touch: (apiSessionIds: readonly string[]) => void, intervalMs: number): void;
  close(): void;
}

export function startEdgeSessionControl(deps: EdgeSessionControlDeps): EdgeSessionControl {
  const registry = new EdgeSessionRegistry({ controllerId: deps.controllerId, graceMs: deps.graceMs });
  const index = new EdgeSessionIndex(() => registry.list(deps.clock.now()), deps.remote, () => deps.clock.now());
  let touch: (ids: readonly string[]) => void = () => undefined;
  let keeper: NodeJS.Timeout | undefined;
  const release = (ids: readonly string[]) => {
    index.localChanged();
    if (ids.length > 0) touch(ids);
  };
  const refresher = setInterval(() => void index.refresh(), deps.refreshIntervalMs);
  refresher.unref();
  return {
    index,
    connected(routerId) {
      release(registry.connected(routerId));
    },
    disconnected(routerId, revoked) {
      const held = revoked ? registry.drop(routerId) : registry.disconnected(routerId, deps.clock.now());
      release(held);
      if (held.length > 0) deps.announce({ event: 'edgeSessions', routerId });
    },
    report(routerId, frame) {
      const read = readEdgeSessions(frame);
      if (!read.ok) return deps.logger.warn('router edge sessions message refused', { routerId, reason: read.reason });
      // A router may only report sessions of the identities they belong to: anything else would keep another
      // identity's session alive or show it connected.
      const wrong = read.sessions.filter((session) => session.channels > 0 && deps.sessionIdentity(session.apiSessionId) !== session.identityId);
      if (wrong.length > 0) {
        deps.logger.warn('router edge sessions refused: no such API session of that identity', { routerId, apiSessions: wrong.slice(0, 20).map((session) => session.apiSessionId), count: wrong.length });
        // A session that ended (logged out, revoked, expired) between the router's hello check and this report was
        // never recorded, so the held-session check would never tell the router: its channels would outlive the
        // session. The router is told now.
        // Told after the held-session check's interval, not at once: the graceful ends come first (a Bind ended with
        // "start over" when its host logs out), as they do for the sessions that were recorded.
        const gone = wrong.filter((session) => deps.sessionIdentity(session.apiSessionId) === undefined).map((session) => session.apiSessionId);
        if (gone.length > 0) {
          const timer = setTimeout(() => {
            const still = gone.filter((apiSessionId) => deps.sessionIdentity(apiSessionId) === undefined);
            if (still.length > 0) deps.endSessions(routerId, still.map((apiSessionId) => ({ apiSessionId, reason: 'the API session has ended' })));
          }, deps.endDelayMs);
          timer.unref();
        }
      }
      const accepted = wrong.length === 0 ? read.sessions : read.sessions.filter((session) => !wrong.includes(session));
      const { changed, released } = registry.apply(routerId, read.reset, accepted);
      release(released);
      if (changed) index.localChanged();
      if (changed) deps.announce({ event: 'edgeSessions', routerId });
    },
    records: () => registry.list(deps.clock.now()),
    recordsOf: (routerId) => registry.recordsOf(routerId, deps.clock.now()),
    remoteChanged: () => void index.refresh(),
    setKeeper(keep, intervalMs) {
      touch = keep;
      clearInterval(keeper);
      keeper = setInterval(() => {
        const held = registry.heldSessionIds();
        if (held.length > 0) touch(held);
      }, intervalMs);
      keeper.unref();
    },
    close() {
      clearInterval(refresher);
      clearInterval(keeper);
    },
  };
}

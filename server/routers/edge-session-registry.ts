// Which API sessions hold an SDK edge channel on the routers connected to this controller, as each router reports
// them (`router.edgeSessions`). Presence-like state, kept like the terminators (terminator-registry.ts says why not in
// the raft log): in memory on the controller that holds the router's control channel, a report reset at each welcome,
// kept for a short grace after the channel closes (a router back at once does not blink out), forgotten at once when
// the router may no longer connect. The other controllers learn it from the `routers.connected` peer answer.
// Pure: the time is a parameter.
import { maxEdgeSessionsPerMessage, type EdgeSessionCount } from '../../common/control-channel/control-messages.ts';

/** One API session's channels on one router, as any controller of the cluster lists it. */
export interface EdgeSessionRecord {
  readonly routerId: string;
  readonly apiSessionId: string;
  readonly identityId: string;
  readonly channels: number;
  /** The controller holding the router's control channel. */
  readonly controllerId: string;
}

export interface EdgeSessionRegistryOptions {
  readonly controllerId: string;
  /** How long a disconnected router's sessions are still listed (the terminators' grace). */
  readonly graceMs: number;
}

interface RouterEntry {
  /** apiSessionId → identity and channel count (> 0). */
  readonly sessions: Map<string, { identityId: string; channels: number }>;
  goneAt: number | undefined;
}

export class EdgeSessionRegistry {
  private readonly routers = new Map<string, RouterEntry>();

  constructor(private readonly options: EdgeSessionRegistryOptions) {}

  /** A router was welcomed: its full report follows, so what an earlier channel reported goes. Returns the sessions released. */
  connected(routerId: string): string[] {
    const released = this.sessionIds(routerId);
    this.routers.set(routerId, { sessions: new Map(), goneAt: undefined });
    return released;
  }

  /** Its channel closed: its sessions stay listed for the grace period. Returns the sessions it held. */
  disconnected(routerId: string, now: number): string[] {
    const entry = this.routers.get(routerId);
    if (entry) entry.goneAt = now;
    return this.sessionIds(routerId);
  }

  /** The router may no longer connect: its sessions go now. Returns the sessions it held. */
  drop(routerId: string): string[] {
    const released = this.sessionIds(routerId);
    this.routers.delete(routerId);
    return released;
  }

  /**
   * A report of a connected router. Returns whether the listed state changed and the sessions whose last channel on
   * this router closed (their inactivity timeout starts now).
   */
  apply(routerId: string, reset: boolean, sessions: readonly EdgeSessionCount[]): { changed: boolean; released: string[] } {
    const entry = this.routers.get(routerId);
    if (!entry || entry.goneAt !== undefined) return { changed: false, released: [] };
    const released: string[] = [];
    let changed = false;
    if (reset) {
      const reported = new Set(sessions.map((session) => session.apiSessionId));
      for (const id of [...entry.sessions.keys()]) {
        if (reported.has(id)) continue;
        entry.sessions.delete(id);
        released.push(id);
        changed = true;
      }
    }
    for (const { apiSessionId, identityId, channels } of sessions) {
      const held = entry.sessions.get(apiSessionId);
      if (channels === 0) {
        if (!held) continue;
        entry.sessions.delete(apiSessionId);
        released.push(apiSessionId);
        changed = true;
      } else if (!held || held.channels !== channels || held.identityId !== identityId) {
        entry.sessions.set(apiSessionId, { identityId, channels });
        changed = true;
      }
    }
    return { changed, released };
  }

  /** API sessions holding a channel on a router connected here now (kept alive by this controller). */
  heldSessionIds(): string[] {
    const ids = new Set<string>();
    for (const entry of this.routers.values()) if (entry.goneAt === undefined) for (const id of entry.sessions.keys()) ids.add(id);
    return [...ids];
  }

  /** Every record listed now; routers gone longer than the grace are forgotten. */
  list(now: number): EdgeSessionRecord[] {
    const all: EdgeSessionRecord[] = [];
    for (const [routerId, entry] of this.routers) {
      if (entry.goneAt !== undefined && now - entry.goneAt >= this.options.graceMs) {
        this.routers.delete(routerId);
        continue;
      }
      for (const [apiSessionId, held] of entry.sessions) all.push({ routerId, apiSessionId, identityId: held.identityId, channels: held.channels, controllerId: this.options.controllerId });
    }
    return all;
  }

  /** One router's records listed now (none once its grace is over). */
  recordsOf(routerId: string, now: number): EdgeSessionRecord[] {
    const entry = this.routers.get(routerId);
    if (!entry || (entry.goneAt !== undefined && now - entry.goneAt >= this.options.graceMs)) return [];
    return [...entry.sessions].map(([apiSessionId, held]) => ({ routerId, apiSessionId, identityId: held.identityId, channels: held.channels, controllerId: this.options.controllerId }));
  }

  private sessionIds(routerId: string): string[] {
    return [...(this.routers.get(routerId)?.sessions.keys() ?? [])];
  }
}

/** A router's `router.edgeSessions`, or why it is refused (bounded ids and counts). */
export function readEdgeSessions(frame: unknown): { ok: true; reset: boolean; sessions: EdgeSessionCount[] } | { ok: false; reason: string } {
  const { reset, sessions } = (frame ?? {}) as { reset?: unknown; sessions?: unknown };
  if (typeof reset !== 'boolean') return { ok: false, reason: 'reset must be a boolean' };
  if (!Array.isArray(sessions)) return { ok: false, reason: 'sessions must be a list' };
  if (sessions.length > maxEdgeSessionsPerMessage) return { ok: false, reason: `at most ${maxEdgeSessionsPerMessage} sessions per message` };
  const id = (value: unknown) => typeof value === 'string' && value.length > 0 && value.length <= 512;
  const read: EdgeSessionCount[] = [];
  for (const item of sessions) {
    const { apiSessionId, identityId, channels } = (item ?? {}) as Record<string, unknown>;
    if (!id(apiSessionId) || !id(identityId)) return { ok: false, reason: 'each session needs an apiSessionId and an identityId' };
    if (typeof channels !== 'number' || !Number.isInteger(channels) || channels < 0 || channels > 1_000_000) return { ok: false, reason: 'channels must be a whole number from 0' };
    read.push({ apiSessionId: apiSessionId as string, identityId: identityId as string, channels });
  }
  return { ok: true, reset, sessions: read };
}

/** A peer's edge sessions, keeping only well-formed entries (a controller from before edge sessions sends none). */
export function edgeSessionsIn(answer: unknown): EdgeSessionRecord[] {
  const records = (answer as { edgeSessions?: unknown } | null)?.edgeSessions;
  if (!Array.isArray(records)) return [];
  const text = (value: unknown) => typeof value === 'string' && value.length > 0 && value.length <= 512;
  return records
    .filter((item): item is EdgeSessionRecord => typeof item === 'object' && item !== null && ['routerId', 'apiSessionId', 'identityId', 'controllerId'].every((key) => text((item as Record<string, unknown>)[key])) && typeof item.channels === 'number' && item.channels > 0)
    .map((item) => ({ routerId: item.routerId, apiSessionId: item.apiSessionId, identityId: item.identityId, channels: item.channels, controllerId: item.controllerId }));
}

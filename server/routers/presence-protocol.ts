// The presence replication protocol between controllers (version 2): each controller pushes to every other member
// the routers connected to it, their terminators, links and edge sessions, one entry per router, as ordered deltas
// under a per-controller epoch (a fresh id each start) and sequence number. A receiver that sees a new epoch or a
// gap asks for the whole state once (`routers.state`), then applies deltas again. A delta with nothing in it is a
// heartbeat: it says the sender is alive and at that sequence number. Version 1 (`routers.connected` answered with
// whole lists, `routers.event` announcements) is still answered and asked, for members that speak only it.
// Everything read here is bounded, and a malformed message is refused whole, with a reason. Pure.
import type { ReportedLink } from '../circuits/circuit-paths.ts';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';
import type { EdgeSessionRecord } from './edge-session-registry.ts';
import type { RouterSummary } from './router-hub.ts';
import { readLinkReport } from './router-hub.ts';
import { edgeSessionsIn } from './edge-session-registry.ts';
import { summariesIn, terminatorsIn } from './presence-answers.ts';

export const presenceProtocolVersion = 2;

export const presenceLimits = {
  /** Router entries in one delta or state answer. */
  maxRoutersPerMessage: 20_000,
  /** Terminators of one router (tunnel and SDK-hosted). */
  maxTerminatorsPerRouter: 10_000,
  /** Edge session records of one router. */
  maxEdgeSessionsPerRouter: 100_000,
  /** Routers one peer's mirror may hold. */
  maxRoutersPerPeer: 100_000,
  maxIdLength: 512,
} as const;

/** One router's presence on its controller; an entry with no router and nothing else removes the router. */
export interface RouterPresenceEntry {
  readonly routerId: string;
  /** Present while its control channel is open there. */
  readonly router?: RouterSummary;
  readonly terminators: readonly TerminatorRecord[];
  readonly links: readonly ReportedLink[];
  readonly edgeSessions: readonly EdgeSessionRecord[];
}

export interface PresenceDelta {
  readonly type: 'routers.delta';
  readonly v: number;
  readonly epoch: string;
  readonly seq: number;
  readonly routers: readonly RouterPresenceEntry[];
}

export interface PresenceStateRequest {
  readonly type: 'routers.state';
  readonly v: number;
}

export interface PresenceState {
  readonly v: number;
  readonly epoch: string;
  readonly seq: number;
  readonly routers: readonly RouterPresenceEntry[];
}

export type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

const isId = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= presenceLimits.maxIdLength;
const isSeq = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

export function isEmptyEntry(entry: RouterPresenceEntry): boolean {
  return entry.router === undefined && entry.terminators.length === 0 && entry.links.length === 0 && entry.edgeSessions.length === 0;
}

/** A delta's body, from controller `from`. */
export function readPresenceDelta(body: unknown, from: string): Read<PresenceDelta> {
  const value = body as Record<string, unknown> | null;
  if (typeof value !== 'object' || value === null || value.type !== 'routers.delta') return { ok: false, reason: 'not a routers.delta' };
  if (value.v !== presenceProtocolVersion) return { ok: false, reason: `version ${String(value.v)} is not ${presenceProtocolVersion}` };
  if (!isId(value.epoch) || !isSeq(value.seq)) return { ok: false, reason: 'epoch and seq must be an id and a whole number' };
  const routers = readEntries(value.routers, from);
  if (!routers.ok) return routers;
  return { ok: true, value: { type: 'routers.delta', v: presenceProtocolVersion, epoch: value.epoch, seq: value.seq, routers: routers.value } };
}

/** The answer to `routers.state`, from controller `from`. */
export function readPresenceState(answer: unknown, from: string): Read<PresenceState> {
  const value = answer as Record<string, unknown> | null;
  if (typeof value !== 'object' || value === null || value.v !== presenceProtocolVersion) return { ok: false, reason: 'not a version 2 presence state' };
  if (!isId(value.epoch) || !isSeq(value.seq)) return { ok: false, reason: 'epoch and seq must be an id and a whole number' };
  const routers = readEntries(value.routers, from);
  if (!routers.ok) return routers;
  return { ok: true, value: { v: presenceProtocolVersion, epoch: value.epoch, seq: value.seq, routers: routers.value } };
}

function readEntries(list: unknown, from: string): Read<RouterPresenceEntry[]> {
  if (!Array.isArray(list)) return { ok: false, reason: 'routers must be a list' };
  if (list.length > presenceLimits.maxRoutersPerMessage) return { ok: false, reason: `at most ${presenceLimits.maxRoutersPerMessage} routers per message (got ${list.length})` };
  const entries: RouterPresenceEntry[] = [];
  for (const [index, item] of list.entries()) {
    const entry = readEntry(item, from);
    if (typeof entry === 'string') return { ok: false, reason: `routers[${index}]: ${entry}` };
    entries.push(entry);
  }
  return { ok: true, value: entries };
}

/** One entry, or why it is refused. Everything in it must be of that router and held by the sender. */
function readEntry(item: unknown, from: string): RouterPresenceEntry | string {
  const value = item as Record<string, unknown> | null;
  if (typeof value !== 'object' || value === null) return 'must be an object';
  const routerId = value.routerId;
  if (!isId(routerId)) return 'routerId must be an id';
  let router: RouterSummary | undefined;
  if (value.router !== undefined) {
    [router] = summariesIn({ routers: [value.router] });
    if (!router || router.routerId !== routerId || router.controllerId !== from) return 'router must be a summary of that router on the sending controller';
  }
  const rawTerminators = value.terminators ?? [];
  if (!Array.isArray(rawTerminators) || rawTerminators.length > presenceLimits.maxTerminatorsPerRouter) return `terminators must be a list of at most ${presenceLimits.maxTerminatorsPerRouter}`;
  const terminators = terminatorsIn({ terminators: rawTerminators });
  if (terminators.length !== rawTerminators.length || terminators.some((terminator) => terminator.routerId !== routerId || terminator.controllerId !== from || !isId(terminator.id) || !isId(terminator.serviceId))) {
    return 'terminators must be well formed, of that router, on the sending controller';
  }
  const links = readLinkReport(value.links ?? []);
  if (links === undefined) return 'links must be a well-formed link report';
  const rawSessions = value.edgeSessions ?? [];
  if (!Array.isArray(rawSessions) || rawSessions.length > presenceLimits.maxEdgeSessionsPerRouter) return `edgeSessions must be a list of at most ${presenceLimits.maxEdgeSessionsPerRouter}`;
  const edgeSessions = edgeSessionsIn({ edgeSessions: rawSessions });
  if (edgeSessions.length !== rawSessions.length || edgeSessions.some((session) => session.routerId !== routerId || session.controllerId !== from)) {
    return 'edgeSessions must be well formed, of that router, on the sending controller';
  }
  return { routerId, ...(router ? { router } : {}), terminators, links, edgeSessions };
}

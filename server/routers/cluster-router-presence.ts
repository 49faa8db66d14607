// Which routers are connected to the cluster, their terminators, links and edge sessions: this controller's own,
// plus a replica of every other member's (peer-mirror.ts), kept by the deltas each member pushes (presence-protocol.ts):
// the cost of a change is that router's entry, never the whole state. A member's mirror is filled whole on first
// contact, after a gap in its sequence numbers and when it restarts (a new epoch); it is dropped when the member goes
// silent (no delta or heartbeat for `silenceMs`) or leaves the configuration: a member not heard from counts as
// having no routers. A router connected here wins over what any mirror still says of it. A member that answers the
// state request with "unknown" speaks only version 1: it is asked for its whole lists (`routers.connected`) every
// `cacheMs` instead, told of changes with `routers.event`, and its answer is held as its mirror. Circuit setup reads
// what it needs: a service's terminators (`terminatorsOf`) and a link graph kept as routers and reports change.
// Timers are the caller's: `tick()` every `pushIntervalMs`.
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { Edge, PathTree, RouterLinkReport } from '../circuits/circuit-paths.ts';
import { MaintainedLinkGraph } from '../circuits/maintained-link-graph.ts';
import type { RouterConnection, RouterPresence } from '../edge/router-presence.ts';
import type { TerminatorDirectory, TerminatorRecord } from '../edge/terminator-directory.ts';
import { edgeSessionsIn, type EdgeSessionRecord } from './edge-session-registry.ts';
import { PeerMirror } from './peer-mirror.ts';
import { linkReportsIn, summariesIn, terminatorsIn } from './presence-answers.ts';
import { presenceLimits, presenceProtocolVersion, readPresenceDelta, readPresenceState, type PresenceDelta, type PresenceStateRequest, type PresenceState, type RouterPresenceEntry } from './presence-protocol.ts';
import type { AnnouncedRouter, RouterEvent, RouterSummary } from './router-hub.ts';

export { linkReportsIn, summariesIn, terminatorsIn } from './presence-answers.ts';

export type RouterPeerRequest =
  | { readonly type: 'routers.connected' }
  | { readonly type: 'routers.event'; readonly event: RouterEvent }
  | PresenceDelta
  | PresenceStateRequest;

export function isRouterPeerRequest(body: unknown): body is RouterPeerRequest {
  const type = (body as { type?: unknown } | null)?.type;
  return type === 'routers.connected' || type === 'routers.event' || type === 'routers.delta' || type === 'routers.state';
}

/** The part of the peer network this needs. */
export interface PeerCaller {
  peers(): ReadonlyArray<{ readonly id: string; readonly connected: boolean }>;
  request(id: string, body: unknown, timeoutMs: number): Promise<unknown>;
}

/** This controller's own routers. */
export interface LocalRouterPresence {
  summaries(): RouterSummary[];
  /** One router's presence here now (empty once it is gone and its grace is over). */
  entry(routerId: string): RouterPresenceEntry;
  /** The router's last links when it is connected here (none reported yet: []), else undefined. */
  linksIfConnected(routerId: string): RouterPresenceEntry['links'] | undefined;
  /** Every router with presence here: connected, or in its grace period. */
  routerIds(): Iterable<string>;
  terminators(): TerminatorRecord[];
  terminatorsOf(serviceId: string): TerminatorRecord[];
  links(): RouterLinkReport[];
  edgeSessions(): EdgeSessionRecord[];
}

/** What a mirror's change means to this controller's own routers and sessions. */
export interface PresenceListener {
  /** A router became connected to the cluster, or left it (by every source this controller has). */
  routerEvent(event: RouterEvent): void;
  /** Another controller's edge sessions changed. */
  edgeSessionsChanged(): void;
}

export interface ClusterRouterPresenceOptions {
  /** How long a peer has to answer a delta or a version 1 request (500 ms). */
  readonly requestTimeoutMs: number;
  /** How often a version 1 peer is asked for its whole lists (1 s). */
  readonly cacheMs: number;
  /** How long a peer has to answer with its whole state (10 s). */
  readonly stateTimeoutMs: number;
  /** A heartbeat goes out when nothing else has for this long (1 s). */
  readonly heartbeatMs: number;
  /** A peer not heard from for this long is dropped (5 s). */
  readonly silenceMs: number;
  /** How long a disconnected router's terminators are still listed here: it is pushed again when that ends. */
  readonly graceMs: number;
  /** This run's epoch: a fresh id each start. */
  readonly epoch: string;
}

interface PeerSync {
  mirror: PeerMirror | undefined;
  /** A state request in flight, and the deltas that came meanwhile (applied after it, in order). */
  syncing: { readonly deltas: PresenceDelta[] } | undefined;
  /** When the state was last asked for (a failed ask waits `heartbeatMs` before the next). */
  askedAt: number;
  /** Speaks only version 1; `stale`: a `routers.event` said something changed. */
  legacy: { stale: boolean; askedAt: number; inFlight: boolean } | undefined;
}

export class ClusterRouterPresence implements RouterPresence, TerminatorDirectory {
  private readonly peerSync = new Map<string, PeerSync>();
  private readonly graph = new MaintainedLinkGraph();
  /** Routers this controller knows connected anywhere (the link graph's and the listener's view). */
  private readonly connectedAnywhere = new Set<string>();
  private readonly dirty = new Set<string>();
  /** Disconnected routers whose grace ends then: pushed again. */
  private readonly graceEnds = new Map<string, number>();
  private seq = 0;
  private sentAt = Number.NEGATIVE_INFINITY;
  /** Bumped by every change: the merged lists below are built once per version. */
  private version = 0;
  private merged: { version: number; connected?: Map<string, RouterConnection>; terminators?: TerminatorRecord[] } = { version: -1 };
  private listener: PresenceListener | undefined;

  constructor(
    private readonly selfId: string,
    private readonly peers: PeerCaller,
    private readonly local: LocalRouterPresence,
    private readonly clock: Clock,
    private readonly options: ClusterRouterPresenceOptions,
    private readonly logger?: Logger,
  ) {}

  setListener(listener: PresenceListener): void {
    this.listener = listener;
  }

  // ---- reads ---------------------------------------------------------------------------------------------------

  async connected(): Promise<ReadonlyMap<string, RouterConnection>> {
    return this.connectedNow();
  }

  private connectedNow(): Map<string, RouterConnection> {
    const merged = this.mergedNow();
    if (merged.connected) return merged.connected;
    const all = new Map<string, RouterConnection>();
    for (const mirror of this.mirrors()) for (const entry of mirror.routers.values()) if (entry.router) all.set(entry.routerId, entry.router);
    // A router connected here is connected here, whatever a slower report from elsewhere still says.
    for (const summary of this.local.summaries()) all.set(summary.routerId, summary);
    merged.connected = all;
    return all;
  }

  /** The routers connected to the other controllers, for a new router's welcome. */
  async otherRouters(): Promise<AnnouncedRouter[]> {
    return this.remoteSummaries().map(announcedRouterOf);
  }

  /** The other controllers' routers. */
  async remote(): Promise<RouterSummary[]> {
    return this.remoteSummaries();
  }

  private remoteSummaries(): RouterSummary[] {
    const result: RouterSummary[] = [];
    for (const mirror of this.mirrors()) for (const entry of mirror.routers.values()) if (entry.router) result.push(entry.router);
    return result;
  }

  /** Every terminator of the cluster in id order (a router's own controller wins; between others, the newer). */
  async list(): Promise<TerminatorRecord[]> {
    const merged = this.mergedNow();
    if (merged.terminators) return merged.terminators;
    const all = new Map<string, TerminatorRecord>();
    for (const mirror of this.mirrors()) for (const entry of mirror.routers.values()) for (const terminator of entry.terminators) keepNewer(all, terminator);
    for (const terminator of this.local.terminators()) all.set(terminator.id, terminator);
    merged.terminators = [...all.values()].sort(byId);
    return merged.terminators;
  }

  /** One service's terminators, in id order: what a circuit reads (it costs what it returns). */
  async terminatorsOf(serviceId: string): Promise<TerminatorRecord[]> {
    const all = new Map<string, TerminatorRecord>();
    for (const mirror of this.mirrors()) for (const terminator of mirror.terminatorsOf(serviceId)) keepNewer(all, terminator);
    for (const terminator of this.local.terminatorsOf(serviceId)) all.set(terminator.id, terminator);
    return [...all.values()].sort(byId);
  }

  /** The graph of usable links between connected routers, kept as they change (read it, never change it). */
  linkGraph(): Map<string, Edge[]> {
    return this.graph.graph;
  }

  /** The kept shortest-path trees of the link graph (MaintainedLinkGraph.pathsFrom). */
  pathsFrom(from: string, exclusion: object, excluded: (router: string) => boolean): PathTree {
    return this.graph.pathsFrom(from, exclusion, excluded);
  }

  /** Every connected router's links (this controller's routers' win). */
  async linkReports(): Promise<RouterLinkReport[]> {
    const all = new Map<string, RouterLinkReport>();
    for (const mirror of this.mirrors()) for (const entry of mirror.routers.values()) if (entry.router) all.set(entry.routerId, { routerId: entry.routerId, links: entry.links });
    for (const report of this.local.links()) all.set(report.routerId, report);
    return [...all.values()];
  }

  /** The API sessions holding edge channels on the other controllers' routers. */
  async remoteEdgeSessions(): Promise<EdgeSessionRecord[]> {
    const result: EdgeSessionRecord[] = [];
    for (const mirror of this.mirrors()) for (const session of mirror.edgeSessions()) result.push(session);
    return result;
  }

  // ---- this controller's changes -----------------------------------------------------------------------------

  /** One of this controller's routers changed (connected, left, its terminators, links or edge sessions). */
  localChanged(routerId: string): void {
    this.dirty.add(routerId);
    this.refresh(routerId);
    if (this.local.linksIfConnected(routerId) === undefined) this.graceEnds.set(routerId, this.clock.now() + this.options.graceMs);
  }

  /** Version 1 members hear of a change as before; version 2 members get it with the next delta. */
  announce(event: RouterEvent): void {
    this.localChanged(event.event === 'connected' ? event.router.id : event.routerId);
    for (const [peer, sync] of this.peerSync) {
      if (!sync.legacy) continue;
      this.peers.request(peer, { type: 'routers.event', event } satisfies RouterPeerRequest, this.options.requestTimeoutMs).catch(() => undefined);
    }
  }

  /** Pushes what changed (or a heartbeat), asks members without a mirror for their state, drops silent ones. */
  tick(): void {
    const now = this.clock.now();
    for (const [routerId, endsAt] of this.graceEnds) {
      if (endsAt > now) continue;
      this.graceEnds.delete(routerId);
      this.dirty.add(routerId);
      this.refresh(routerId);
    }
    const members = this.otherControllers();
    for (const [peer] of this.peerSync) if (!members.includes(peer)) this.dropPeer(peer, 'it is no longer a member');
    for (const peer of members) {
      const sync = this.syncOf(peer);
      if (sync.legacy) this.pollLegacy(peer, sync, now);
      else if (sync.mirror && now - sync.mirror.heardAt >= this.options.silenceMs) this.dropPeer(peer, `nothing heard for ${this.options.silenceMs} ms`);
      else if (!sync.mirror && !sync.syncing && now - sync.askedAt >= this.options.heartbeatMs) void this.askState(peer);
    }
    if (this.dirty.size === 0 && now - this.sentAt < this.options.heartbeatMs) return;
    const routers: RouterPresenceEntry[] = [];
    for (const routerId of this.dirty) {
      routers.push(this.local.entry(routerId));
      if (routers.length === presenceLimits.maxRoutersPerMessage) break;
    }
    for (const entry of routers) this.dirty.delete(entry.routerId);
    if (routers.length > 0) this.seq++;
    this.sentAt = now;
    const delta: PresenceDelta = { type: 'routers.delta', v: presenceProtocolVersion, epoch: this.options.epoch, seq: this.seq, routers };
    for (const peer of members) {
      if (this.peerSync.get(peer)?.legacy) continue;
      this.peers.request(peer, delta, this.options.requestTimeoutMs).catch(() => undefined);
    }
  }

  /** The answer to `routers.state`: every router here, at the current sequence number. */
  state(): PresenceState {
    const routers: RouterPresenceEntry[] = [];
    for (const routerId of this.local.routerIds()) routers.push(this.local.entry(routerId));
    // What is still waiting to go out is in this state: the next delta repeats it, which changes nothing.
    return { v: presenceProtocolVersion, epoch: this.options.epoch, seq: this.seq, routers };
  }

  // ---- the other controllers' deltas ------------------------------------------------------------------------

  /** A delta from member `from`: applied in order; a gap or a new epoch asks for the whole state. Throws when malformed. */
  receiveDelta(from: string, body: unknown): void {
    if (from === this.selfId || !this.otherControllers().includes(from)) throw new Error(`${from} is not another member of this cluster`);
    const read = readPresenceDelta(body, from);
    if (!read.ok) {
      this.logger?.warn('peer presence refused', { peerId: from, reason: read.reason });
      throw new Error(`presence delta refused: ${read.reason}`);
    }
    const delta = read.value;
    const sync = this.syncOf(from);
    sync.legacy = undefined;
    if (sync.syncing) {
      if (sync.syncing.deltas.length < 1000) sync.syncing.deltas.push(delta);
      return;
    }
    const mirror = sync.mirror;
    if (!mirror || mirror.epoch !== delta.epoch || delta.seq > mirror.seq + (delta.routers.length > 0 ? 1 : 0)) {
      void this.askState(from, mirror ? (mirror.epoch !== delta.epoch ? 'a new epoch' : `a gap (at ${mirror.seq}, got ${delta.seq})`) : 'first contact');
      return;
    }
    mirror.heardAt = this.clock.now();
    if (delta.seq <= mirror.seq) return;
    mirror.seq = delta.seq;
    this.applyEntries(from, mirror, delta.routers);
  }

  /** A version 1 member said something changed: ask it again at the next tick. */
  legacyChanged(from: string): void {
    const legacy = this.peerSync.get(from)?.legacy;
    if (legacy) legacy.stale = true;
  }

  private async askState(peer: string, why = 'first contact'): Promise<void> {
    const sync = this.syncOf(peer);
    if (sync.syncing) return;
    sync.syncing = { deltas: [] };
    sync.askedAt = this.clock.now();
    let answer: unknown;
    try {
      answer = await this.peers.request(peer, { type: 'routers.state', v: presenceProtocolVersion } satisfies PresenceStateRequest, this.options.stateTimeoutMs);
    } catch (error) {
      sync.syncing = undefined;
      // An older controller does not know the request: it is asked the version 1 way from now on.
      if (/unknown/i.test((error as Error).message)) {
        this.logger?.info('peer presence: version 1 member, asked for its whole lists', { peerId: peer });
        sync.legacy = { stale: true, askedAt: Number.NEGATIVE_INFINITY, inFlight: false };
      }
      return;
    }
    const deltas = sync.syncing?.deltas ?? [];
    sync.syncing = undefined;
    if (!this.otherControllers().includes(peer)) return;
    const read = readPresenceState(answer, peer);
    if (!read.ok) {
      this.logger?.warn('peer presence refused', { peerId: peer, reason: read.reason });
      this.dropPeer(peer, 'its state was refused');
      return;
    }
    const state = read.value;
    this.replaceMirror(peer, new PeerMirror(state.epoch, state.seq, this.clock.now()), state.routers);
    this.logger?.info('peer presence synchronized', { peerId: peer, why, routers: state.routers.length, seq: state.seq });
    try {
      for (const delta of deltas) if (delta.epoch === state.epoch && this.syncOf(peer).mirror) this.receiveDelta(peer, delta);
    } catch (error) {
      // Read and checked when they came; a member removed meanwhile is dropped at the next tick.
      this.logger?.warn('peer presence refused', { peerId: peer, reason: (error as Error).message });
    }
  }

  private pollLegacy(peer: string, sync: PeerSync, now: number): void {
    const legacy = sync.legacy!;
    if (legacy.inFlight || (!legacy.stale && now - legacy.askedAt < this.options.cacheMs)) return;
    legacy.inFlight = true;
    legacy.stale = false;
    legacy.askedAt = now;
    this.peers.request(peer, { type: 'routers.connected' } satisfies RouterPeerRequest, this.options.requestTimeoutMs).then(
      (answer) => {
        legacy.inFlight = false;
        if (this.peerSync.get(peer)?.legacy !== legacy) return;
        this.replaceMirror(peer, new PeerMirror('', 0, this.clock.now()), entriesOfLegacyAnswer(answer));
      },
      () => {
        legacy.inFlight = false;
        // A non-answer counts as no routers.
        if (this.peerSync.get(peer)?.legacy === legacy) this.replaceMirror(peer, undefined, []);
      },
    );
  }

  private dropPeer(peer: string, why: string): void {
    const sync = this.peerSync.get(peer);
    if (sync?.mirror && sync.mirror.routers.size > 0) this.logger?.info('peer presence dropped', { peerId: peer, why, routers: sync.mirror.routers.size });
    this.replaceMirror(peer, undefined, []);
    this.peerSync.delete(peer);
  }

  /** A peer's whole state: its mirror is replaced, and only the routers that differ are refreshed. */
  private replaceMirror(peer: string, next: PeerMirror | undefined, entries: readonly RouterPresenceEntry[]): void {
    const sync = this.syncOf(peer);
    const before = sync.mirror;
    sync.mirror = next;
    const touched = new Set<string>(before?.routers.keys() ?? []);
    if (next) {
      try {
        for (const entry of entries) {
          next.apply(entry);
          touched.add(entry.routerId);
        }
      } catch (error) {
        this.logger?.warn('peer presence refused', { peerId: peer, reason: (error as Error).message });
        sync.mirror = undefined;
      }
    }
    this.version++;
    let sessions = false;
    for (const routerId of touched) {
      const was = before?.routers.get(routerId);
      const now = sync.mirror?.routers.get(routerId);
      if ((was?.edgeSessions.length ?? 0) + (now?.edgeSessions.length ?? 0) > 0) sessions = true;
      if (was?.router !== now?.router || was?.links !== now?.links) this.refresh(routerId);
    }
    if (sessions) this.listener?.edgeSessionsChanged();
  }

  private applyEntries(peer: string, mirror: PeerMirror, entries: readonly RouterPresenceEntry[]): void {
    let sessions = false;
    for (const entry of entries) {
      let before: RouterPresenceEntry | undefined;
      try {
        before = mirror.apply(entry);
      } catch (error) {
        this.logger?.warn('peer presence refused', { peerId: peer, reason: (error as Error).message });
        this.dropPeer(peer, 'it holds too many routers');
        return;
      }
      if ((before?.edgeSessions.length ?? 0) + entry.edgeSessions.length > 0) sessions = true;
      this.refresh(entry.routerId);
    }
    this.version++;
    if (sessions) this.listener?.edgeSessionsChanged();
  }

  /** Works out where a router is connected now, by every source, and updates the link graph and the listener. */
  private refresh(routerId: string): void {
    this.version++;
    const here = this.local.linksIfConnected(routerId);
    let links = here;
    let router: RouterSummary | undefined;
    if (links === undefined) {
      for (const mirror of this.mirrors()) {
        const entry = mirror.routers.get(routerId);
        if (!entry?.router) continue;
        if (router === undefined || entry.router.connectedAt > router.connectedAt) {
          router = entry.router;
          links = entry.links;
        }
      }
    }
    this.graph.setRouter(routerId, links);
    const wasConnected = this.connectedAnywhere.has(routerId);
    if (links !== undefined) this.connectedAnywhere.add(routerId);
    else this.connectedAnywhere.delete(routerId);
    // Only another controller's router is news to this controller's routers: the hub tells them of its own.
    if (here !== undefined) return;
    if (!wasConnected && router) this.listener?.routerEvent({ event: 'connected', router: announcedRouterOf(router) });
    else if (wasConnected && links === undefined) this.listener?.routerEvent({ event: 'disconnected', routerId });
  }

  private mergedNow(): { version: number; connected?: Map<string, RouterConnection>; terminators?: TerminatorRecord[] } {
    if (this.merged.version !== this.version) this.merged = { version: this.version };
    return this.merged;
  }

  private *mirrors(): Iterable<PeerMirror> {
    for (const sync of this.peerSync.values()) if (sync.mirror) yield sync.mirror;
  }

  private syncOf(peer: string): PeerSync {
    let sync = this.peerSync.get(peer);
    if (!sync) this.peerSync.set(peer, (sync = { mirror: undefined, syncing: undefined, askedAt: Number.NEGATIVE_INFINITY, legacy: undefined }));
    return sync;
  }

  /** Every other member, connected or not: a request opens the channel it needs. */
  private otherControllers(): string[] {
    return this.peers
      .peers()
      .filter((peer) => peer.id !== this.selfId)
      .map((peer) => peer.id);
  }
}

function byId(a: TerminatorRecord, b: TerminatorRecord): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function keepNewer(all: Map<string, TerminatorRecord>, terminator: TerminatorRecord): void {
  const held = all.get(terminator.id);
  if (!held || held.updatedAt < terminator.updatedAt) all.set(terminator.id, terminator);
}

/** A version 1 answer as one entry per router (malformed parts dropped, as version 1 always did). */
export function entriesOfLegacyAnswer(answer: unknown): RouterPresenceEntry[] {
  const byRouter = new Map<string, { routerId: string; router?: RouterSummary; terminators: TerminatorRecord[]; links: RouterLinkReport['links']; edgeSessions: EdgeSessionRecord[] }>();
  const entry = (routerId: string) => {
    let held = byRouter.get(routerId);
    if (!held) byRouter.set(routerId, (held = { routerId, terminators: [], links: [], edgeSessions: [] }));
    return held;
  };
  for (const summary of summariesIn(answer)) entry(summary.routerId).router = summary;
  for (const terminator of terminatorsIn(answer)) entry(terminator.routerId).terminators.push(terminator);
  for (const report of linkReportsIn(answer)) if (byRouter.get(report.routerId)?.router) entry(report.routerId).links = report.links;
  for (const session of edgeSessionsIn(answer)) entry(session.routerId).edgeSessions.push(session);
  return [...byRouter.values()];
}

/** A summary as this controller's routers are told of it (and whom it dials, for whom it concerns). */
function announcedRouterOf(summary: RouterSummary): AnnouncedRouter {
  return {
    id: summary.routerId,
    name: summary.name,
    linkListeners: summary.linkListeners,
    ...(summary.linkDialerGroups ? { linkDialerGroups: summary.linkDialerGroups } : {}),
  };
}

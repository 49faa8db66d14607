// One other controller's routers as this controller holds them: a replica kept by that controller's deltas
// (presence-protocol.ts), each entry one router's whole presence there, indexed by service for circuit setup. Pure.
import type { TerminatorRecord } from '../edge/terminator-directory.ts';
import { isEmptyEntry, presenceLimits, type RouterPresenceEntry } from './presence-protocol.ts';
import { TerminatorsByService } from './terminators-by-service.ts';

export class PeerMirror {
  readonly routers = new Map<string, RouterPresenceEntry>();
  /** serviceId → terminatorId → terminator. */
  private readonly byService = new TerminatorsByService();
  /** Routers with edge sessions here: the others' records are read by walking only these. */
  private readonly withSessions = new Set<string>();

  constructor(
    /** The peer's epoch ('' for a version 1 peer's answer). */
    readonly epoch: string,
    /** The last delta applied. */
    public seq: number,
    /** When this controller last heard from the peer. */
    public heardAt: number,
  ) {}

  /** Puts one router's entry in place of what was held; returns what was held. Throws past the per-peer bound. */
  apply(entry: RouterPresenceEntry): RouterPresenceEntry | undefined {
    const before = this.routers.get(entry.routerId);
    if (!before && !isEmptyEntry(entry) && this.routers.size >= presenceLimits.maxRoutersPerPeer) throw new Error(`a peer may hold at most ${presenceLimits.maxRoutersPerPeer} routers here`);
    for (const terminator of before?.terminators ?? []) this.byService.remove(terminator);
    if (isEmptyEntry(entry)) this.routers.delete(entry.routerId);
    else this.routers.set(entry.routerId, entry);
    for (const terminator of isEmptyEntry(entry) ? [] : entry.terminators) this.byService.add(terminator);
    if (entry.edgeSessions.length > 0) this.withSessions.add(entry.routerId);
    else this.withSessions.delete(entry.routerId);
    return before;
  }

  terminatorsOf(serviceId: string): Iterable<TerminatorRecord> {
    return this.byService.of(serviceId);
  }

  *edgeSessions(): Iterable<RouterPresenceEntry['edgeSessions'][number]> {
    for (const routerId of this.withSessions) yield* this.routers.get(routerId)?.edgeSessions ?? [];
  }

}

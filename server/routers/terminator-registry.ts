// The terminators of the routers connected to this controller. Presence-like state, as router online status is, and
// kept the same way: in memory on the controller that holds the router's control channel, never in the raft log.
// Why: a terminator of a router-hosted service is fully derived from two things, the router being connected (which
// only its control channel knows) and the model (policies, configs, the router row, which every controller has).
// Writing it to the log would make every router connect, disconnect and reconnect a raft command (and a leaderless
// cluster would stop routers from hosting, though every controller can still check the policy), and would leave
// stale rows behind whenever the controller that saw the router go away died before proposing their removal.
// Kept here, a terminator lives exactly as long as the channel (plus a short grace, so a router that reconnects at
// once does not blink out of the list) and dies with its controller, whose routers then reconnect elsewhere and
// register again. The other controllers keep a replica of them, pushed as each router's changes (presence-protocol.ts,
// cluster-router-presence.ts). Ids are derived from router and service, so a router that moves to another controller
// keeps its terminators' ids. They are indexed by service as well, so that a circuit reads its service's terminators
// and a registration costs its own terminators, never a pass over all of them.
import { createHash } from 'node:crypto';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';
import { TerminatorsByService } from './terminators-by-service.ts';

export interface TerminatorRegistryOptions {
  readonly controllerId: string;
  /** How long a disconnected router's terminators are still listed (a reconnect within it replaces them). */
  readonly graceMs: number;
}

interface RouterEntry {
  readonly terminators: Map<string, TerminatorRecord>;
  /** SDK-hosted terminators (Binds on the router's edge listeners), by terminator id. */
  readonly sdk: Map<string, TerminatorRecord>;
  /** When its channel closed; undefined while connected. */
  goneAt: number | undefined;
}

/** A terminator id: the same for a router and a service on every controller (base64url of a SHA-256, 22 chars). */
export function terminatorId(routerId: string, serviceId: string): string {
  return createHash('sha256').update(`${routerId}\n${serviceId}`).digest('base64url').slice(0, 22);
}

export class TerminatorRegistry {
  private readonly routers = new Map<string, RouterEntry>();
  /** serviceId → terminatorId → terminator, over every router here (in its grace period too). */
  private readonly byService = new TerminatorsByService();

  constructor(private readonly options: TerminatorRegistryOptions) {}

  /** A router was welcomed: it will register its terminators anew, so what an earlier channel registered goes. */
  connected(routerId: string): void {
    this.forget(routerId);
    this.routers.set(routerId, { terminators: new Map(), sdk: new Map(), goneAt: undefined });
  }

  /** The terminators of one service listed now (any order): what a circuit reads. */
  terminatorsOf(serviceId: string, now: number): TerminatorRecord[] {
    const result: TerminatorRecord[] = [];
    for (const terminator of this.byService.of(serviceId)) if (this.listed(terminator.routerId, now)) result.push(terminator);
    return result;
  }

  /** One router's terminators listed now (tunnel and SDK); forgets the router once its grace is over. */
  routerTerminators(routerId: string, now: number): TerminatorRecord[] {
    const entry = this.routers.get(routerId);
    if (!entry) return [];
    if (!this.listed(routerId, now)) {
      this.forget(routerId);
      return [];
    }
    return [...entry.terminators.values(), ...entry.sdk.values()];
  }

  private listed(routerId: string, now: number): boolean {
    const goneAt = this.routers.get(routerId)?.goneAt;
    return goneAt === undefined || now - goneAt < this.options.graceMs;
  }

  /** Takes a router and its terminators out, index included. */
  private forget(routerId: string): RouterEntry | undefined {
    const entry = this.routers.get(routerId);
    if (!entry) return undefined;
    for (const terminator of entry.terminators.values()) this.byService.remove(terminator);
    for (const terminator of entry.sdk.values()) this.byService.remove(terminator);
    this.routers.delete(routerId);
    return entry;
  }

  /** Its channel closed: its terminators stay listed for the grace period. */
  disconnected(routerId: string, now: number): void {
    const entry = this.routers.get(routerId);
    if (entry) entry.goneAt = now;
  }

  /** The router is gone for good (deleted, disabled): its terminators go now. */
  drop(routerId: string): boolean {
    const entry = this.forget(routerId);
    return (entry?.terminators.size ?? 0) + (entry?.sdk.size ?? 0) > 0;
  }

  /** An SDK's Bind on a connected router (a re-bind with the same id replaces it); false when the router is not here. */
  addSdk(routerId: string, terminator: TerminatorRecord): boolean {
    const entry = this.routers.get(routerId);
    if (!entry || entry.goneAt !== undefined) return false;
    const current = entry.sdk.get(terminator.id);
    const record = current ? { ...terminator, createdAt: current.createdAt } : terminator;
    if (current) this.byService.remove(current);
    entry.sdk.set(terminator.id, record);
    this.byService.add(record);
    return true;
  }

  /** An SDK's terminator on `routerId`, when it is listed here. */
  sdkTerminator(routerId: string, terminatorId: string): TerminatorRecord | undefined {
    return this.routers.get(routerId)?.sdk.get(terminatorId);
  }

  /** The SDK unbound (or left): its terminators go. */
  removeSdk(routerId: string, terminatorIds: readonly string[]): boolean {
    const entry = this.routers.get(routerId);
    if (!entry) return false;
    let changed = false;
    for (const id of terminatorIds) {
      const current = entry.sdk.get(id);
      if (!current) continue;
      entry.sdk.delete(id);
      this.byService.remove(current);
      changed = true;
    }
    return changed;
  }

  /** Keeps only the SDK terminators `keep` still allows; returns the ids removed. */
  retainSdk(routerId: string, keep: (terminator: TerminatorRecord) => boolean): string[] {
    const entry = this.routers.get(routerId);
    if (!entry) return [];
    const removed: string[] = [];
    for (const [id, terminator] of entry.sdk) {
      if (keep(terminator)) continue;
      entry.sdk.delete(id);
      this.byService.remove(terminator);
      removed.push(id);
    }
    return removed;
  }

  /** Adds (or re-addresses) terminators of a connected router; returns whether anything changed. */
  add(routerId: string, terminators: ReadonlyArray<{ serviceId: string; address: string }>, now: number): boolean {
    const entry = this.routers.get(routerId);
    if (!entry || entry.goneAt !== undefined) return false;
    let changed = false;
    const at = new Date(now).toISOString();
    for (const { serviceId, address } of terminators) {
      const current = entry.terminators.get(serviceId);
      if (current && current.address === address) continue;
      if (current) this.byService.remove(current);
      const record: TerminatorRecord = {
        id: terminatorId(routerId, serviceId),
        serviceId,
        routerId,
        binding: 'tunnel',
        address,
        identity: routerId,
        cost: 0,
        precedence: 'default',
        createdAt: current?.createdAt ?? at,
        updatedAt: at,
        controllerId: this.options.controllerId,
      };
      entry.terminators.set(serviceId, record);
      this.byService.add(record);
      changed = true;
    }
    return changed;
  }

  remove(routerId: string, serviceIds: readonly string[]): boolean {
    const entry = this.routers.get(routerId);
    if (!entry) return false;
    let changed = false;
    for (const id of serviceIds) {
      const current = entry.terminators.get(id);
      if (!current) continue;
      entry.terminators.delete(id);
      this.byService.remove(current);
      changed = true;
    }
    return changed;
  }

  /** Keeps only the terminators `allowed` still grants (service id → address); returns the service ids removed. */
  retain(routerId: string, allowed: ReadonlyMap<string, string>): string[] {
    const entry = this.routers.get(routerId);
    if (!entry) return [];
    const removed: string[] = [];
    for (const [serviceId, terminator] of entry.terminators) {
      if (allowed.get(serviceId) === terminator.address) continue;
      entry.terminators.delete(serviceId);
      this.byService.remove(terminator);
      removed.push(serviceId);
    }
    return removed;
  }

  routerIds(): string[] {
    return [...this.routers.keys()];
  }

  /** Every terminator listed now, in id order; routers gone longer than the grace are forgotten. */
  list(now: number): TerminatorRecord[] {
    return this.listUnordered(now).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** As list(), in no order: what a count needs (the metrics' per-service series, at every scrape), without a sort of
   * every terminator. */
  listUnordered(now: number): TerminatorRecord[] {
    const all: TerminatorRecord[] = [];
    for (const [routerId, entry] of this.routers) {
      if (entry.goneAt !== undefined && now - entry.goneAt >= this.options.graceMs) {
        this.forget(routerId);
        continue;
      }
      for (const terminator of entry.terminators.values()) all.push(terminator);
      for (const terminator of entry.sdk.values()) all.push(terminator);
    }
    return all;
  }
}

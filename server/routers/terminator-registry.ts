// The terminators of the routers connected to this controller. Presence-like state, as router online status is, and
// kept the same way: in memory on the controller that holds the router's control channel, never in the raft log.
// Why: a terminator of a router-hosted service is fully derived from two things, the router being connected (which
// only its control channel knows) and the model (policies, configs, the router row, which every controller has).
// Writing it to the log would make every router connect, disconnect and reconnect a raft command (and a leaderless
// cluster would stop routers from hosting, though every controller can still check the policy), and would leave
// stale rows behind whenever the controller that saw the router go away died before proposing their removal.
// Kept here, a terminator lives exactly as long as the channel (plus a short grace, so a router that reconnects at
// once does not blink out of the list) and dies with its controller, whose routers then reconnect elsewhere and
// register again. The other controllers learn them by asking this one (the `routers.connected` peer answer carries
// them, cached for a second; a change is announced so their caches are dropped: cluster-router-presence.ts): the API
// list asks, no hot path writes anything. Ids are derived from router and service, so a router that moves to another
// controller keeps its terminators' ids.
import { createHash } from 'node:crypto';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';

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

  constructor(private readonly options: TerminatorRegistryOptions) {}

  /** A router was welcomed: it will register its terminators anew, so what an earlier channel registered goes. */
  connected(routerId: string): void {
    this.routers.set(routerId, { terminators: new Map(), sdk: new Map(), goneAt: undefined });
  }

  /** Its channel closed: its terminators stay listed for the grace period. */
  disconnected(routerId: string, now: number): void {
    const entry = this.routers.get(routerId);
    if (entry) entry.goneAt = now;
  }

  /** The router is gone for good (deleted, disabled): its terminators go now. */
  drop(routerId: string): boolean {
    const entry = this.routers.get(routerId);
    this.routers.delete(routerId);
    return (entry?.terminators.size ?? 0) + (entry?.sdk.size ?? 0) > 0;
  }

  /** An SDK's Bind on a connected router (a re-bind with the same id replaces it); false when the router is not here. */
  addSdk(routerId: string, terminator: TerminatorRecord): boolean {
    const entry = this.routers.get(routerId);
    if (!entry || entry.goneAt !== undefined) return false;
    const current = entry.sdk.get(terminator.id);
    entry.sdk.set(terminator.id, current ? { ...terminator, createdAt: current.createdAt } : terminator);
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
    for (const id of terminatorIds) changed = entry.sdk.delete(id) || changed;
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
      entry.terminators.set(serviceId, {
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
      });
      changed = true;
    }
    return changed;
  }

  remove(routerId: string, serviceIds: readonly string[]): boolean {
    const entry = this.routers.get(routerId);
    if (!entry) return false;
    let changed = false;
    for (const id of serviceIds) changed = entry.terminators.delete(id) || changed;
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
      removed.push(serviceId);
    }
    return removed;
  }

  routerIds(): string[] {
    return [...this.routers.keys()];
  }

  /** Every terminator listed now, in id order; routers gone longer than the grace are forgotten. */
  list(now: number): TerminatorRecord[] {
    const all: TerminatorRecord[] = [];
    for (const [routerId, entry] of this.routers) {
      if (entry.goneAt !== undefined && now - entry.goneAt >= this.options.graceMs) {
        this.routers.delete(routerId);
        continue;
      }
      all.push(...entry.terminators.values(), ...entry.sdk.values());
    }
    return all.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

// Revocation reaches live circuits. Every controller keeps the circuits it routed (from `circuit.create`, until the
// ingress router reports them deleted or failed) and checks them again (live-circuit-check.ts) shortly after each
// applied model change that can revoke (API sessions, identities, services, policies, posture checks, MFA, routers,
// auth policies) and every `checkIntervalMs` (for what lapses with time alone: an MFA posture check's timeout).
// Every controller applies the same changes, so the one holding the ingress router's control channel hears of them
// whoever wrote them. A revoked circuit goes to its ingress router as `ctrl.circuitClose` (grouped by router and
// code); the router closes it end to end. Circuits of a router not connected here are kept `disconnectedRetainMs`
// (it may be back) and then forgotten; at most `maxTracked` circuits are kept (the oldest go first, with a warning).
import { maxRevokedCircuitsPerMessage, type CircuitRevocationCode, type CtrlCircuitClose } from '../../common/control-channel/control-messages.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { AppliedChanges } from '../model/model-state-machine.ts';
import type { LiveCircuit, CircuitVerdict } from './live-circuit-check.ts';

export interface CircuitRevocationTiming {
  /** A pass this long after the first of a burst of model changes (100 ms). */
  readonly changeDebounceMs: number;
  /** A pass at least this often (2 s): posture timeouts lapse without any change. */
  readonly checkIntervalMs: number;
  /** Circuits of a router not connected here are forgotten after this long (60 s). */
  readonly disconnectedRetainMs: number;
  /** At most this many circuits are kept (250,000). */
  readonly maxTracked: number;
}

export const defaultCircuitRevocationTiming: CircuitRevocationTiming = { changeDebounceMs: 100, checkIntervalMs: 2000, disconnectedRetainMs: 60_000, maxTracked: 250_000 };

export interface CircuitRevocationDeps {
  /** The tables whose changes can revoke a circuit. */
  readonly tables: ReadonlySet<string>;
  /** Checks circuits against the model now; returns the revoked ones by circuit id. */
  readonly check: (circuits: Iterable<LiveCircuit>, nowMs: number) => ReadonlyMap<string, CircuitVerdict & { ok: false }>;
  /** Sends to a router connected to this controller; false when it is not. */
  readonly sendTo: (routerId: string, frame: CtrlCircuitClose) => boolean;
  readonly isConnected: (routerId: string) => boolean;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly timing?: Partial<CircuitRevocationTiming>;
}

export class CircuitRevocation {
  private readonly timing: CircuitRevocationTiming;
  /** circuit id → circuit, oldest first. */
  private readonly circuits = new Map<string, LiveCircuit>();
  /** Routers with circuits here that are not connected here, since when (ms). */
  private readonly absentSince = new Map<string, number>();
  private changeTimer: NodeJS.Timeout | undefined;
  private interval: NodeJS.Timeout | undefined;
  private evictionWarned = false;
  private stopped = false;

  constructor(private readonly deps: CircuitRevocationDeps) {
    this.timing = { ...defaultCircuitRevocationTiming, ...(deps.timing ?? {}) };
  }

  start(): void {
    this.interval = setInterval(() => this.pass(), this.timing.checkIntervalMs);
    this.interval.unref();
  }

  close(): void {
    this.stopped = true;
    clearInterval(this.interval);
    clearTimeout(this.changeTimer);
  }

  get size(): number {
    return this.circuits.size;
  }

  /** A circuit this controller routed (or re-routed under the same id). */
  track(circuit: LiveCircuit): void {
    this.circuits.delete(circuit.circuitId);
    this.circuits.set(circuit.circuitId, circuit);
    if (this.circuits.size <= this.timing.maxTracked) return;
    const oldest = this.circuits.keys().next().value as string;
    this.circuits.delete(oldest);
    if (!this.evictionWarned) {
      this.evictionWarned = true;
      this.deps.logger.warn('live circuit table full: the oldest circuits are no longer re-checked for revocation', { maxTracked: this.timing.maxTracked });
    }
  }

  /** The ingress router reported the circuit gone (deleted, or its setup failed). */
  ended(routerId: string, circuitId: string): void {
    if (this.circuits.get(circuitId)?.routerId === routerId) this.circuits.delete(circuitId);
  }

  /** Applied model changes: a pass soon when any could revoke. */
  modelChanged(applied: AppliedChanges): void {
    if (this.stopped || this.changeTimer || this.circuits.size === 0) return;
    if (!applied.changes.some((change) => this.deps.tables.has(change.entityType))) return;
    this.changeTimer = setTimeout(() => {
      this.changeTimer = undefined;
      this.pass();
    }, this.timing.changeDebounceMs);
    this.changeTimer.unref();
  }

  /** Checks every circuit and tells the ingress routers of the revoked ones. Never throws. */
  pass(): void {
    if (this.stopped || this.circuits.size === 0) return;
    try {
      const now = this.deps.clock.now();
      this.forgetAbsentRouters(now);
      const revoked = this.deps.check(this.circuits.values(), now);
      if (revoked.size === 0) return;
      const groups = new Map<string, { routerId: string; code: CircuitRevocationCode; reason: string; ids: string[] }>();
      for (const [circuitId, verdict] of revoked) {
        const circuit = this.circuits.get(circuitId);
        if (!circuit) continue;
        const key = `${circuit.routerId}\u0000${verdict.code}`;
        let group = groups.get(key);
        if (!group) groups.set(key, (group = { routerId: circuit.routerId, code: verdict.code, reason: verdict.reason, ids: [] }));
        group.ids.push(circuitId);
      }
      for (const group of groups.values()) this.revoke(group);
    } catch (error) {
      this.deps.logger.error('live circuit re-check failed', { error: (error as Error).message });
    }
  }

  private revoke(group: { routerId: string; code: CircuitRevocationCode; reason: string; ids: string[] }): void {
    if (!this.deps.isConnected(group.routerId)) return;
    for (let start = 0; start < group.ids.length; start += maxRevokedCircuitsPerMessage) {
      const ids = group.ids.slice(start, start + maxRevokedCircuitsPerMessage);
      if (!this.deps.sendTo(group.routerId, { type: 'ctrl.circuitClose', circuitIds: ids, code: group.code, reason: group.reason })) return;
      for (const id of ids) this.circuits.delete(id);
    }
    this.deps.logger.info('circuits revoked', { routerId: group.routerId, code: group.code, reason: group.reason, count: group.ids.length, circuitIds: group.ids.slice(0, 20) });
  }

  private forgetAbsentRouters(now: number): void {
    const routers = new Set<string>();
    for (const circuit of this.circuits.values()) routers.add(circuit.routerId);
    for (const routerId of [...this.absentSince.keys()]) if (!routers.has(routerId)) this.absentSince.delete(routerId);
    const forget = new Set<string>();
    for (const routerId of routers) {
      if (this.deps.isConnected(routerId)) {
        this.absentSince.delete(routerId);
        continue;
      }
      const since = this.absentSince.get(routerId);
      if (since === undefined) this.absentSince.set(routerId, now);
      else if (now - since >= this.timing.disconnectedRetainMs) forget.add(routerId);
    }
    if (forget.size === 0) return;
    for (const [id, circuit] of this.circuits) if (forget.has(circuit.routerId)) this.circuits.delete(id);
    for (const routerId of forget) this.absentSince.delete(routerId);
  }
}

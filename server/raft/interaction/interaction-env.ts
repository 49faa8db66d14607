// A deterministic harness around N raft cores for scripted interaction tests, in the spirit of etcd's rafttest
// InteractionEnv. Nothing happens by itself: the script ticks nodes, hands each one's Ready to the driver
// (persist, send, apply, advance), and decides which messages in the network are delivered or dropped. Each
// node keeps a durable store (what its driver persisted) that survives a crash, and a state machine that is
// rebuilt from the durable snapshot on restart. Randomness comes from seeded generators, so a run replays exactly.
import { RaftCore } from '../core/raft-core.ts';
import type { ConfigChange, Configuration, Entry, HardState, Message, MessageType, NodeId, Ready, Snapshot, SoftState } from '../core/types.ts';
import { seededRandom } from '../sim/seeded-random.ts';

export interface NodeSettings {
  readonly electionTicks: number;
  readonly heartbeatTicks: number;
  readonly preVote: boolean;
  readonly checkQuorum: boolean;
  readonly maxInflight: number;
  readonly maxEntriesPerAppend: number;
}

export const defaultNodeSettings: NodeSettings = {
  electionTicks: 10,
  heartbeatTicks: 2,
  preVote: true,
  checkQuorum: true,
  maxInflight: 256,
  maxEntriesPerAppend: 64,
};

/** What a node's driver has synced: it survives a crash. */
export interface DurableState {
  hardState: HardState | undefined;
  entries: Entry[];
  snapshot: Snapshot | undefined;
}

/** The replicated state machine: the commands applied so far, with their indexes. */
export interface MachineState {
  readonly index: number;
  readonly commands: readonly { readonly index: number; readonly data: unknown }[];
}

export class EnvNode {
  core: RaftCore | undefined;
  machine: MachineState = { index: 0, commands: [] };
  readonly durable: DurableState = { hardState: undefined, entries: [], snapshot: undefined };
  /** How many times the node was started; each start draws from its own seeded stream. */
  incarnation = 0;

  constructor(
    readonly id: NodeId,
    readonly ordinal: number,
    readonly bootstrap: Configuration,
    readonly settings: NodeSettings,
  ) {}

  get up(): boolean {
    return this.core !== undefined;
  }
}

/** One Ready as the driver handled it. */
export interface ReadyReport {
  readonly node: NodeId;
  readonly softState?: SoftState;
  readonly hardState?: HardState;
  readonly snapshot?: Snapshot;
  readonly entries: readonly Entry[];
  readonly messages: readonly Message[];
  readonly committedEntries: readonly Entry[];
}

export type DropReason = 'dropped' | 'partition' | 'down' | 'unknown node';

export interface Delivery {
  readonly message: Message;
  /** Undefined when the message was stepped into its recipient. */
  readonly dropped?: DropReason;
}

export interface DeliveryFilter {
  readonly type?: MessageType;
  readonly from?: NodeId;
  /** Drop the selected messages instead of delivering them. */
  readonly drop?: boolean;
}

export type StabilizeEvent = { readonly kind: 'ready'; readonly report: ReadyReport } | { readonly kind: 'deliver'; readonly to: NodeId; readonly deliveries: readonly Delivery[] };

/** A segment of a seeded log: `count` entries of term `term`. */
export interface LogSegment {
  readonly term: number;
  readonly count: number;
}

/** Two nodes applied different entries at the same index: the state machines diverged. */
export class StateMachineSafetyViolation extends Error {
  override readonly name = 'StateMachineSafetyViolation';
}

const stabilizeRoundLimit = 1000;

export class InteractionEnv {
  private readonly nodes: EnvNode[] = [];
  /** Messages sent and not yet delivered or dropped, oldest first. */
  private network: Message[] = [];
  /** Node → partition group; nodes missing from the map share one implicit group. Empty: no partition. */
  private groups = new Map<NodeId, number>();
  /** Index → the entry first applied there by any node, to catch state machines that diverge. */
  private readonly appliedAt = new Map<number, string>();

  constructor(private readonly seed = 1) {}

  // ---- nodes -------------------------------------------------------------------------------------------------

  /** Adds `count` nodes (numbered after the existing ones) that start with `bootstrap` as their configuration. */
  addNodes(count: number, bootstrap: Configuration | 'new-nodes-are-voters', settings: Partial<NodeSettings> = {}): EnvNode[] {
    const ids = Array.from({ length: count }, (_, i) => `n${this.nodes.length + i + 1}`);
    const configuration = bootstrap === 'new-nodes-are-voters' ? { voters: ids, nonVoters: [] } : bootstrap;
    const added = ids.map((id, i) => new EnvNode(id, this.nodes.length + i + 1, configuration, { ...defaultNodeSettings, ...settings }));
    for (const node of added) {
      this.nodes.push(node);
      this.start(node);
    }
    return added;
  }

  node(id: NodeId): EnvNode {
    const node = this.nodes.find((candidate) => candidate.id === id);
    if (!node) throw new EnvError(`no node ${id}`);
    return node;
  }

  nodeIds(): NodeId[] {
    return this.nodes.map((node) => node.id);
  }

  /** The running core of `id`; a node that is down cannot be driven. */
  core(id: NodeId): RaftCore {
    const node = this.node(id);
    if (!node.core) throw new EnvError(`${id} is down`);
    return node.core;
  }

  /**
   * Replaces a node's durable state with a log of the given segments (entry data is null) and restarts it from
   * there: the setup for scenarios like the Raft paper's figure 7. The term defaults to the last entry's.
   */
  seedLog(id: NodeId, segments: readonly LogSegment[], options: { term?: number; vote?: NodeId | null; commit?: number } = {}): void {
    const node = this.node(id);
    const entries: Entry[] = [];
    let lastTerm = 0;
    for (const { term, count } of segments) {
      if (term < lastTerm) throw new EnvError(`log terms must not decrease (${term} after ${lastTerm})`);
      lastTerm = term;
      for (let i = 0; i < count; i++) entries.push({ index: entries.length + 1, term, type: 'normal', data: null });
    }
    const term = options.term ?? lastTerm;
    if (term < lastTerm) throw new EnvError(`term ${term} is below the last entry's term ${lastTerm}`);
    node.durable.entries = entries;
    node.durable.snapshot = undefined;
    node.durable.hardState = { term, vote: options.vote ?? null, commit: Math.min(options.commit ?? 0, entries.length) };
    node.machine = { index: 0, commands: [] };
    this.start(node);
  }

  crash(id: NodeId): void {
    const node = this.node(id);
    if (!node.core) throw new EnvError(`${id} is already down`);
    node.core = undefined;
  }

  restart(id: NodeId): void {
    const node = this.node(id);
    if (node.core) throw new EnvError(`${id} is up; crash it first`);
    this.start(node);
  }

  private start(node: EnvNode): void {
    node.incarnation++;
    const snapshot = node.durable.snapshot;
    // The state machine is not durable: it restarts from the snapshot, and raft re-applies the rest.
    node.machine = snapshot ? cloneMachine(snapshot.data as MachineState) : { index: 0, commands: [] };
    const stream = (this.seed ^ Math.imul(node.ordinal, 0x9e3779b1) ^ Math.imul(node.incarnation, 0x85ebca6b)) >>> 0;
    const { settings } = node;
    node.core = new RaftCore({
      id: node.id,
      electionTicks: settings.electionTicks,
      heartbeatTicks: settings.heartbeatTicks,
      random: seededRandom(stream),
      maxInflight: settings.maxInflight,
      maxEntriesPerAppend: settings.maxEntriesPerAppend,
      preVote: settings.preVote,
      checkQuorum: settings.checkQuorum,
      ...(node.durable.hardState ? { hardState: node.durable.hardState } : {}),
      ...(snapshot ? { snapshot: snapshot.meta } : {}),
      entries: node.durable.entries,
      applied: node.machine.index,
      bootstrap: node.bootstrap,
    });
    if (snapshot) node.core.snapshotTaken(snapshot);
  }

  // ---- time and proposals ------------------------------------------------------------------------------------

  tick(id: NodeId, count = 1): void {
    const core = this.core(id);
    for (let i = 0; i < count; i++) core.tick();
  }

  /** Ticks a follower until it starts an election; returns how many ticks that took. */
  tickUntilCampaign(id: NodeId): number {
    const core = this.core(id);
    const before = core.status();
    if (before.role !== 'follower') throw new EnvError(`${id} is ${before.role}, not a follower`);
    if (!before.configuration.voters.includes(id)) throw new EnvError(`${id} is not a voter and never campaigns`);
    const limit = 2 * this.node(id).settings.electionTicks + 1;
    for (let ticks = 1; ticks <= limit; ticks++) {
      core.tick();
      if (core.status().role !== 'follower') return ticks;
    }
    throw new EnvError(`${id} did not campaign within ${limit} ticks`);
  }

  propose(id: NodeId, data: unknown): { index: number; term: number } {
    return this.core(id).propose(data);
  }

  proposeConfigChange(id: NodeId, change: ConfigChange): { index: number; term: number } {
    if (change.kind === 'add') this.node(change.id);
    return this.core(id).proposeConfigChange(change);
  }

  transferLeadership(id: NodeId, target?: NodeId): NodeId {
    return this.core(id).transferLeadership(target);
  }

  // ---- the driver --------------------------------------------------------------------------------------------

  /** Handles one Ready of `id` as a driver does: persist, send, apply, advance. Undefined when it has none. */
  processReady(id: NodeId): ReadyReport | undefined {
    const node = this.node(id);
    const core = this.core(id);
    if (!core.hasReady()) return undefined;
    const rd = core.ready();
    this.persist(node, rd);
    this.network.push(...rd.messages);
    this.apply(node, rd);
    core.advance(rd);
    return {
      node: id,
      ...(rd.softState ? { softState: rd.softState } : {}),
      ...(rd.hardState ? { hardState: rd.hardState } : {}),
      ...(rd.snapshot ? { snapshot: rd.snapshot } : {}),
      entries: rd.entries,
      messages: rd.messages,
      committedEntries: rd.committedEntries,
    };
  }

  private persist(node: EnvNode, rd: Ready): void {
    if (rd.hardState) node.durable.hardState = rd.hardState;
    if (rd.snapshot) {
      node.durable.snapshot = rd.snapshot;
      node.durable.entries = [];
    }
    if (rd.entries.length > 0) {
      const first = rd.entries[0]!.index;
      node.durable.entries = node.durable.entries.filter((entry) => entry.index < first).concat(rd.entries);
    }
  }

  private apply(node: EnvNode, rd: Ready): void {
    if (rd.snapshot) node.machine = cloneMachine(rd.snapshot.data as MachineState);
    for (const entry of rd.committedEntries) {
      if (entry.index !== node.machine.index + 1) throw new Error(`${node.id} applied ${entry.index} after ${node.machine.index}`);
      const key = `${entry.term}:${entry.type}:${JSON.stringify(entry.data)}`;
      const first = this.appliedAt.get(entry.index);
      if (first === undefined) this.appliedAt.set(entry.index, key);
      else if (first !== key) throw new StateMachineSafetyViolation(`${node.id} applied ${entry.index} as ${key}, another node applied ${first}`);
      const commands = entry.type === 'normal' ? [...node.machine.commands, { index: entry.index, data: entry.data }] : node.machine.commands;
      node.machine = { index: entry.index, commands };
    }
  }

  // ---- the network -------------------------------------------------------------------------------------------

  /** Messages sent and not yet delivered, oldest first. */
  inFlight(): readonly Message[] {
    return this.network;
  }

  /** Delivers (or drops) the in-flight messages addressed to `to` that match the filter, oldest first. */
  deliver(to: NodeId, filter: DeliveryFilter = {}): Delivery[] {
    const selected = (m: Message) => m.to === to && (filter.type === undefined || m.type === filter.type) && (filter.from === undefined || m.from === filter.from);
    const batch = this.network.filter(selected);
    this.network = this.network.filter((m) => !selected(m));
    const recipient = this.nodes.find((node) => node.id === to);
    return batch.map((message): Delivery => {
      if (filter.drop) return { message, dropped: 'dropped' };
      if (!recipient) return { message, dropped: 'unknown node' };
      if (!recipient.core) return { message, dropped: 'down' };
      if (!this.connected(message.from, message.to)) return { message, dropped: 'partition' };
      recipient.core.step(message);
      return { message };
    });
  }

  /** Splits the nodes into groups that cannot talk to each other; unlisted nodes form one more group. */
  partition(groups: readonly (readonly NodeId[])[]): void {
    const next = new Map<NodeId, number>();
    groups.forEach((group, i) => {
      for (const id of group) {
        this.node(id);
        if (next.has(id)) throw new EnvError(`${id} is in two groups`);
        next.set(id, i);
      }
    });
    this.groups = next;
  }

  heal(): void {
    this.groups = new Map();
  }

  /** The partition groups in effect, the implicit group of unlisted nodes last; empty when healed. */
  partitionGroups(): NodeId[][] {
    if (this.groups.size === 0) return [];
    const groups: NodeId[][] = [];
    const rest: NodeId[] = [];
    for (const node of this.nodes) {
      const group = this.groups.get(node.id);
      if (group === undefined) rest.push(node.id);
      else (groups[group] ??= []).push(node.id);
    }
    return [...groups.filter((group) => group !== undefined), ...(rest.length > 0 ? [rest] : [])];
  }

  private connected(a: NodeId, b: NodeId): boolean {
    return this.groups.size === 0 || this.groups.get(a) === this.groups.get(b);
  }

  /**
   * Processes every Ready and delivers every message among `ids` (all nodes by default) until nothing is left to
   * do. Messages addressed to other nodes stay in flight.
   */
  stabilize(ids: readonly NodeId[] = this.nodeIds()): StabilizeEvent[] {
    for (const id of ids) this.node(id);
    const events: StabilizeEvent[] = [];
    for (let round = 0; round < stabilizeRoundLimit; round++) {
      let busy = false;
      for (const id of ids) {
        if (!this.node(id).up) continue;
        const report = this.processReady(id);
        if (report) {
          events.push({ kind: 'ready', report });
          busy = true;
        }
      }
      for (const id of ids) {
        const deliveries = this.deliver(id);
        if (deliveries.length > 0) {
          events.push({ kind: 'deliver', to: id, deliveries });
          busy = true;
        }
      }
      if (!busy) return events;
    }
    throw new EnvError(`the cluster did not settle within ${stabilizeRoundLimit} rounds`);
  }

  // ---- snapshots ---------------------------------------------------------------------------------------------

  /** The driver snapshots the state machine at `index` (default: everything applied) and syncs it. */
  snapshot(id: NodeId, index?: number): Snapshot {
    const node = this.node(id);
    const core = this.core(id);
    const at = index ?? node.machine.index;
    if (at > node.machine.index) throw new EnvError(`${id} has applied only up to ${node.machine.index}`);
    const term = core.log.term(at);
    if (term === undefined || at === 0) throw new EnvError(`${id} no longer holds entry ${at}`);
    const data: MachineState = { index: at, commands: node.machine.commands.filter((command) => command.index <= at) };
    const snapshot: Snapshot = { meta: { index: at, term, configuration: core.configurationAt(at) }, data };
    core.snapshotTaken(snapshot);
    if (!node.durable.snapshot || node.durable.snapshot.meta.index < at) node.durable.snapshot = snapshot;
    return snapshot;
  }

  /** Drops the log up to `index`, in the core and in the durable store. */
  compact(id: NodeId, index: number): void {
    const node = this.node(id);
    this.core(id).compact(index);
    node.durable.entries = node.durable.entries.filter((entry) => entry.index > index);
  }
}

/** A mistake in how the harness is driven (not a raft outcome): unknown node, node down, bad setup. */
export class EnvError extends Error {
  override readonly name = 'EnvError';
}

function cloneMachine(machine: MachineState): MachineState {
  return { index: machine.index, commands: machine.commands.map((command) => ({ ...command })) };
}

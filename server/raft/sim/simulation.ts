// The seeded fault simulator. A safety phase runs the cluster through message loss, duplication, reordering and
// delay, symmetric and asymmetric partitions, crashes that lose everything not yet synced, restarts, drifting
// clocks, snapshots and leadership transfers, checking the raft safety properties after every step. A liveness
// phase then heals everything and requires a leader and every new proposal applied everywhere within a bound.
import { ProposalRefused, type Message, type NodeId, type Ready, type Snapshot } from '../core/types.ts';
import { coalesceMessages } from '../node/coalesce-messages.ts';
import { splitByWrite } from '../core/write-ordering.ts';
import { seededRandom, type Random } from './seeded-random.ts';
import { History, SafetyViolation, checkDurableState, checkElectionSafety, checkLeaderCompleteness, checkLogMatching } from './sim-checkers.ts';
import { mixHash, SimNode, type SimStateMachine } from './sim-node.ts';

export interface SimulationOptions {
  readonly seed: number;
  readonly nodes?: number;
  /** Steps in the safety phase. */
  readonly steps?: number;
  /** Step bound for the liveness phase. */
  readonly livenessSteps?: number;
  readonly trace?: (line: string) => void;
}

export interface SimulationResult {
  readonly seed: number;
  readonly ok: boolean;
  readonly failure?: string;
  readonly step: number;
  readonly stats: { delivered: number; dropped: number; crashes: number; elections: number; committed: number; acknowledged: number; snapshotsInstalled: number };
}

interface InFlight {
  readonly message: Message;
  readonly deliverAt: number;
}

const electionTicks = 10;
const heartbeatTicks = 2;
const snapshotThreshold = 12;
const trailingLogs = 4;

export function runSimulation(options: SimulationOptions): SimulationResult {
  const sim = new Simulation(options);
  return sim.run();
}

class Simulation {
  private readonly random: Random;
  private readonly nodes: SimNode[];
  private readonly history = new History();
  private network: InFlight[] = [];
  /** Directed links that drop everything: `${from}>${to}`. */
  private readonly cut = new Set<string>();
  private now = 0;
  private step = 0;
  private nextClientId = 1;
  /** Proposals waiting for their proposer to apply them: index → {term, id, node}. */
  private readonly pending = new Map<string, { index: number; term: number; id: number }>();
  private readonly acknowledged = new Map<number, { index: number; term: number }>();
  private readonly stats = { delivered: 0, dropped: 0, crashes: 0, elections: 0, committed: 0, acknowledged: 0, snapshotsInstalled: 0 };
  private faults = { drop: 0.05, duplicate: 0.03, maxDelay: 6 };

  /**
   * Appends in flight per follower: 1 (what RaftNode runs with) on even seeds, 4 (a pipeline) on odd ones. Taken
   * from the seed's parity, not drawn from the generator, so that a seed's other choices do not depend on it.
   */
  private readonly maxInflight: number;

  constructor(private readonly options: SimulationOptions) {
    this.maxInflight = options.seed % 2 === 0 ? 1 : 4;
    this.random = seededRandom(options.seed);
    const count = options.nodes ?? 3;
    const ids = Array.from({ length: count }, (_, i) => `n${i + 1}`);
    const configuration = { voters: ids, nonVoters: [] };
    this.nodes = ids.map((id) => new SimNode(id, 0.85 + this.random() * 0.3, configuration));
    // A spare server that membership changes add (as voter or non-voter) and remove again; it starts knowing
    // no configuration, as a new controller does.
    this.nodes.push(new SimNode(`n${count + 1}`, 0.85 + this.random() * 0.3, { voters: [], nonVoters: [] }));
    for (const node of this.nodes) this.startNode(node);
  }

  run(): SimulationResult {
    const steps = this.options.steps ?? 3000;
    try {
      for (this.step = 1; this.step <= steps; this.step++) {
        this.safetyStep();
        this.check();
      }
      this.liveness();
      return { seed: this.options.seed, ok: true, step: this.step, stats: this.stats };
    } catch (error) {
      const failure = error instanceof SafetyViolation ? error.message : `crash: ${(error as Error).stack ?? String(error)}`;
      this.trace(`FAILED at step ${this.step}: ${failure}`);
      return { seed: this.options.seed, ok: false, failure, step: this.step, stats: this.stats };
    }
  }

  // ---- phases ------------------------------------------------------------------------------------------------

  private safetyStep(): void {
    const roll = this.random();
    const live = this.nodes.filter((node) => node.alive);
    const down = this.nodes.filter((node) => !node.alive);
    if (roll < 0.42) this.deliverSome();
    else if (roll < 0.72) this.tick();
    else if (roll < 0.84) this.propose();
    else if (roll < 0.89) this.processSomeReady();
    else if (roll < 0.905 && live.length > 1) this.crash(this.random.pick(live));
    else if (roll < 0.935 && down.length > 0) this.restart(this.random.pick(down));
    else if (roll < 0.945) this.partition();
    else if (roll < 0.96) this.heal();
    else if (roll < 0.965) this.transfer();
    else if (roll < 0.97) this.reconfigure();
    else if (roll < 0.975) this.leaderLost();
    else this.tick();
  }

  private liveness(): void {
    this.trace('--- liveness: heal, restart, no more faults');
    this.faults = { drop: 0, duplicate: 0, maxDelay: 2 };
    this.cut.clear();
    for (const node of this.nodes) if (!node.alive) this.restart(node);
    const bound = this.options.livenessSteps ?? 6000;
    const wanted = new Set<number>();
    let proposedAt = -1;
    for (let i = 0; i < bound; i++, this.step++) {
      this.tick();
      this.deliverAll();
      this.check();
      const leader = this.leader();
      if (leader && proposedAt < 0) {
        // Five fresh proposals must make it everywhere.
        for (let k = 0; k < 5; k++) {
          const id = this.propose(leader);
          if (id !== undefined) wanted.add(id);
        }
        proposedAt = i;
      }
      if (proposedAt >= 0 && wanted.size === 0) {
        this.propose(leader);
        if (wanted.size === 0 && this.converged()) return;
      }
      for (const id of [...wanted]) if (this.acknowledged.has(id)) wanted.delete(id);
      if (proposedAt >= 0 && i - proposedAt > bound / 2 && wanted.size > 0) {
        // The leader may have been replaced before committing them: propose again on the current leader.
        proposedAt = -1;
        wanted.clear();
      }
    }
    const status = this.nodes.map((node) => `${node.id}:${node.core?.status().role}@${node.core?.status().term} applied ${node.machine.index}`).join(', ');
    throw new SafetyViolation('liveness', `no convergence within ${bound} steps after healing (${status}; waiting for ${[...wanted].join(',') || 'convergence'})`);
  }

  private converged(): boolean {
    const leader = this.leader();
    if (!leader) return false;
    const target = leader.core!.status().commit;
    const acked = [...this.acknowledged.values()].reduce((max, entry) => Math.max(max, entry.index), 0);
    const { voters, nonVoters } = leader.core!.status().configuration;
    const members = this.nodes.filter((node) => voters.includes(node.id) || nonVoters.includes(node.id));
    return target >= acked && members.every((node) => node.alive && node.machine.index === target && node.core!.status().commit === target);
  }

  // ---- actions -----------------------------------------------------------------------------------------------

  private tick(): void {
    this.now++;
    for (const node of this.nodes) {
      if (!node.core) continue;
      node.tickDebt += node.tickRate;
      this.runTicks(node);
      this.maybeProcessReady(node);
    }
  }

  /** Ticks owed to a node; they wait while its write is in flight, as RaftNode's do. */
  private runTicks(node: SimNode): void {
    if (node.inFlight || !node.core) return;
    while (node.tickDebt >= 1) {
      node.tickDebt -= 1;
      node.core.tick();
    }
  }

  /** Delivers some of the messages that are due, in random order (so larger clusters keep up with their traffic). */
  private deliverSome(): void {
    const due = this.network.filter((item) => item.deliverAt <= this.now);
    if (due.length === 0) return this.tick();
    const count = 1 + this.random.int(Math.min(due.length, this.nodes.length));
    for (let i = 0; i < count; i++) {
      const item = due.splice(this.random.int(due.length), 1)[0]!;
      this.network.splice(this.network.indexOf(item), 1);
      this.deliver(item.message);
    }
  }

  private deliverAll(): void {
    const due = this.network.filter((item) => item.deliverAt <= this.now);
    this.network = this.network.filter((item) => item.deliverAt > this.now);
    for (const item of due) this.deliver(item.message);
  }

  private deliver(message: Message): void {
    const target = this.nodes.find((node) => node.id === message.to);
    if (!target?.core || this.cut.has(`${message.from}>${message.to}`)) {
      this.stats.dropped++;
      return;
    }
    this.stats.delivered++;
    this.trace(`deliver ${describe(message)}`);
    if (target.inFlight) target.inbox.push(message);
    else target.core.step(message);
    this.maybeProcessReady(target);
  }

  private propose(on?: SimNode): number | undefined {
    const node = on ?? this.leader();
    if (!node?.core) return undefined;
    const id = this.nextClientId++;
    try {
      const { index, term } = node.core.propose({ client: id });
      this.pending.set(`${node.id}:${index}:${term}`, { index, term, id });
      this.trace(`propose ${id} on ${node.id} -> index ${index} term ${term}`);
      this.maybeProcessReady(node);
      return id;
    } catch (error) {
      if (error instanceof ProposalRefused) return undefined;
      throw error;
    }
  }

  private crash(node: SimNode): void {
    this.trace(`crash ${node.id}`);
    this.stats.crashes++;
    node.crash();
    for (const key of [...this.pending.keys()]) if (key.startsWith(`${node.id}:`)) this.pending.delete(key);
    // Its connections close: most of the nodes that followed it hear so at once (some only later, by timeout).
    for (const other of this.nodes) {
      if (other.core && other.core.status().leader === node.id && this.random.chance(0.7)) {
        other.core.leaderLost(node.id);
        this.trace(`${other.id} told leader ${node.id} lost`);
      }
    }
  }

  private restart(node: SimNode): void {
    this.trace(`restart ${node.id}`);
    this.startNode(node);
  }

  private startNode(node: SimNode): void {
    node.start(this.random.fork(this.nextClientId + this.step), electionTicks, heartbeatTicks, this.maxInflight);
  }

  private partition(): void {
    const a = this.random.pick(this.nodes).id;
    const b = this.random.pick(this.nodes.filter((node) => node.id !== a)).id;
    const symmetric = this.random.chance(0.5);
    this.cut.add(`${a}>${b}`);
    if (symmetric) this.cut.add(`${b}>${a}`);
    this.trace(`partition ${a}${symmetric ? '<' : ''}-x->${b}`);
  }

  private heal(): void {
    if (this.cut.size === 0) return;
    this.cut.clear();
    this.trace('heal');
  }

  private transfer(): void {
    const leader = this.leader();
    if (!leader?.core) return;
    const voters = leader.core.status().configuration.voters.filter((id) => id !== leader.id);
    if (voters.length === 0) return;
    const target = this.random.chance(0.5) ? this.random.pick(voters) : undefined;
    try {
      const chosen = leader.core.transferLeadership(target);
      this.trace(`transfer leadership ${leader.id} -> ${chosen}`);
    } catch (error) {
      if (!(error instanceof ProposalRefused)) throw error;
    }
    this.maybeProcessReady(leader);
  }

  /** A follower hears that its leader's connections closed: true after a crash or a cut, spurious otherwise. */
  private leaderLost(): void {
    const follower = this.random.pick(this.nodes.filter((node) => node.alive));
    const leader = follower?.core?.status().leader;
    if (!follower?.core || !leader || leader === follower.id) return;
    follower.core.leaderLost(leader);
    this.trace(`${follower.id} told leader ${leader} lost`);
    this.maybeProcessReady(follower);
  }

  private reconfigure(): void {
    const leader = this.leader();
    if (!leader?.core) return;
    const spare = this.nodes[this.nodes.length - 1]!;
    const { voters, nonVoters } = leader.core.status().configuration;
    const member = voters.includes(spare.id) || nonVoters.includes(spare.id);
    const change = member && this.random.chance(0.6) ? ({ kind: 'remove', id: spare.id } as const) : ({ kind: 'add', id: spare.id, voter: this.random.chance(0.5) } as const);
    try {
      const { index } = leader.core.proposeConfigChange(change);
      this.trace(`config change on ${leader.id} at ${index}: ${JSON.stringify(change)}`);
    } catch (error) {
      if (!(error instanceof ProposalRefused)) throw error;
    }
    this.maybeProcessReady(leader);
  }

  private processSomeReady(): void {
    const candidates = this.nodes.filter((node) => node.inFlight || node.core?.hasReady());
    if (candidates.length > 0) this.processReady(this.random.pick(candidates));
  }

  /** Most of the time a node handles its Ready at once; sometimes it lags, so a crash can catch it unsynced. */
  private maybeProcessReady(node: SimNode): void {
    if ((node.inFlight || node.core?.hasReady()) && this.random.chance(0.85)) this.processReady(node);
  }

  /**
   * RaftNode's round: a leader's appends leave, the committed entries are applied, the write happens, the answers
   * leave, advance. The write usually follows at once; sometimes it lags, so a crash can catch a node whose
   * appends are out but whose own copy is not written.
   */
  private processReady(node: SimNode): void {
    const core = node.core!;
    for (;;) {
      if (node.inFlight) {
        if (this.random.chance(0.15)) return;
        this.completeWrite(node);
      }
      if (!core.hasReady()) return;
      this.beginReady(node);
    }
  }

  private beginReady(node: SimNode): void {
    const core = node.core!;
    const rd = core.ready();
    if (rd.snapshot) {
      // A snapshot from the leader is written before anything else happens.
      this.persist(node, rd);
      for (const message of coalesceMessages(rd.messages)) this.send(message);
      this.apply(node, rd);
      this.finishReady(node, rd);
      return;
    }
    const { early, late } = splitByWrite(rd.messages, node.durable.hardState?.term ?? 0);
    for (const message of coalesceMessages(early)) this.send(message);
    this.apply(node, rd);
    node.inFlight = { rd, late };
  }

  private completeWrite(node: SimNode): void {
    const { rd, late } = node.inFlight!;
    node.inFlight = undefined;
    this.persist(node, rd);
    for (const message of coalesceMessages(late)) this.send(message);
    this.finishReady(node, rd);
  }

  private finishReady(node: SimNode, rd: Ready): void {
    const core = node.core!;
    core.advance(rd);
    if (rd.softState?.role === 'leader') this.stats.elections++;
    this.maybeSnapshot(node);
    const waiting = node.inbox;
    node.inbox = [];
    for (const message of waiting) core.step(message);
    this.runTicks(node);
  }

  private persist(node: SimNode, rd: Ready): void {
    if (rd.snapshot) {
      node.durable.snapshot = rd.snapshot;
      node.durable.entries = [];
    }
    if (rd.entries.length > 0) {
      const first = rd.entries[0]!.index;
      node.durable.entries = node.durable.entries.filter((entry) => entry.index < first).concat(rd.entries);
    }
    // As RaftNode does: a commit-only change is not written; the commit index rides along with entries or a vote.
    const previous = node.durable.hardState;
    const votingChanged = rd.hardState !== undefined && (rd.hardState.term !== previous?.term || rd.hardState.vote !== previous?.vote);
    if (rd.hardState && (rd.entries.length > 0 || votingChanged || rd.snapshot)) node.durable.hardState = rd.hardState;
    checkDurableState(node);
  }

  private send(message: Message): void {
    if (this.random.chance(this.faults.drop)) {
      this.stats.dropped++;
      return;
    }
    const copies = this.random.chance(this.faults.duplicate) ? 2 : 1;
    for (let i = 0; i < copies; i++) this.network.push({ message, deliverAt: this.now + this.random.int(this.faults.maxDelay + 1) });
  }

  private apply(node: SimNode, rd: Ready): void {
    if (rd.snapshot) {
      const state = rd.snapshot.data as SimStateMachine;
      this.history.recordSnapshotInstall(node.id, state.index, state.hash);
      node.machine = { ...state };
      this.stats.snapshotsInstalled++;
      this.trace(`${node.id} installs snapshot at ${state.index}`);
    }
    for (const entry of rd.committedEntries) {
      if (entry.index !== node.machine.index + 1) {
        throw new SafetyViolation('apply order', `${node.id} applied ${entry.index} after ${node.machine.index}`);
      }
      node.machine = { index: entry.index, hash: mixHash(node.machine.hash, entry) };
      this.history.recordApply(node.id, entry, node.machine.hash);
      this.stats.committed = Math.max(this.stats.committed, entry.index);
      const key = `${node.id}:${entry.index}:${entry.term}`;
      const proposal = this.pending.get(key);
      if (proposal && entry.type === 'normal' && (entry.data as { client: number }).client === proposal.id) {
        this.pending.delete(key);
        this.acknowledged.set(proposal.id, { index: entry.index, term: entry.term });
        this.stats.acknowledged++;
      }
    }
  }

  private maybeSnapshot(node: SimNode): void {
    const core = node.core!;
    const snapshotIndex = node.durable.snapshot?.meta.index ?? 0;
    if (node.machine.index - snapshotIndex < snapshotThreshold) return;
    const index = node.machine.index;
    const snapshot: Snapshot = {
      meta: { index, term: core.log.term(index)!, configuration: core.configurationAt(index) },
      data: { ...node.machine },
    };
    core.snapshotTaken(snapshot);
    node.durable.snapshot = snapshot;
    const compactTo = index - trailingLogs;
    if (compactTo > core.log.snapshotIndex) {
      core.compact(compactTo);
      node.durable.entries = node.durable.entries.filter((entry) => entry.index > compactTo);
    }
    this.trace(`${node.id} snapshots at ${index}, log from ${core.log.firstIndex()}`);
  }

  // ---- checks ------------------------------------------------------------------------------------------------

  private check(): void {
    checkElectionSafety(this.nodes, this.history);
    checkLogMatching(this.nodes);
    checkLeaderCompleteness(this.nodes, this.history);
    for (const [id, entry] of this.acknowledged) {
      const committed = this.history.committed.get(entry.index);
      if (!committed || committed.term !== entry.term || !committed.key.includes(`"client":${id}}`)) {
        throw new SafetyViolation('acknowledged proposal lost', `proposal ${id} acknowledged at ${entry.index} is not what was committed there`);
      }
    }
  }

  private leader(): SimNode | undefined {
    let best: SimNode | undefined;
    for (const node of this.nodes) {
      const status = node.core?.status();
      if (status?.role === 'leader' && (!best || status.term > best.core!.status().term)) best = node;
    }
    return best;
  }

  private trace(line: string): void {
    this.options.trace?.(`[${this.step}] ${line}`);
  }
}

function describe(message: Message): string {
  const base = `${message.type} ${message.from}->${message.to} t${message.term}`;
  switch (message.type) {
    case 'Append':
      return `${base} prev ${message.prevIndex}/${message.prevTerm} +${message.entries.length} commit ${message.commit}`;
    case 'AppendResp':
      return `${base} ${message.reject ? `reject ${message.index} hint ${message.rejectHint}/${message.hintTerm}` : `ok ${message.index}`}`;
    case 'PreVote':
    case 'Vote':
      return `${base} last ${message.lastIndex}/${message.lastTerm}${message.transfer ? ' transfer' : ''}`;
    case 'PreVoteResp':
    case 'VoteResp':
      return `${base} ${message.reject ? 'reject' : 'grant'}`;
    case 'Heartbeat':
      return `${base} commit ${message.commit}`;
    case 'Snapshot':
      return `${base} at ${message.snapshot.meta.index}`;
    default:
      return base;
  }
}

export type { NodeId };

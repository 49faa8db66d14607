// The seeded fault simulator. It runs the very RaftNode that controllers run, each over a simulated disk, network
// and clock, in one thread: every action is followed by draining the microtasks the nodes' awaits queue, so the
// interleaving is a function of the seed alone. A safety phase runs the cluster through message loss, duplication,
// reordering and delay, symmetric and one-way partitions, crashes at any point (writes in flight land up to some
// point or are lost), fsync latency, full disks and write errors, clock drift and steps, snapshots, leadership
// transfers and membership changes, with every checker run after every step. A liveness phase then stops the
// faults and requires a leader and every new proposal applied everywhere within a bound. In the recovery family, the
// fault phase also loses a majority for good part-way: the survivor is forced to a single voter (forceSingleVoter on
// its simulated disk) and fresh servers join it, with the checkers carried across that epoch boundary.
import type { Logger, LogFields } from '../../../common/log/logger.ts';
import { ProposalRefused, type ConfigChange, type Configuration, type NodeId } from '../core/types.ts';
import { forceSingleVoter, type ForcedRecovery } from '../node/forced-recovery.ts';
import { MessageChecks } from './message-checks.ts';
import { ProposalRefusedError, type LogCommand } from '../state-machine.ts';
import { AcknowledgedProposals, clientCommand } from './checkers/acknowledged-proposals.ts';
import { checkElectionSafety, checkLeaderWasElected } from './checkers/election-safety.ts';
import { CommitIndexWatch } from './checkers/commit-index.ts';
import { History } from './checkers/history.ts';
import { checkLeaderCompleteness } from './checkers/leader-completeness.ts';
import { converged, livenessFailure } from './checkers/liveness.ts';
import { checkLogMatching } from './checkers/log-matching.ts';
import { checkRead } from './checkers/read-your-writes.ts';
import { CommittedLedger, crossRecoveryBoundary } from './checkers/recovery-epoch.ts';
import { SafetyViolation } from './checkers/safety-violation.ts';
import { seededRandom, type Random } from './seeded-random.ts';
import type { SimDisk } from './sim-disk.ts';
import { InjectedDiskFault, type WriteOutcome } from './sim-io.ts';
import { SimNetwork } from './sim-network.ts';
import { pickAction, pickFaultProfile, type FaultProfile } from './fault-profiles.ts';
import { SimServer, type ProcessSettings, type RecoverCommand } from './sim-server.ts';
import { historyKey, type SimStateMachineHooks } from './sim-state-machine.ts';
import { diskHoldings } from './survivor-disk.ts';

/** `standard`: the fault and liveness phases; `recovery`: a majority is also lost for good part-way (above). */
export type SimulationFamily = 'standard' | 'recovery';
export const simulationFamilies: readonly SimulationFamily[] = ['standard', 'recovery'];

export interface SimulationOptions {
  readonly seed: number;
  /** Voters at the start (a spare server joins and leaves as membership changes say). */
  readonly nodes?: number;
  /** Steps in the safety phase. */
  readonly steps?: number;
  /** Step bound for the liveness phase. */
  readonly livenessSteps?: number;
  readonly trace?: (line: string) => void;
  /** Default `standard`. */
  readonly family?: SimulationFamily;
  /** The recovery the `recovery` family runs (default forceSingleVoter; a test passes a wrong one). */
  readonly recover?: RecoverCommand;
}

export interface SimulationStats {
  delivered: number;
  dropped: number;
  crashes: number;
  elections: number;
  committed: number;
  acknowledged: number;
  snapshotsInstalled: number;
  writesLost: number;
  diskFaults: number;
  reads: number;
  membershipChanges: number;
  /** Forced single-voter recoveries (the recovery family: one per seed). */
  recoveries: number;
  /** Runs of the recovery command, the ones killed part-way (and run again) included. */
  recoveryRuns: number;
  /** Indexes whose committed entry only the lost majority held: gone with it, reported here, not a failure. */
  writesLostToRecovery: number[];
  /** Of those, proposals that had been acknowledged to their client. */
  acknowledgedLostToRecovery: number;
  /** Fresh servers that are voters of the last leader's configuration after a recovery. */
  rejoined: number;
}

export interface SimulationResult {
  readonly seed: number;
  readonly ok: boolean;
  readonly failure?: string;
  readonly step: number;
  readonly stats: SimulationStats;
}

const tickMs = 10;
const settings = (seed: number): ProcessSettings => ({
  timing: { tickMs, electionTicks: 10, heartbeatTicks: 2, commitTimeoutMs: 100 * tickMs },
  snapshotPolicy: { intervalMs: 5 * tickMs, threshold: 12, trailingLogs: 4 },
  // The node's own limits (one append in flight) on a third of the seeds, a pipeline of small appends on another, and
  // one entry per append on the last (a follower then acknowledges a new leader's earlier-term entries apart from its
  // own); from the seed, not the generator, so the seed's other choices do not depend on it.
  replication: [
    { appendsInFlightPerFollower: 1, maxEntriesPerAppend: 512 },
    { appendsInFlightPerFollower: 4, maxEntriesPerAppend: 8 },
    { appendsInFlightPerFollower: 2, maxEntriesPerAppend: 1 },
  ][seed % 3]!,
});

/** Runs one seed to the end (or its first violation). */
export function runSimulation(options: SimulationOptions): Promise<SimulationResult> {
  return new Simulation(options).run();
}

/**
 * Lets every microtask the nodes queued run. Node runs process.nextTick callbacks only once the promise job queue is
 * empty (when asked from within a promise job, as every call after the first is), so this resumes after all of
 * them without a turn of the event loop: a setImmediate per step cost about a sixth of the simulator's time.
 */
const drainMicrotasks = () => new Promise<void>((resolve) => process.nextTick(resolve));

class Simulation {
  private readonly random: Random;
  private readonly servers: SimServer[];
  private readonly network: SimNetwork;
  /** The history of the current epoch (a forced recovery starts a new one, recovery-epoch.ts). */
  private history = new History();
  private readonly acknowledged = new AcknowledgedProposals();
  private readonly violations: SafetyViolation[] = [];
  private readonly commitIndexes = new CommitIndexWatch();
  private readonly messageChecks: MessageChecks;
  private readonly settings: ProcessSettings;
  private now = 0;
  private step = 0;
  private nextClient = 1;
  private highestAcknowledged = 0;
  private readonly stats: SimulationStats = {
    delivered: 0,
    dropped: 0,
    crashes: 0,
    elections: 0,
    committed: 0,
    acknowledged: 0,
    snapshotsInstalled: 0,
    writesLost: 0,
    diskFaults: 0,
    reads: 0,
    membershipChanges: 0,
    recoveries: 0,
    recoveryRuns: 0,
    writesLostToRecovery: [],
    acknowledgedLostToRecovery: 0,
    rejoined: 0,
  };
  /** Chance that a due write is held back another round: a crash then finds it in flight. */
  private writeHoldBack: number;
  /** Chance that a write fails with EIO (per seed: many seeds have none). */
  private readonly writeErrorRate: number;
  private faultsOn = true;
  /** Chance, per node and round, that a node with writes in flight crashes there and then. */
  private crashInFlight: number;
  private readonly profile: FaultProfile;
  /** Full disks and when they are freed. */
  private readonly fullUntil = new Map<NodeId, number>();
  private readonly hooks: SimStateMachineHooks;
  private readonly report: (violation: SafetyViolation) => void;
  /** The recovery family: the step at which the majority is lost, and what the leaders announced committed. */
  private readonly recoverAt: number = Infinity;
  private readonly ledger: CommittedLedger | undefined;
  private recovered = false;
  /** Fresh servers a recovery started, and those of them not yet voters. */
  private readonly fresh: NodeId[] = [];
  private rejoining: NodeId[] = [];
  private nextServerNumber: number;
  /** The voters at the start. */
  private readonly configuration: Configuration;

  constructor(private readonly options: SimulationOptions) {
    this.random = seededRandom(options.seed);
    this.settings = settings(options.seed);
    const count = options.nodes ?? 3;
    const ids = Array.from({ length: count }, (_, i) => `n${i + 1}`);
    const configuration = { voters: ids, nonVoters: [] };
    const report = (violation: SafetyViolation) => this.violations.push(violation);
    this.report = report;
    this.nextServerNumber = count + 2;
    // The recovery family's cluster starts as controllers' clusters do, from a configuration entry in the log (see
    // bootstrapThroughLog): forceSingleVoter reads the configuration from the log and snapshots alone.
    const bootstrap = options.family === 'recovery' ? { voters: [], nonVoters: [] } : configuration;
    this.configuration = configuration;
    this.servers = ids.map((id) => new SimServer(id, 0.85 + this.random() * 0.3, bootstrap, report));
    // A spare server that membership changes add (as voter or non-voter) and remove again; it starts knowing no
    // configuration, as a new controller does.
    this.servers.push(new SimServer(`n${count + 1}`, 0.85 + this.random() * 0.3, { voters: [], nonVoters: [] }, report));
    this.writeErrorRate = this.random.chance(0.3) ? 0.002 : 0;
    this.network = new SimNetwork(this.random, () => this.now, (line) => this.trace(line));
    this.messageChecks = new MessageChecks(this.servers, report);
    this.network.onSend = (message) => this.messageChecks.onSend(message);
    this.profile = pickFaultProfile(this.random);
    this.network.faults = this.profile.network;
    this.writeHoldBack = this.profile.writeHoldBack;
    this.crashInFlight = this.profile.crashInFlight;
    const simulation = this;
    this.hooks = {
      // Read on every apply: after a recovery, the new epoch's.
      get history() {
        return simulation.history;
      },
      report,
      onSnapshotInstalled: (node, index) => {
        this.stats.snapshotsInstalled++;
        this.trace(`${node} installs snapshot at ${index}`);
      },
    };
    // Drawn last, and only in the family, so that a standard seed runs as it always has.
    if (options.family === 'recovery') {
      this.recoverAt = Math.floor((options.steps ?? 3000) * (0.3 + 0.3 * this.random()));
      this.ledger = new CommittedLedger();
    }
  }

  async run(): Promise<SimulationResult> {
    const steps = this.options.steps ?? 3000;
    try {
      const { replication } = this.settings;
      this.trace(`fault profile: ${this.profile.name}; ${replication.appendsInFlightPerFollower} appends in flight of at most ${replication.maxEntriesPerAppend} entries`);
      for (const server of this.servers) this.start(server);
      await this.settle();
      if (this.options.family === 'recovery') await this.bootstrapThroughLog();
      for (this.step = 1; this.step <= steps; this.step++) {
        if (this.step < this.recoverAt || this.recovered || !(await this.loseMajorityAndRecover())) this.safetyStep();
        await this.settle();
        this.check();
      }
      await this.liveness();
      return this.result(true);
    } catch (error) {
      const failure = error instanceof SafetyViolation ? error.message : `crash: ${(error as Error).stack ?? String(error)}`;
      this.trace(`FAILED at step ${this.step}: ${failure}`);
      return this.result(false, failure);
    }
  }

  private result(ok: boolean, failure?: string): SimulationResult {
    this.stats.delivered = this.network.stats.delivered;
    this.stats.dropped = this.network.stats.dropped;
    this.stats.committed = this.history.maxCommitted;
    this.stats.acknowledged = this.acknowledged.count;
    this.stats.elections += this.history.leaderOfTerm.size;
    if (this.recovered) {
      const voters = this.leader()?.status().configuration.voters ?? [];
      this.stats.rejoined = this.fresh.filter((id) => voters.includes(id)).length;
    }
    return { seed: this.options.seed, ok, step: this.step, stats: this.stats, ...(failure === undefined ? {} : { failure }) };
  }

  // ---- phases ------------------------------------------------------------------------------------------------

  private safetyStep(): void {
    if (this.rejoining.length > 0 && this.random.chance(0.05)) return this.rejoin();
    switch (pickAction(this.profile, this.random())) {
      case 'deliver':
        return this.deliverSome();
      case 'tick':
        return this.tick();
      case 'propose':
        return void this.propose();
      case 'read':
        return this.read();
      case 'crash': {
        const running = this.servers.filter((server) => server.running);
        return running.length > 1 ? this.crash(this.random.pick(running)) : this.tick();
      }
      case 'crashLeader': {
        const leader = this.leaderServer();
        return leader && this.runningCount() > 1 ? this.crash(leader) : this.tick();
      }
      case 'isolateLeader':
        return this.isolateLeader();
      case 'restart': {
        const down = this.servers.filter((server) => !server.running);
        return down.length > 0 ? this.restart(this.random.pick(down)) : this.tick();
      }
      case 'partition':
        return this.partition();
      case 'heal':
        return this.heal();
      case 'transfer':
        return this.transfer();
      case 'reconfigure':
        return this.reconfigure();
      case 'leaderLost':
        return this.leaderLost();
      case 'fillDisk':
        return this.fillDisk();
      case 'clockStep':
        return this.clockStep();
      case 'snapshot':
        return this.snapshotNow();
    }
  }

  private async liveness(): Promise<void> {
    this.trace('--- liveness: heal, restart, no more faults');
    this.faultsOn = false;
    this.writeHoldBack = 0;
    this.crashInFlight = 0;
    this.network.faults = { drop: 0, duplicate: 0, maxDelayMs: 2 * tickMs, longDelay: 0, longDelayMs: 0 };
    this.network.cut.clear();
    for (const server of this.servers) server.disk.full = false;
    this.fullUntil.clear();
    for (const server of this.servers) if (!server.running) this.restart(server);
    await this.settle();
    const bound = this.options.livenessSteps ?? 2000;
    const wanted = new Set<number>();
    let proposedAt = -1;
    for (let i = 0; i < bound; i++, this.step++) {
      // A process that stopped on a write failing from before the faults stopped is restarted, as systemd would.
      for (const server of this.servers) if (!server.running) this.restart(server);
      this.tick();
      this.network.deliverDue();
      await this.settle();
      this.check();
      // After a recovery, the cluster is whole again once every fresh server is a voter (fault-phase membership
      // changes may have removed some again).
      if (this.recovered) this.rejoinAll();
      const leader = this.leaderServer();
      if (leader && proposedAt < 0) {
        // Five fresh proposals must make it everywhere.
        for (let k = 0; k < 5; k++) {
          const id = this.propose(leader);
          if (id !== undefined) wanted.add(id);
        }
        proposedAt = i;
      }
      for (const id of [...wanted]) if (this.acknowledged.byClient.has(id)) wanted.delete(id);
      if (proposedAt >= 0 && wanted.size === 0 && this.converged()) return;
      if (proposedAt >= 0 && i - proposedAt > 200 && wanted.size > 0) {
        // The leader may have been replaced before committing them: propose again on the current leader.
        proposedAt = -1;
        wanted.clear();
      }
    }
    const state = this.servers
      .map((server) => (server.node ? `${server.id}:${server.node.status().role}@${server.node.term} commit ${server.node.log.committed} applied ${server.node.appliedIndex()}` : `${server.id}:down`))
      .join(', ');
    throw livenessFailure(bound, state, [...wanted].join(',') || 'convergence');
  }

  private converged(): boolean {
    const leader = this.leader();
    const members = this.servers.map((server) => ({
      id: server.id,
      running: server.node !== undefined,
      commit: server.node?.log.committed ?? 0,
      applied: server.node?.appliedIndex() ?? 0,
    }));
    const view = leader ? { id: leader.id, commit: leader.log.committed, configuration: leader.status().configuration } : undefined;
    return converged(view, members, this.highestAcknowledged) && this.rejoining.length === 0;
  }

  /**
   * Runs what the last action set off to quiescence: drain the microtasks, complete the writes that are due (some
   * held back), repeat while any completed. A process whose node stopped on a write failure exits (it is crashed
   * here, as systemd would see it) so that it can be restarted later.
   */
  private async settle(): Promise<void> {
    for (let round = 0; round < 1000; round++) {
      await drainMicrotasks();
      let completed = 0;
      for (const server of this.servers) {
        // A crash while writes are in flight: between a leader's appends leaving and its own copy landing, between
        // a vote being written and its answer leaving, in the middle of applying.
        if (this.faultsOn && server.writesInFlight > 0 && this.runningCount() > 1 && this.random.chance(this.crashInFlight)) {
          this.crash(server);
          continue;
        }
        completed += server.completeWrites(this.now, () => !this.random.chance(this.writeHoldBack));
      }
      if (completed === 0) break;
    }
    for (const server of this.servers) {
      const failure = server.node?.failed;
      if (!failure) continue;
      if (!(failure instanceof InjectedDiskFault)) throw new SafetyViolation('node failure', `${server.id} stopped: ${failure.stack ?? failure.message}`);
      this.trace(`${server.id} stopped after a disk fault (${failure.message}): the process exits`);
      this.crash(server);
    }
  }

  // ---- actions -----------------------------------------------------------------------------------------------

  private tick(): void {
    this.now += tickMs;
    for (const server of this.servers) server.elapse(tickMs);
    for (const [id, until] of this.fullUntil) {
      if (until > this.now) continue;
      this.fullUntil.delete(id);
      this.servers.find((server) => server.id === id)!.disk.full = false;
      this.trace(`${id}'s disk has space again`);
    }
  }

  private deliverSome(): void {
    const due = this.network.due();
    if (due === 0) return this.tick();
    this.network.deliverSome(1 + this.random.int(Math.min(due, this.servers.length)));
  }

  private propose(on?: SimServer): number | undefined {
    const server = on ?? this.leaderServer();
    const node = server?.node;
    if (!server || !node) return undefined;
    const client = this.nextClient++;
    this.trace(`propose ${client} on ${server.id}`);
    node.propose(clientCommand(client) as LogCommand).then(
      (proposal) => {
        this.trace(`acknowledged ${client} at ${proposal.index} by ${server.id}`);
        this.acknowledged.acknowledge(client, proposal.index);
        this.highestAcknowledged = Math.max(this.highestAcknowledged, proposal.index);
      },
      (error: Error) => {
        if (!(error instanceof ProposalRefusedError)) this.violations.push(new SafetyViolation('proposal', `proposal ${client} failed unexpectedly: ${error.message}`));
      },
    );
    return client;
  }

  /** A client that wrote at index i reads through any running node once that node has applied i. */
  private read(): void {
    const node = this.random.pick(this.servers).node;
    if (!node || this.acknowledged.byClient.size === 0) return;
    const clients = [...this.acknowledged.byClient.keys()];
    const client = clients[clients.length - 1 - this.random.int(Math.min(clients.length, 8))]!;
    const index = this.acknowledged.byClient.get(client)!;
    const server = this.servers.find((candidate) => candidate.node === node)!;
    this.stats.reads++;
    node.waitForApplied(index, 20 * tickMs).then(
      () => {
        const machine = server.process?.node === node ? server.process.machine : undefined;
        if (!machine) return;
        try {
          checkRead({ node: server.id, waitedFor: index, index: machine.state.index, hash: machine.state.hash }, this.history);
        } catch (error) {
          this.violations.push(error as SafetyViolation);
        }
      },
      () => undefined,
    );
  }

  private crash(server: SimServer): void {
    this.stats.crashes++;
    const lost = server.crash((inFlight) => this.random.int(inFlight + 1));
    this.stats.writesLost += lost;
    this.trace(`crash ${server.id}${lost > 0 ? ` (${lost} writes in flight lost)` : ''}`);
    // Its connections close: most of the nodes that followed it hear so at once (the others by timeout).
    for (const other of this.servers) {
      const node = other.node;
      if (node && node.leader() === server.id && this.random.chance(0.7)) {
        node.leaderLost(server.id);
        this.trace(`${other.id} told leader ${server.id} lost`);
      }
    }
  }

  private restart(server: SimServer): void {
    this.trace(`restart ${server.id}`);
    this.start(server);
  }

  private start(server: SimServer): void {
    server.start({
      now: this.now,
      random: this.random.fork(this.nextClient + this.step),
      network: this.network,
      settings: this.settings,
      outcome: (disk) => this.writeOutcome(disk),
      hooks: this.hooks,
      logger: this.options.trace ? traceLogger(server.id, (line) => this.trace(line)) : undefined,
      onStartFailed: (error) => {
        if (!(error instanceof InjectedDiskFault)) {
          this.violations.push(new SafetyViolation('node failure', `${server.id} failed to start: ${error.stack ?? error.message}`));
          return;
        }
        this.trace(`${server.id} failed to start after a disk fault (${error.message}): the process exits`);
        this.crash(server);
      },
    });
  }

  /** When a write issued now completes, and whether it fails. Most are quick; some wait several ticks. */
  private writeOutcome(disk: SimDisk): WriteOutcome {
    const roll = this.random();
    const latency = !this.faultsOn || roll < 0.7 ? 0 : roll < 0.95 ? (1 + this.random.int(2)) * tickMs : (3 + this.random.int(6)) * tickMs;
    const due = this.now + latency;
    if (disk.full) {
      this.stats.diskFaults++;
      return { due, failure: { error: new InjectedDiskFault(`ENOSPC: no space left on device (${disk.node})`), lands: false } };
    }
    if (this.faultsOn && this.writeErrorRate > 0 && this.random.chance(this.writeErrorRate)) {
      this.stats.diskFaults++;
      return { due, failure: { error: new InjectedDiskFault(`EIO: i/o error (${disk.node})`), lands: this.random.chance(0.5) } };
    }
    return { due };
  }

  private partition(): void {
    const a = this.random.pick(this.servers).id;
    const b = this.random.pick(this.servers.filter((server) => server.id !== a)).id;
    const symmetric = this.random.chance(0.5);
    this.network.cut.add(`${a}>${b}`);
    if (symmetric) this.network.cut.add(`${b}>${a}`);
    this.trace(`partition ${a}${symmetric ? '<' : ''}-x->${b}`);
  }

  /** Cuts the leader off from every other server, both ways, until the next heal. */
  private isolateLeader(): void {
    const leader = this.leaderServer();
    if (!leader) return;
    for (const other of this.servers) {
      if (other === leader) continue;
      this.network.cut.add(`${leader.id}>${other.id}`);
      this.network.cut.add(`${other.id}>${leader.id}`);
    }
    this.trace(`isolate leader ${leader.id}`);
  }

  private heal(): void {
    if (this.network.cut.size === 0) return;
    this.network.cut.clear();
    this.trace('heal');
  }

  private transfer(): void {
    const leader = this.leader();
    if (!leader) return;
    const voters = leader.status().configuration.voters.filter((id) => id !== leader.id);
    if (voters.length === 0) return;
    const target = this.random.chance(0.5) ? this.random.pick(voters) : undefined;
    try {
      this.trace(`transfer leadership ${leader.id} -> ${leader.transferLeadership(target)}`);
    } catch (error) {
      if (!(error instanceof ProposalRefused)) throw error;
    }
  }

  /** A follower hears that its leader's connections closed: true after a crash or a cut, spurious otherwise. */
  private leaderLost(): void {
    const node = this.random.pick(this.servers).node;
    const leader = node?.leader();
    if (!node || !leader || leader === node.id) return;
    node.leaderLost(leader);
    this.trace(`${node.id} told leader ${leader} lost`);
  }

  /** One membership change on the leader: add a server that is not a member (as voter or non-voter), promote or
   * demote one, or remove a member other than the leader while at least two voters would remain. */
  private reconfigure(): void {
    const leader = this.leader();
    if (!leader) return;
    const { voters, nonVoters } = leader.status().configuration;
    const server = this.random.pick(this.servers.filter((candidate) => candidate.id !== leader.id));
    const id = server.id;
    let change: ConfigChange;
    if (!voters.includes(id) && !nonVoters.includes(id)) change = { kind: 'add', id, voter: this.random.chance(0.5) };
    else if (this.random.chance(0.3)) change = { kind: 'add', id, voter: !voters.includes(id) };
    else if (voters.includes(id) && voters.length <= 2) return;
    else change = { kind: 'remove', id };
    this.stats.membershipChanges++;
    this.trace(`config change on ${leader.id}: ${JSON.stringify(change)}`);
    leader.proposeConfigChange(change).catch(() => undefined);
  }

  /** A disk fills up for a while (an operator frees it again within half a second). */
  private fillDisk(): void {
    const server = this.random.pick(this.servers);
    if (server.disk.full) return;
    server.disk.full = true;
    this.fullUntil.set(server.id, this.now + (5 + this.random.int(46)) * tickMs);
    this.trace(`${server.id}'s disk is full`);
  }

  /** A machine's wall clock steps (NTP): up to a commit timeout either way. */
  private clockStep(): void {
    const server = this.random.pick(this.servers);
    const ms = (this.random.int(201) - 100) * tickMs;
    server.stepClock(ms);
    this.trace(`${server.id}'s clock steps ${ms} ms`);
  }

  private snapshotNow(): void {
    const server = this.random.pick(this.servers);
    server.node?.maybeSnapshot(true).catch(() => undefined);
  }

  // ---- the recovery family ------------------------------------------------------------------------------------

  /** The first server writes the starting configuration as its log's first entry and the others learn it from its
   * appends (again after a crash that took the entry before it landed). */
  private async bootstrapThroughLog(): Promise<void> {
    const first = this.servers[0]!;
    for (let round = 0; round < 500 && first.disk.lastIndex < 1; round++) {
      if (!first.running) this.restart(first);
      const node = first.node;
      if (node?.isUninitialized()) {
        this.trace(`bootstrap ${first.id}: ${this.configuration.voters.join(',')}`);
        node.bootstrap(this.configuration);
      }
      this.tick();
      await this.settle();
    }
  }

  /**
   * Every server but one loses its disk for good (crashed, never to return); the survivor, a voter of the
   * configuration its own disk holds, is stopped, forced to a single voter, and restarted, and as many fresh servers
   * as the cluster had voters start empty, to be added back through the leader's membership changes. What only the
   * lost servers held is reported as lost; the checkers go on in a new epoch holding what the survivor kept. False
   * when no server's disk holds a configuration naming it a voter yet (tried again on the next step).
   */
  private async loseMajorityAndRecover(): Promise<boolean> {
    const candidates = this.servers.filter((server) => diskHoldings(server.disk).configuration?.voters.includes(server.id));
    if (candidates.length === 0) return false;
    this.recovered = true;
    this.stats.recoveries++;
    const survivor = this.random.pick(candidates);
    const gone = this.servers.filter((server) => server !== survivor);
    this.trace(`--- recovery: ${gone.map((server) => server.id).join(', ')} lost for good with their disks; ${survivor.id} survives`);
    for (const server of this.servers) this.crash(server);
    this.network.forget(new Set(gone.map((server) => server.id)));
    this.network.cut.clear();
    this.fullUntil.clear();
    survivor.disk.full = false;
    this.servers.splice(0, this.servers.length, survivor);

    const holdings = diskHoldings(survivor.disk);
    const boundary = crossRecoveryBoundary(this.history, this.ledger, holdings);
    this.stats.elections += this.history.leaderOfTerm.size;
    this.history = boundary.history;
    this.stats.writesLostToRecovery.push(...boundary.lost);
    const lostClients = this.acknowledged.forgetIndexes(new Set(boundary.lost));
    this.stats.acknowledgedLostToRecovery += lostClients.length;
    this.highestAcknowledged = this.acknowledged.highestIndex();
    this.trace(`${survivor.id} holds through ${holdings.last} (its state covers ${holdings.covered}); lost with the majority: ${boundary.lost.length === 0 ? 'nothing' : `indexes ${boundary.lost.join(',')} (${lostClients.length} acknowledged)`}`);

    const recovered = await this.runRecovery(survivor);
    this.trace(`${survivor.id} forced to a single voter at ${recovered.index} (term ${recovered.term}; voters were ${recovered.previous.voters.join(',')}); ${recovered.applied} entries applied from its log`);
    this.restart(survivor);
    const empty: Configuration = { voters: [], nonVoters: [] };
    // Replacements for the lost voters, which rejoin as voters, and a new spare for the membership changes.
    const voters = this.options.nodes ?? 3;
    for (let i = 0; i < voters; i++) {
      const server = new SimServer(`n${this.nextServerNumber++}`, 0.85 + this.random() * 0.3, empty, this.report);
      this.servers.push(server);
      if (i < voters - 1) {
        this.fresh.push(server.id);
        this.rejoining.push(server.id);
      }
      this.trace(`fresh server ${server.id} starts empty${i < voters - 1 ? '' : ' (a spare)'}`);
      this.start(server);
    }
    return true;
  }

  /**
   * Runs the recovery command on the survivor's stopped disk to its end. Some attempts are killed part-way (the
   * machine loses power mid-command, or a write fails): the operator runs it again, which must finish the job.
   */
  private async runRecovery(survivor: SimServer): Promise<ForcedRecovery> {
    const command = this.options.recover ?? forceSingleVoter;
    for (let attempt = 1; attempt <= 20; attempt++) {
      let outcome: { readonly result: ForcedRecovery } | { readonly error: Error } | undefined;
      this.stats.recoveryRuns++;
      survivor
        .recover({
          now: this.now,
          network: this.network,
          outcome: (disk) => this.writeOutcome(disk),
          hooks: this.hooks,
          ...(this.options.trace ? { logger: traceLogger(survivor.id, (line) => this.trace(line)) } : {}),
          command,
        })
        .then(
          (result) => (outcome = { result }),
          (error: Error) => (outcome = { error }),
        );
      const killAfter = this.random.chance(0.3) ? this.random.int(8) : Infinity;
      let completed = 0;
      for (let round = 0; round < 10_000 && !outcome && completed < killAfter; round++) {
        await drainMicrotasks();
        if (outcome) break;
        const done = survivor.completeWrites(this.now, () => true);
        completed += done;
        if (done === 0) this.tick();
      }
      // The command exits (or is killed): its writes still in flight land up to some point.
      survivor.crash((inFlight) => this.random.int(inFlight + 1));
      if (outcome && 'result' in outcome) return outcome.result;
      if (outcome && !(outcome.error instanceof InjectedDiskFault)) throw new SafetyViolation('recovery', `${survivor.id}: ${outcome.error.stack ?? outcome.error.message}`);
      this.trace(`recovery of ${survivor.id} ${outcome ? `failed on a disk fault (${outcome.error.message})` : 'killed part-way'}: run again`);
    }
    throw new SafetyViolation('recovery', `${survivor.id}: the recovery did not finish in 20 attempts`);
  }

  /** The liveness phase's rejoin: every fresh server that is not a voter, one change at a time. */
  private rejoinAll(): void {
    const voters = this.leader()?.status().configuration.voters;
    if (!voters) return;
    this.rejoining = this.fresh.filter((id) => !voters.includes(id));
    this.rejoin();
  }

  /** Adds the next fresh server as a voter through the leader (refused while another change is pending: tried later). */
  private rejoin(): void {
    const leader = this.leader();
    if (!leader) return;
    const { voters } = leader.status().configuration;
    this.rejoining = this.rejoining.filter((id) => !voters.includes(id));
    const id = this.rejoining[0];
    if (id === undefined) return;
    this.trace(`rejoin on ${leader.id}: add ${id} as a voter`);
    leader.proposeConfigChange({ kind: 'add', id, voter: true }).catch(() => undefined);
  }

  // ---- checks ------------------------------------------------------------------------------------------------

  private check(): void {
    if (this.violations.length > 0) throw this.violations[0]!;
    const replicas = this.servers.flatMap((server) => (server.node ? [server.node] : []));
    checkElectionSafety(replicas, this.history);
    for (const node of replicas) {
      this.commitIndexes.check(node.id, node, node.log.committed);
      if (node.isLeader()) checkLeaderWasElected({ id: node.id, term: node.term, voters: node.configuration.voters }, (voter, term) => this.messageChecks.votedFor(voter, term), this.history);
    }
    checkLogMatching(replicas);
    if (this.ledger) {
      // Any node's commit index is a commit: a follower may have learned one its leader then lost with its disk.
      for (const node of replicas) {
        this.ledger.observe(node, (index) => {
          const entry = node.log.entry(index);
          return entry && historyKey(entry);
        });
      }
    }
    checkLeaderCompleteness(replicas, this.history);
    this.acknowledged.check(this.history);
  }

  private runningCount(): number {
    return this.servers.filter((server) => server.running).length;
  }

  private leaderServer(): SimServer | undefined {
    const leader = this.leader();
    return leader ? this.servers.find((server) => server.node === leader) : undefined;
  }

  private leader() {
    let best: NonNullable<SimServer['node']> | undefined;
    for (const server of this.servers) {
      const node = server.node;
      if (node?.isLeader() && (!best || node.term > best.term)) best = node;
    }
    return best;
  }

  private trace(line: string): void {
    this.options.trace?.(`[${this.step}] ${line}`);
  }
}

/** The node's own log lines, in the trace. */
function traceLogger(node: NodeId, trace: (line: string) => void): Logger {
  const line = (level: string) => (msg: string, fields?: LogFields) => trace(`${node} ${level} ${msg}${fields ? ` ${JSON.stringify(fields)}` : ''}`);
  const logger: Logger = { debug: () => undefined, info: line('info'), warn: line('warn'), error: line('error'), child: () => logger };
  return logger;
}

// One simulated controller: a machine whose disk and wall clock outlive its process, and the process that runs the
// very RaftNode controllers run, over the simulated disk, network and clock. A crash ends the process where it
// stands: its writes in flight land up to some point, its timers stop, its endpoint goes silent, and the RaftNode
// object is abandoned with whatever it was awaiting.
import type { Logger } from '../../../common/log/logger.ts';
import { silentLogger } from '../../../common/log/logger.ts';
import type { Configuration, NodeId } from '../core/types.ts';
import type { ForcedRecovery, ForceSingleVoterOptions } from '../node/forced-recovery.ts';
import { RaftNode, type ReplicationLimits, type RaftNodeTiming, type SnapshotPolicy } from '../node/raft-node.ts';
import { SimClock } from './sim-clock.ts';
import { SimDisk, SimRaftStore, SimSnapshotStore } from './sim-disk.ts';
import { SimIoQueue, type WriteOutcome } from './sim-io.ts';
import type { SimEndpoint, SimNetwork } from './sim-network.ts';
import { SimStateMachine, type SimStateMachineHooks } from './sim-state-machine.ts';
import type { SafetyViolation } from './checkers/safety-violation.ts';
import type { Random } from './seeded-random.ts';

export interface ProcessSettings {
  readonly timing: RaftNodeTiming;
  readonly snapshotPolicy: SnapshotPolicy;
  readonly replication: ReplicationLimits;
}

/** The offline recovery command: forceSingleVoter, or (in a test) a wrong one the checkers must catch. */
export type RecoverCommand = (options: ForceSingleVoterOptions) => Promise<ForcedRecovery>;

/** One run of the controller process, from start to crash. */
export interface SimProcess {
  /** Set once RaftNode.start has finished loading. */
  node: RaftNode | undefined;
  readonly clock: SimClock;
  readonly machine: SimStateMachine;
  readonly endpoint: SimEndpoint;
  readonly wal: SimIoQueue;
  readonly snapshots: SimIoQueue;
  readonly model: SimIoQueue;
}

export class SimServer {
  readonly disk: SimDisk;
  process: SimProcess | undefined;
  /** The wall clock's offset from simulated time, kept across restarts (the machine's clock, not the process's). */
  private wallOffset = 0;

  constructor(
    readonly id: NodeId,
    /** How fast this machine's clock runs against simulated time. */
    readonly clockRate: number,
    private readonly bootstrap: Configuration,
    report: (violation: SafetyViolation) => void,
  ) {
    this.disk = new SimDisk(id, report);
  }

  get running(): boolean {
    return this.process !== undefined;
  }

  /** The node, once started and not crashed. */
  get node(): RaftNode | undefined {
    return this.process?.node;
  }

  /** Starts a process; its RaftNode loads from the disk in the microtasks that follow. */
  start(options: {
    readonly now: number;
    readonly random: Random;
    readonly network: SimNetwork;
    readonly settings: ProcessSettings;
    readonly outcome: (disk: SimDisk) => WriteOutcome;
    readonly hooks: SimStateMachineHooks;
    readonly logger?: Logger;
    readonly onStartFailed: (error: Error) => void;
  }): void {
    const { process, store, snapshots } = this.newProcess(options);
    this.process = process;
    RaftNode.start({
      id: this.id,
      store,
      snapshots,
      stateMachine: process.machine,
      transport: process.endpoint,
      timing: options.settings.timing,
      snapshotPolicy: options.settings.snapshotPolicy,
      replication: options.settings.replication,
      bootstrap: this.bootstrap,
      random: options.random,
      logger: options.logger ?? silentLogger,
      timers: process.clock,
    }).then(
      (node) => {
        if (this.process === process) process.node = node;
      },
      (error: Error) => {
        if (this.process === process) options.onStartFailed(error);
      },
    );
  }

  /**
   * Runs the offline recovery command on this machine's stopped disk, as a process with no raft node: its writes land
   * as the simulation completes them, and a crash cuts them short as it does any process's. The process ends with a
   * crash (the command exiting) once the simulation has seen the result.
   */
  recover(options: {
    readonly now: number;
    readonly network: SimNetwork;
    readonly outcome: (disk: SimDisk) => WriteOutcome;
    readonly hooks: SimStateMachineHooks;
    readonly logger?: Logger;
    readonly command: RecoverCommand;
  }): Promise<ForcedRecovery> {
    // It listens on nothing; the endpoint only gives the process the shape a crash expects.
    const { process, store, snapshots } = this.newProcess(options);
    this.process = process;
    return options.command({
      id: this.id,
      store,
      snapshots,
      stateMachine: process.machine,
      logger: options.logger ?? silentLogger,
    });
  }

  /** A process over this machine's disk: its clock, write queues, state machine and network endpoint, and the raft
   * storage it writes through them. */
  private newProcess(options: { readonly now: number; readonly network: SimNetwork; readonly outcome: (disk: SimDisk) => WriteOutcome; readonly hooks: SimStateMachineHooks }) {
    const clock = new SimClock(this.clockRate, options.now + this.wallOffset);
    const wal = new SimIoQueue();
    const snapshotQueue = new SimIoQueue();
    const model = new SimIoQueue();
    const outcome = () => options.outcome(this.disk);
    const machine = new SimStateMachine(this.disk, model, outcome, options.hooks);
    const endpoint = options.network.endpoint();
    const process: SimProcess = { node: undefined, clock, machine, endpoint, wal, snapshots: snapshotQueue, model };
    return { process, store: new SimRaftStore(this.disk, wal, outcome), snapshots: new SimSnapshotStore(this.disk, snapshotQueue, outcome) };
  }

  /** Writes this process has issued that have not completed. */
  get writesInFlight(): number {
    const process = this.process;
    return process ? process.wal.length + process.snapshots.length + process.model.length : 0;
  }

  /** `ms` of simulated time passed. */
  elapse(ms: number): void {
    this.process?.clock.elapse(ms);
  }

  /** The machine's wall clock jumps by `ms`. */
  stepClock(ms: number): void {
    this.wallOffset += ms;
    this.process?.clock.step(ms);
  }

  /** Completes this process's writes due by `now`, each while `proceed` agrees; how many completed. */
  completeWrites(now: number, proceed: () => boolean): number {
    const process = this.process;
    if (!process) return 0;
    return process.wal.completeDue(now, proceed) + process.snapshots.completeDue(now, proceed) + process.model.completeDue(now, proceed);
  }

  /** Kills the process. `landed` picks how many of a queue's writes in flight reached the disk; returns how many were lost. */
  crash(landed: (inFlight: number) => number): number {
    const process = this.process;
    if (!process) return 0;
    this.process = undefined;
    process.endpoint.kill();
    let lost = 0;
    for (const queue of [process.wal, process.snapshots, process.model]) lost += queue.crash(landed(queue.length));
    return lost;
  }
}

// One simulated controller: what it has synced (survives a crash), the raft core and the state machine (lost on
// a crash, rebuilt from the synced state on restart), and a clock that runs a little fast or slow.
import { RaftCore } from '../core/raft-core.ts';
import type { Configuration, Entry, HardState, Message, NodeId, Ready, Snapshot } from '../core/types.ts';
import type { Random } from './seeded-random.ts';

export interface SimStateMachine {
  /** Index of the last applied entry. */
  index: number;
  /** A running hash of everything applied: equal hashes at an index mean equal histories. */
  hash: number;
}

export interface Durable {
  hardState: HardState | undefined;
  entries: Entry[];
  snapshot: Snapshot | undefined;
}

export class SimNode {
  core: RaftCore | undefined;
  machine: SimStateMachine = { index: 0, hash: 0 };
  readonly durable: Durable = { hardState: undefined, entries: [], snapshot: undefined };
  tickDebt = 0;
  /** The highest term this node has ever persisted, and its vote in it: a restart must never go back. */
  persistedTerm = 0;
  persistedVote: NodeId | null = null;
  /** A Ready whose write has not happened yet, with the messages that wait for it (lost if the node crashes). */
  inFlight: { readonly rd: Ready; readonly late: readonly Message[] } | undefined;
  /** Messages that arrived while a write was in flight: stepped once it is done, as RaftNode does. */
  inbox: Message[] = [];

  constructor(
    readonly id: NodeId,
    readonly tickRate: number,
    private readonly bootstrap: Configuration,
  ) {}

  get alive(): boolean {
    return this.core !== undefined;
  }

  start(random: Random, electionTicks: number, heartbeatTicks: number, maxInflight: number): void {
    const snapshot = this.durable.snapshot;
    this.machine = snapshot ? { ...(snapshot.data as SimStateMachine) } : { index: 0, hash: 0 };
    this.core = new RaftCore({
      id: this.id,
      electionTicks,
      heartbeatTicks,
      random,
      maxEntriesPerAppend: 8,
      maxInflight,
      ...(this.durable.hardState ? { hardState: this.durable.hardState } : {}),
      ...(snapshot ? { snapshot: snapshot.meta } : {}),
      entries: this.durable.entries,
      applied: this.machine.index,
      bootstrap: this.bootstrap,
    });
    if (snapshot) this.core.snapshotTaken(snapshot);
    this.tickDebt = 0;
  }

  crash(): void {
    this.core = undefined;
    this.inFlight = undefined;
    this.inbox = [];
  }
}

export function mixHash(hash: number, entry: Entry): number {
  const text = `${entry.index}:${entry.term}:${entry.type}:${JSON.stringify(entry.data)}`;
  let h = hash ^ 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

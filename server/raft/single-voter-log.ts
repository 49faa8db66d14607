// A one-voter consensus log at <cluster.dataDir>/raft.db: with a single voter every appended entry is committed
// once it is durable. Proposals that arrive while a write is in flight are group-committed in the next write,
// so a burst costs one fsync per batch, not per command. Replaced by the raft node behind the same Proposer.
import { Level } from 'level';
import type { CommittedEntry, LogCommand, Proposal, Proposer, StateMachine } from './state-machine.ts';
import { ProposalRefusedError } from './state-machine.ts';

const entryKey = (index: number) => `log!${index.toString().padStart(16, '0')}`;
const termKey = 'stable!term';
const maxBatch = 512;

interface StoredEntry {
  readonly term: number;
  readonly command: LogCommand;
}

interface Pending {
  readonly command: LogCommand;
  readonly resolve: (proposal: Proposal) => void;
  readonly reject: (error: Error) => void;
}

export class SingleVoterLog implements Proposer {
  private queue: Pending[] = [];
  private writing = false;
  private closed = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => undefined;

  private constructor(
    private readonly db: Level<string, StoredEntry | number>,
    private readonly stateMachine: StateMachine,
    private lastIndex: number,
    private readonly term: number,
  ) {}

  /** Opens the log, then replays every entry the state machine has not yet made durable. */
  static async open(path: string, stateMachine: StateMachine): Promise<SingleVoterLog> {
    const db = new Level<string, StoredEntry | number>(path, { valueEncoding: 'json' });
    await db.open();
    const previousTerm = ((await db.get(termKey)) as number | undefined) ?? 0;
    // Each start is a new term, as a lone voter would elect itself again.
    const term = previousTerm + 1;
    await db.put(termKey, term, { sync: true });

    let lastIndex = 0;
    for await (const key of db.keys({ gte: 'log!', lt: 'log!~', reverse: true, limit: 1 })) {
      lastIndex = Number(key.slice(4));
    }
    const log = new SingleVoterLog(db, stateMachine, lastIndex, term);
    await log.replay();
    return log;
  }

  appliedIndex(): number {
    return this.stateMachine.appliedIndex();
  }

  lastLogIndex(): number {
    return this.lastIndex;
  }

  currentTerm(): number {
    return this.term;
  }

  propose(command: LogCommand): Promise<Proposal> {
    if (this.closed) return Promise.reject(new ProposalRefusedError('closed', 'the controller is shutting down'));
    return new Promise<Proposal>((resolve, reject) => {
      this.queue.push({ command, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.idle;
    await this.db.close();
  }

  private async replay(): Promise<void> {
    let from = this.stateMachine.appliedIndex() + 1;
    while (from <= this.lastIndex) {
      const entries: CommittedEntry[] = [];
      for await (const [key, value] of this.db.iterator({ gte: entryKey(from), lte: entryKey(this.lastIndex), limit: maxBatch })) {
        const stored = value as StoredEntry;
        entries.push({ index: Number(key.slice(4)), term: stored.term, command: stored.command });
      }
      if (entries.length === 0) break;
      await this.stateMachine.apply(entries);
      from = entries[entries.length - 1]!.index + 1;
    }
  }

  private async drain(): Promise<void> {
    this.writing = true;
    this.idle = new Promise((resolve) => (this.markIdle = resolve));
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, maxBatch);
        const entries: CommittedEntry[] = batch.map((pending, offset) => ({
          index: this.lastIndex + 1 + offset,
          term: this.term,
          command: pending.command,
        }));
        try {
          await this.db.batch(
            entries.map((entry) => ({ type: 'put' as const, key: entryKey(entry.index), value: { term: entry.term, command: entry.command } })),
            { sync: true },
          );
        } catch (error) {
          const refused = new ProposalRefusedError('storage', `raft log write failed: ${(error as Error).message}`);
          for (const pending of batch) pending.reject(refused);
          continue;
        }
        this.lastIndex += entries.length;
        // Apply failures other than refusals are broken invariants: let them crash the process.
        const results = await this.stateMachine.apply(entries);
        batch.forEach((pending, i) => pending.resolve({ index: entries[i]!.index, result: results[i]! }));
      }
    } finally {
      this.writing = false;
      this.markIdle();
    }
  }
}

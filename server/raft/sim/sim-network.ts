// The simulated network: messages in flight with a delivery time, dropped, duplicated, delayed and reordered as the
// simulation's faults say, and directed links cut (one-way or both ways). Each process gets its own endpoint; a
// crashed process's endpoint sends and receives nothing more.
import type { Message, NodeId } from '../core/types.ts';
import type { RaftTransport } from '../node/raft-transport.ts';
import type { Random } from './seeded-random.ts';

export interface NetworkFaults {
  readonly drop: number;
  readonly duplicate: number;
  /** Longest delay, in simulated ms. */
  readonly maxDelayMs: number;
  /** Chance that a message is held much longer (a retransmission, a stalled connection), up to `longDelayMs`. */
  readonly longDelay: number;
  readonly longDelayMs: number;
}

interface InFlight {
  readonly message: Message;
  readonly deliverAt: number;
}

export class SimNetwork {
  private inFlight: InFlight[] = [];
  private readonly handlers = new Map<NodeId, (message: Message) => void>();
  /** Directed links that drop everything: `${from}>${to}`. */
  readonly cut = new Set<string>();
  faults: NetworkFaults = { drop: 0, duplicate: 0, maxDelayMs: 0, longDelay: 0, longDelayMs: 0 };
  readonly stats = { sent: 0, delivered: 0, dropped: 0 };
  /** Hears every message as it leaves its sender (the checkers of what a message may promise). */
  onSend: ((message: Message) => void) | undefined;

  constructor(
    private readonly random: Random,
    private readonly now: () => number,
    private readonly trace: (line: string) => void,
  ) {}

  /** A new process's endpoint; `kill` silences it for good. */
  endpoint(): SimEndpoint {
    return new SimEndpoint(this);
  }

  send(message: Message): void {
    this.stats.sent++;
    this.onSend?.(message);
    if (this.random.chance(this.faults.drop)) {
      this.stats.dropped++;
      return;
    }
    const copies = this.random.chance(this.faults.duplicate) ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      const longest = this.random.chance(this.faults.longDelay) ? this.faults.longDelayMs : this.faults.maxDelayMs;
      this.inFlight.push({ message, deliverAt: this.now() + this.random.int(longest + 1) });
    }
  }

  register(id: NodeId, handler: (message: Message) => void): void {
    this.handlers.set(id, handler);
  }

  unregister(id: NodeId, handler: (message: Message) => void): void {
    if (this.handlers.get(id) === handler) this.handlers.delete(id);
  }

  /** Drops every message in flight from or to `ids` (machines destroyed for good: nothing they sent arrives). */
  forget(ids: ReadonlySet<NodeId>): void {
    this.inFlight = this.inFlight.filter((item) => !ids.has(item.message.from) && !ids.has(item.message.to));
  }

  /** How many messages are due now. */
  due(): number {
    const now = this.now();
    let count = 0;
    for (const item of this.inFlight) if (item.deliverAt <= now) count++;
    return count;
  }

  /** Delivers up to `count` of the messages due, picked at random (reordering them). */
  deliverSome(count: number): void {
    const now = this.now();
    for (let i = 0; i < count; i++) {
      const due: number[] = [];
      this.inFlight.forEach((item, at) => item.deliverAt <= now && due.push(at));
      if (due.length === 0) return;
      const [item] = this.inFlight.splice(this.random.pick(due), 1);
      this.deliver(item!.message);
    }
  }

  /** Delivers every message due, in the order sent. */
  deliverDue(): void {
    const now = this.now();
    const due = this.inFlight.filter((item) => item.deliverAt <= now);
    this.inFlight = this.inFlight.filter((item) => item.deliverAt > now);
    for (const item of due) this.deliver(item.message);
  }

  private deliver(message: Message): void {
    const handler = this.handlers.get(message.to);
    if (!handler || this.cut.has(`${message.from}>${message.to}`)) {
      this.stats.dropped++;
      return;
    }
    this.stats.delivered++;
    this.trace(`deliver ${describeMessage(message)}`);
    handler(message);
  }
}

export class SimEndpoint implements RaftTransport {
  private alive = true;
  private registered: { id: NodeId; handler: (message: Message) => void } | undefined;

  constructor(private readonly network: SimNetwork) {}

  send(message: Message): void {
    if (this.alive) this.network.send(message);
  }

  listen(id: NodeId, handler: (message: Message) => void): void {
    if (!this.alive) return;
    this.registered = { id, handler };
    this.network.register(id, handler);
  }

  close(): void {
    this.kill();
  }

  kill(): void {
    this.alive = false;
    if (this.registered) this.network.unregister(this.registered.id, this.registered.handler);
  }
}

export function describeMessage(message: Message): string {
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

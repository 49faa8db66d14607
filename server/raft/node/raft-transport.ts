// How raft messages travel between nodes. The node only sends and receives; peers, TLS and framing live in the
// transport (an in-process one for tests and benchmarks here; mutually authenticated TLS for real clusters).
import type { Message, NodeId } from '../core/types.ts';

export interface RaftTransport {
  send(message: Message): void;
  /** Registers the node's handler for messages addressed to it. */
  listen(id: NodeId, handler: (message: Message) => void): void;
  close(id: NodeId): void;
}

/** Delivers messages between nodes of one process, asynchronously, as a network would. */
export class InProcessTransport implements RaftTransport {
  private readonly handlers = new Map<NodeId, (message: Message) => void>();
  /** Directed links that drop messages: `${from}>${to}` (for tests that cut a node off). */
  readonly cut = new Set<string>();

  send(message: Message): void {
    if (this.cut.has(`${message.from}>${message.to}`)) return;
    const handler = this.handlers.get(message.to);
    if (handler) queueMicrotask(() => this.handlers.get(message.to)?.(message));
  }

  listen(id: NodeId, handler: (message: Message) => void): void {
    this.handlers.set(id, handler);
  }

  close(id: NodeId): void {
    this.handlers.delete(id);
  }
}

// The peer channels as the controller's thread sees them when they run on the raft thread: requests and probes go
// over the port and are answered; a peer's request for the controller comes over and is answered back; the list
// of peers and their certificates is a mirror the raft thread refreshes; routers' control connections arrive as
// proxied sockets (proxied-socket.ts).
import type { NodeId } from '../core/types.ts';
import type { PeerChannels, PeerEventHandler, PeerHello, PeerStatus, RequestHandler } from '../transport/peer-network.ts';
import { ProxiedSocket } from './proxied-socket.ts';
import type { FromPeerThread, Port, ToPeerThread } from './worker-protocol.ts';

export class WorkerPeers implements PeerChannels {
  private current: readonly PeerStatus[] = [];
  private certificates: readonly string[] = [];
  private readonly eventHandlers: PeerEventHandler[] = [];
  private requestHandler: RequestHandler | undefined;
  private readonly calls = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly sockets = new Map<number, ProxiedSocket>();
  private nextCall = 1;
  private closed = false;

  constructor(
    readonly self: PeerHello,
    private readonly port: Port<ToPeerThread, FromPeerThread>,
    /** Takes a router's control connection (unset: refused). */
    private readonly acceptSocket?: (socket: ProxiedSocket) => void,
    /** Heartbeat round trips and send-queue times, per channel. */
    private readonly onTiming?: (kind: 'latency' | 'queue', channelId: string, ms: number) => void,
  ) {
    port.on('message', (message: FromPeerThread) => this.receive(message));
  }

  onPeerEvent(handler: PeerEventHandler): void {
    this.eventHandlers.push(handler);
  }

  onRequest(handler: RequestHandler): void {
    this.requestHandler = handler;
  }

  request(peer: NodeId, body: unknown, timeoutMs: number): Promise<unknown> {
    return this.call((call) => ({ type: 'request', call, peer, body, timeoutMs }));
  }

  probe(address: string, timeoutMs = 10_000): Promise<PeerHello> {
    return this.call((call) => ({ type: 'probe', call, address, timeoutMs })) as Promise<PeerHello>;
  }

  presentedCertificates(): string[] {
    return [...this.certificates];
  }

  peers(): PeerStatus[] {
    return [...this.current];
  }

  isConnected(id: NodeId): boolean {
    return this.current.some((peer) => peer.id === id && peer.connected);
  }

  /** The raft thread stopped: what is still asked is refused, proxied sockets close. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const call of this.calls.values()) call.reject(new Error('the peer channels are closed'));
    this.calls.clear();
    for (const socket of this.sockets.values()) socket.remoteClose('the control port closed');
    this.sockets.clear();
  }

  private call(make: (call: number) => ToPeerThread): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the peer channels are closed'));
    const call = this.nextCall++;
    return new Promise((resolve, reject) => {
      this.calls.set(call, { resolve, reject });
      this.port.postMessage(make(call));
    });
  }

  private receive(message: FromPeerThread): void {
    switch (message.type) {
      case 'answer': {
        const call = this.calls.get(message.call);
        this.calls.delete(message.call);
        if (message.ok) call?.resolve(message.value);
        else call?.reject(new Error(message.error ?? 'failed'));
        return;
      }
      case 'peerEvent':
        for (const handler of this.eventHandlers) handler(message.event, message.peer);
        return;
      case 'peerRequest':
        void this.answer(message.rid, message.from, message.body);
        return;
      case 'peers':
        this.current = message.peers;
        if (message.certificates) this.certificates = message.certificates;
        return;
      case 'timing':
        this.onTiming?.(message.kind, message.channelId, message.ms);
        return;
      case 'socketOpen': {
        const socket = new ProxiedSocket(message, (out) => this.port.postMessage(out));
        if (!this.acceptSocket || this.closed) {
          socket.destroy();
          return;
        }
        this.sockets.set(message.sid, socket);
        socket.once('close', () => this.sockets.delete(message.sid));
        this.acceptSocket(socket);
        return;
      }
      case 'socketData':
        this.sockets.get(message.sid)?.received(message.chunk);
        return;
      case 'socketClosed':
        this.sockets.get(message.sid)?.remoteClose(message.error);
        this.sockets.delete(message.sid);
        return;
    }
  }

  private async answer(rid: number, from: PeerHello, body: unknown): Promise<void> {
    try {
      if (!this.requestHandler) throw new Error('no request handler');
      const value = await this.requestHandler(from, body);
      this.port.postMessage({ type: 'requestAnswer', rid, ok: true, value });
    } catch (error) {
      this.port.postMessage({ type: 'requestAnswer', rid, ok: false, error: (error as Error).message });
    }
  }
}

// Controller-to-controller channels: mutually authenticated TLS on the control address, peers identified by the
// SPIFFE id in their certificates, length-prefixed JSON frames. Each channel exchanges hellos (id, address,
// version, preferred-leader flag), carries raft messages (a snapshot in parts: snapshot-transfer.ts),
// request/response calls (join, forwarded writes) and heartbeats that measure round trip and send-queue time; a
// channel silent for closeUnresponsiveTimeout is closed. Each channel is the common framed connection
// (common/channel/). It is the raft node's transport. Channels peers open arrive through the control port
// (server/control-port/control-port.ts, `accept`); this network dials its own.
//
// A certificate of the trust domain authenticates a controller; membership authorizes it. Once this node has a
// raft configuration (setConfiguration), raft messages and requests are taken only from its members (a node
// being added is a member from the moment its entry is appended), and a raft message must name the channel's own
// peer as its sender; only the requests `openToNonMembers` names (the `cluster add` probe) come from anyone of the
// trust domain. A new node without a configuration takes raft messages from any controller, so a member can add it.
// After the hello, frames are held to peerFrameLimits.
import { randomUUID } from 'node:crypto';
import { connect, type TLSSocket } from 'node:tls';
import type { Logger } from '../../../common/log/logger.ts';
import type { Configuration, Message, NodeId } from '../core/types.ts';
import type { RaftTransport } from '../node/raft-transport.ts';
import { spiffeIdOf } from '../../../common/pki/spiffe-id.ts';
import { jsonFrameCodec } from '../../../common/channel/channel-codec.ts';
import { FramedConnection } from '../../../common/channel/framed-connection.ts';
import { PendingRequests } from '../../../common/channel/pending-requests.ts';
import { encodeJsonFrame, maxFrameBytes } from '../../../common/framing/frame-codec.ts';
import { peerFrameLimits } from '../../../common/framing/frame-limits.ts';
import { presentedPem } from '../../control-port/presented-pem.ts';
import { RefusalLog, suppressedField } from '../../control-port/refusal-log.ts';
import { tlsFailureLine } from '../../control-port/tls-failure-text.ts';
import { keepReceivedEntryTexts, raftFrameJson } from './raft-frame.ts';
import { sendSnapshotInParts, SnapshotAssembly, type SnapshotMessage } from './snapshot-transfer.ts';

export interface PeerHello {
  readonly id: NodeId;
  readonly address: string;
  readonly version: string;
  readonly preferred: boolean;
}

export interface PeerStatus extends PeerHello {
  readonly connected: boolean;
  readonly latencyMs?: number;
}

export interface HeartbeatOptions {
  readonly sendIntervalMs: number;
  readonly checkIntervalMs: number;
  readonly closeUnresponsiveTimeoutMs: number;
}

export interface PeerNetworkOptions {
  readonly self: PeerHello;
  readonly tls: { readonly certPem: string; readonly keyPem: string; readonly caPem: string };
  readonly trustDomain: string;
  readonly heartbeat: HeartbeatOptions;
  readonly logger: Logger;
  readonly onLatency?: (channelId: string, ms: number) => void;
  readonly onQueueTime?: (channelId: string, ms: number) => void;
  /** The largest frame sent or accepted (default 256 MiB); snapshots leave in parts below it. */
  readonly maxFrameBytes?: number;
  /** Requests a controller that is not a member may make; every other request needs membership. Unset: none. */
  readonly openToNonMembers?: (body: unknown) => boolean;
}

/** A refusal of the same peer is logged at most this often. */
const refusalLogIntervalMs = 30_000;

type Frame =
  | { type: 'hello'; hello: PeerHello }
  | { type: 'raft'; message: Message }
  | { type: 'req'; rid: string; body: unknown }
  | { type: 'res'; rid: string; ok: boolean; value?: unknown; error?: string }
  | { type: 'snapBegin'; tid: string; message: SnapshotMessage }
  | { type: 'snapPart'; tid: string; path: string[]; items: unknown[] }
  | { type: 'snapEnd'; tid: string; parts: number };

const maxHeldPerPeer = 1024;

export type RequestHandler = (from: PeerHello, body: unknown) => Promise<unknown>;
export type PeerEventHandler = (event: 'connected' | 'disconnected', peer: PeerHello) => void;

/** What the cluster's services use of the peer channels: PeerNetwork itself, or its mirror on the controller's
 * thread when the channels run on the raft thread (raft/worker/worker-peers.ts). */
export interface PeerChannels {
  readonly self: PeerHello;
  onPeerEvent(handler: PeerEventHandler): void;
  onRequest(handler: RequestHandler): void;
  request(id: NodeId, body: unknown, timeoutMs: number): Promise<unknown>;
  probe(address: string, timeoutMs?: number): Promise<PeerHello>;
  presentedCertificates(): string[];
  peers(): PeerStatus[];
  isConnected(id: NodeId): boolean;
}

class Channel {
  peer: PeerHello | undefined;
  readonly connection: FramedConnection;
  private readonly frameLimit: number;
  /** Set while a snapshot leaves in parts: raft sends a snapshot again when one takes long, and that copy is dropped. */
  private sendingSnapshot = false;
  /** A snapshot arriving in parts. */
  receiving: SnapshotAssembly | undefined;
  closed = false;

  constructor(
    readonly socket: TLSSocket,
    readonly outbound: boolean,
    private readonly network: PeerNetwork,
    private readonly options: PeerNetworkOptions,
  ) {
    this.frameLimit = options.maxFrameBytes ?? maxFrameBytes;
    // Raft messages are small and latency-bound: Nagle's delay plus delayed ACKs would add tens of milliseconds.
    socket.setNoDelay(true);
    this.connection = new FramedConnection(socket, {
      codec: jsonFrameCodec({ limits: { ...peerFrameLimits, maxBytes: this.frameLimit }, withText: keepReceivedEntryTexts }),
      // Frames sent in the same tick (a leader's appends, a burst of answers) leave as one write.
      writes: 'coalesce',
      reasons: { silent: (_silentMs, limitMs) => `no traffic for ${limitMs} ms (closeUnresponsiveTimeout)` },
      onRefusedFrame: (message) =>
        this.options.logger.warn('peer channel closed: it sent a frame over the limits or not JSON', { peerId: this.channelId, remote: socket.remoteAddress, reason: `bad frame: ${message}` }),
    });
    network.track(this);
    this.connection.onFrame((frame) => {
      if (!this.closed) this.network.handleFrame(this, frame as Frame);
    });
    this.connection.onClose((reason) => this.ended(reason));
    this.send({ type: 'hello', hello: options.self });
    const { sendIntervalMs, checkIntervalMs, closeUnresponsiveTimeoutMs } = options.heartbeat;
    this.connection.startHeartbeat(
      { sendIntervalMs, checkIntervalMs, unresponsiveMs: closeUnresponsiveTimeoutMs },
      {
        roundTrip: (ms) => this.options.onLatency?.(this.channelId, ms),
        ...(this.options.onQueueTime ? { queued: (ms: number) => this.options.onQueueTime!(this.channelId, ms) } : {}),
      },
    );
  }

  get channelId(): string {
    return this.peer?.id ?? 'unidentified';
  }

  send(frame: Frame): void {
    this.sendJson(frame.type === 'raft' ? raftFrameJson(frame.message) : JSON.stringify(frame));
  }

  /** A raft message; a snapshot leaves in parts (snapshot-transfer.ts), one transfer at a time. */
  sendRaft(message: Message): void {
    if (this.closed) return;
    if (message.type !== 'Snapshot') {
      this.send({ type: 'raft', message });
      return;
    }
    if (this.sendingSnapshot) return;
    this.sendingSnapshot = true;
    const started = performance.now();
    const { index, term } = message.snapshot.meta;
    const sink = { send: (json: string) => this.sendJson(json), ready: () => this.readyForMore() };
    sendSnapshotInParts(message, randomUUID(), sink, this.frameLimit)
      .then(
        (parts) => {
          if (parts !== undefined) this.options.logger.info('raft snapshot sent', { peerId: this.channelId, index, term, parts, ms: Math.round(performance.now() - started) });
        },
        (error: Error) => this.options.logger.error('raft snapshot send failed', { peerId: this.channelId, index, term, error: error.message }),
      )
      .finally(() => {
        this.sendingSnapshot = false;
      });
  }

  private sendJson(json: string): void {
    if (!this.closed) this.connection.sendEncoded(encodeJsonFrame(json, this.frameLimit));
  }

  /** After a snapshot part: lets the event loop run (the part leaves meanwhile), then waits while the socket is
   * backed up, so a transfer holds at most a socket buffer's worth of encoded parts; false once the channel closed. */
  private async readyForMore(): Promise<boolean> {
    await new Promise((resolve) => setImmediate(resolve));
    return this.connection.drained();
  }

  close(reason: string): void {
    this.connection.close(reason);
  }

  private ended(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    this.network.channelClosed(this, reason);
  }
}

export class PeerNetwork implements RaftTransport, PeerChannels {
  /** Channels this node opened: everything it sends to a peer goes over its own outbound channel. */
  private readonly channels = new Map<NodeId, Channel>();
  /** Channels peers opened to this node: what they send arrives here. Either kind counts as connected. */
  private readonly inbound = new Map<NodeId, Set<Channel>>();
  private readonly dialing = new Map<NodeId, Promise<Channel | undefined>>();
  private readonly addresses = new Map<NodeId, string>();
  private readonly known = new Map<NodeId, PeerHello>();
  /** The leaf certificate (PEM) each identified peer last presented: its names are kept off routers' certificates. */
  private readonly presented = new Map<NodeId, string>();
  /** Every open channel, identified or not: shutdown must end them all or the server never finishes closing. */
  private readonly open = new Set<Channel>();
  /** Raft messages waiting for a channel that is being opened. */
  private readonly held = new Map<NodeId, Message[]>();
  private readonly pendingRequests = new PendingRequests<string>(randomUUID);
  private raftHandler: ((message: Message) => void) | undefined;
  private requestHandler: RequestHandler | undefined;
  private readonly peerEvents: PeerEventHandler[] = [];
  private closed = false;
  /** The members of this node's raft configuration; undefined while it has none (a new node). */
  private members: ReadonlySet<NodeId> | undefined;
  private readonly refusals = new RefusalLog(refusalLogIntervalMs, Date.now);

  constructor(private readonly options: PeerNetworkOptions) {
  }

  get self(): PeerHello {
    return this.options.self;
  }

  /** A channel a peer opened, handed over by the control port (its certificate names a controller of our domain). */
  accept(socket: TLSSocket): void {
    if (this.closed || !this.identify(socket)) {
      socket.destroy();
      return;
    }
    new Channel(socket, false, this, this.options);
  }

  /** Where each member can be dialled (from the raft configuration). */
  setAddresses(addresses: Readonly<Record<NodeId, string>>): void {
    for (const [id, address] of Object.entries(addresses)) if (id !== this.options.self.id) this.addresses.set(id, address);
  }

  /** The raft configuration as this node has it now (uncommitted entries included): its members' addresses, and
   * who may send raft messages and requests. Called at start and on every change. */
  setConfiguration(configuration: Configuration): void {
    this.setAddresses(configuration.addresses ?? {});
    const members = [...configuration.voters, ...configuration.nonVoters];
    this.members = members.length === 0 ? undefined : new Set(members);
  }

  onPeerEvent(handler: PeerEventHandler): void {
    this.peerEvents.push(handler);
  }

  onRequest(handler: RequestHandler): void {
    this.requestHandler = handler;
  }

  // RaftTransport
  listen(_id: NodeId, handler: (message: Message) => void): void {
    this.raftHandler = handler;
  }

  close(_id?: NodeId): void {
    void this.shutdown();
  }

  send(message: Message): void {
    const channel = this.channels.get(message.to);
    if (channel && !channel.closed) {
      channel.sendRaft(message);
      return;
    }
    // Hold what is sent while the channel is being opened (a new leader's first votes and appends would
    // otherwise be lost and cost a whole election timeout); raft tolerates the loss if the dial fails.
    let held = this.held.get(message.to);
    if (!held) this.held.set(message.to, (held = []));
    if (held.length < maxHeldPerPeer) held.push(message);
    void this.channelTo(message.to).then((opened) => {
      const waiting = this.held.get(message.to) ?? [];
      this.held.delete(message.to);
      if (opened && !opened.closed) for (const pending of waiting) opened.sendRaft(pending);
    });
  }

  /** Calls `body` on peer `id` and waits for its answer. */
  async request(id: NodeId, body: unknown, timeoutMs: number): Promise<unknown> {
    const channel = await this.channelTo(id);
    if (!channel) throw new Error(`no channel to ${id}`);
    return this.pendingRequests.open(timeoutMs, `peer ${id} did not answer within ${timeoutMs} ms`, (rid) => {
      channel.send({ type: 'req', rid, body });
      return true;
    });
  }

  /** Dials an address, completes the handshake and returns the peer's hello (the `cluster add` probe). */
  async probe(address: string, timeoutMs = 10_000): Promise<PeerHello> {
    const channel = await this.dial(address, undefined, timeoutMs);
    if (!channel?.peer) throw new Error(`could not reach a controller at ${address}`);
    return channel.peer;
  }

  /** The certificates peers have presented since this controller started, one per peer (the latest). */
  presentedCertificates(): string[] {
    return [...this.presented.values()];
  }

  peers(): PeerStatus[] {
    const ids = new Set([...this.addresses.keys(), ...this.known.keys()]);
    return [...ids].map((id) => {
      const hello = this.known.get(id);
      return {
        id,
        address: hello?.address ?? this.addresses.get(id) ?? '',
        version: hello?.version ?? '',
        preferred: hello?.preferred ?? false,
        connected: this.isConnected(id),
      };
    });
  }

  isConnected(id: NodeId): boolean {
    const channel = this.channels.get(id);
    if (channel !== undefined && !channel.closed) return true;
    for (const inbound of this.inbound.get(id) ?? []) if (!inbound.closed) return true;
    return false;
  }

  async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const channel of [...this.open]) channel.close('shutting down');
    this.pendingRequests.rejectAll('shutting down');
  }

  // ---- internals (used by Channel) ---------------------------------------------------------------------------

  handleFrame(channel: Channel, frame: Frame): void {
    if (typeof frame !== 'object' || frame === null || typeof frame.type !== 'string') {
      this.options.logger.warn('peer channel closed: it sent a frame over the limits or not JSON', { peerId: channel.channelId, remote: channel.socket.remoteAddress, reason: 'bad frame: not a peer frame' });
      channel.close('bad frame: not a peer frame');
      return;
    }
    if (!channel.peer && frame.type !== 'hello') {
      channel.close('expected hello as the first frame');
      return;
    }
    switch (frame.type) {
      case 'hello': {
        if (!isHello(frame.hello)) {
          this.logRefusal(`badhello|${channel.socket.remoteAddress}`, 'peer refused: malformed hello', { remote: channel.socket.remoteAddress });
          channel.close('malformed hello');
          return;
        }
        const certified = this.identify(channel.socket);
        if (!certified || certified !== frame.hello.id) {
          this.options.logger.warn('peer refused: its hello does not match its certificate', { claimed: frame.hello.id, certificate: certified });
          channel.close('identity mismatch');
          return;
        }
        const wasConnected = this.isConnected(frame.hello.id);
        channel.peer = frame.hello;
        this.known.set(frame.hello.id, frame.hello);
        // Each direction has its own connection, so cutting the links into one controller partitions it even
        // though it can still reach the others.
        if (channel.outbound) {
          const existing = this.channels.get(frame.hello.id);
          if (existing && existing !== channel && !existing.closed) existing.close('replaced by a newer channel');
          this.channels.set(frame.hello.id, channel);
        } else {
          let set = this.inbound.get(frame.hello.id);
          if (!set) this.inbound.set(frame.hello.id, (set = new Set()));
          set.add(channel);
        }
        if (!wasConnected) {
          this.options.logger.info('peer connected', { peerId: frame.hello.id, address: frame.hello.address, version: frame.hello.version });
          for (const handler of this.peerEvents) handler('connected', frame.hello);
        }
        return;
      }
      case 'raft':
        if (this.admitsRaft(channel, frame.message)) this.raftHandler?.(frame.message);
        return;
      case 'req': {
        const from = channel.peer;
        if (!from || !this.requestHandler) {
          channel.send({ type: 'res', rid: frame.rid, ok: false, error: 'not ready' });
          return;
        }
        if (!this.isMember(from.id) && !(this.options.openToNonMembers?.(frame.body) ?? false)) {
          this.refuseNonMember(from.id, `request ${requestKind(frame.body)}`);
          channel.send({ type: 'res', rid: frame.rid, ok: false, error: `${this.options.self.id} refused the request: ${from.id} is not a member of its cluster` });
          return;
        }
        this.requestHandler(from, frame.body).then(
          (value) => channel.send({ type: 'res', rid: frame.rid, ok: true, value }),
          (error: Error) => channel.send({ type: 'res', rid: frame.rid, ok: false, error: error.message }),
        );
        return;
      }
      case 'snapBegin':
        // A transfer from a sender that may not send raft messages is never assembled; its parts find no transfer.
        if (!this.admitsRaft(channel, frame.message)) return;
        this.receiveSnapshotFrame(channel, frame);
        return;
      case 'snapPart':
      case 'snapEnd':
        this.receiveSnapshotFrame(channel, frame);
        return;
      case 'res':
        this.pendingRequests.answer(frame.rid, frame);
        return;
    }
  }

  /** A snapshot's frames from the leader (snapshot-transfer.ts); a transfer that does not add up closes the channel. */
  private receiveSnapshotFrame(channel: Channel, frame: Extract<Frame, { type: 'snapBegin' | 'snapPart' | 'snapEnd' }>): void {
    try {
      if (frame.type === 'snapBegin') {
        // A new transfer replaces one that never finished (its sender gave up on it).
        channel.receiving = SnapshotAssembly.begin(frame);
        return;
      }
      const assembly = channel.receiving;
      if (assembly === undefined || assembly.tid !== frame.tid) return;
      if (frame.type === 'snapPart') {
        assembly.add(frame.path, frame.items);
        return;
      }
      channel.receiving = undefined;
      this.raftHandler?.(assembly.finish(frame.parts));
    } catch (error) {
      channel.receiving = undefined;
      channel.close(`bad snapshot transfer: ${(error as Error).message}`);
    }
  }

  /** A raft message (or a snapshot's first frame) is taken when it names the channel's peer as its sender and
   * that peer is a member, or this node has no configuration yet (a member is adding it). */
  private admitsRaft(channel: Channel, message: { from?: unknown; type?: unknown } | undefined): boolean {
    const peer = channel.peer!.id;
    if (message?.from !== peer) {
      this.logRefusal(`sender|${peer}`, 'peer refused: its raft message names another sender', { peerId: peer, claimed: String(message?.from).slice(0, 64) });
      return false;
    }
    if (this.members !== undefined && !this.members.has(peer)) {
      this.refuseNonMember(peer, `raft ${String(message.type).slice(0, 64)}`);
      return false;
    }
    return true;
  }

  private isMember(id: NodeId): boolean {
    return this.members?.has(id) ?? false;
  }

  private refuseNonMember(peer: NodeId, refused: string): void {
    this.logRefusal(`member|${peer}`, 'peer refused: not a member of this cluster', { peerId: peer, refused });
  }

  /** A warning, at most once per refusalLogIntervalMs for each `source`, counting the ones left out. */
  private logRefusal(source: string, msg: string, fields: Record<string, unknown>): void {
    const suppressed = this.refusals.admit(source);
    if (suppressed !== undefined) this.options.logger.warn(msg, { ...fields, ...suppressedField(suppressed) });
  }

  track(channel: Channel): void {
    if (this.closed) channel.close('shutting down');
    else this.open.add(channel);
  }

  channelClosed(channel: Channel, reason: string): void {
    this.open.delete(channel);
    const peer = channel.peer;
    if (!peer) return;
    if (this.channels.get(peer.id) === channel) this.channels.delete(peer.id);
    this.inbound.get(peer.id)?.delete(channel);
    if (this.closed || this.isConnected(peer.id)) return;
    this.options.logger.info('peer disconnected', { peerId: peer.id, reason });
    for (const handler of this.peerEvents) handler('disconnected', peer);
    this.reachTheOthers(peer.id);
  }

  /**
   * A member went (its process died, say): an election may follow within a few ticks, and its votes must not wait
   * for dials. Followers talk only to their leader, so after a restart two followers may have no channel to each
   * other; each then dialled the other only once it campaigned, the two dials finished together, and both pre-votes
   * passed at once: a split vote, and a whole election timeout more (bench failover trials of ~1.5 s against
   * ~0.3 s). Dialling the other members now, when the loss is seen, has the channels up before either campaigns.
   */
  private reachTheOthers(gone: NodeId): void {
    if (!this.members) return;
    // channelTo keeps an open channel or a dial under way as it is.
    for (const id of this.members) if (id !== gone && id !== this.options.self.id) void this.channelTo(id);
  }

  private channelTo(id: NodeId): Promise<Channel | undefined> {
    const existing = this.channels.get(id);
    if (existing && !existing.closed) return Promise.resolve(existing);
    const inFlight = this.dialing.get(id);
    if (inFlight) return inFlight;
    const address = this.addresses.get(id) ?? this.known.get(id)?.address;
    if (!address || this.closed) return Promise.resolve(undefined);
    const dialed = this.dial(address, id, 5000).finally(() => this.dialing.delete(id));
    this.dialing.set(id, dialed);
    return dialed;
  }

  /** Opens a channel and waits for the peer's hello; undefined when it cannot be reached or is not `expected`. */
  private dial(address: string, expected: NodeId | undefined, timeoutMs: number): Promise<Channel | undefined> {
    const match = /^tls:(\[[^\]]+\]|[^:]+):(\d+)$/.exec(address);
    if (!match) return Promise.resolve(undefined);
    const host = match[1]!.replace(/^\[|\]$/g, '');
    const port = Number(match[2]);
    const { tls } = this.options;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (channel: Channel | undefined) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(channel);
      };
      const socket = connect({ host, port, cert: tls.certPem, key: tls.keyPem, ca: tls.caPem, rejectUnauthorized: true, checkServerIdentity: () => undefined, minVersion: 'TLSv1.2' });
      const timer = setTimeout(() => {
        socket.destroy();
        finish(undefined);
      }, timeoutMs);
      socket.once('secureConnect', () => {
        const certified = this.identify(socket);
        if (!certified || (expected !== undefined && certified !== expected)) {
          this.options.logger.warn('peer refused: its certificate names another controller', { address, expected, certificate: certified });
          socket.destroy();
          finish(undefined);
          return;
        }
        const channel = new Channel(socket, true, this, this.options);
        const waitForHello = setInterval(() => {
          if (channel.peer) {
            clearInterval(waitForHello);
            finish(channel);
          } else if (channel.closed) {
            clearInterval(waitForHello);
            finish(undefined);
          }
        }, 5);
      });
      socket.once('error', (error: Error & { code?: string }) => {
        if (error.code !== 'ECONNREFUSED' && error.code !== 'ECONNRESET' && error.code !== 'EHOSTUNREACH') {
          const failure = tlsFailureLine(error);
          this.options.logger.warn(failure.msg, { address, ...failure.fields });
        }
        finish(undefined);
      });
    });
  }

  /** The controller id in the peer's certificate, if it is a controller of our trust domain. */
  private identify(socket: TLSSocket): NodeId | undefined {
    const pem = presentedPem(socket);
    if (pem === undefined) return undefined;
    const spiffe = spiffeIdOf(pem);
    if (!spiffe || spiffe.kind !== 'controller' || spiffe.trustDomain !== this.options.trustDomain) return undefined;
    this.presented.set(spiffe.id, pem);
    return spiffe.id;
  }
}

function isHello(value: unknown): value is PeerHello {
  if (typeof value !== 'object' || value === null) return false;
  const { id, address, version, preferred } = value as Record<string, unknown>;
  return typeof id === 'string' && typeof address === 'string' && typeof version === 'string' && typeof preferred === 'boolean';
}

/** What a refused request asked for, for the log. */
function requestKind(body: unknown): string {
  const type = typeof body === 'object' && body !== null ? (body as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type.slice(0, 64) : 'of no known type';
}

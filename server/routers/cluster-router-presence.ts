// Which routers are connected to the cluster: this controller's own channels, plus what the other controllers
// answer to a `routers.connected` peer request (each asked with a short timeout; one that does not answer in time
// counts as having no routers). Every member is asked, not only those with a channel open now: raft opens channels
// only where it sends, so a restarted follower has none to the other followers until something asks. The remote part is cached briefly so a list request or a burst of
// router connections does not become a burst of peer requests. Controllers also tell each other when one of their
// routers comes or goes (`routers.event`), which refreshes the cache and reaches their own routers. The same answer
// carries the terminators each controller's routers registered (terminator-registry.ts), and a change to them is
// announced the same way, so the terminator list is this controller's own plus the cached answers.
import type { RouterInfo } from '../../common/control-channel/control-messages.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { RouterConnection, RouterPresence } from '../edge/router-presence.ts';
import type { TerminatorDirectory, TerminatorRecord } from '../edge/terminator-directory.ts';
import type { RouterLinkReport } from '../circuits/circuit-paths.ts';
import { readLinkReport, type RouterEvent, type RouterSummary } from './router-hub.ts';
import { edgeSessionsIn, type EdgeSessionRecord } from './edge-session-registry.ts';

export type RouterPeerRequest = { readonly type: 'routers.connected' } | { readonly type: 'routers.event'; readonly event: RouterEvent };

export function isRouterPeerRequest(body: unknown): body is RouterPeerRequest {
  const type = (body as { type?: unknown } | null)?.type;
  return type === 'routers.connected' || type === 'routers.event';
}

/** The part of the peer network this needs. */
export interface PeerCaller {
  peers(): ReadonlyArray<{ readonly id: string; readonly connected: boolean }>;
  request(id: string, body: unknown, timeoutMs: number): Promise<unknown>;
}

export interface ClusterRouterPresenceOptions {
  /** How long a peer has to answer (500 ms). */
  readonly requestTimeoutMs: number;
  /** How long the other controllers' answers are reused (1 s). */
  readonly cacheMs: number;
}

/** What one controller answers to `routers.connected`. */
export interface PeerRouters {
  readonly routers: RouterSummary[];
  readonly terminators: TerminatorRecord[];
  /** Their routers' links (absent from controllers from before circuits). */
  readonly links?: RouterLinkReport[];
  /** Which API sessions hold SDK edge channels on their routers (absent from controllers from before edge sessions). */
  readonly edgeSessions?: EdgeSessionRecord[];
}

export class ClusterRouterPresence implements RouterPresence, TerminatorDirectory {
  private cache: { at: number; answer: PeerRouters } | undefined;
  private inFlight: Promise<PeerRouters> | undefined;
  private generation = 0;

  constructor(
    private readonly selfId: string,
    private readonly peers: PeerCaller,
    private readonly local: () => RouterSummary[],
    private readonly localTerminators: () => TerminatorRecord[],
    private readonly localLinks: () => RouterLinkReport[],
    private readonly clock: Clock,
    private readonly options: ClusterRouterPresenceOptions,
  ) {}

  async connected(): Promise<ReadonlyMap<string, RouterConnection>> {
    const all = new Map<string, RouterConnection>();
    for (const summary of await this.remote()) all.set(summary.routerId, summary);
    // A router connected here is connected here, whatever a slower answer from elsewhere still says.
    for (const summary of this.local()) all.set(summary.routerId, summary);
    return all;
  }

  /** The routers connected to the other controllers, for a new router's welcome. */
  async otherRouters(): Promise<RouterInfo[]> {
    return (await this.remote()).map((summary) => ({ id: summary.routerId, name: summary.name, linkListeners: summary.linkListeners }));
  }

  /** Every terminator of the cluster: this controller's, then the others' (a router's own controller wins). */
  async list(): Promise<TerminatorRecord[]> {
    const all = new Map<string, TerminatorRecord>();
    for (const terminator of (await this.answers()).terminators) {
      const held = all.get(terminator.id);
      if (!held || held.updatedAt < terminator.updatedAt) all.set(terminator.id, terminator);
    }
    for (const terminator of this.localTerminators()) all.set(terminator.id, terminator);
    return [...all.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Every connected router's links: this controller's routers', then the others' (a router's own controller wins). */
  async linkReports(): Promise<RouterLinkReport[]> {
    const all = new Map<string, RouterLinkReport>();
    for (const report of (await this.answers()).links ?? []) all.set(report.routerId, report);
    for (const report of this.localLinks()) all.set(report.routerId, report);
    return [...all.values()];
  }

  /** The API sessions holding edge channels on the other controllers' routers (cached for `cacheMs`). */
  async remoteEdgeSessions(): Promise<EdgeSessionRecord[]> {
    return (await this.answers()).edgeSessions ?? [];
  }

  /** The other controllers' routers (cached for `cacheMs`). */
  async remote(): Promise<RouterSummary[]> {
    return (await this.answers()).routers;
  }

  private answers(): Promise<PeerRouters> {
    if (this.cache && this.clock.now() - this.cache.at < this.options.cacheMs) return Promise.resolve(this.cache.answer);
    if (this.inFlight) return this.inFlight;
    const generation = this.generation;
    const asked = this.askPeers().then((answer) => {
      if (generation === this.generation) this.cache = { at: this.clock.now(), answer };
      return answer;
    });
    this.inFlight = asked;
    void asked.finally(() => {
      if (this.inFlight === asked) this.inFlight = undefined;
    });
    return asked;
  }

  /** Forgets the cached answers (another controller told us something changed). */
  invalidate(): void {
    this.generation++;
    this.cache = undefined;
    this.inFlight = undefined;
  }

  /** Tells every other controller; nobody waits for the answers. */
  announce(event: RouterEvent): void {
    for (const peer of this.otherControllers()) this.withTimeout(this.peers.request(peer, { type: 'routers.event', event } satisfies RouterPeerRequest, this.options.requestTimeoutMs)).catch(() => undefined);
  }

  private async askPeers(): Promise<PeerRouters> {
    const answers = await Promise.all(
      this.otherControllers().map((peer) =>
        this.withTimeout(this.peers.request(peer, { type: 'routers.connected' } satisfies RouterPeerRequest, this.options.requestTimeoutMs)).then(
          (answer): PeerRouters => ({ routers: summariesIn(answer), terminators: terminatorsIn(answer), links: linkReportsIn(answer), edgeSessions: edgeSessionsIn(answer) }),
          (): PeerRouters => ({ routers: [], terminators: [], links: [], edgeSessions: [] }),
        ),
      ),
    );
    return {
      routers: answers.flatMap((answer) => answer.routers),
      terminators: answers.flatMap((answer) => answer.terminators),
      links: answers.flatMap((answer) => answer.links ?? []),
      edgeSessions: answers.flatMap((answer) => answer.edgeSessions ?? []),
    };
  }

  /** Every other member, connected or not: a request opens the channel it needs. */
  private otherControllers(): string[] {
    return this.peers
      .peers()
      .filter((peer) => peer.id !== this.selfId)
      .map((peer) => peer.id);
  }

  /** The request's own timeout starts once a channel is open; this bounds the dial too. */
  private withTimeout<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timeout')), this.options.requestTimeoutMs);
      promise.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }
}

/** A peer's answer, keeping only well-formed entries. */
export function summariesIn(answer: unknown): RouterSummary[] {
  const routers = (answer as { routers?: unknown } | null)?.routers;
  if (!Array.isArray(routers)) return [];
  return routers.filter(
    (item): item is RouterSummary =>
      typeof item === 'object' && item !== null && typeof item.routerId === 'string' && typeof item.controllerId === 'string' && Array.isArray(item.linkListeners),
  ).map((item) => ({
    routerId: item.routerId,
    controllerId: item.controllerId,
    version: typeof item.version === 'string' ? item.version : '',
    hostname: typeof item.hostname === 'string' ? item.hostname : '',
    supportedProtocols: typeof item.supportedProtocols === 'object' && item.supportedProtocols !== null ? item.supportedProtocols : {},
    connectedAt: typeof item.connectedAt === 'string' ? item.connectedAt : '',
    name: typeof item.name === 'string' ? item.name : item.routerId,
    linkListeners: item.linkListeners,
  }));
}

/** A peer's routers' links, keeping only well-formed reports. */
export function linkReportsIn(answer: unknown): RouterLinkReport[] {
  const reports = (answer as { links?: unknown } | null)?.links;
  if (!Array.isArray(reports)) return [];
  const result: RouterLinkReport[] = [];
  for (const item of reports) {
    const routerId = (item as { routerId?: unknown } | null)?.routerId;
    const links = readLinkReport((item as { links?: unknown } | null)?.links);
    if (typeof routerId === 'string' && links !== undefined) result.push({ routerId, links });
  }
  return result;
}

/** A peer's terminators, keeping only well-formed entries (a controller from before terminators sends none). */
export function terminatorsIn(answer: unknown): TerminatorRecord[] {
  const terminators = (answer as { terminators?: unknown } | null)?.terminators;
  if (!Array.isArray(terminators)) return [];
  const text = (value: unknown) => typeof value === 'string';
  return terminators
    .filter(
      (item): item is TerminatorRecord =>
        typeof item === 'object' &&
        item !== null &&
        ['id', 'serviceId', 'routerId', 'binding', 'address', 'identity', 'createdAt', 'updatedAt', 'controllerId'].every((key) => text(item[key])) &&
        typeof item.cost === 'number' &&
        ['default', 'required', 'failed'].includes(item.precedence),
    )
    .map((item) => ({
      id: item.id,
      serviceId: item.serviceId,
      routerId: item.routerId,
      binding: item.binding,
      address: item.address,
      identity: item.identity,
      cost: item.cost,
      precedence: item.precedence,
      createdAt: item.createdAt,
      updatedAt: item.updatedAt,
      controllerId: item.controllerId,
    }));
}

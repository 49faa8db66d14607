// The contract between the router's run driver (router/run/, owned by the router-run work) and the link manager
// (router/links/link-manager.ts, owned by the links work). The run driver creates one LinkManager at start with
// `createLinkManager` (a LinkManagerFactory), feeds it what the control channel learns, and reads its links for the
// link health check, the `router.links` frame and the `link.*` metrics.
//
// Call order the run driver guarantees:
// - `start()` once, before any other call but `links()`; `stop()` once at shutdown (after it, no further calls).
// - `onControllerConnected(true)` each time a control channel is welcomed, `onControllerConnected(false)` when it
//   is lost (the link manager may switch its dial policy between healthy and unhealthy backoff on this).
// - `knownRouters(routers)` with the `routers` of every `ctrl.welcome` (the routers connected to the cluster now;
//   a full list — routers not in it are not known to be connected any more).
// - `routerConnected(info)` / `routerDisconnected(id)` for each router of a `ctrl.routersChanged` (or for
//   `ctrl.routerConnected` / `ctrl.routerDisconnected`, from a controller of an earlier version).
// - `links()` may be called at any time (health check, metrics); it must be cheap and synchronous.
// - `refusePeers(policy)` with each edge model the controller sends (the routers that may be link peers).
// - `onLinksChanged(listener)` registers listeners called whenever the set of links or their latencies change
//   (the run driver then sends `router.links`).
// Listeners the manager never calls are fine; a manager must not throw from these calls (log instead).

import type { Logger } from '../../common/log/logger.ts';
import type { RouterInfo } from '../../common/control-channel/control-messages.ts';
import type { RouterConfig } from '../config/router-config.ts';
import type { LinkPeerPolicy } from './link-peer-policy.ts';

export type { RouterInfo } from '../../common/control-channel/control-messages.ts';

export interface LinkInfo {
  readonly id: string;
  readonly destRouterId: string;
  /** Last measured round trip in ms, null before the first measurement. */
  readonly latencyMs: number | null;
  /** `host:port` of this end. */
  readonly localAddr: string;
  /** `host:port` of the other end. */
  readonly remoteAddr: string;
  /** Bytes written to and read from the link's connections since it came up. */
  readonly bytesSent?: number;
  readonly bytesReceived?: number;
  /** The ends of each of the link's connections by kind: `single`, or `payload` and `ack` for a split link. */
  readonly addresses?: Readonly<Partial<Record<'single' | 'payload' | 'ack', { readonly localAddr: string; readonly remoteAddr: string }>>>;
}

export interface LinkManagerApi {
  start(): Promise<void>;
  stop(): Promise<void>;
  onControllerConnected(connected: boolean): void;
  routerConnected(info: RouterInfo): void;
  routerDisconnected(routerId: string): void;
  knownRouters(routers: readonly RouterInfo[]): void;
  links(): ReadonlyArray<LinkInfo>;
  onLinksChanged(listener: () => void): void;
  /** The live link with this id (circuits forward over it), or undefined. */
  linkById(id: string): CircuitLink | undefined;
  /** Circuit frames (everything but heartbeats) arriving on any link go to `handler`. */
  onCircuitFrame(handler: (link: CircuitLink, frame: unknown) => void): void;
  /** Called once for each link that closes (circuits over it end). */
  onLinkClosed(handler: (link: CircuitLink) => void): void;
  /**
   * Which routers may be link peers from now on (link-peer-policy.ts, from each edge model): live links to a refused
   * router are closed, its dials stop, and its new links are refused.
   */
  refusePeers(policy: LinkPeerPolicy): void;
}

/** What circuits need of a live link. */
export interface CircuitLink {
  readonly id: string;
  readonly destRouterId: string;
  readonly closed: boolean;
  /** Circuit control on the payload connection, acknowledgements on the ack connection of a split link. */
  send(frame: CircuitControlFrame, lane?: 'payload' | 'ack'): void;
  /** One circuit's bytes (one buffer, or the parts a data frame was read in), uncopied; `onWritten`: called once the
   * connection's socket has taken them (or failed to). */
  sendData(circuitId: string, data: Buffer | readonly Buffer[], onWritten?: () => void): void;
  /** Bytes queued on the payload connection. */
  readonly pendingBytes: number;
  /** Stop (and start again) reading the payload connection: the forwarder's transit backpressure. */
  pauseReading(): void;
  resumeReading(): void;
}

/** PEM texts, already loaded from the identity section (file: or pem:). */
export interface LinkTlsMaterial {
  /** Client certificate used when dialing other routers' link listeners. */
  readonly certPem: string;
  readonly keyPem: string;
  /** Served on the link listeners. */
  readonly serverCertPem: string;
  readonly serverKeyPem: string;
  /** Trust for the peers' certificates (the controller's CA bundle, `identity.ca`). */
  readonly caPem: string;
}

export interface LinkManagerOptions {
  readonly config: RouterConfig;
  /** This router's id (common name of its certificate). */
  readonly routerId: string;
  readonly tls: LinkTlsMaterial;
  readonly logger: Logger;
}

export type LinkManagerFactory = (options: LinkManagerOptions) => LinkManagerApi;

/** A circuit frame as links carry it: JSON with a `type` (router/circuits/circuit-frames.ts). */
export interface CircuitControlFrame {
  readonly type: string;
  readonly [key: string]: unknown;
}

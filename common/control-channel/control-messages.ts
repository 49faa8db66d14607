// The router control channel: what a router and a controller say to each other over mutual TLS on the controller's
// control address (`tls:<host>:<port>`, the address controllers also use among themselves). Frames are the
// length-prefixed JSON of common/framing/frame-codec.ts. The router speaks first (`router.hello`); the controller
// answers `ctrl.welcome` or closes the connection after `ctrl.refused`.
//
// Identity: the router's client certificate (issued at enrollment by the controller's enrollment CA; its common
// name is the router's id) must chain to the controller's CA bundle and belong to an enrolled, enabled edge router.
// The router checks the controller's server certificate against its own `identity.ca`, and that it is a
// controller's (router/run/controller-identity.ts).

/** A link listener a router offers to other routers: they dial `advertise` when they share one of its `groups`. */
export interface LinkListenerInfo {
  readonly binding: 'transport';
  /** `tls:<host>:<port>` */
  readonly advertise: string;
  readonly groups: readonly string[];
}

/** A controller of the cluster, as routers save it in their endpoints file. */
export interface ControllerEndpoint {
  readonly id: string;
  /** `tls:<host>:<port>` */
  readonly address: string;
}

export interface RouterInfo {
  readonly id: string;
  readonly name: string;
  readonly linkListeners: readonly LinkListenerInfo[];
  /**
   * SHA-1 (lowercase hex) of the client certificate the router enrolled with, and of its server certificate when
   * the controller recorded it: the certificates other routers accept on its links. Absent when unknown.
   */
  readonly fingerprint?: string;
  readonly serverFingerprint?: string;
}

/** Router → controller, first frame. */
export interface RouterHello {
  readonly type: 'router.hello';
  readonly routerId: string;
  readonly version: string;
  readonly linkListeners: readonly LinkListenerInfo[];
  /** Optional: the router host's name, shown as the edge router's `hostname` in the management API. */
  readonly hostname?: string;
  /**
   * Optional: the router's edge listeners, protocol → advertise URL (`{tls: "tls://router1.example:3022"}`, as
   * OpenZiti edge routers report them), shown as the edge router's `supportedProtocols`. edgeward routers always send
   * it (`{}` when they have no edge listener).
   */
  readonly supportedProtocols?: Readonly<Record<string, string>>;
  /**
   * Optional: true when the router applies `ctrl.edgeModelDelta`. The controller then sends it the whole model once
   * (at the welcome) and only the changed rows after; a router without it gets the whole model on every change.
   */
  readonly edgeModelDeltas?: boolean;
  /**
   * Optional: true when the router verifies routes signed in batches (one signature over the root of a hash tree of
   * the routes a controller answered in one turn, each route with its path: common/circuits/route-batch.ts). The
   * controller signs a route in a batch only when every router on its path said so; others get a route signed alone.
   * It also marks the routes of such an ingress `readyBatches`: their egress may sign its `c.ready`s of one turn
   * together (router/circuits/ready-proof.ts), which only such an ingress verifies.
   */
  readonly routeBatches?: boolean;
  /**
   * Optional: true when the router applies `ctrl.routersChanged`. The controller then tells it of other routers'
   * arrivals and departures in one message per short interval (not one `ctrl.routerConnected` per router), and, in
   * those and in its welcome, only of routers it may form a link with (see `linkDialerGroups`).
   */
  readonly routersChanged?: boolean;
  /**
   * With `routersChanged`: the groups of the router's link dialers (`[]`: it dials no links). A router is told of
   * another when one of them may dial the other (a dialer and a link listener share a group): the one that dials
   * needs the listener's address and server fingerprint, the one that listens the dialer's client fingerprint.
   * Absent: the router may dial any listener.
   */
  readonly linkDialerGroups?: readonly string[];
}

/** Controller → router: accepted. `members` is the cluster (this controller included), for the endpoints file. */
export interface CtrlWelcome {
  readonly type: 'ctrl.welcome';
  readonly controllerId: string;
  readonly members: readonly ControllerEndpoint[];
  /** The other routers connected to the cluster now, to dial at once (healthy policy); to a router whose hello said
   * `routersChanged`, only those it may form a link with. */
  readonly routers: readonly RouterInfo[];
}

/** Controller → router: refused (unknown or disabled router, bad hello); the controller then closes the channel. */
export interface CtrlRefused {
  readonly type: 'ctrl.refused';
  readonly reason: string;
  /**
   * True when the router itself was disabled or deleted (not merely a bad hello or certificate): the router closes
   * every circuit it holds at once, both ends reset. Absent from controllers from before revocation.
   */
  readonly revoked?: boolean;
}

/**
 * Controller → router: close these circuits now, both ends reset: what they were dialed with was revoked (the API
 * session ended, the identity was disabled or deleted, the Dial access or its posture was lost, the service was
 * deleted). Sent to the circuits' ingress router by the controller holding its control channel; ids the router does
 * not hold are ignored. At most `maxRevokedCircuitsPerMessage` ids per message.
 */
export interface CtrlCircuitClose {
  readonly type: 'ctrl.circuitClose';
  readonly circuitIds: readonly string[];
  readonly code: CircuitRevocationCode;
  /** Why, for the router's log; never shown to the client. */
  readonly reason: string;
}

/** Why a controller closed live circuits (`ctrl.circuitClose`'s `code`). */
/** ROUTER_POLICY_REVOKED: an edge router policy no longer lets the identity use the ingress, or a service edge router policy the service use a router of the path. */
export type CircuitRevocationCode = 'SESSION_REVOKED' | 'IDENTITY_REVOKED' | 'ACCESS_REVOKED' | 'POSTURE_REVOKED' | 'SERVICE_REVOKED' | 'ROUTER_REVOKED' | 'ROUTER_POLICY_REVOKED';
export const circuitRevocationCodes: readonly CircuitRevocationCode[] = ['SESSION_REVOKED', 'IDENTITY_REVOKED', 'ACCESS_REVOKED', 'POSTURE_REVOKED', 'SERVICE_REVOKED', 'ROUTER_REVOKED', 'ROUTER_POLICY_REVOKED'];
export const maxRevokedCircuitsPerMessage = 1000;

/** Controller → router whenever the cluster's membership changes. */
export interface CtrlMembers {
  readonly type: 'ctrl.members';
  readonly members: readonly ControllerEndpoint[];
}

/** Controller → router: SDK-hosted terminators the model no longer allows (their Binds are closed by the router). */
export interface CtrlSdkTerminatorsRemoved {
  readonly type: 'ctrl.sdkTerminatorsRemoved';
  readonly terminatorIds: readonly string[];
}

/**
 * Controller → router: API sessions that ended (revoked, logged out, identity disabled or deleted) while they held SDK
 * edge channels on the router, as it reported them (`router.edgeSessions`); the router closes those channels. At most
 * `maxEdgeSessionsPerMessage` per message; a reason each (for the router's log).
 */
export interface CtrlEdgeSessionsEnded {
  readonly type: 'ctrl.edgeSessionsEnded';
  readonly sessions: ReadonlyArray<{ readonly apiSessionId: string; readonly reason: string }>;
}

/**
 * Router → controller: an SDK's Bind on an edge listener. Answered `{terminator}` (with its id and `sdk:<id>` address)
 * or `{refused: {code, message}}`. `terminatorId`: the id the router already hosts it under (a bind sent again after
 * a welcome keeps it). `edge.unbind` (`terminatorIds`) removes them; answered `{removed}`.
 */
export interface EdgeBindRequest {
  readonly op: 'edge.bind';
  readonly apiSession: string;
  readonly serviceSession: string;
  readonly terminatorId?: string;
  readonly cost?: number;
  readonly precedence?: 'default' | 'required' | 'failed';
  /** The SDK's terminator identity (instance id, header 1006). */
  readonly instanceId?: string;
}
export interface EdgeUnbindRequest {
  readonly op: 'edge.unbind';
  readonly terminatorIds: readonly string[];
}

/** Controller → routers: another router connected (dial it now, healthy policy) or went away. */
export interface CtrlRouterConnected {
  readonly type: 'ctrl.routerConnected';
  readonly router: RouterInfo;
}
export interface CtrlRouterDisconnected {
  readonly type: 'ctrl.routerDisconnected';
  readonly routerId: string;
}

/**
 * Controller → a router whose hello said `routersChanged`: the routers that connected (dial them now, healthy
 * policy) and went away since the last such message, each router at most once, in its latest state. Only routers
 * the receiver may form a link with are named.
 */
export interface CtrlRoutersChanged {
  readonly type: 'ctrl.routersChanged';
  readonly connected: readonly RouterInfo[];
  readonly disconnected: readonly string[];
}

/** Controller → router: the router's edge data model (what it needs to serve SDKs), a whole new version. */
export interface CtrlEdgeModel {
  readonly type: 'ctrl.edgeModel';
  /** Raft index the model was read at; a router keeps the highest it has seen. */
  readonly index: number;
  readonly model: EdgeModel;
}

/**
 * Controller → a router whose hello said `edgeModelDeltas`: the rows of the edge model that changed after
 * `fromIndex`, as of `index`. Applied to a model held at an index from `fromIndex` up to (not including) `index`, it
 * gives the model at `index`: every row that changed in between is in it with its value at `index`, or among the
 * deleted ids. A router holding an older model asks for the whole one (`req` op `edgeModel`); one holding `index` or
 * newer ignores it. A part that is absent had no change.
 */
export interface CtrlEdgeModelDelta {
  readonly type: 'ctrl.edgeModelDelta';
  readonly fromIndex: number;
  readonly index: number;
  readonly services?: EdgeModelRowsChange<EdgeModelService>;
  readonly servicePolicies?: EdgeModelRowsChange<EdgeModelPolicy>;
  readonly edgeRouters?: EdgeModelRowsChange<EdgeModelRouter>;
}

/** One kind of row's changes in a `ctrl.edgeModelDelta`: rows new or changed (whole, as the model has them), ids gone. */
export interface EdgeModelRowsChange<T> {
  readonly upserted: readonly T[];
  readonly deleted: readonly string[];
}

/** `configs`: the service's configs, config type name → data (absent in models from before configs). */
export interface EdgeModelService {
  readonly id: string;
  readonly name: string;
  readonly roleAttributes: readonly string[];
  readonly configs?: Readonly<Record<string, unknown>>;
}

export interface EdgeModelRouter {
  readonly id: string;
  readonly name: string;
  readonly roleAttributes: readonly string[];
  readonly isTunnelerEnabled: boolean;
  readonly disabled?: boolean;
}

export interface EdgeModel {
  readonly services: ReadonlyArray<EdgeModelService>;
  /**
   * Only in models from earlier controllers (routers never used them): every identity, so each identity change
   * re-sent the whole model to every router. At a million identities that was tens of MB per router per change.
   */
  readonly identities?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly roleAttributes: readonly string[] }>;
  /** The service policies (posture checks left out), so a router can work out what its own identity may Bind. */
  readonly servicePolicies?: ReadonlyArray<EdgeModelPolicy>;
  /** The edge routers: a tunneler-enabled router's identity is itself (its id and role attributes). */
  /**
   * Every edge router of the network (`disabled` only when it is): a router accepts links only from routers listed
   * here and not disabled, and closes its links to any other (a deleted or disabled router).
   */
  readonly edgeRouters?: ReadonlyArray<EdgeModelRouter>;
}

export interface EdgeModelPolicy {
  readonly id: string;
  readonly type: 'Dial' | 'Bind';
  readonly semantic: 'AllOf' | 'AnyOf';
  readonly identityRoles: readonly string[];
  readonly serviceRoles: readonly string[];
}

/** Router → controller every `metrics.reportInterval`: one interval's values; the controller labels them router_id. */
export interface RouterMetrics {
  readonly type: 'router.metrics';
  readonly routerId: string;
  /** Unix ms at the end of the interval. */
  readonly timestamp: number;
  /** Gauges by metric name, e.g. `link.count`, `ctrl.latency_ms`, `link.<linkId>.latency_ms`. */
  readonly gauges: Readonly<Record<string, number>>;
}

/** Router → controller: the links it holds now (sent when they change), for the controller's view. */
export interface RouterLinks {
  readonly type: 'router.links';
  readonly links: ReadonlyArray<{ readonly id: string; readonly destRouterId: string; readonly latencyMs: number | null }>;
}

/**
 * Router → controller: terminators the router hosts (tunnel listener in host, proxy or tproxy mode), one per service
 * its identity may Bind that has a `host.v1` config; `address` is where the router dials for that service
 * (`tcp:127.0.0.1:8080`). At most `maxTerminatorsPerMessage` per message. The controller checks each against its own
 * model (a router cannot register a terminator for a service it may not Bind) and answers nothing; what it refused
 * it logs. A router sends every terminator again after each welcome: the controller forgets what an earlier channel
 * registered.
 */
export interface RouterTerminatorCreate {
  readonly type: 'router.terminator.create';
  readonly terminators: ReadonlyArray<{ readonly serviceId: string; readonly address: string }>;
}
/** Router → controller: the router no longer hosts these services. */
export interface RouterTerminatorRemove {
  readonly type: 'router.terminator.remove';
  readonly serviceIds: readonly string[];
}

/**
 * Router → controller: a circuit this router is the ingress of was created, deleted (with its duration and bytes)
 * or failed to be set up. The controller writes it as a circuit event (server/events/circuit-events.ts).
 */
export interface RouterCircuitReport {
  readonly type: 'router.circuit';
  readonly event: 'created' | 'pathUpdated' | 'deleted' | 'failed';
  readonly circuitId: string;
  readonly serviceId: string;
  readonly clientId: string;
  readonly terminatorId: string;
  readonly routers: readonly string[];
  readonly links: readonly string[];
  readonly creationMs?: number;
  readonly durationMs?: number;
  readonly bytesIn?: number;
  readonly bytesOut?: number;
  readonly failureCause?: string;
  readonly reason?: string;
}

/**
 * Router → controller after each welcome: the live circuits it is the ingress of, so that the controller it now
 * talks to (after a failover, not the one that routed them) re-checks them for revocation like its own. `apiSession`
 * is the token an edge client dialed with (absent: the router's own identity dialed). At most
 * `maxLiveCircuitsPerMessage` per message; a router with more sends several.
 */
export interface RouterCircuitsLive {
  readonly type: 'router.circuitsLive';
  readonly circuits: ReadonlyArray<{ readonly circuitId: string; readonly serviceId: string; readonly identityId: string; readonly apiSession?: string }>;
}
export const maxLiveCircuitsPerMessage = 1000;

/**
 * Router → controller: which API sessions hold an SDK edge channel to this router (the identity of each, and how many
 * channels it holds). `reset: true` starts a full report (sent after each welcome, and the controller forgets what
 * the router reported before); later messages carry only the sessions whose count changed, a count of 0 meaning the
 * session holds no channel any more. At most `maxEdgeSessionsPerMessage` entries per message; a router with more
 * sends several, only the first with `reset`.
 */
export interface RouterEdgeSessions {
  readonly type: 'router.edgeSessions';
  readonly reset: boolean;
  readonly sessions: ReadonlyArray<EdgeSessionCount>;
}
export interface EdgeSessionCount {
  readonly apiSessionId: string;
  readonly identityId: string;
  readonly channels: number;
}
export const maxEdgeSessionsPerMessage = 1000;

/** Either side: heartbeat and its answer; `sentAt` is the sender's performance.now(). */
export interface Heartbeat {
  readonly type: 'hb';
  readonly sentAt: number;
}
export interface HeartbeatAck {
  readonly type: 'hbAck';
  readonly sentAt: number;
}

/** Either side: a request, answered with a response of the same `rid` within the caller's timeout. */
export interface ControlRequest {
  readonly type: 'req';
  readonly rid: number;
  readonly body: { readonly op: 'ping' } | { readonly op: 'edgeModel' } | CircuitCreateRequest | EdgeHelloRequest | EdgeUpdateTokenRequest | EdgeBindRequest | EdgeUnbindRequest;
}

/**
 * Router → controller: a connection for `service` (its name) arrived at one of the router's tunnel listeners. The
 * controller answers `{route}` (a SignedRoute, common/circuits/circuit-route.ts) or `{refused: {code, message}}`.
 * `avoidRouters`: routers a failed setup of the same connection could not get through (the next path avoids them).
 */
export interface CircuitCreateRequest {
  readonly op: 'circuit.create';
  readonly service: string;
  readonly avoidRouters?: readonly string[];
  /** An edge client's API session token: the circuit is dialed as that session's identity, not the router's. */
  readonly apiSession?: string;
  /** A new path for a live circuit whose path lost a link: the same circuit id, to the same terminator. */
  readonly resume?: { readonly circuitId: string; readonly terminatorId: string };
  /**
   * An SDK's Connect: the service session token (from `POST /sessions`) it dialed with, which names the service (a
   * Dial session of the same API session); `service` may then be empty. A token that is no session is read as a
   * service id or name, as OpenZiti's newest routers do.
   */
  readonly serviceSession?: string;
  /** An SDK dialer's end-to-end encryption public key (base64, header 1003 of its Connect). */
  readonly dialerKey?: string;
}

/**
 * Router → controller: an SDK said hello on an edge listener with this API session token and TLS client
 * certificate. The controller answers `{identityId, identityName, apiSessionId}` (with `expiresAtMs` for an OIDC
 * access token) or `{refused: {code, message}}`.
 */
export interface EdgeHelloRequest {
  readonly op: 'edge.hello';
  readonly apiSession: string;
  /** SHA-1 of the client certificate's DER, lowercase hex (absent: the client presented none). */
  readonly certFingerprint?: string;
}

/**
 * Router → controller: an SDK's UpdateToken (60803) on a channel that said hello with the OIDC access token
 * `apiSession`. The controller answers `{apiSessionId, expiresAtMs}` when `token` is a valid access token of the same
 * API session and identity, or `{refused: {code: 'INVALID_API_SESSION' | 'INVALID_API_SESSION_TYPE', message}}`.
 */
export interface EdgeUpdateTokenRequest {
  readonly op: 'edge.updateToken';
  readonly apiSession: string;
  readonly token: string;
}

/** Why a controller refused a circuit (the `code` of `refused`). */
export type CircuitRefusalCode =
  | 'INVALID_SESSION'
  | 'SERVICE_NOT_FOUND'
  | 'NO_DIAL_POLICY'
  | 'INVALID_POSTURE'
  | 'NOT_TUNNELER'
  | 'NO_TERMINATORS'
  | 'NO_PATH'
  | 'INVALID_REQUEST'
  /** No edge router policy lets the dialing identity use the ingress router. */
  | 'NO_EDGE_ROUTER_POLICY'
  /** No service edge router policy lets the service use the ingress router, or any router hosting it. */
  | 'NO_SERVICE_EDGE_ROUTER_POLICY'
  /** The service requires end-to-end encryption and the SDK's Connect carried no public key. */
  | 'ENCRYPTION_DATA_MISSING';
export interface ControlResponse {
  readonly type: 'res';
  readonly rid: number;
  readonly ok: boolean;
  readonly value?: unknown;
  readonly error?: string;
}

export type RouterToController = RouterHello | RouterMetrics | RouterLinks | RouterTerminatorCreate | RouterTerminatorRemove | RouterCircuitReport | RouterCircuitsLive | RouterEdgeSessions | Heartbeat | HeartbeatAck | ControlRequest | ControlResponse;
export type ControllerToRouter = CtrlWelcome | CtrlRefused | CtrlMembers | CtrlRouterConnected | CtrlRouterDisconnected | CtrlRoutersChanged | CtrlEdgeModel | CtrlEdgeModelDelta | CtrlCircuitClose | CtrlSdkTerminatorsRemoved | CtrlEdgeSessionsEnded | Heartbeat | HeartbeatAck | ControlRequest | ControlResponse;

/** Link channel between routers (router → router over TLS on a link listener): the dialer's first frame. */
export interface LinkHello {
  readonly type: 'link.hello';
  readonly routerId: string;
  readonly linkId: string;
}
export interface LinkWelcome {
  readonly type: 'link.welcome';
  readonly routerId: string;
}
export type LinkMessage = LinkHello | LinkWelcome | Heartbeat | HeartbeatAck;

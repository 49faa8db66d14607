// The content types of the OpenZiti SDK edge protocol: the channel's own (hello, result, latency, heartbeat) and the
// edge ones (connect, data, bind, dial, ...), with the numbers OpenZiti's routers and SDKs put in a frame's content
// type field (edge_client.proto; the fact sheet's §1.5 and §2.1). Names only: what each carries is edge-messages.ts.

/** The channel layer's content types (0-6). Edge channels use Hello, Result and Latency; no heartbeats run on them. */
export const channelContentType = {
  hello: 0,
  ping: 1,
  result: 2,
  latency: 3,
  latencyResponse: 4,
  heartbeat: 5,
  raw: 6,
} as const;

/** The edge content types (60783-60807, and the posture and service-update ones). */
export const edgeContentType = {
  connect: 60783,
  stateConnected: 60784,
  stateClosed: 60785,
  data: 60786,
  dial: 60787,
  dialSuccess: 60788,
  dialFailed: 60789,
  bind: 60790,
  unbind: 60791,
  /** Defined, never sent. */
  stateSessionEnded: 60792,
  /** Defined, routers have no handler. */
  probe: 60793,
  updateBind: 60794,
  healthEvent: 60795,
  traceRoute: 60796,
  traceRouteResponse: 60797,
  connInspectRequest: 60798,
  connInspectResponse: 60799,
  bindSuccess: 60800,
  updateTokenSuccess: 60801,
  updateTokenFailure: 60802,
  updateToken: 60803,
  inspectRequest: 60804,
  inspectResponse: 60805,
  /** Sessionless dial of the newest SDKs, OIDC API sessions only. */
  connectV2: 60806,
  /** Defined, no users. */
  routeCircuit: 60807,
  postureResponse: 10800,
  /** Six digits, not 10801/10802 (the proto's numbers). */
  servicePostureStateRequest: 108001,
  servicePostureStateResponse: 108002,
  subscribeToServiceUpdates: 10900,
  unsubscribeFromServiceUpdates: 10901,
  resyncPostureState: 10902,
  serviceChangeSet: 10903,
  postureStateChange: 10904,
  /** SDK xgress flow-control mode only (header 1028 set); edgeward speaks the plain Data mode. */
  xgPayload: 1100,
  xgAcknowledgement: 1101,
  xgControl: 1102,
  xgClose: 1103,
} as const;

export type ChannelContentTypeName = keyof typeof channelContentType;
export type EdgeContentTypeName = keyof typeof edgeContentType;

const namesByNumber = new Map<number, string>([
  ...Object.entries(channelContentType).map(([name, value]) => [value, name] as [number, string]),
  ...Object.entries(edgeContentType).map(([name, value]) => [value, name] as [number, string]),
]);

/** A content type's name for logs and errors (`data`, `stateClosed`), or `contentType <n>` for one not known here. */
export function contentTypeName(contentType: number): string {
  return namesByNumber.get(contentType) ?? `contentType ${contentType}`;
}

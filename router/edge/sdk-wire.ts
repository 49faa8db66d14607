// The numbers of the SDK edge protocol this router's edge listeners use (OpenZiti's channel and edge_client.proto;
// /work facts sheet sections 1.4, 1.5, 2.1-2.3): content types, header ids, flags and error codes.

export const contentType = {
  hello: 0,
  result: 2,
  latency: 3,
  heartbeat: 5,
  connect: 60783,
  stateConnected: 60784,
  stateClosed: 60785,
  data: 60786,
  dial: 60787,
  dialSuccess: 60788,
  dialFailed: 60789,
  bind: 60790,
  unbind: 60791,
  updateBind: 60794,
  healthEvent: 60795,
  connInspectRequest: 60798,
  connInspectResponse: 60799,
  bindSuccess: 60800,
} as const;

export const header = {
  connectionId: 0,
  replyFor: 1,
  resultSuccess: 2,
  helloVersion: 4,
  heartbeat: 5,
  heartbeatResponse: 6,
  type: 7,
  id: 8,
  helloRejectClass: 13,
  reflected: 128,
  connId: 1000,
  seq: 1001,
  sessionToken: 1002,
  publicKey: 1003,
  callerId: 1008,
  flags: 1010,
  errorCode: 1014,
  circuitId: 1026,
  supportsBindSuccess: 1024,
  supportsPostureChecks: 1032,
  structuredError: 1033,
  routerCapabilities: 1039,
} as const;

export const dataFlags = { fin: 1 } as const;

/** Edge error codes (header 1014, `code` of the structured error) and the retry hints SDKs act on. */
export const edgeErrorCode = {
  internal: 1,
  invalidApiSession: 2,
  invalidSession: 3,
  invalidEdgeRouterForSession: 5,
  invalidService: 6,
  encryptionDataMissing: 11,
  accessDenied: 14,
  postureCheckFailed: 15,
} as const;

export const retryHint = { default: 0, tooBusy: 1, startOver: 2, notRetriable: 3 } as const;

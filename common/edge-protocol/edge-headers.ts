// Header ids and enumerations of the OpenZiti SDK edge protocol (the fact sheet's §1.4, §2.2, §2.3), and the router
// capability mask of header 1039: a big-endian, minimal-length unsigned integer whose bit n is capability n (the Go
// router's and SDK's big.Int encoding; the newest router sends 40 00 00 00 00 00 00 76).

/** Header ids the channel layer reserves (0-127), and 128, the one header a reply copies from its request. */
export const channelHeader = {
  connectionId: 0,
  /** int32 LE, exactly 4 bytes: the sequence of the request a message answers. */
  replyFor: 1,
  resultSuccess: 2,
  helloRouterAdvertisements: 3,
  helloVersion: 4,
  heartbeat: 5,
  heartbeatResponse: 6,
  type: 7,
  id: 8,
  isGrouped: 9,
  groupSecret: 10,
  isFirstGroupConnection: 11,
  underlayType: 12,
  helloRejectClass: 13,
  /** Reflected: a latency probe's timestamp, a Data's trace UUID. The only id copied into a reply. */
  reflected: 128,
} as const;

/** The edge header ids (1000-1040). Widths are in edge-messages.ts, which reads and writes them. */
export const edgeHeader = {
  connId: 1000,
  seq: 1001,
  sessionToken: 1002,
  publicKey: 1003,
  cost: 1004,
  precedence: 1005,
  terminatorIdentity: 1006,
  terminatorIdentitySecret: 1007,
  callerId: 1008,
  cryptoMethod: 1009,
  flags: 1010,
  appData: 1011,
  routerProvidedConnId: 1012,
  healthStatus: 1013,
  errorCode: 1014,
  timestamp: 1015,
  traceHopCount: 1016,
  traceHopType: 1017,
  traceHopId: 1018,
  traceSourceRequestId: 1019,
  traceError: 1020,
  listenerId: 1021,
  connType: 1022,
  supportsInspect: 1023,
  supportsBindSuccess: 1024,
  connectionMarker: 1025,
  circuitId: 1026,
  stickinessToken: 1027,
  useXgressToSdk: 1028,
  xgressCtrlId: 1029,
  xgressAddress: 1030,
  inspectRequestedValues: 1031,
  supportsPostureChecks: 1032,
  structuredError: 1033,
  dialerIdentityId: 1034,
  dialerIdentityName: 1035,
  serviceId: 1036,
  serviceIdentifierType: 1037,
  connectRequestId: 1038,
  routerCapabilities: 1039,
  serviceSubscriptionIndex: 1040,
} as const;

/** Bits of a Data message's flags (header 1010). */
export const dataFlag = {
  /** Half-close: the sender writes no more (an empty Data with this flag). */
  fin: 1,
  /** Header 128 carries a trace UUID. */
  traceUuid: 2,
  /** The sender accepts multipart Data bodies. */
  multipart: 4,
  /** Stream semantics: coalesce without length prefixes. */
  stream: 8,
  /** This Data body is multipart: `[u16 LE length][bytes]` parts. */
  multipartMsg: 16,
} as const;

/** Error codes (header 1014; `code` of the structured error, header 1033). */
export const edgeErrorCode = {
  ok: 0,
  internal: 1,
  invalidApiSession: 2,
  invalidSession: 3,
  wrongSessionType: 4,
  invalidEdgeRouterForSession: 5,
  invalidService: 6,
  tunnelingNotEnabled: 7,
  invalidTerminator: 8,
  invalidPrecedence: 9,
  invalidCost: 10,
  encryptionDataMissing: 11,
  invalidApiSessionType: 12,
  invalidInstanceId: 13,
  accessDenied: 14,
  postureCheckFailed: 15,
} as const;
export type EdgeErrorCodeName = keyof typeof edgeErrorCode;

/** `retryHint` of the structured error: what an SDK should do next. */
export const retryHint = { default: 0, tooBusy: 1, startOver: 2, notRetriable: 3 } as const;

/** Terminator precedence (header 1005, one byte). */
export const precedence = { default: 0, required: 1, failed: 2 } as const;
export type PrecedenceName = keyof typeof precedence;

/** Crypto method (header 1009): the Go SDK writes the number as one byte, the C SDK a string (`libsodium`, ...). */
export const cryptoMethod = { libsodium: 0, aes256gcm: 1 } as const;

/** Connection type of a ConnInspectResponse (header 1022, one byte). */
export const connType = { invalid: 0, dial: 1, bind: 2, unknown: 3 } as const;

/** ConnectV2's service identifier type (header 1037, one byte). */
export const serviceIdentifierType = { id: 0, name: 1 } as const;

/** Bit positions of the router capability mask (header 1039). Bit 3 is reserved (was RouterDataModel). */
export const routerCapability = {
  multiChannel: 1,
  connectV2: 2,
  serviceSubscriptions: 4,
  postureChecks: 5,
  bindSuccess: 6,
  /** Control-plane only (RouterDataModel, -2 mapped to 64 - 2); the newest router sets it on edge hellos too. */
  routerDataModel: 62,
} as const;

/** The newest OpenZiti router's mask: bits 1, 2, 4, 5, 6 and 62 (40 00 00 00 00 00 00 76). */
export const newestRouterCapabilities: readonly number[] = [1, 2, 4, 5, 6, 62];

/** Most bits a mask may name; a longer header value is refused rather than turned into a huge set. */
export const maxCapabilityBit = 1023;

/** The mask with these bits set, big-endian and minimal-length (no bits: an empty value, as Go's big.Int writes 0). */
export function encodeCapabilityMask(bits: Iterable<number>): Buffer {
  let mask = 0n;
  for (const bit of bits) {
    if (!Number.isInteger(bit) || bit < 0 || bit > maxCapabilityBit) throw new RangeError(`capability bit ${bit} is not 0..${maxCapabilityBit}`);
    mask |= 1n << BigInt(bit);
  }
  if (mask === 0n) return Buffer.alloc(0);
  const hex = mask.toString(16);
  return Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex');
}

/** The bits set in a mask (big-endian, any length up to 128 bytes; leading zero bytes are fine), lowest first; undefined when longer. */
export function decodeCapabilityMask(value: Buffer): number[] | undefined {
  if (value.length > (maxCapabilityBit + 1) / 8) return undefined;
  const bits: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const byte = value[value.length - 1 - i]!;
    for (let bit = 0; bit < 8; bit++) if (byte & (1 << bit)) bits.push(i * 8 + bit);
  }
  return bits;
}

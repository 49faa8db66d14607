// Typed builders and parsers for the messages of the OpenZiti SDK edge protocol (the fact sheet's §1.7, §1.10, §2.4,
// §5), for both ends: what a router sends and reads, what an SDK sends and reads. A message is the frame codec's
// EdgeMessage (content type, sequence, header map, body); framing is edge-frame-codec.ts.
//
// API (all pure):
//   buildMessage.<name>(fields) → EdgeMessage     hello, helloResult, result, latencyProbe, latencyResult, connect,
//       connectV2, stateConnected, stateClosed, data, fin, dial, dialSuccess, dialFailed, bind, unbind, updateBind, healthEvent,
//       bindSuccess, connInspectRequest, connInspectResponse, updateToken, updateTokenSuccess, updateTokenFailure,
//       traceRoute, traceRouteResponse. The caller gives each its frame sequence (the channel's counter; -1 for hello).
//   parseMessage.<name>(message) → typed fields   the same names; throws EdgeMessageError on a wrong content type or a
//       malformed header.
//   parseAnyMessage(message) → ParsedMessage       dispatch on the content type (`kind`); `unknown` for other types.
//   replyHeaders(request) → the headers a reply carries: 1 = request sequence (int32, 4 bytes), 128 copied (only 128).
//   splitMultipart(body) / joinMultipart(parts)   multipart Data bodies: `[u16 LE length][bytes]` parts.
//   EdgeMessageError                               the one error a parser throws; names the message and the header.
//
// Builders write exactly 1/2/4/8 bytes for bool/u16/u32/u64 (the Go channel reads other widths as absent) and never a
// header twice. Parsers accept what both the Go and the C SDK send where they differ (§8): 1009 as a byte or a string,
// 1025 with a trailing NUL, 1021 as a string or 32 raw bytes, 1012 a bool in Bind/StateConnected but a u32 in Dial,
// 1001 optional everywhere; anything else malformed is refused.
import { channelContentType, contentTypeName, edgeContentType } from './edge-content-types.ts';
import type { EdgeMessage } from './edge-frame-codec.ts';
import { channelHeader, connType as connTypes, decodeCapabilityMask, edgeHeader, encodeCapabilityMask, precedence as precedences, serviceIdentifierType as serviceIdentifierTypes, type PrecedenceName } from './edge-headers.ts';
import { headerValue } from './header-values.ts';

export class EdgeMessageError extends Error {
  constructor(
    /** The message's content type name (`connect`, `data`, ...). */
    readonly messageName: string,
    /** The header at fault; undefined when the body or the content type is. */
    readonly headerId: number | undefined,
    detail: string,
  ) {
    super(headerId === undefined ? `edge message ${messageName}: ${detail}` : `edge message ${messageName}, header ${headerId}: ${detail}`);
    this.name = 'EdgeMessageError';
  }
}

/** What a reply needs of its request: its sequence, and its headers for the reflected one (128). */
export type ReplyTarget = Pick<EdgeMessage, 'sequence' | 'headers'>;

/** The structured error of header 1033 (with 1014 = code): what SDKs act on when a dial or bind is refused. */
export interface StructuredError {
  readonly message: string;
  readonly code: number;
  readonly retryHint: number;
  readonly failingPostureCheckIds?: readonly string[];
}

export type CryptoMethodName = 'libsodium' | 'aes-gcm' | 'none';

/** Bytes of an X25519 public key (header 1003). */
export const publicKeyBytes = 32;
/** Most bytes of one multipart part (its length is a u16). */
export const maxMultipartPartBytes = 65_535;

// ---------------------------------------------------------------------------------------------------------------
// Writing

const u32Max = 0xffff_ffff;

function checkedU32(name: string, value: number): Buffer {
  if (!Number.isInteger(value) || value < 0 || value > u32Max) throw new RangeError(`${name} ${value} is not a uint32`);
  return headerValue.uint32(value);
}

function checkedU16(name: string, value: number): Buffer {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff) throw new RangeError(`${name} ${value} is not a uint16`);
  return headerValue.uint16(value);
}

function checkedKey(key: Buffer): Buffer {
  if (key.length !== publicKeyBytes) throw new RangeError(`a public key is ${publicKeyBytes} bytes, not ${key.length}`);
  return key;
}

/** A header map that refuses a second value for an id (a builder bug, never a peer's input). */
class Headers {
  readonly map = new Map<number, Buffer>();
  set(id: number, value: Buffer | undefined): this {
    if (value === undefined) return this;
    if (this.map.has(id)) throw new RangeError(`header ${id} set twice`);
    this.map.set(id, value);
    return this;
  }
}

const text = (value: string | undefined) => (value === undefined ? undefined : headerValue.string(value));
const emptyBody = Buffer.alloc(0);

/** The headers a reply carries: 1 = the request's sequence (int32), and 128 copied if the request had it (only 128). */
export function replyHeaders(request: ReplyTarget): Map<number, Buffer> {
  const headers = new Map<number, Buffer>([[channelHeader.replyFor, headerValue.int32(request.sequence)]]);
  const reflected = request.headers.get(channelHeader.reflected);
  if (reflected !== undefined) headers.set(channelHeader.reflected, reflected);
  return headers;
}

function replyTo(request: ReplyTarget | undefined): Headers {
  const headers = new Headers();
  if (request) for (const [id, value] of replyHeaders(request)) headers.set(id, value);
  return headers;
}

function message(contentType: number, sequence: number, headers: Headers, body: Buffer = emptyBody): EdgeMessage {
  return { contentType, sequence, headers: headers.map, body };
}

function structuredErrorJson(error: StructuredError): Buffer {
  const json: Record<string, unknown> = { message: error.message, code: error.code, retryHint: error.retryHint };
  if (error.failingPostureCheckIds && error.failingPostureCheckIds.length > 0) json.failingPostureCheckIds = error.failingPostureCheckIds;
  return Buffer.from(JSON.stringify(json), 'utf8');
}

const withError = (headers: Headers, error: StructuredError | undefined) =>
  error ? headers.set(edgeHeader.errorCode, checkedU32('error code', error.code)).set(edgeHeader.structuredError, structuredErrorJson(error)) : headers;

const perConnection = (connId: number, request?: ReplyTarget, seq?: number) =>
  replyTo(request)
    .set(edgeHeader.connId, checkedU32('connId', connId))
    .set(edgeHeader.seq, seq === undefined ? undefined : checkedU32('seq', seq));

const precedenceByte = (name: PrecedenceName | undefined) => (name === undefined ? undefined : headerValue.byte(precedences[name]));

export const buildMessage = {
  /** SDK → router: the channel hello, sequence -1; body is informational (Go: the cert CN). */
  hello(fields: { sessionToken: string; body?: string; supportsInspect?: boolean }): EdgeMessage {
    const headers = new Headers().set(edgeHeader.sessionToken, headerValue.string(fields.sessionToken));
    if (fields.supportsInspect) headers.set(edgeHeader.supportsInspect, headerValue.bool(true));
    return message(channelContentType.hello, -1, headers, Buffer.from(fields.body ?? '', 'utf8'));
  },

  /**
   * Router → SDK: the hello's Result (sequence -1, 1 = the hello's sequence, 2 = true), with the edge listener's
   * static headers: 4 version, 1024 and 1032 (unless turned off), 1039 capabilities; 0 connection id; 8 listener id;
   * 7 echoed when the hello set it. 9 (grouped) is never echoed: edgeward does not group underlays.
   */
  helloResult(fields: {
    hello: ReplyTarget;
    version: string;
    connectionId: string;
    listenerId: string;
    capabilities: readonly number[];
    supportsBindSuccess?: boolean;
    supportsPostureChecks?: boolean;
  }): EdgeMessage {
    const headers = new Headers()
      .set(channelHeader.replyFor, headerValue.int32(fields.hello.sequence))
      .set(channelHeader.resultSuccess, headerValue.bool(true))
      .set(channelHeader.helloVersion, headerValue.string(fields.version))
      .set(channelHeader.connectionId, headerValue.string(fields.connectionId))
      .set(channelHeader.id, headerValue.string(fields.listenerId))
      .set(edgeHeader.routerCapabilities, encodeCapabilityMask(fields.capabilities))
      .set(channelHeader.type, fields.hello.headers.get(channelHeader.type));
    if (fields.supportsBindSuccess ?? true) headers.set(edgeHeader.supportsBindSuccess, headerValue.bool(true));
    if (fields.supportsPostureChecks ?? true) headers.set(edgeHeader.supportsPostureChecks, headerValue.bool(true));
    return message(channelContentType.result, -1, headers);
  },

  /** A channel Result answering `inReplyTo`: success flag and a text body. */
  result(fields: { sequence: number; inReplyTo: ReplyTarget; success: boolean; text?: string }): EdgeMessage {
    const headers = replyTo(fields.inReplyTo).set(channelHeader.resultSuccess, headerValue.bool(fields.success));
    return message(channelContentType.result, fields.sequence, headers, Buffer.from(fields.text ?? '', 'utf8'));
  },

  /** SDK → router: a latency probe, 128 = the sender's timestamp (u64). */
  latencyProbe(fields: { sequence: number; timestamp: bigint }): EdgeMessage {
    return message(channelContentType.latency, fields.sequence, new Headers().set(channelHeader.reflected, headerValue.uint64(fields.timestamp)));
  },

  /** Router → SDK: the answer to a latency probe, a successful empty Result with 128 reflected. */
  latencyResult(fields: { sequence: number; probe: ReplyTarget }): EdgeMessage {
    return buildMessage.result({ sequence: fields.sequence, inReplyTo: fields.probe, success: true });
  },

  /** SDK → router: dial a service; body = the service session token (or a service id). Go's form: 1009 = byte 0 with a key. */
  connect(fields: {
    sequence: number;
    connId: number;
    token: string;
    publicKey?: Buffer;
    terminatorIdentity?: string;
    callerId?: string;
    appData?: Buffer;
    stickinessToken?: Buffer;
    connectionMarker?: string;
    useXgressToSdk?: boolean;
  }): EdgeMessage {
    const headers = perConnection(fields.connId)
      .set(edgeHeader.terminatorIdentity, text(fields.terminatorIdentity))
      .set(edgeHeader.callerId, text(fields.callerId))
      .set(edgeHeader.appData, fields.appData)
      .set(edgeHeader.stickinessToken, fields.stickinessToken)
      .set(edgeHeader.connectionMarker, text(fields.connectionMarker))
      .set(edgeHeader.useXgressToSdk, headerValue.bool(fields.useXgressToSdk ?? false));
    if (fields.publicKey) headers.set(edgeHeader.publicKey, checkedKey(fields.publicKey)).set(edgeHeader.cryptoMethod, headerValue.byte(0));
    return message(edgeContentType.connect, fields.sequence, headers, Buffer.from(fields.token, 'utf8'));
  },

  /** SDK → router (newest Go SDKs, OIDC API sessions only): a sessionless dial naming the service by id or name; empty body. */
  connectV2(fields: {
    sequence: number;
    connId: number;
    service: string;
    serviceIdentifier: 'id' | 'name';
    publicKey?: Buffer;
    terminatorIdentity?: string;
    callerId?: string;
    appData?: Buffer;
    stickinessToken?: Buffer;
  }): EdgeMessage {
    const headers = perConnection(fields.connId)
      .set(edgeHeader.serviceId, headerValue.string(fields.service))
      .set(edgeHeader.serviceIdentifierType, headerValue.byte(serviceIdentifierTypes[fields.serviceIdentifier]))
      .set(edgeHeader.terminatorIdentity, text(fields.terminatorIdentity))
      .set(edgeHeader.callerId, text(fields.callerId))
      .set(edgeHeader.appData, fields.appData)
      .set(edgeHeader.stickinessToken, fields.stickinessToken)
      .set(edgeHeader.useXgressToSdk, headerValue.bool(false));
    if (fields.publicKey) headers.set(edgeHeader.publicKey, checkedKey(fields.publicKey)).set(edgeHeader.cryptoMethod, headerValue.byte(0));
    return message(edgeContentType.connectV2, fields.sequence, headers);
  },

  /** Router → SDK: the reply to Connect (1026 circuit, 1003 host key) or to Bind; 1012 = true when the request asked. */
  stateConnected(fields: {
    sequence: number;
    connId: number;
    inReplyTo?: ReplyTarget;
    circuitId?: string;
    publicKey?: Buffer;
    routerProvidedConnId?: boolean;
    stickinessToken?: Buffer;
  }): EdgeMessage {
    const headers = perConnection(fields.connId, fields.inReplyTo)
      .set(edgeHeader.circuitId, text(fields.circuitId))
      .set(edgeHeader.publicKey, fields.publicKey && checkedKey(fields.publicKey))
      .set(edgeHeader.stickinessToken, fields.stickinessToken);
    if (fields.routerProvidedConnId) headers.set(edgeHeader.routerProvidedConnId, headerValue.bool(true));
    return message(edgeContentType.stateConnected, fields.sequence, headers);
  },

  /** Either way: close a connection or refuse a request (as a reply); body = reason; 1014 + 1033 with a structured error. */
  stateClosed(fields: { sequence: number; connId: number; reason?: string; error?: StructuredError; inReplyTo?: ReplyTarget; seq?: number }): EdgeMessage {
    const headers = withError(perConnection(fields.connId, fields.inReplyTo, fields.seq), fields.error);
    return message(edgeContentType.stateClosed, fields.sequence, headers, Buffer.from(fields.reason ?? '', 'utf8'));
  },

  /** Either way: payload bytes of a connection (ciphertext when end-to-end encrypted); flags (1010) when given. */
  data(fields: { sequence: number; connId: number; payload: Buffer; flags?: number; seq?: number; traceUuid?: Buffer }): EdgeMessage {
    const headers = perConnection(fields.connId, undefined, fields.seq)
      .set(edgeHeader.flags, fields.flags === undefined ? undefined : checkedU32('flags', fields.flags))
      .set(channelHeader.reflected, fields.traceUuid);
    return message(edgeContentType.data, fields.sequence, headers, fields.payload);
  },

  /** Half-close: an empty Data with the FIN flag; the sender writes no more but may still read. */
  fin(fields: { sequence: number; connId: number; seq?: number }): EdgeMessage {
    return buildMessage.data({ ...fields, payload: emptyBody, flags: 1 });
  },

  /** Router → hosting SDK: a dialer arrived. 1000 = the bind's connId; 1012 = the new connId when the router assigns them. */
  dial(fields: {
    sequence: number;
    bindConnId: number;
    token: string;
    callerId: string;
    circuitId?: string;
    publicKey?: Buffer;
    connectionMarker?: string;
    appData?: Buffer;
    dialerIdentityId?: string;
    dialerIdentityName?: string;
    routerProvidedConnId?: number;
  }): EdgeMessage {
    const headers = perConnection(fields.bindConnId)
      .set(edgeHeader.callerId, headerValue.string(fields.callerId))
      .set(edgeHeader.circuitId, text(fields.circuitId))
      .set(edgeHeader.publicKey, fields.publicKey && checkedKey(fields.publicKey))
      .set(edgeHeader.connectionMarker, text(fields.connectionMarker))
      .set(edgeHeader.appData, fields.appData)
      .set(edgeHeader.dialerIdentityId, text(fields.dialerIdentityId))
      .set(edgeHeader.dialerIdentityName, text(fields.dialerIdentityName))
      .set(edgeHeader.routerProvidedConnId, fields.routerProvidedConnId === undefined ? undefined : checkedU32('routerProvidedConnId', fields.routerProvidedConnId));
    return message(edgeContentType.dial, fields.sequence, headers, Buffer.from(fields.token, 'utf8'));
  },

  /** Hosting SDK → router: the Dial accepted; body = the new connection's connId (4 bytes LE); 1003 the host's key (C). */
  dialSuccess(fields: { sequence: number; bindConnId: number; inReplyTo: ReplyTarget; newConnId: number; publicKey?: Buffer; seq?: number }): EdgeMessage {
    const headers = perConnection(fields.bindConnId, fields.inReplyTo, fields.seq).set(edgeHeader.publicKey, fields.publicKey && checkedKey(fields.publicKey));
    return message(edgeContentType.dialSuccess, fields.sequence, headers, checkedU32('newConnId', fields.newConnId));
  },

  /** Hosting SDK → router: the Dial refused; body = reason. */
  dialFailed(fields: { sequence: number; bindConnId: number; inReplyTo: ReplyTarget; reason: string }): EdgeMessage {
    return message(edgeContentType.dialFailed, fields.sequence, perConnection(fields.bindConnId, fields.inReplyTo), Buffer.from(fields.reason, 'utf8'));
  },

  /** SDK → router: host a service (Go's form: 1023, 1024, 1012 true; 1009 = byte 0 with a key). */
  bind(fields: {
    sequence: number;
    connId: number;
    token: string;
    publicKey?: Buffer;
    cost?: number;
    precedence?: PrecedenceName;
    terminatorIdentity?: string;
    terminatorIdentitySecret?: Buffer;
    listenerId?: string;
    supportsInspect?: boolean;
    supportsBindSuccess?: boolean;
    routerProvidedConnId?: boolean;
  }): EdgeMessage {
    const headers = perConnection(fields.connId)
      .set(edgeHeader.cost, fields.cost ? checkedU16('cost', fields.cost) : undefined)
      .set(edgeHeader.precedence, fields.precedence === 'default' ? undefined : precedenceByte(fields.precedence))
      .set(edgeHeader.terminatorIdentity, text(fields.terminatorIdentity))
      .set(edgeHeader.terminatorIdentitySecret, fields.terminatorIdentitySecret)
      .set(edgeHeader.listenerId, text(fields.listenerId))
      .set(edgeHeader.useXgressToSdk, headerValue.bool(false));
    if (fields.supportsInspect ?? true) headers.set(edgeHeader.supportsInspect, headerValue.bool(true));
    if (fields.supportsBindSuccess ?? true) headers.set(edgeHeader.supportsBindSuccess, headerValue.bool(true));
    if (fields.routerProvidedConnId ?? true) headers.set(edgeHeader.routerProvidedConnId, headerValue.bool(true));
    if (fields.publicKey) headers.set(edgeHeader.publicKey, checkedKey(fields.publicKey)).set(edgeHeader.cryptoMethod, headerValue.byte(0));
    return message(edgeContentType.bind, fields.sequence, headers, Buffer.from(fields.token, 'utf8'));
  },

  /** SDK → router: stop hosting; no reply on success. */
  unbind(fields: { sequence: number; connId: number; token: string; listenerId?: string }): EdgeMessage {
    return message(edgeContentType.unbind, fields.sequence, perConnection(fields.connId).set(edgeHeader.listenerId, text(fields.listenerId)), Buffer.from(fields.token, 'utf8'));
  },

  /** SDK → router: a bound terminator's new cost and/or precedence; no reply. */
  updateBind(fields: { sequence: number; connId: number; token: string; cost?: number; precedence?: PrecedenceName }): EdgeMessage {
    const headers = perConnection(fields.connId)
      .set(edgeHeader.cost, fields.cost === undefined ? undefined : checkedU16('cost', fields.cost))
      .set(edgeHeader.precedence, precedenceByte(fields.precedence));
    return message(edgeContentType.updateBind, fields.sequence, headers, Buffer.from(fields.token, 'utf8'));
  },

  /** SDK → router: a bound service's health (1013); no reply. */
  healthEvent(fields: { sequence: number; connId: number; token: string; healthy: boolean }): EdgeMessage {
    return message(edgeContentType.healthEvent, fields.sequence, perConnection(fields.connId).set(edgeHeader.healthStatus, headerValue.bool(fields.healthy)), Buffer.from(fields.token, 'utf8'));
  },

  /** Router → SDK: the bind's terminator exists (only to an SDK that sent 1024 = true). */
  bindSuccess(fields: { sequence: number; connId: number }): EdgeMessage {
    return message(edgeContentType.bindSuccess, fields.sequence, perConnection(fields.connId));
  },

  /** Router → SDK: is this connection (a bind listener) still there? */
  connInspectRequest(fields: { sequence: number; connId: number }): EdgeMessage {
    return message(edgeContentType.connInspectRequest, fields.sequence, perConnection(fields.connId));
  },

  /** SDK → router: what the connection is (1022) and a text about it. */
  connInspectResponse(fields: { sequence: number; connId: number; inReplyTo: ReplyTarget; connType: keyof typeof connTypes; text: string }): EdgeMessage {
    const headers = perConnection(fields.connId, fields.inReplyTo).set(edgeHeader.connType, headerValue.byte(connTypes[fields.connType]));
    return message(edgeContentType.connInspectResponse, fields.sequence, headers, Buffer.from(fields.text, 'utf8'));
  },

  /** SDK → router: a refreshed OIDC access token for this channel. */
  updateToken(fields: { sequence: number; token: string }): EdgeMessage {
    return message(edgeContentType.updateToken, fields.sequence, new Headers(), Buffer.from(fields.token, 'utf8'));
  },

  updateTokenSuccess(fields: { sequence: number; inReplyTo: ReplyTarget }): EdgeMessage {
    return message(edgeContentType.updateTokenSuccess, fields.sequence, replyTo(fields.inReplyTo));
  },

  /** Router → SDK: the token refused (body = reason, 1014 + 1033); the router then closes the channel. */
  updateTokenFailure(fields: { sequence: number; inReplyTo: ReplyTarget; reason: string; error?: StructuredError }): EdgeMessage {
    return message(edgeContentType.updateTokenFailure, fields.sequence, withError(replyTo(fields.inReplyTo), fields.error), Buffer.from(fields.reason, 'utf8'));
  },

  traceRoute(fields: { sequence: number; connId: number; hops: number; timestamp: bigint; sourceRequestId?: number; uuid?: Buffer }): EdgeMessage {
    const headers = perConnection(fields.connId)
      .set(edgeHeader.traceHopCount, checkedU32('hops', fields.hops))
      .set(edgeHeader.timestamp, headerValue.uint64(fields.timestamp))
      .set(edgeHeader.traceSourceRequestId, fields.sourceRequestId === undefined ? undefined : checkedU32('sourceRequestId', fields.sourceRequestId))
      .set(channelHeader.reflected, fields.uuid);
    return message(edgeContentType.traceRoute, fields.sequence, headers);
  },

  /** The answer of one hop: its type and id, the hop count and timestamp of the request, an error if any; 128 echoed. */
  traceRouteResponse(fields: {
    sequence: number;
    connId: number;
    inReplyTo: ReplyTarget;
    hops: number;
    timestamp: bigint;
    hopType: string;
    hopId: string;
    sourceRequestId?: number;
    error?: string;
  }): EdgeMessage {
    const headers = perConnection(fields.connId, fields.inReplyTo)
      .set(edgeHeader.traceHopCount, checkedU32('hops', fields.hops))
      .set(edgeHeader.timestamp, headerValue.uint64(fields.timestamp))
      .set(edgeHeader.traceHopType, headerValue.string(fields.hopType))
      .set(edgeHeader.traceHopId, headerValue.string(fields.hopId))
      .set(edgeHeader.traceSourceRequestId, fields.sourceRequestId === undefined ? undefined : checkedU32('sourceRequestId', fields.sourceRequestId))
      .set(edgeHeader.traceError, text(fields.error));
    return message(edgeContentType.traceRouteResponse, fields.sequence, headers);
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Reading

/** Reads one message's headers, each refusal naming the message and the header. */
class HeaderReader {
  readonly name: string;
  constructor(readonly message: EdgeMessage, expected: number) {
    this.name = contentTypeName(expected);
    if (message.contentType !== expected) throw new EdgeMessageError(this.name, undefined, `content type ${message.contentType} (${contentTypeName(message.contentType)}) is not ${expected}`);
  }

  fail(id: number | undefined, detail: string): never {
    throw new EdgeMessageError(this.name, id, detail);
  }

  raw(id: number): Buffer | undefined {
    return this.message.headers.get(id);
  }

  private sized(id: number, bytes: number, what: string): Buffer | undefined {
    const value = this.raw(id);
    if (value !== undefined && value.length !== bytes) this.fail(id, `${what === 'int32' ? 'an' : 'a'} ${what} is ${bytes} byte${bytes === 1 ? '' : 's'}, not ${value.length}`);
    return value;
  }

  u32(id: number): number | undefined {
    return this.sized(id, 4, 'uint32')?.readUInt32LE(0);
  }
  int32(id: number): number | undefined {
    return this.sized(id, 4, 'int32')?.readInt32LE(0);
  }
  u16(id: number): number | undefined {
    return this.sized(id, 2, 'uint16')?.readUInt16LE(0);
  }
  u64(id: number): bigint | undefined {
    return this.sized(id, 8, 'uint64')?.readBigUInt64LE(0);
  }
  byte(id: number): number | undefined {
    return this.sized(id, 1, 'byte')?.[0];
  }
  bool(id: number): boolean | undefined {
    const value = this.sized(id, 1, 'bool');
    if (value === undefined) return undefined;
    if (value[0]! > 1) this.fail(id, `a bool is 0 or 1, not ${value[0]}`);
    return value[0] === 1;
  }
  string(id: number): string | undefined {
    return this.raw(id)?.toString('utf8');
  }

  requiredU32(id: number, what: string): number {
    const value = this.u32(id);
    if (value === undefined) this.fail(id, `${what} is missing`);
    return value;
  }

  /** 1003: 32 bytes; empty counts as absent (a router copies only a non-empty key). */
  publicKey(): Buffer | undefined {
    const value = this.raw(edgeHeader.publicKey);
    if (value === undefined || value.length === 0) return undefined;
    if (value.length !== publicKeyBytes) this.fail(edgeHeader.publicKey, `a public key is ${publicKeyBytes} bytes, not ${value.length}`);
    return value;
  }

  /** 1009: Go writes a byte (0 libsodium, 1 AES-GCM), C a string (`libsodium`, `aes-gcm`, `none`). */
  cryptoMethod(): CryptoMethodName | undefined {
    const value = this.raw(edgeHeader.cryptoMethod);
    if (value === undefined) return undefined;
    if (value.length === 1) {
      if (value[0] === 0) return 'libsodium';
      if (value[0] === 1) return 'aes-gcm';
      this.fail(edgeHeader.cryptoMethod, `crypto method ${value[0]} is not 0 (libsodium) or 1 (aes-gcm)`);
    }
    const name = withoutTrailingNul(value).toString('utf8');
    if (name === 'libsodium' || name === 'aes-gcm' || name === 'none') return name;
    return this.fail(edgeHeader.cryptoMethod, `crypto method ${JSON.stringify(name.slice(0, 32))} is not libsodium, aes-gcm or none`);
  }

  /** 1025: Go writes 8 characters, C the same plus a NUL. */
  connectionMarker(): string | undefined {
    const value = this.raw(edgeHeader.connectionMarker);
    return value && withoutTrailingNul(value).toString('utf8');
  }

  /** 1021: Go writes a string, C 32 raw bytes; text when it reads as printable UTF-8, else `hex:` and the bytes. */
  listenerId(): string | undefined {
    const value = this.raw(edgeHeader.listenerId);
    if (value === undefined) return undefined;
    const decoded = value.toString('utf8');
    return Buffer.byteLength(decoded) === value.length && !/[\u0000-\u001f\u007f\ufffd]/.test(decoded) ? decoded : `hex:${value.toString('hex')}`;
  }

  precedence(): PrecedenceName | undefined {
    const value = this.byte(edgeHeader.precedence);
    if (value === undefined) return undefined;
    const name = (Object.keys(precedences) as PrecedenceName[]).find((key) => precedences[key] === value);
    return name ?? this.fail(edgeHeader.precedence, `precedence ${value} is not 0, 1 or 2`);
  }

  /** 1033 (JSON) and 1014: when 1033 is there it must parse and 1014, if present, must agree with its code. */
  structuredError(): StructuredError | undefined {
    const raw = this.raw(edgeHeader.structuredError);
    const code = this.u32(edgeHeader.errorCode);
    if (raw === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      this.fail(edgeHeader.structuredError, 'not JSON');
    }
    const fields = parsed as Record<string, unknown>;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) this.fail(edgeHeader.structuredError, 'not a JSON object');
    const uint = (key: string) => {
      const value = fields[key] ?? 0;
      if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > u32Max) this.fail(edgeHeader.structuredError, `${key} is not a uint32`);
      return value as number;
    };
    if (typeof fields.message !== 'string') this.fail(edgeHeader.structuredError, 'message is not a string');
    const error: { message: string; code: number; retryHint: number; failingPostureCheckIds?: string[] } = { message: fields.message, code: uint('code'), retryHint: uint('retryHint') };
    const ids = fields.failingPostureCheckIds;
    if (ids !== undefined && ids !== null) {
      if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) this.fail(edgeHeader.structuredError, 'failingPostureCheckIds is not a list of strings');
      if (ids.length > 0) error.failingPostureCheckIds = ids as string[];
    }
    if (code !== undefined && code !== error.code) this.fail(edgeHeader.errorCode, `error code ${code} disagrees with the structured error's ${error.code}`);
    return error;
  }

  /** Header 1 as a reply's correlation: exactly 4 bytes. */
  replyFor(): number | undefined {
    return this.int32(channelHeader.replyFor);
  }
  requiredReplyFor(): number {
    const value = this.replyFor();
    if (value === undefined) this.fail(channelHeader.replyFor, 'a reply without the sequence it answers');
    return value;
  }

  body(): string {
    return this.message.body.toString('utf8');
  }
}

function withoutTrailingNul(value: Buffer): Buffer {
  return value.length > 0 && value[value.length - 1] === 0 ? value.subarray(0, value.length - 1) : value;
}

/** What every parsed message carries: its frame sequence and, for a reply, the request's (header 1). */
interface Common {
  readonly sequence: number;
  readonly replyFor?: number;
}

const common = (r: HeaderReader): Common => {
  const replyFor = r.replyFor();
  return replyFor === undefined ? { sequence: r.message.sequence } : { sequence: r.message.sequence, replyFor };
};

/** Per-connection messages: connId (1000, required) and the optional edge seq (1001). */
const connection = (r: HeaderReader) => {
  const seq = r.u32(edgeHeader.seq);
  return { ...common(r), connId: r.requiredU32(edgeHeader.connId, 'connId'), ...(seq === undefined ? {} : { seq }) };
};

/** Drops undefined fields, so a parsed message holds only what was on the wire. */
function defined<T extends object>(fields: T): T {
  for (const key of Object.keys(fields) as (keyof T)[]) if (fields[key] === undefined) delete fields[key];
  return fields;
}

export const parseMessage = {
  hello(m: EdgeMessage) {
    const r = new HeaderReader(m, channelContentType.hello);
    return defined({
      ...common(r),
      sessionToken: r.string(edgeHeader.sessionToken),
      body: r.body(),
      supportsInspect: r.bool(edgeHeader.supportsInspect),
      isGrouped: r.bool(channelHeader.isGrouped),
      isFirstGroupConnection: r.bool(channelHeader.isFirstGroupConnection),
      type: r.string(channelHeader.type),
      connectionId: r.string(channelHeader.connectionId),
    });
  },

  helloResult(m: EdgeMessage) {
    const r = new HeaderReader(m, channelContentType.result);
    const mask = r.raw(edgeHeader.routerCapabilities);
    const capabilities = mask === undefined ? [] : decodeCapabilityMask(mask);
    if (capabilities === undefined) r.fail(edgeHeader.routerCapabilities, `a capability mask of ${mask!.length} bytes`);
    return defined({
      ...common(r),
      replyFor: r.requiredReplyFor(),
      success: r.bool(channelHeader.resultSuccess) ?? false,
      text: r.body(),
      version: r.string(channelHeader.helloVersion),
      connectionId: r.string(channelHeader.connectionId),
      listenerId: r.string(channelHeader.id),
      type: r.string(channelHeader.type),
      capabilities,
      supportsBindSuccess: r.bool(edgeHeader.supportsBindSuccess) ?? false,
      supportsPostureChecks: r.bool(edgeHeader.supportsPostureChecks) ?? false,
      error: r.structuredError(),
    });
  },

  result(m: EdgeMessage) {
    const r = new HeaderReader(m, channelContentType.result);
    return { ...common(r), replyFor: r.requiredReplyFor(), success: r.bool(channelHeader.resultSuccess) ?? false, text: r.body() };
  },

  /** A latency probe; its timestamp (128) is what the answer reflects, any 8 bytes. */
  latencyProbe(m: EdgeMessage) {
    const r = new HeaderReader(m, channelContentType.latency);
    return defined({ ...common(r), timestamp: r.u64(channelHeader.reflected) });
  },

  latencyResult(m: EdgeMessage) {
    const r = new HeaderReader(m, channelContentType.result);
    return defined({ ...common(r), replyFor: r.requiredReplyFor(), success: r.bool(channelHeader.resultSuccess) ?? false, timestamp: r.u64(channelHeader.reflected) });
  },

  connect(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.connect);
    return defined({
      ...connection(r),
      token: r.body(),
      publicKey: r.publicKey(),
      cryptoMethod: r.cryptoMethod(),
      terminatorIdentity: r.string(edgeHeader.terminatorIdentity),
      callerId: r.string(edgeHeader.callerId),
      appData: r.raw(edgeHeader.appData),
      stickinessToken: r.raw(edgeHeader.stickinessToken),
      connectionMarker: r.connectionMarker(),
      useXgressToSdk: r.bool(edgeHeader.useXgressToSdk) ?? false,
    });
  },

  /** ConnectV2: the service (1036, required) by id or name (1037: 0 id, the default; 1 name). */
  connectV2(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.connectV2);
    const service = r.string(edgeHeader.serviceId);
    if (!service) r.fail(edgeHeader.serviceId, 'the service is missing');
    const type = r.byte(edgeHeader.serviceIdentifierType) ?? serviceIdentifierTypes.id;
    if (type !== serviceIdentifierTypes.id && type !== serviceIdentifierTypes.name) r.fail(edgeHeader.serviceIdentifierType, `service identifier type ${type} is not 0 (id) or 1 (name)`);
    return defined({
      ...connection(r),
      service,
      serviceIdentifier: type === serviceIdentifierTypes.name ? ('name' as const) : ('id' as const),
      publicKey: r.publicKey(),
      cryptoMethod: r.cryptoMethod(),
      terminatorIdentity: r.string(edgeHeader.terminatorIdentity),
      callerId: r.string(edgeHeader.callerId),
      appData: r.raw(edgeHeader.appData),
      stickinessToken: r.raw(edgeHeader.stickinessToken),
      useXgressToSdk: r.bool(edgeHeader.useXgressToSdk) ?? false,
    });
  },

  stateConnected(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.stateConnected);
    return defined({
      ...connection(r),
      circuitId: r.string(edgeHeader.circuitId),
      publicKey: r.publicKey(),
      routerProvidedConnId: r.bool(edgeHeader.routerProvidedConnId) ?? false,
      stickinessToken: r.raw(edgeHeader.stickinessToken),
    });
  },

  stateClosed(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.stateClosed);
    return defined({ ...connection(r), reason: r.body(), errorCode: r.u32(edgeHeader.errorCode), error: r.structuredError() });
  },

  /** Data; `fin` when the FIN flag is set (half-close), `multipart` when the body is multipart (MULTIPART_MSG). */
  data(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.data);
    const flags = r.u32(edgeHeader.flags) ?? 0;
    return defined({ ...connection(r), payload: m.body, flags, fin: (flags & 1) !== 0, multipart: (flags & 16) !== 0, traceUuid: r.raw(channelHeader.reflected) });
  },

  dial(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.dial);
    const { connId, ...rest } = connection(r);
    return defined({
      ...rest,
      bindConnId: connId,
      token: r.body(),
      callerId: r.string(edgeHeader.callerId) ?? '',
      circuitId: r.string(edgeHeader.circuitId),
      publicKey: r.publicKey(),
      connectionMarker: r.connectionMarker(),
      appData: r.raw(edgeHeader.appData),
      dialerIdentityId: r.string(edgeHeader.dialerIdentityId),
      dialerIdentityName: r.string(edgeHeader.dialerIdentityName),
      routerProvidedConnId: r.u32(edgeHeader.routerProvidedConnId),
    });
  },

  dialSuccess(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.dialSuccess);
    const { connId, ...rest } = connection(r);
    if (m.body.length !== 4) r.fail(undefined, `the body (the new connId) is 4 bytes, not ${m.body.length}`);
    return defined({ ...rest, replyFor: r.requiredReplyFor(), bindConnId: connId, newConnId: m.body.readUInt32LE(0), publicKey: r.publicKey() });
  },

  dialFailed(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.dialFailed);
    const { connId, ...rest } = connection(r);
    return { ...rest, replyFor: r.requiredReplyFor(), bindConnId: connId, reason: r.body() };
  },

  bind(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.bind);
    return defined({
      ...connection(r),
      token: r.body(),
      publicKey: r.publicKey(),
      cryptoMethod: r.cryptoMethod(),
      cost: r.u16(edgeHeader.cost),
      precedence: r.precedence(),
      terminatorIdentity: r.string(edgeHeader.terminatorIdentity),
      terminatorIdentitySecret: r.raw(edgeHeader.terminatorIdentitySecret),
      listenerId: r.listenerId(),
      supportsInspect: r.bool(edgeHeader.supportsInspect) ?? false,
      supportsBindSuccess: r.bool(edgeHeader.supportsBindSuccess) ?? false,
      routerProvidedConnId: r.bool(edgeHeader.routerProvidedConnId) ?? false,
      useXgressToSdk: r.bool(edgeHeader.useXgressToSdk) ?? false,
    });
  },

  unbind(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.unbind);
    return defined({ ...connection(r), token: r.body(), listenerId: r.listenerId() });
  },

  updateBind(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.updateBind);
    return defined({ ...connection(r), token: r.body(), cost: r.u16(edgeHeader.cost), precedence: r.precedence() });
  },

  healthEvent(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.healthEvent);
    const healthy = r.bool(edgeHeader.healthStatus);
    if (healthy === undefined) r.fail(edgeHeader.healthStatus, 'the health status is missing');
    return { ...connection(r), token: r.body(), healthy };
  },

  bindSuccess(m: EdgeMessage) {
    return connection(new HeaderReader(m, edgeContentType.bindSuccess));
  },

  connInspectRequest(m: EdgeMessage) {
    return connection(new HeaderReader(m, edgeContentType.connInspectRequest));
  },

  connInspectResponse(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.connInspectResponse);
    const value = r.byte(edgeHeader.connType) ?? connTypes.unknown;
    const connType = (Object.keys(connTypes) as (keyof typeof connTypes)[]).find((key) => connTypes[key] === value);
    if (connType === undefined) r.fail(edgeHeader.connType, `connection type ${value} is not 0-3`);
    return { ...connection(r), replyFor: r.requiredReplyFor(), connType, text: r.body() };
  },

  updateToken(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.updateToken);
    return { ...common(r), token: r.body() };
  },

  updateTokenSuccess(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.updateTokenSuccess);
    return { ...common(r), replyFor: r.requiredReplyFor() };
  },

  updateTokenFailure(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.updateTokenFailure);
    return defined({ ...common(r), replyFor: r.requiredReplyFor(), reason: r.body(), errorCode: r.u32(edgeHeader.errorCode), error: r.structuredError() });
  },

  traceRoute(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.traceRoute);
    return defined({
      ...connection(r),
      hops: r.u32(edgeHeader.traceHopCount) ?? 0,
      timestamp: r.u64(edgeHeader.timestamp),
      sourceRequestId: r.u32(edgeHeader.traceSourceRequestId),
      uuid: r.raw(channelHeader.reflected),
    });
  },

  traceRouteResponse(m: EdgeMessage) {
    const r = new HeaderReader(m, edgeContentType.traceRouteResponse);
    return defined({
      ...connection(r),
      hops: r.u32(edgeHeader.traceHopCount) ?? 0,
      timestamp: r.u64(edgeHeader.timestamp),
      hopType: r.string(edgeHeader.traceHopType),
      hopId: r.string(edgeHeader.traceHopId),
      sourceRequestId: r.u32(edgeHeader.traceSourceRequestId),
      error: r.string(edgeHeader.traceError),
      uuid: r.raw(channelHeader.reflected),
    });
  },
};

type Parsers = typeof parseMessage;

/** A parsed message of any known content type, told apart by `kind`. A Result is `result` (hello results too: parse
 * those with parseMessage.helloResult where the hello's answer is awaited); a Latency is `latencyProbe`. */
export type ParsedMessage =
  | { [K in Exclude<keyof Parsers, 'helloResult' | 'latencyResult'>]: { readonly kind: K } & ReturnType<Parsers[K]> }[Exclude<keyof Parsers, 'helloResult' | 'latencyResult'>]
  | { readonly kind: 'unknown'; readonly contentType: number; readonly sequence: number };

const parserByContentType = new Map<number, Exclude<keyof Parsers, 'helloResult' | 'latencyResult'>>([
  [channelContentType.hello, 'hello'],
  [channelContentType.result, 'result'],
  [channelContentType.latency, 'latencyProbe'],
  [edgeContentType.connect, 'connect'],
  [edgeContentType.connectV2, 'connectV2'],
  [edgeContentType.stateConnected, 'stateConnected'],
  [edgeContentType.stateClosed, 'stateClosed'],
  [edgeContentType.data, 'data'],
  [edgeContentType.dial, 'dial'],
  [edgeContentType.dialSuccess, 'dialSuccess'],
  [edgeContentType.dialFailed, 'dialFailed'],
  [edgeContentType.bind, 'bind'],
  [edgeContentType.unbind, 'unbind'],
  [edgeContentType.updateBind, 'updateBind'],
  [edgeContentType.healthEvent, 'healthEvent'],
  [edgeContentType.bindSuccess, 'bindSuccess'],
  [edgeContentType.connInspectRequest, 'connInspectRequest'],
  [edgeContentType.connInspectResponse, 'connInspectResponse'],
  [edgeContentType.updateToken, 'updateToken'],
  [edgeContentType.updateTokenSuccess, 'updateTokenSuccess'],
  [edgeContentType.updateTokenFailure, 'updateTokenFailure'],
  [edgeContentType.traceRoute, 'traceRoute'],
  [edgeContentType.traceRouteResponse, 'traceRouteResponse'],
]);

/** Parses any message by its content type; throws only EdgeMessageError. */
export function parseAnyMessage(m: EdgeMessage): ParsedMessage {
  const kind = parserByContentType.get(m.contentType);
  if (kind === undefined) return { kind: 'unknown', contentType: m.contentType, sequence: m.sequence };
  try {
    return { kind, ...(parseMessage[kind] as (m: EdgeMessage) => object)(m) } as ParsedMessage;
  } catch (error) {
    if (error instanceof EdgeMessageError) throw error;
    throw new EdgeMessageError(contentTypeName(m.contentType), undefined, `unreadable: ${(error as Error).message}`);
  }
}

/** The parts of a multipart Data body (`[u16 LE length][bytes]` each); a part cut short is refused. */
export function splitMultipart(body: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < body.length) {
    if (body.length - offset < 2) throw new EdgeMessageError('data', undefined, `a multipart length cut short at byte ${offset}`);
    const length = body.readUInt16LE(offset);
    offset += 2;
    if (length > body.length - offset) throw new EdgeMessageError('data', undefined, `a multipart part of ${length} bytes runs past the body at byte ${offset}`);
    parts.push(body.subarray(offset, offset + length));
    offset += length;
  }
  return parts;
}

/** A multipart Data body of these parts; a part over 65535 bytes is a caller's bug. */
export function joinMultipart(parts: readonly Buffer[]): Buffer {
  let total = 0;
  for (const part of parts) {
    if (part.length > maxMultipartPartBytes) throw new RangeError(`a multipart part of ${part.length} bytes exceeds ${maxMultipartPartBytes}`);
    total += 2 + part.length;
  }
  const body = Buffer.allocUnsafe(total);
  let offset = 0;
  for (const part of parts) {
    body.writeUInt16LE(part.length, offset);
    part.copy(body, offset + 2);
    offset += 2 + part.length;
  }
  return body;
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { channelContentType, contentTypeName, edgeContentType } from './edge-content-types.ts';
import { decodeHeaders, EdgeFrameReader, encodeEdgeMessage, versionNegotiationAnswer, type EdgeMessage } from './edge-frame-codec.ts';
import { dataFlag, decodeCapabilityMask, edgeErrorCode, encodeCapabilityMask, newestRouterCapabilities, retryHint, routerCapability } from './edge-headers.ts';
import { buildMessage, EdgeMessageError, joinMultipart, parseAnyMessage, parseMessage, replyHeaders, splitMultipart } from './edge-messages.ts';
import { headerValue } from './header-values.ts';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const frame = (message: EdgeMessage) => encodeEdgeMessage(message);

function decodeOne(bytes: Buffer): EdgeMessage {
  const reader = new EdgeFrameReader();
  reader.append(bytes);
  const message = reader.next() as EdgeMessage | undefined;
  assert.ok(message, 'a whole frame');
  assert.equal(reader.next(), undefined, 'nothing after it');
  return message;
}

/** The same frame up to header order, which carries no meaning: same prefix, the same headers, the same body. */
function assertSameFrame(actual: Buffer, expected: Buffer): void {
  assert.equal(actual.length, expected.length, 'length');
  assert.deepEqual(actual.subarray(0, 20), expected.subarray(0, 20), 'prefix');
  const [a, e] = [decodeOne(actual), decodeOne(expected)];
  const entries = (m: EdgeMessage) => [...m.headers].map(([id, value]) => `${id}=${value.toString('hex')}`).sort();
  assert.deepEqual(entries(a), entries(e), 'headers');
  assert.deepEqual(a.body, e.body, 'body');
}

const noRequest = (sequence: number) => ({ sequence, headers: new Map<number, Buffer>() });

test('§7 vectors: hello, result, data, StateConnected reply and latency probe are byte-exact (header order free)', () => {
  assert.deepEqual(
    frame(buildMessage.hello({ sessionToken: 'tok', body: 'id1' })),
    hex('03 06 09 0c 00 00 00 00 ff ff ff ff 0b 00 00 00 03 00 00 00 ea 03 00 00 03 00 00 00 74 6f 6b 69 64 31'),
  );
  assert.deepEqual(
    frame(buildMessage.result({ sequence: -1, inReplyTo: noRequest(-1), success: true })),
    hex('03 06 09 0c 02 00 00 00 ff ff ff ff 15 00 00 00 00 00 00 00 01 00 00 00 04 00 00 00 ff ff ff ff 02 00 00 00 01 00 00 00 01'),
  );
  assert.deepEqual(
    frame(buildMessage.data({ sequence: 5, connId: 1, payload: Buffer.from('hi'), flags: dataFlag.multipart })),
    hex('03 06 09 0c 72 ed 00 00 05 00 00 00 18 00 00 00 02 00 00 00 e8 03 00 00 04 00 00 00 01 00 00 00 f2 03 00 00 04 00 00 00 04 00 00 00 68 69'),
  );
  assertSameFrame(
    frame(buildMessage.stateConnected({ sequence: 3, connId: 1, inReplyTo: noRequest(7), circuitId: 'c1' })),
    hex('03 06 09 0c 70 ed 00 00 03 00 00 00 22 00 00 00 00 00 00 00 e8 03 00 00 04 00 00 00 01 00 00 00 01 00 00 00 04 00 00 00 07 00 00 00 02 04 00 00 02 00 00 00 63 31'),
  );
  assert.deepEqual(
    frame(buildMessage.latencyProbe({ sequence: 9, timestamp: 0x0102030405060708n })),
    hex('03 06 09 0c 03 00 00 00 09 00 00 00 10 00 00 00 00 00 00 00 80 00 00 00 08 00 00 00 08 07 06 05 04 03 02 01'),
  );
  assert.deepEqual(versionNegotiationAnswer(), hex('03 06 09 0a 02 00 00 00 01 00 00 00 02 00 00 00'));
});

test('§7 vectors: the newest router capability mask; the C SDK regression block with a misaligned second header', () => {
  assert.deepEqual(encodeCapabilityMask(newestRouterCapabilities), hex('40 00 00 00 00 00 00 76'));
  assert.deepEqual(decodeCapabilityMask(hex('40 00 00 00 00 00 00 76')), [1, 2, 4, 5, 6, 62]);
  assert.deepEqual(encodeCapabilityMask([routerCapability.connectV2]), Buffer.from([0x04]), 'Go SDK test: bit 2 is ConnectV2');
  assert.deepEqual(encodeCapabilityMask([]), Buffer.alloc(0), 'no bits: empty, as big.Int writes 0');
  assert.deepEqual(decodeCapabilityMask(hex('00 00 04')), [2], 'leading zero bytes are fine');
  assert.equal(decodeCapabilityMask(Buffer.alloc(129)), undefined, 'longer than 1024 bits');
  assert.throws(() => encodeCapabilityMask([-1]), RangeError);

  const block = decodeHeaders(hex('01000000 01000000 42 02000000 04000000 DEADBEEF'));
  assert.deepEqual([...block.keys()], [1, 2]);
  assert.deepEqual(block.get(1), Buffer.from([0x42]));
  assert.deepEqual(block.get(2), hex('DEADBEEF'));
});

test('the hello result carries the edge listener static headers, 1 = the hello sequence, echoes 7 but never 9', () => {
  const hello = parseAndKeep(
    buildMessage.hello({ sessionToken: 'api-token', body: 'ziti-sdk-c[0]@host', supportsInspect: true }),
    (m) => {
      (m.headers as Map<number, Buffer>).set(7, Buffer.from('edge.default')).set(9, headerValue.bool(true)).set(11, headerValue.bool(true));
    },
  );
  const parsedHello = parseMessage.hello(hello);
  assert.deepEqual(parsedHello, { sequence: -1, sessionToken: 'api-token', body: 'ziti-sdk-c[0]@host', supportsInspect: true, isGrouped: true, isFirstGroupConnection: true, type: 'edge.default' });

  const result = buildMessage.helloResult({ hello, version: 'v2.1.0|abc|2026-11-29|linux|amd64', connectionId: 'k3xy', listenerId: 'router-a', capabilities: newestRouterCapabilities });
  const wire = decodeOne(frame(result));
  assert.equal(wire.contentType, 2);
  assert.equal(wire.sequence, -1);
  assert.deepEqual([...wire.headers.keys()].sort((a, b) => a - b), [0, 1, 2, 4, 7, 8, 1024, 1032, 1039]);
  assert.equal(wire.headers.has(9), false);
  assert.deepEqual(wire.headers.get(1), hex('ffffffff'));
  const parsed = parseMessage.helloResult(wire);
  assert.deepEqual(parsed, {
    sequence: -1,
    replyFor: -1,
    success: true,
    text: '',
    version: 'v2.1.0|abc|2026-11-29|linux|amd64',
    connectionId: 'k3xy',
    listenerId: 'router-a',
    type: 'edge.default',
    capabilities: [1, 2, 4, 5, 6, 62],
    supportsBindSuccess: true,
    supportsPostureChecks: true,
  });
  const plain = decodeOne(frame(buildMessage.helloResult({ hello: buildMessage.hello({ sessionToken: 't' }), version: 'v', connectionId: 'c', listenerId: 'l', capabilities: [], supportsPostureChecks: false })));
  assert.equal(plain.headers.has(7), false, '7 only when the hello set it');
  assert.equal(plain.headers.has(1032), false);
  assert.deepEqual(plain.headers.get(1039), Buffer.alloc(0));
});

function parseAndKeep(message: EdgeMessage, change: (m: EdgeMessage) => void): EdgeMessage {
  change(message);
  return decodeOne(frame(message));
}

test('a latency probe is answered by a successful Result replying to it with 128 reflected; replies reflect only 128', () => {
  const probe = decodeOne(frame(buildMessage.latencyProbe({ sequence: 41, timestamp: 1_732_000_000_123_456_789n })));
  assert.deepEqual(parseMessage.latencyProbe(probe), { sequence: 41, timestamp: 1_732_000_000_123_456_789n });
  const answer = decodeOne(frame(buildMessage.latencyResult({ sequence: 2, probe })));
  assert.deepEqual(parseMessage.latencyResult(answer), { sequence: 2, replyFor: 41, success: true, timestamp: 1_732_000_000_123_456_789n });
  assert.equal(answer.body.length, 0);

  const request = { sequence: 12, headers: new Map([[0, Buffer.from('x')], [128, Buffer.from('r')], [129, Buffer.from('a')], [200, Buffer.from('b')], [255, Buffer.from('c')]]) };
  const headers = replyHeaders(request);
  assert.deepEqual([...headers.keys()].sort((a, b) => a - b), [1, 128]);
  assert.deepEqual(headers.get(1), hex('0c000000'), 'exactly 4 bytes');
});

test('round trips: every builder reads back through its parser and through parseAnyMessage', () => {
  const key = Buffer.alloc(32, 7);
  const connect = buildMessage.connect({ sequence: 3, connId: 9, token: 'eyJhbGciOi.session', publicKey: key, terminatorIdentity: 'inst-1', callerId: 'alice', appData: Buffer.from('{}'), stickinessToken: Buffer.from([1, 2]), connectionMarker: 'AbCdEfGh' });
  assert.deepEqual(parseMessage.connect(decodeOne(frame(connect))), {
    sequence: 3, connId: 9, token: 'eyJhbGciOi.session', publicKey: key, cryptoMethod: 'libsodium', terminatorIdentity: 'inst-1', callerId: 'alice',
    appData: Buffer.from('{}'), stickinessToken: Buffer.from([1, 2]), connectionMarker: 'AbCdEfGh', useXgressToSdk: false,
  });
  assert.deepEqual(connect.headers.get(1009), Buffer.from([0]), 'Go writes 1009 as one byte');

  const closed = buildMessage.stateClosed({ sequence: 4, connId: 9, inReplyTo: noRequest(3), reason: 'access denied', error: { message: 'access denied', code: edgeErrorCode.accessDenied, retryHint: retryHint.startOver } });
  assert.deepEqual(closed.headers.get(1014), headerValue.uint32(14));
  assert.equal(closed.headers.get(1033)!.toString(), '{"message":"access denied","code":14,"retryHint":2}');
  assert.deepEqual(parseMessage.stateClosed(decodeOne(frame(closed))), { sequence: 4, replyFor: 3, connId: 9, reason: 'access denied', errorCode: 14, error: { message: 'access denied', code: 14, retryHint: 2 } });
  const posture = buildMessage.stateClosed({ sequence: 5, connId: 9, error: { message: 'posture', code: 15, retryHint: 0, failingPostureCheckIds: ['pc1'] } });
  assert.deepEqual(parseMessage.stateClosed(posture).error, { message: 'posture', code: 15, retryHint: 0, failingPostureCheckIds: ['pc1'] });

  const fin = parseMessage.data(decodeOne(frame(buildMessage.fin({ sequence: 6, connId: 9 }))));
  assert.deepEqual(fin, { sequence: 6, connId: 9, payload: Buffer.alloc(0), flags: 1, fin: true, multipart: false });

  const dial = buildMessage.dial({ sequence: 7, bindConnId: 2, token: 'bind-token', callerId: '', circuitId: 'circ', publicKey: key, connectionMarker: 'm', appData: Buffer.from('a'), dialerIdentityId: 'id1', dialerIdentityName: 'alice', routerProvidedConnId: 0x8000_0001 });
  assert.deepEqual(dial.headers.get(1012), hex('01000080'), '1012 in Dial is the uint32 conn id');
  assert.deepEqual(parseMessage.dial(decodeOne(frame(dial))), {
    sequence: 7, bindConnId: 2, token: 'bind-token', callerId: '', circuitId: 'circ', publicKey: key, connectionMarker: 'm', appData: Buffer.from('a'),
    dialerIdentityId: 'id1', dialerIdentityName: 'alice', routerProvidedConnId: 0x8000_0001,
  });

  const success = buildMessage.dialSuccess({ sequence: 8, bindConnId: 2, inReplyTo: dial, newConnId: 0x8000_0001, publicKey: key });
  assert.deepEqual(success.body, hex('01000080'), 'body: the new conn id, 4 bytes LE');
  assert.deepEqual(parseMessage.dialSuccess(decodeOne(frame(success))), { sequence: 8, replyFor: 7, bindConnId: 2, newConnId: 0x8000_0001, publicKey: key });
  assert.deepEqual(parseMessage.dialFailed(buildMessage.dialFailed({ sequence: 9, bindConnId: 2, inReplyTo: dial, reason: 'no listener' })), { sequence: 9, replyFor: 7, bindConnId: 2, reason: 'no listener' });

  const bind = buildMessage.bind({ sequence: 10, connId: 5, token: 'bind-token', publicKey: key, cost: 300, precedence: 'required', terminatorIdentity: 'inst', terminatorIdentitySecret: Buffer.from('s'), listenerId: 'listener-1' });
  assert.deepEqual(bind.headers.get(1004), hex('2c01'));
  assert.deepEqual(bind.headers.get(1005), hex('01'));
  assert.deepEqual(bind.headers.get(1012), hex('01'), '1012 in Bind is a bool');
  assert.deepEqual(parseMessage.bind(decodeOne(frame(bind))), {
    sequence: 10, connId: 5, token: 'bind-token', publicKey: key, cryptoMethod: 'libsodium', cost: 300, precedence: 'required', terminatorIdentity: 'inst',
    terminatorIdentitySecret: Buffer.from('s'), listenerId: 'listener-1', supportsInspect: true, supportsBindSuccess: true, routerProvidedConnId: true, useXgressToSdk: false,
  });
  const plainBind = buildMessage.bind({ sequence: 1, connId: 5, token: 't', precedence: 'default', cost: 0 });
  assert.equal(plainBind.headers.has(1004) || plainBind.headers.has(1005) || plainBind.headers.has(1003), false, 'defaults are not written');

  const bound = buildMessage.stateConnected({ sequence: 11, connId: 5, inReplyTo: bind, routerProvidedConnId: true, publicKey: key });
  assert.deepEqual(parseMessage.stateConnected(decodeOne(frame(bound))), { sequence: 11, replyFor: 10, connId: 5, publicKey: key, routerProvidedConnId: true });
  assert.deepEqual(parseMessage.unbind(buildMessage.unbind({ sequence: 12, connId: 5, token: 't', listenerId: 'listener-1' })), { sequence: 12, connId: 5, token: 't', listenerId: 'listener-1' });
  assert.deepEqual(parseMessage.updateBind(buildMessage.updateBind({ sequence: 13, connId: 5, token: 't', cost: 0, precedence: 'failed' })), { sequence: 13, connId: 5, token: 't', cost: 0, precedence: 'failed' });
  assert.deepEqual(parseMessage.healthEvent(buildMessage.healthEvent({ sequence: 14, connId: 5, token: 't', healthy: false })), { sequence: 14, connId: 5, token: 't', healthy: false });
  assert.deepEqual(parseMessage.bindSuccess(buildMessage.bindSuccess({ sequence: 15, connId: 5 })), { sequence: 15, connId: 5 });
  const inspect = buildMessage.connInspectRequest({ sequence: 16, connId: 5 });
  assert.deepEqual(parseMessage.connInspectRequest(inspect), { sequence: 16, connId: 5 });
  assert.deepEqual(parseMessage.connInspectResponse(buildMessage.connInspectResponse({ sequence: 17, connId: 5, inReplyTo: inspect, connType: 'bind', text: 'listening' })), { sequence: 17, replyFor: 16, connId: 5, connType: 'bind', text: 'listening' });

  const update = buildMessage.updateToken({ sequence: 18, token: 'eyJnew' });
  assert.deepEqual(parseMessage.updateToken(update), { sequence: 18, token: 'eyJnew' });
  assert.deepEqual(parseMessage.updateTokenSuccess(buildMessage.updateTokenSuccess({ sequence: 19, inReplyTo: update })), { sequence: 19, replyFor: 18 });
  assert.deepEqual(
    parseMessage.updateTokenFailure(buildMessage.updateTokenFailure({ sequence: 20, inReplyTo: update, reason: 'expired', error: { message: 'expired', code: 2, retryHint: 2 } })),
    { sequence: 20, replyFor: 18, reason: 'expired', errorCode: 2, error: { message: 'expired', code: 2, retryHint: 2 } },
  );
  const uuid = Buffer.alloc(16, 3);
  const trace = buildMessage.traceRoute({ sequence: 21, connId: 9, hops: 1, timestamp: 1000n, sourceRequestId: 4, uuid });
  assert.deepEqual(parseMessage.traceRoute(trace), { sequence: 21, connId: 9, hops: 1, timestamp: 1000n, sourceRequestId: 4, uuid });
  assert.deepEqual(
    parseMessage.traceRouteResponse(buildMessage.traceRouteResponse({ sequence: 22, connId: 9, inReplyTo: trace, hops: 1, timestamp: 1000n, hopType: 'er', hopId: 'router-a', sourceRequestId: 4 })),
    { sequence: 22, replyFor: 21, connId: 9, hops: 1, timestamp: 1000n, hopType: 'er', hopId: 'router-a', sourceRequestId: 4, uuid },
  );

  const v2 = buildMessage.connectV2({ sequence: 23, connId: 10, service: 'web', serviceIdentifier: 'name', publicKey: key, callerId: 'alice' });
  assert.equal(v2.body.length, 0);
  assert.deepEqual(parseMessage.connectV2(decodeOne(frame(v2))), { sequence: 23, connId: 10, service: 'web', serviceIdentifier: 'name', publicKey: key, cryptoMethod: 'libsodium', callerId: 'alice', useXgressToSdk: false });
  assert.throws(() => parseMessage.connectV2({ ...v2, headers: new Map([[1000, headerValue.uint32(1)]]) }), /connectV2, header 1036: the service is missing/);
  assert.throws(() => parseMessage.connectV2({ ...v2, headers: new Map([...v2.headers, [1037, Buffer.from([2])]]) }), /service identifier type 2/);

  const kinds = [v2, connect, closed, dial, success, bind, bound, update, trace, buildMessage.hello({ sessionToken: 't' }), buildMessage.latencyProbe({ sequence: 1, timestamp: 1n })].map((m) => parseAnyMessage(m).kind);
  assert.deepEqual(kinds, ['connectV2', 'connect', 'stateClosed', 'dial', 'dialSuccess', 'bind', 'stateConnected', 'updateToken', 'traceRoute', 'hello', 'latencyProbe']);
  assert.deepEqual(parseAnyMessage({ contentType: 10900, sequence: 3, headers: new Map(), body: Buffer.alloc(0) }), { kind: 'unknown', contentType: 10900, sequence: 3 });
});

test('what the C SDK sends where it differs from Go: 1009 as a string, 1025 with a NUL, 1021 as 32 raw bytes, 1001 seq', () => {
  const rawListener = Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37) & 0xff));
  const connect: EdgeMessage = {
    contentType: edgeContentType.connect,
    sequence: 1,
    headers: new Map([
      [1000, headerValue.uint32(1)],
      [1025, Buffer.from('AbCdEfGh\0')],
      [1001, headerValue.uint32(0)],
      [1008, Buffer.from('alice')],
      [1003, Buffer.alloc(32, 9)],
      [1009, Buffer.from('libsodium')],
    ]),
    body: Buffer.from('eyJ.session'),
  };
  const parsed = parseMessage.connect(decodeOne(frame(connect)));
  assert.equal(parsed.connectionMarker, 'AbCdEfGh');
  assert.equal(parsed.cryptoMethod, 'libsodium');
  assert.equal(parsed.seq, 0);
  const bind: EdgeMessage = {
    contentType: edgeContentType.bind,
    sequence: 2,
    headers: new Map([[1000, headerValue.uint32(2)], [1001, headerValue.uint32(0)], [1021, rawListener], [1023, Buffer.from([1])], [1012, Buffer.from([1])]]),
    body: Buffer.from('bind-token'),
  };
  const parsedBind = parseMessage.bind(bind);
  assert.equal(parsedBind.listenerId, `hex:${rawListener.toString('hex')}`);
  assert.equal(parsedBind.supportsBindSuccess, false, 'C sends no 1024: no BindSuccess for it');
  assert.equal(parsedBind.routerProvidedConnId, true);
  const forAes = { ...connect, headers: new Map([...connect.headers, [1009, Buffer.from('aes-gcm')]]) };
  assert.equal(parseMessage.connect(forAes).cryptoMethod, 'aes-gcm');
  assert.equal(parseMessage.connect({ ...connect, headers: new Map([...connect.headers, [1009, Buffer.from([1])]]) }).cryptoMethod, 'aes-gcm');
});

test('a multipart body splits into its parts and joins back; a part cut short is refused', () => {
  const parts = [Buffer.from('one'), Buffer.alloc(0), Buffer.alloc(65_535, 1)];
  const body = joinMultipart(parts);
  assert.deepEqual(body.subarray(0, 5), hex('0300 6f6e65'));
  assert.deepEqual(splitMultipart(body), parts);
  assert.deepEqual(splitMultipart(Buffer.alloc(0)), []);
  assert.throws(() => splitMultipart(hex('0500 616263')), (error: unknown) => error instanceof EdgeMessageError && /a multipart part of 5 bytes runs past the body/.test(error.message));
  assert.throws(() => splitMultipart(hex('0100 61 02')), /a multipart length cut short at byte 3/);
  assert.throws(() => joinMultipart([Buffer.alloc(65_536)]), RangeError);
});

test('malformed input is refused with an EdgeMessageError naming the message and the header', () => {
  const data = (headers: [number, Buffer][], body: Buffer<ArrayBufferLike> = Buffer.from("x")): EdgeMessage => ({ contentType: edgeContentType.data, sequence: 1, headers: new Map(headers), body });
  const refuses = (parse: () => unknown, name: string, header: number | undefined, pattern: RegExp) =>
    assert.throws(parse, (error: unknown) => {
      assert.ok(error instanceof EdgeMessageError, `an EdgeMessageError, not ${String(error)}`);
      assert.equal(error.messageName, name);
      assert.equal(error.headerId, header);
      assert.match(error.message, pattern);
      return true;
    });
  refuses(() => parseMessage.data(data([])), 'data', 1000, /connId is missing/);
  refuses(() => parseMessage.data(data([[1000, Buffer.from([1, 0, 0])]])), 'data', 1000, /a uint32 is 4 bytes, not 3/);
  refuses(() => parseMessage.data(data([[1000, headerValue.uint32(1)], [1010, Buffer.from([1])]])), 'data', 1010, /a uint32 is 4 bytes, not 1/);
  refuses(() => parseMessage.data(data([[1000, headerValue.uint32(1)], [1001, Buffer.alloc(8)]])), 'data', 1001, /4 bytes, not 8/);
  refuses(() => parseMessage.connect({ ...data([[1000, headerValue.uint32(1)], [1003, Buffer.alloc(31)]]), contentType: edgeContentType.connect }), 'connect', 1003, /public key is 32 bytes, not 31/);
  refuses(() => parseMessage.connect({ ...data([[1000, headerValue.uint32(1)], [1009, Buffer.from([7])]]), contentType: edgeContentType.connect }), 'connect', 1009, /crypto method 7/);
  refuses(() => parseMessage.connect({ ...data([[1000, headerValue.uint32(1)], [1009, Buffer.from('rot13')]]), contentType: edgeContentType.connect }), 'connect', 1009, /"rot13" is not libsodium/);
  refuses(() => parseMessage.connect({ ...data([[1000, headerValue.uint32(1)], [1028, Buffer.from([1, 0])]]), contentType: edgeContentType.connect }), 'connect', 1028, /a bool is 1 byte, not 2/);
  refuses(() => parseMessage.bind({ ...data([[1000, headerValue.uint32(1)], [1005, Buffer.from([3])]]), contentType: edgeContentType.bind }), 'bind', 1005, /precedence 3/);
  refuses(() => parseMessage.bind({ ...data([[1000, headerValue.uint32(1)], [1004, Buffer.alloc(4)]]), contentType: edgeContentType.bind }), 'bind', 1004, /a uint16 is 2 bytes, not 4/);
  refuses(() => parseMessage.bind({ ...data([[1000, headerValue.uint32(1)], [1012, Buffer.from([2])]]), contentType: edgeContentType.bind }), 'bind', 1012, /a bool is 0 or 1, not 2/);
  const closed = (headers: [number, Buffer][]) => ({ ...data([[1000, headerValue.uint32(1)], ...headers]), contentType: edgeContentType.stateClosed });
  refuses(() => parseMessage.stateClosed(closed([[1033, Buffer.from('{not json')]])), 'stateClosed', 1033, /not JSON/);
  refuses(() => parseMessage.stateClosed(closed([[1033, Buffer.from('[1]')]])), 'stateClosed', 1033, /not a JSON object/);
  refuses(() => parseMessage.stateClosed(closed([[1033, Buffer.from('{"message":"m","code":-1}')]])), 'stateClosed', 1033, /code is not a uint32/);
  refuses(() => parseMessage.stateClosed(closed([[1033, Buffer.from('{"message":"m","code":1,"failingPostureCheckIds":[1]}')]])), 'stateClosed', 1033, /failingPostureCheckIds/);
  refuses(() => parseMessage.stateClosed(closed([[1033, Buffer.from('{"message":"m","code":3,"retryHint":2}')], [1014, headerValue.uint32(14)]])), 'stateClosed', 1014, /disagrees/);
  const dialSuccess = (body: Buffer<ArrayBufferLike>, headers: [number, Buffer][] = [[1, headerValue.int32(4)]]) => ({ ...data([[1000, headerValue.uint32(1)], ...headers], body), contentType: edgeContentType.dialSuccess });
  refuses(() => parseMessage.dialSuccess(dialSuccess(Buffer.alloc(5))), 'dialSuccess', undefined, /the new connId\) is 4 bytes, not 5/);
  refuses(() => parseMessage.dialSuccess(dialSuccess(Buffer.alloc(4), [])), 'dialSuccess', 1, /a reply without the sequence it answers/);
  refuses(() => parseMessage.dialSuccess(dialSuccess(Buffer.alloc(4), [[1, Buffer.alloc(2)]])), 'dialSuccess', 1, /an int32 is 4 bytes, not 2/);
  refuses(() => parseMessage.healthEvent({ ...data([[1000, headerValue.uint32(1)]]), contentType: edgeContentType.healthEvent }), 'healthEvent', 1013, /missing/);
  refuses(() => parseMessage.connInspectResponse({ ...data([[1000, headerValue.uint32(1)], [1, headerValue.int32(1)], [1022, Buffer.from([9])]]), contentType: edgeContentType.connInspectResponse }), 'connInspectResponse', 1022, /connection type 9/);
  refuses(() => parseMessage.helloResult({ contentType: 2, sequence: -1, headers: new Map([[1, headerValue.int32(-1)], [1039, Buffer.alloc(200)]]), body: Buffer.alloc(0) }), 'result', 1039, /capability mask of 200 bytes/);
  refuses(() => parseMessage.connect(data([[1000, headerValue.uint32(1)]])), 'connect', undefined, /content type 60786 \(data\) is not 60783/);
  refuses(() => parseAnyMessage(data([[1000, Buffer.alloc(2)]])), 'data', 1000, /4 bytes, not 2/);
  assert.equal(contentTypeName(channelContentType.latency), 'latency');
});

test('builders refuse what would go on the wire wrong: widths out of range, a key not 32 bytes', () => {
  assert.throws(() => buildMessage.data({ sequence: 1, connId: -1, payload: Buffer.alloc(0) }), /connId -1 is not a uint32/);
  assert.throws(() => buildMessage.data({ sequence: 1, connId: 2 ** 32, payload: Buffer.alloc(0) }), /not a uint32/);
  assert.throws(() => buildMessage.bind({ sequence: 1, connId: 1, token: 't', cost: 70_000 }), /cost 70000 is not a uint16/);
  assert.throws(() => buildMessage.connect({ sequence: 1, connId: 1, token: 't', publicKey: Buffer.alloc(16) }), /a public key is 32 bytes, not 16/);
  for (const message of [buildMessage.bind({ sequence: 1, connId: 1, token: 't', cost: 1 }), buildMessage.data({ sequence: 1, connId: 1, payload: Buffer.alloc(1), flags: 4, seq: 1 })]) {
    for (const [id, value] of message.headers) if ([1000, 1001, 1010].includes(id)) assert.equal(value.length, 4, `header ${id}`);
    assert.equal(message.headers.get(1023)?.length ?? 1, 1);
  }
});

/** The parsers of a content type, called directly so that nothing wraps what they throw (a Result has three). */
function parsersFor(contentType: number): (keyof typeof parseMessage)[] {
  if (contentType === channelContentType.result) return ['result', 'helloResult', 'latencyResult'];
  if (contentType === channelContentType.latency) return ['latencyProbe'];
  return (Object.keys(parseMessage) as (keyof typeof parseMessage)[]).filter((name) => contentTypeName(contentType) === name);
}

test('hostile bytes: random headers on every content type give a parsed message or an EdgeMessageError, nothing else', () => {
  let state = 0x2545f491;
  const random = (below: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % below;
  };
  const types = [0, 2, 3, ...Object.values(edgeContentType)];
  const ids = [0, 1, 2, 7, 9, 128, ...Array.from({ length: 41 }, (_, i) => 1000 + i)];
  let parsed = 0;
  let refused = 0;
  for (let i = 0; i < 5000; i++) {
    const headers = new Map<number, Buffer>();
    for (let h = random(8); h > 0; h--) headers.set(ids[random(ids.length)]!, Buffer.from(Array.from({ length: random(3) === 0 ? random(40) : [0, 1, 2, 4, 8, 32][random(6)]! }, () => random(256))));
    const body = Buffer.from(Array.from({ length: random(12) }, () => random(256)));
    const message = decodeOne(frame({ contentType: types[random(types.length)]!, sequence: random(1000) - 1, headers, body }));
    for (const name of parsersFor(message.contentType)) {
      try {
        (parseMessage[name] as (m: EdgeMessage) => unknown)(message);
        parsed++;
      } catch (error) {
        assert.ok(error instanceof EdgeMessageError, `${name}: only EdgeMessageError, not ${String(error)}`);
        refused++;
      }
    }
    try {
      parseAnyMessage(message);
    } catch (error) {
      assert.ok(error instanceof EdgeMessageError, `parseAnyMessage: only EdgeMessageError, not ${String(error)}`);
    }
  }
  assert.ok(parsed > 100 && refused > 100, `both outcomes seen (parsed ${parsed}, refused ${refused})`);
});

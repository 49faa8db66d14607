// The SDK's channel and connections against a scripted fake router over a loopback socket pair: what the SDK sends
// (hello, Connect, Data of at most 32 KiB, FIN, StateClosed), how it reads what the router answers (StateConnected,
// Data, FIN, StateClosed, refusals with codes), end-to-end encryption with the fake router as the host, and that
// nothing a router sends (garbage, malformed headers, silence) throws out untyped.
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { edgeContentType } from '../common/edge-protocol/edge-content-types.ts';
import { EdgeFrameReader, encodeEdgeMessage, type EdgeMessage } from '../common/edge-protocol/edge-frame-codec.ts';
import { newKeyPair, openE2eStreams } from '../common/edge-protocol/e2e-crypto.ts';
import { buildMessage, parseMessage } from '../common/edge-protocol/edge-messages.ts';
import { connectOverChannel } from './connect-over-channel.ts';
import { EdgeRouterChannel, parseRouterUrl } from './edge-router-channel.ts';
import { DialRefusedError, EdgeSdkError } from './sdk-errors.ts';
import type { EdgeConnection } from './edge-connection.ts';
import { EdgeListener } from './edge-listener.ts';

/** The router's end of one socket: frames in (each wait bounded), frames or raw bytes out. */
class FakeRouter {
  private readonly reader = new EdgeFrameReader();
  private readonly frames: EdgeMessage[] = [];
  private wake: (() => void) | undefined;
  private sequence = 100;

  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.reader.append(chunk);
      for (let frame = this.reader.next(); frame; frame = this.reader.next()) this.frames.push(frame);
      this.wake?.();
    });
    socket.on('error', () => undefined);
  }

  async next(what: string, matches: (frame: EdgeMessage) => boolean = () => true): Promise<EdgeMessage> {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const index = this.frames.findIndex(matches);
      if (index >= 0) return this.frames.splice(index, 1)[0]!;
      if (Date.now() > deadline) throw new Error(`the fake router got no ${what} within 5 s`);
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  }

  send(build: (sequence: number) => EdgeMessage): void {
    this.socket.write(encodeEdgeMessage(build(++this.sequence)));
  }

  /** Answers the hello successfully. */
  async welcome(): Promise<EdgeMessage> {
    const hello = await this.next('hello');
    this.send(() => buildMessage.helloResult({ hello, version: 'v1.0.0|r|d|linux|amd64', connectionId: 'c', listenerId: 'r1', capabilities: [1, 6] }));
    return hello;
  }
}

let server: Server;
const accepted: Array<(socket: Socket) => void> = [];
const open = new Set<Socket>();

before(async () => {
  server = createServer((socket) => {
    open.add(socket);
    accepted.shift()?.(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
});
after(() => {
  for (const socket of open) socket.destroy();
  server.close();
});

/** A channel over a fresh socket pair, and the fake router at the other end. */
async function pair(timeoutMs = 2_000): Promise<{ channel: EdgeRouterChannel; router: FakeRouter }> {
  const routerSide = new Promise<Socket>((resolve) => accepted.push(resolve));
  const socket = connect((server.address() as { port: number }).port, '127.0.0.1');
  const channel = new EdgeRouterChannel(socket, timeoutMs);
  return { channel, router: new FakeRouter(await routerSide) };
}

async function connected(): Promise<{ channel: EdgeRouterChannel; router: FakeRouter }> {
  const { channel, router } = await pair();
  const welcomed = router.welcome();
  await channel.sayHello('api-token', 'me');
  await welcomed;
  return { channel, router };
}

const read = (connection: EdgeConnection): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    connection.on('data', (chunk: Buffer) => chunks.push(chunk));
    connection.once('end', () => resolve(Buffer.concat(chunks)));
    connection.once('error', reject);
  });

describe('the SDK channel to an edge router', () => {
  it('says hello with the API session token at sequence -1 and reads the router version', async () => {
    const { channel, router } = await pair();
    const welcomed = router.welcome();
    const hello = await channel.sayHello('api-token', 'sdk-body');
    const sent = parseMessage.hello(await welcomed);
    assert.equal(sent.sessionToken, 'api-token');
    assert.equal(sent.body, 'sdk-body');
    assert.equal(hello.version, 'v1.0.0|r|d|linux|amd64');
    channel.close('done');
  });

  it('reports a refused hello with the router text, and a hello that is never answered as a bounded wait', async () => {
    const refused = await pair();
    const hello = refused.router.next('hello');
    const answer = refused.channel.sayHello('bad', 'x');
    const request = await hello;
    refused.router.send(() => ({ ...buildMessage.result({ sequence: -1, inReplyTo: request, success: false, text: 'no such api session' }) }));
    await assert.rejects(answer, (error: unknown) => error instanceof EdgeSdkError && error.kind === 'router-unreachable' && /no such api session/.test(error.message));
    refused.channel.close('done');

    const silent = await pair(300);
    await assert.rejects(silent.channel.sayHello('t', 'x'), (error: unknown) => error instanceof EdgeSdkError && /no answer within 300ms/.test(error.message));
    silent.channel.close('done');
  });

  it('dials with Connect (session token as body), reads Data until FIN, writes at most 32 KiB a Data and FIN on end()', async () => {
    const { channel, router } = await connected();
    const dialing = connectOverChannel(channel, { service: 'echo', sessionToken: 'session-jwt', encryptionRequired: false, callerId: 'me' });
    const request = await router.next('connect');
    const connect = parseMessage.connect(request);
    assert.equal(connect.token, 'session-jwt');
    assert.equal(connect.callerId, 'me');
    assert.equal(connect.publicKey, undefined, 'no key for a service without encryption');
    // StateConnected, then Data and FIN at once, in one write: none of it may be lost to the dialer.
    router.socket.write(
      Buffer.concat([
        encodeEdgeMessage(buildMessage.stateConnected({ sequence: 1, connId: connect.connId, inReplyTo: request, circuitId: 'circuit-1' })),
        encodeEdgeMessage(buildMessage.data({ sequence: 2, connId: connect.connId, payload: Buffer.from('hello ') })),
        encodeEdgeMessage(buildMessage.data({ sequence: 3, connId: connect.connId, payload: Buffer.from('dialer') })),
        encodeEdgeMessage(buildMessage.fin({ sequence: 4, connId: connect.connId })),
      ]),
    );
    const connection = await dialing;
    assert.equal(connection.circuitId, 'circuit-1');
    assert.equal((await read(connection)).toString(), 'hello dialer', 'everything after StateConnected is read, then the end');

    // Half-closed by the far side: this side still writes, in Data of at most 32 KiB, then FIN.
    const payload = Buffer.alloc(70_000, 7);
    connection.end(payload);
    const sizes: number[] = [];
    for (;;) {
      const data = parseMessage.data(await router.next('data', (frame) => frame.contentType === edgeContentType.data));
      assert.equal(data.connId, connect.connId);
      if (data.fin) break;
      sizes.push(data.payload.length);
    }
    assert.deepEqual(sizes, [32_768, 32_768, 4_464]);
    // Both sides ended: the router's StateClosed completes the close; the connection says why.
    const closedReason = new Promise((resolve) => connection.once('routerClosed', resolve));
    router.send((sequence) => buildMessage.stateClosed({ sequence, connId: connect.connId, reason: 'both sides finished' }));
    assert.equal(await closedReason, 'both sides finished');
    if (!connection.closed) await new Promise((resolve) => connection.once('close', resolve));
    assert.ok(connection.destroyed);
    channel.close('done');
  });

  it('turns a refusal into a DialRefusedError with the edge code, retry hint and text; a plain-text refusal has code 0', async () => {
    const { channel, router } = await connected();
    const dialing = connectOverChannel(channel, { service: 'echo', sessionToken: 'expired', encryptionRequired: false });
    const request = await router.next('connect');
    const connId = parseMessage.connect(request).connId;
    router.send((sequence) => buildMessage.stateClosed({ sequence, connId, inReplyTo: request, reason: 'invalid session', error: { message: 'invalid session', code: 3, retryHint: 2 } }));
    await assert.rejects(dialing, (error: unknown) => error instanceof DialRefusedError && error.edgeCode === 3 && error.retryHint === 2 && error.reason === 'invalid session' && error.service === 'echo');

    const plain = connectOverChannel(channel, { service: 'echo', sessionToken: 't', encryptionRequired: false });
    const second = await router.next('connect');
    router.send((sequence) => buildMessage.stateClosed({ sequence, connId: parseMessage.connect(second).connId, inReplyTo: second, reason: 'no controller available, cannot create circuit' }));
    await assert.rejects(plain, (error: unknown) => error instanceof DialRefusedError && error.edgeCode === 0 && /no controller available/.test(error.message));
    channel.close('done');
  });

  it('encrypts end to end when the service requires it: its key in Connect, its stream header first, only sealed Data', async () => {
    const { channel, router } = await connected();
    const dialing = connectOverChannel(channel, { service: 'secure', sessionToken: 't', encryptionRequired: true });
    const request = await router.next('connect');
    const connect = parseMessage.connect(request);
    assert.equal(connect.publicKey?.length, 32, 'the dialer sends its key (1003)');
    const hostKeys = newKeyPair();
    const host = openE2eStreams('host', hostKeys, connect.publicKey!);
    router.socket.write(
      Buffer.concat([
        encodeEdgeMessage(buildMessage.stateConnected({ sequence: 1, connId: connect.connId, inReplyTo: request, publicKey: hostKeys.publicKey })),
        encodeEdgeMessage(buildMessage.data({ sequence: 2, connId: connect.connId, payload: host.encryptor.header })),
        encodeEdgeMessage(buildMessage.data({ sequence: 3, connId: connect.connId, payload: host.encryptor.encrypt(Buffer.from('sealed reply')) })),
        encodeEdgeMessage(buildMessage.fin({ sequence: 4, connId: connect.connId })),
      ]),
    );
    const connection = await dialing;
    assert.equal((await read(connection)).toString(), 'sealed reply');
    const secret = Buffer.alloc(40_000, 'secret');
    connection.end(secret);
    const header = await router.next('stream header', (frame) => frame.contentType === edgeContentType.data);
    assert.equal(header.body.length, 24, "the dialer's first Data is its 24-byte stream header alone");
    assert.equal(host.decryptor.receive(header.body), undefined);
    const opened: Buffer[] = [];
    for (;;) {
      const data = parseMessage.data(await router.next('data', (frame) => frame.contentType === edgeContentType.data));
      if (data.fin) break;
      assert.ok(data.payload.length <= 32_768 + 17, 'at most 32 KiB of plaintext a message');
      assert.ok(!data.payload.includes(Buffer.from('secretsecret')), 'no plaintext crosses');
      opened.push(host.decryptor.receive(data.payload)!);
    }
    assert.ok(Buffer.concat(opened).equals(secret));
    channel.close('done');
  });

  it('fails a connection with a typed error on a forged message or a StateConnected without the host key, and keeps the channel', async () => {
    const { channel, router } = await connected();
    const keyless = connectOverChannel(channel, { service: 'secure', sessionToken: 't', encryptionRequired: true });
    const first = await router.next('connect');
    router.send((sequence) => buildMessage.stateConnected({ sequence, connId: parseMessage.connect(first).connId, inReplyTo: first }));
    await assert.rejects(keyless, (error: unknown) => error instanceof EdgeSdkError && error.kind === 'protocol' && /no host key/.test(error.message));

    const answered = parseMessage.stateClosed(await router.next('state closed', (frame) => frame.contentType === edgeContentType.stateClosed));
    assert.equal(answered.connId, parseMessage.connect(first).connId, 'the SDK tells the router it dropped the connection');
    const dialing = connectOverChannel(channel, { service: 'secure', sessionToken: 't', encryptionRequired: true });
    const request = await router.next('connect', (frame) => frame.contentType === edgeContentType.connect);
    const connect = parseMessage.connect(request);
    const hostKeys = newKeyPair();
    const host = openE2eStreams('host', hostKeys, connect.publicKey!);
    router.send((sequence) => buildMessage.stateConnected({ sequence, connId: connect.connId, inReplyTo: request, publicKey: hostKeys.publicKey }));
    const connection = await dialing;
    const failed = new Promise<Error>((resolve) => connection.once('error', resolve));
    const sealed = host.encryptor.encrypt(Buffer.from('genuine'));
    sealed[sealed.length - 1]! ^= 1;
    router.send((sequence) => buildMessage.data({ sequence, connId: connect.connId, payload: host.encryptor.header }));
    router.send((sequence) => buildMessage.data({ sequence, connId: connect.connId, payload: sealed }));
    const error = await failed;
    assert.ok(error instanceof EdgeSdkError && error.kind === 'protocol', String(error));
    const closed = parseMessage.stateClosed(await router.next('state closed', (frame) => frame.contentType === edgeContentType.stateClosed));
    assert.equal(closed.connId, connect.connId, 'the SDK closes the connection it cannot trust');
    assert.equal(channel.isClosed, false, 'other connections on the channel go on');
    const probing = channel.probeLatency();
    const probe = await router.next('latency probe', (frame) => frame.contentType === 3);
    router.send((sequence) => buildMessage.latencyResult({ sequence, probe }));
    assert.ok((await probing) >= 0, 'and the channel still works');
    channel.close('done');
  });

  it('answers a latency probe round trip, bounds every request, and fails waiting requests and connections with typed errors when the router sends garbage', async () => {
    const { channel, router } = await connected();
    const probing = channel.probeLatency();
    const probe = await router.next('latency probe');
    router.send((sequence) => buildMessage.latencyResult({ sequence, probe }));
    assert.ok((await probing) >= 0);

    await assert.rejects(channel.probeLatency(), (error: unknown) => error instanceof EdgeSdkError && error.kind === 'timeout');

    const dialing = connectOverChannel(channel, { service: 'echo', sessionToken: 't', encryptionRequired: false });
    const request = await router.next('connect', (frame) => frame.contentType === edgeContentType.connect);
    router.send((sequence) => buildMessage.stateConnected({ sequence, connId: parseMessage.connect(request).connId, inReplyTo: request }));
    const connection = await dialing;
    const failed = new Promise<Error>((resolve) => connection.once('error', resolve));
    const waiting = connectOverChannel(channel, { service: 'echo', sessionToken: 't', encryptionRequired: false });
    await router.next('second connect', (frame) => frame.contentType === edgeContentType.connect);
    router.socket.write(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await assert.rejects(waiting, (error: unknown) => error instanceof EdgeSdkError && error.kind === 'closed');
    const lost = await failed;
    assert.ok(lost instanceof EdgeSdkError && lost.kind === 'closed', String(lost));
    assert.equal(channel.isClosed, true);
  });

  it('hosts with Bind: waits for BindSuccess, answers a Dial with DialSuccess and the router id, opens the sealed streams host-side; refuses a Dial without the key or with another token; Unbind on close', async () => {
    const { channel, router } = await connected();
    const accepted: EdgeConnection[] = [];
    const binding = EdgeListener.open(channel, { service: 'hosted', sessionToken: 'bind-token', encryptionRequired: true }, (connection) => accepted.push(connection));
    const request = await router.next('bind', (frame) => frame.contentType === edgeContentType.bind);
    const bind = parseMessage.bind(request);
    assert.equal(bind.token, 'bind-token');
    assert.equal(bind.publicKey?.length, 32, 'the host key travels in the Bind');
    assert.equal(bind.supportsBindSuccess, true);
    assert.equal(bind.routerProvidedConnId, true);
    router.send((sequence) => buildMessage.stateConnected({ sequence, connId: bind.connId, inReplyTo: request, routerProvidedConnId: true }));
    router.send((sequence) => buildMessage.bindSuccess({ sequence, connId: bind.connId }));
    const listener = await binding;

    // A Dial without the dialer's key is refused; so is one with another token.
    const keyless = buildMessage.dial({ sequence: 500, bindConnId: bind.connId, token: 'bind-token', callerId: 'x', routerProvidedConnId: 0x8000_0001 });
    router.socket.write(encodeEdgeMessage(keyless));
    const failed = parseMessage.dialFailed(await router.next('dial failed', (frame) => frame.contentType === edgeContentType.dialFailed));
    assert.match(failed.reason, /dialer did not send public key/);
    router.socket.write(encodeEdgeMessage(buildMessage.dial({ sequence: 501, bindConnId: bind.connId, token: 'other', callerId: 'x', publicKey: newKeyPair().publicKey, routerProvidedConnId: 0x8000_0002 })));
    assert.equal(parseMessage.dialFailed(await router.next('dial failed', (frame) => frame.contentType === edgeContentType.dialFailed)).reason, 'invalid token');

    const dialerKeys = newKeyPair();
    const dial = buildMessage.dial({ sequence: 502, bindConnId: bind.connId, token: 'bind-token', callerId: 'dialer', publicKey: dialerKeys.publicKey, routerProvidedConnId: 0x8000_0003 });
    router.socket.write(encodeEdgeMessage(dial));
    const success = await router.next('dial success', (frame) => frame.contentType === edgeContentType.dialSuccess);
    assert.equal(parseMessage.dialSuccess(success).newConnId, 0x8000_0003);
    assert.equal(parseMessage.dialSuccess(success).replyFor, 502);
    const header = parseMessage.data(await router.next('host stream header', (frame) => frame.contentType === edgeContentType.data));
    assert.equal(header.connId, 0x8000_0003);
    assert.equal(header.payload.length, 24, "the host's first Data is its stream header, after DialSuccess");
    assert.equal(accepted.length, 1);
    const dialerSide = openE2eStreams('dialer', dialerKeys, bind.publicKey!);
    assert.equal(dialerSide.decryptor.receive(header.payload), undefined);
    router.send((sequence) => buildMessage.data({ sequence, connId: 0x8000_0003, payload: dialerSide.encryptor.header }));
    router.send((sequence) => buildMessage.data({ sequence, connId: 0x8000_0003, payload: dialerSide.encryptor.encrypt(Buffer.from('to the host')) }));
    router.send((sequence) => buildMessage.fin({ sequence, connId: 0x8000_0003 }));
    assert.equal((await read(accepted[0]!)).toString(), 'to the host');

    listener.close();
    const unbind = parseMessage.unbind(await router.next('unbind', (frame) => frame.contentType === edgeContentType.unbind));
    assert.equal(unbind.connId, bind.connId);
    assert.equal(unbind.token, 'bind-token');
    channel.close('done');
  });

  it('reports a refused Bind typed, and a listener the router closes ends with its reason', async () => {
    const { channel, router } = await connected();
    const refused = EdgeListener.open(channel, { service: 'hosted', sessionToken: 'dial-token', encryptionRequired: false }, () => undefined);
    const first = await router.next('bind', (frame) => frame.contentType === edgeContentType.bind);
    router.send((sequence) => buildMessage.stateClosed({ sequence, connId: parseMessage.bind(first).connId, inReplyTo: first, reason: 'rejecting bind, invalid session type', error: { message: 'wrong session type', code: 3, retryHint: 2 } }));
    await assert.rejects(refused, (error: unknown) => error instanceof DialRefusedError && error.operation === 'bind' && error.edgeCode === 3);

    const binding = EdgeListener.open(channel, { service: 'hosted', sessionToken: 'bind-token', encryptionRequired: false }, () => undefined);
    const request = await router.next('bind', (frame) => frame.contentType === edgeContentType.bind);
    const connId = parseMessage.bind(request).connId;
    router.send((sequence) => buildMessage.stateConnected({ sequence, connId, inReplyTo: request }));
    router.send((sequence) => buildMessage.bindSuccess({ sequence, connId }));
    const listener = await binding;
    const closed = new Promise<unknown[]>((resolve) => listener.once('close', (...args: unknown[]) => resolve(args)));
    router.send((sequence) => buildMessage.stateClosed({ sequence, connId, reason: 'session removed', error: { message: 'session removed', code: 3, retryHint: 2 } }));
    assert.deepEqual(await closed, ['session removed', true]);
    assert.equal(listener.isClosed, true);
    channel.close('done');
  });

  it('reads router addresses as tls://host:port or tls:host:port and refuses others', () => {
    assert.deepEqual(parseRouterUrl('tls://127.0.0.1:3022'), { host: '127.0.0.1', port: 3022 });
    assert.deepEqual(parseRouterUrl('tls:router.example:443'), { host: 'router.example', port: 443 });
    assert.deepEqual(parseRouterUrl('tls://[::1]:3022'), { host: '::1', port: 3022 });
    for (const bad of ['https://x:1', 'tls://x', 'tls://x:0', 'tls://x:70000']) assert.throws(() => parseRouterUrl(bad), EdgeSdkError);
  });
});

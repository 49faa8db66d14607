// SDK-hosted services across real processes: a controller and two routers (`./edgeward router run`) linked r1 → r2.
// A hosting identity speaks OpenZiti's edge protocol to r2 (hello, Bind with its Bind session token and key); a
// dialing identity speaks it to r1 (Connect with its Dial session token and key). The circuit runs r1 → r2 → the
// hosting SDK, which r2 sends a Dial; the two ends exchange keys through the routers and everything between them is
// sealed (the routers relay only public keys and ciphertext). When the hosting SDK leaves, its terminator is gone
// from the controller within seconds and the next dial is refused.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { newKeyPair, openE2eStreams } from '../common/edge-protocol/e2e-crypto.ts';
import type { EdgeMessage } from '../common/edge-protocol/edge-frame-codec.ts';
import { headerValue, readHeader } from '../common/edge-protocol/header-values.ts';
import { allowEveryRouter, enrollTestRouter, managementPoster, quickLinkDialer, startWelcomedRouters } from './support/circuit-routers.ts';
import { until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { replyTo, WireClient } from './support/edge-wire-client.ts';
import { freePort } from './support/free-port.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import type { RouterRun } from './support/router-fixture.ts';
import { randomBytes } from 'node:crypto';
import type { EdgeConnection } from '../sdk/edge-connection.ts';
import { EdgeSdk } from '../sdk/edge-sdk.ts';
import { DialRefusedError } from '../sdk/sdk-errors.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-sdk-bind-'));
let controller: ControllerFixture;
let admin: Record<string, string>;
let workbench: OpensslWorkbench;
let serviceId: string;
let proxyPort: number;
const routers: Record<'r1' | 'r2', { id: string; config: string; edgePort: number; run?: RouterRun }> = {} as never;
type Identity = { cert: string; key: string; token: string };
let host: Identity;
let dialer: Identity;

const post = (path: string, body: Record<string, unknown>): Promise<string> => managementPoster(controller, admin)(path, body);
const listener = (name: 'r1' | 'r2') => ({ port: routers[name].edgePort, caPem: controller.caPem });

async function certIdentity(name: string, roles: string[]): Promise<Identity> {
  const id = await post('/identities', { name, type: 'Device', isAdmin: false, roleAttributes: roles, enrollment: { ott: true } });
  const detail = await controller.http.get(`${controller.managementApi}/identities/${id}`, { headers: admin });
  const { keyFile, csrPem } = await workbench.keyAndCsr(name);
  const enrolled = await controller.http.post(`${controller.clientApi}/enroll/ott?token=${encodeURIComponent(detail.json.data.enrollment.ott.token)}`, { headers: { 'content-type': 'application/x-pem-file', accept: 'application/x-pem-file' }, rawBody: csrPem });
  assert.equal(enrolled.status, 200, enrolled.text);
  const key = readFileSync(keyFile, 'utf8');
  const login = await controller.http.post(`${controller.clientApi}/authenticate?method=cert`, { body: {}, cert: enrolled.text, key });
  assert.equal(login.status, 200, login.text);
  return { cert: enrolled.text, key, token: login.json.data.token as string };
}

async function session(identity: Identity, type: 'Dial' | 'Bind'): Promise<string> {
  const response = await controller.http.post(`${controller.clientApi}/sessions`, { headers: { 'zt-session': identity.token }, body: { serviceId, type } });
  assert.equal(response.status, 201, response.text);
  return response.json.data.token as string;
}

async function sdkTerminators(): Promise<Array<{ id: string; binding: string; router: { id: string } }>> {
  const list = await controller.http.get(`${controller.managementApi}/terminators?limit=500&filter=${encodeURIComponent(`service="${serviceId}"`)}`, { headers: admin });
  return (list.json?.data ?? []).filter((terminator: { binding: string }) => terminator.binding === 'edge');
}

/** A hosting SDK at the wire: it answers every Dial for its listener, opens the dialer's stream and echoes sealed. */
class EchoHost {
  readonly keys = newKeyPair();
  dials = 0;
  sawPlaintext = false;

  constructor(readonly client: WireClient, private readonly secret: Buffer) {}

  async serve(): Promise<void> {
    for (;;) {
      const dial = await this.client.next((frame) => frame.contentType === 60787, 'a dial').catch(() => undefined);
      if (!dial) return;
      this.dials++;
      void this.accept(dial);
    }
  }

  private async accept(dial: EdgeMessage): Promise<void> {
    const connId = readHeader.uint32(dial.headers.get(1012));
    const dialerKey = dial.headers.get(1003);
    assert.ok(connId !== undefined && connId >= 0x80000000, 'the router assigned the connection id');
    assert.equal(dialerKey?.length, 32, "the Dial carries the dialer's public key");
    this.client.send(60788, [[1000, dial.headers.get(1000)!], [1, headerValue.int32(dial.sequence)]], headerValue.uint32(connId));
    const { encryptor, decryptor } = openE2eStreams('host', this.keys, dialerKey!);
    this.client.send(60786, [[1000, headerValue.uint32(connId)]], encryptor.header);
    const ofThis = (frame: EdgeMessage) => frame.contentType === 60786 && readHeader.uint32(frame.headers.get(1000)) === connId;
    for (;;) {
      const data = await this.client.next(ofThis, 'sealed data from the dialer');
      if (!data) return;
      if (data.body.includes(this.secret) || data.body.includes(Buffer.from('plain text'))) this.sawPlaintext = true;
      if (((readHeader.uint32(data.headers.get(1010)) ?? 0) & 1) === 1) {
        this.client.send(60786, [[1000, headerValue.uint32(connId)], [1010, headerValue.uint32(1)]]);
        return;
      }
      const plain = decryptor.receive(data.body);
      if (plain) this.client.send(60786, [[1000, headerValue.uint32(connId)]], encryptor.encrypt(Buffer.concat([Buffer.from('echo:'), plain])));
    }
  }
}

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  workbench = new OpensslWorkbench(join(root, 'certs'));
  const r2Link = await freePort();
  proxyPort = await freePort();
  routers.r1 = await enrollTestRouter(
    controller,
    admin,
    join(root, 'r1'),
    'r1',
    { endpoint: controller.ctrlAddress, transportDialer: false, listeners: [`  - binding: tunnel\n    options: {mode: proxy, services: ["sdk-hosted:${proxyPort}"]}`], tail: quickLinkDialer },
    { roleAttributes: ['edge', 'dialer'], isTunnelerEnabled: true },
  );
  routers.r2 = await enrollTestRouter(
    controller,
    admin,
    join(root, 'r2'),
    'r2',
    { endpoint: controller.ctrlAddress, transportDialer: false, tail: `link:\n  listeners:\n    - {binding: transport, bind: "tls:127.0.0.1:${r2Link}", advertise: "tls:127.0.0.1:${r2Link}", groups: [default]}` },
    { roleAttributes: ['edge'] },
  );
  serviceId = await post('/services', { name: 'sdk-hosted', encryptionRequired: true, roleAttributes: ['sdk-hosted'] });
  await post('/service-policies', { name: 'host-binds', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#host'], serviceRoles: ['#sdk-hosted'], postureCheckRoles: [] });
  await post('/service-policies', { name: 'dialer-dials', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#dialer'], serviceRoles: ['#sdk-hosted'], postureCheckRoles: [] });
  await allowEveryRouter(post, 'sdk-bind');
  await startWelcomedRouters(routers, ['r1', 'r2']);
  await routers.r1.run!.waitForLog((line) => line.msg === 'link established' && line.destRouterId === routers.r2.id, 30_000, "r1's link to r2");
  host = await certIdentity('sdk-host', ['host']);
  dialer = await certIdentity('sdk-dialer', ['dialer']);
});

after(async () => {
  await Promise.all(Object.values(routers).map((router) => router.run?.stop()));
  await controller?.dispose();
  rmSync(root, { recursive: true, force: true });
});

test('an SDK binds a service on r2; an SDK dialing through r1 reaches it end to end encrypted; when the host leaves its terminator goes and dials are refused', async () => {
  const secret = Buffer.from('only the two SDKs can read this');
  const hostClient = await WireClient.open(listener('r2'), host);
  const hello = await hostClient.hello(host.token);
  assert.equal(readHeader.bool(hello?.headers.get(2)), true);
  assert.equal(readHeader.bool(hello?.headers.get(1024)), true, 'the router says it sends BindSuccess');
  assert.deepEqual(hello?.headers.get(1039), Buffer.from([0x40]), 'capability mask: BindSuccess (bit 6) only');
  const echoHost = new EchoHost(hostClient, secret);
  const bind = hostClient.send(60790, [[1000, headerValue.uint32(1)], [1003, echoHost.keys.publicKey], [1024, headerValue.bool(true)], [1012, headerValue.bool(true)], [1004, headerValue.uint16(7)]], await session(host, 'Bind'));
  const bound = await hostClient.next(replyTo(bind), 'bind reply');
  assert.equal(bound?.contentType, 60784, `StateConnected, not ${bound?.contentType}: ${bound?.body.toString()}`);
  assert.ok(await hostClient.next((frame) => frame.contentType === 60800, 'BindSuccess'), 'BindSuccess follows, as the Bind asked');
  const listed = await until('the SDK terminator listed', async () => {
    const terminators = await sdkTerminators();
    return terminators.length === 1 ? terminators : undefined;
  }, 10_000);
  assert.equal(listed[0]!.router.id, routers.r2.id);
  void echoHost.serve();

  // A Dial session may not Bind.
  const wrongType = hostClient.send(60790, [[1000, headerValue.uint32(2)]], await session(dialer, 'Dial'));
  const refusedBind = await hostClient.next(replyTo(wrongType), 'refused bind');
  assert.equal(refusedBind?.contentType, 60785);
  assert.equal(readHeader.uint32(refusedBind.headers.get(1014)), 3, refusedBind.body.toString());

  const dialClient = await WireClient.open(listener('r1'), dialer);
  assert.equal(readHeader.bool((await dialClient.hello(dialer.token))?.headers.get(2)), true);
  const keys = newKeyPair();
  const connect = dialClient.send(60783, [[1000, headerValue.uint32(5)], [1003, keys.publicKey]], await session(dialer, 'Dial'));
  const connected = await dialClient.next(replyTo(connect), 'connect reply');
  assert.equal(connected?.contentType, 60784, connected?.body.toString());
  assert.deepEqual(connected.headers.get(1003), echoHost.keys.publicKey, "StateConnected carries the host SDK's key");
  const { encryptor, decryptor } = openE2eStreams('dialer', keys, connected.headers.get(1003)!);
  dialClient.send(60786, [[1000, headerValue.uint32(5)]], encryptor.header);
  const header = await dialClient.next((frame) => frame.contentType === 60786, "the host's stream header");
  assert.equal(header?.body.length, 24);
  decryptor.receive(header!.body);
  const messages = [secret, Buffer.alloc(20_000, 7), Buffer.from('last')];
  for (const message of messages) dialClient.send(60786, [[1000, headerValue.uint32(5)]], encryptor.encrypt(message));
  dialClient.send(60786, [[1000, headerValue.uint32(5)], [1010, headerValue.uint32(1)]]);
  const echoed: Buffer[] = [];
  for (;;) {
    const frame = await dialClient.next((candidate) => candidate.contentType === 60786 || candidate.contentType === 60785, 'sealed echo');
    assert.ok(frame && frame.contentType === 60786, `data, not ${frame?.contentType}: ${frame?.body.toString()}`);
    if (((readHeader.uint32(frame.headers.get(1010)) ?? 0) & 1) === 1) break;
    assert.ok(!frame.body.includes(Buffer.from('echo:')), 'the echo crosses the routers sealed');
    echoed.push(decryptor.receive(frame.body)!);
  }
  assert.deepEqual(echoed.map((piece) => piece.toString('latin1')), messages.map((message) => `echo:${message.toString('latin1')}`));
  assert.equal(echoHost.dials, 1);

  // r1's tunnel listener (a plain TCP client, no SDK) reaches the same SDK host: r1 is the dialing end of the
  // encryption the service requires.
  const tunneled = await new Promise<string>((resolve, reject) => {
    const socket = tcpConnect({ host: '127.0.0.1', port: proxyPort }, () => socket.write('plain text from a tunnel'));
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no echo through the tunnel listener (got ${JSON.stringify(text)})`)), 15_000);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('echo:plain text from a tunnel')) {
        clearTimeout(timer);
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
  });
  assert.equal(tunneled, 'echo:plain text from a tunnel');
  assert.equal(echoHost.dials, 2);
  assert.equal(echoHost.sawPlaintext, false, 'the hosting SDK received only sealed messages');

  // The host leaves: its terminator is gone from the controller, and a dial finds nothing to reach.
  hostClient.close();
  await until('the SDK terminator removed', async () => (await sdkTerminators()).length === 0, 10_000);
  const again = dialClient.send(60783, [[1000, headerValue.uint32(6)], [1003, newKeyPair().publicKey]], await session(dialer, 'Dial'));
  const refused = await dialClient.next(replyTo(again), 'refusal');
  assert.equal(refused?.contentType, 60785);
  assert.equal(readHeader.uint32(refused.headers.get(1014)), 1, refused.body.toString());
  assert.match(refused.body.toString(), /terminator/i);
  dialClient.close();
});

/** Writes `payload`, half-closes, and resolves with everything read until the far side's FIN (bounded). */
async function exchange(connection: EdgeConnection, payload: Buffer): Promise<Buffer> {
  const received: Buffer[] = [];
  const ended = new Promise<void>((resolve, reject) => {
    connection.on('data', (chunk: Buffer) => received.push(chunk));
    connection.once('end', resolve);
    connection.once('error', reject);
  });
  connection.end(payload);
  const timer = setTimeout(() => connection.destroy(new Error('no end of the echo within 30 s')), 30_000);
  await ended.finally(() => clearTimeout(timer));
  return Buffer.concat(received);
}

test('through the SDK: a hosting SDK binds, a dialing SDK dials it, 1 MB each way sealed end to end with half-close; closing the listener removes the terminator', async () => {
  const sdkFor = (identity: Identity) => EdgeSdk.fromCredentials({ controllerUrl: controller.origin, cert: identity.cert, key: identity.key, ca: controller.caPem });
  const hostSdk = sdkFor(host);
  const dialSdk = sdkFor(dialer);
  try {
    const hosted: EdgeConnection[] = [];
    const listener = await hostSdk.bind('sdk-hosted', (connection) => {
      hosted.push(connection);
      connection.on('error', () => undefined);
      connection.pipe(connection);
    });
    await until('the SDK terminator listed', async () => ((await sdkTerminators()).length === 1 ? true : undefined), 10_000);

    const connection = await dialSdk.dial('sdk-hosted');
    assert.equal(connection.encrypted, true);
    const payload = randomBytes(1024 * 1024);
    const echoed = await exchange(connection, payload);
    assert.ok(echoed.equals(payload), 'every byte echoed by the hosting SDK, then its half-close');
    assert.equal(hosted.length, 1);
    assert.equal(hosted[0]!.encrypted, true, 'the hosting side opened the sealed streams');
    assert.equal(listener.accepted, 1);

    listener.close();
    await until('the SDK terminator removed', async () => ((await sdkTerminators()).length === 0 ? true : undefined), 10_000);
    await assert.rejects(dialSdk.dial('sdk-hosted'), (error: unknown) => error instanceof DialRefusedError && error.edgeCode === 1 && /terminator/i.test(error.reason));
  } finally {
    hostSdk.close();
    dialSdk.close();
  }
});

test("a host's logout ends its Bind: the router closes the SDK's listener (code 14, start over) and the terminator goes", async () => {
  const login = await controller.http.post(`${controller.clientApi}/authenticate?method=cert`, { body: {}, cert: host.cert, key: host.key });
  assert.equal(login.status, 200, login.text);
  const again: Identity = { ...host, token: login.json.data.token as string };
  const hostClient = await WireClient.open(listener('r2'), again);
  assert.equal(readHeader.bool((await hostClient.hello(again.token))?.headers.get(2)), true);
  const bind = hostClient.send(60790, [[1000, headerValue.uint32(9)]], await session(again, 'Bind'));
  assert.equal((await hostClient.next(replyTo(bind), 'bind reply'))?.contentType, 60784);
  await until('the SDK terminator listed', async () => (await sdkTerminators()).length === 1, 10_000);
  const logout = await controller.http.delete(`${controller.clientApi}/current-api-session`, { headers: { 'zt-session': again.token } });
  assert.ok(logout.status < 300, logout.text);
  const closed = await hostClient.next((frame) => frame.contentType === 60785 && readHeader.uint32(frame.headers.get(1000)) === 9, 'the listener closed');
  assert.ok(closed, 'the router closed the listener');
  assert.equal(readHeader.uint32(closed.headers.get(1014)), 14, closed.body.toString());
  assert.equal(JSON.parse(closed.headers.get(1033)!.toString()).retryHint, 2);
  await until('the SDK terminator removed', async () => (await sdkTerminators()).length === 0, 10_000);
  hostClient.close();
});

test('one channel holds at most 256 Binds: the next is refused (too busy) and the controller is not asked', async () => {
  const login = await controller.http.post(`${controller.clientApi}/authenticate?method=cert`, { body: {}, cert: host.cert, key: host.key });
  const many: Identity = { ...host, token: login.json.data.token as string };
  const hostClient = await WireClient.open(listener('r2'), many);
  assert.equal(readHeader.bool((await hostClient.hello(many.token))?.headers.get(2)), true);
  const token = await session(many, 'Bind');
  const sequences = Array.from({ length: 257 }, (_, index) => hostClient.send(60790, [[1000, headerValue.uint32(100 + index)]], token));
  const replies = await Promise.all(sequences.map((sequence) => hostClient.next(replyTo(sequence), `bind reply ${sequence}`)));
  const refused = replies.filter((reply) => reply?.contentType === 60785);
  assert.equal(replies.filter((reply) => reply?.contentType === 60784).length, 256);
  assert.equal(refused.length, 1);
  assert.equal(refused[0]!.body.toString(), 'too many binds on this channel');
  assert.equal(JSON.parse(refused[0]!.headers.get(1033)!.toString()).retryHint, 1);
  await until('the 256 SDK terminators listed', async () => (await sdkTerminators()).length === 256, 20_000);
  await hostClient.close();
  await until('the SDK terminators removed with the channel', async () => (await sdkTerminators()).length === 0, 20_000);
});

test('hellos refused again and again from one source: after its burst of 10 the router cuts that source before asking the controller', async () => {
  let answered = 0;
  for (let attempt = 0; attempt < 12; attempt++) {
    const client = await WireClient.open(listener('r1'), dialer);
    const result = await client.hello('no-such-session');
    if (result) {
      answered++;
      assert.equal(readHeader.bool(result.headers.get(2)), false);
    }
    client.close();
  }
  assert.equal(answered, 10, 'ten refusals are answered, then the source is cut without one');
  await routers.r1.run!.waitForLog((line) => line.msg === 'edge listener limiting a source: too many refused hellos', 5_000, 'the limiting line');
});

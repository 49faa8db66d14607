// OpenZiti's edge protocol on a real router's edge listener, across real processes: a controller and a router
// (`./edgeward router enroll`, `./edgeward router run`) that hosts an echo service through its tunnel listener. An
// identity enrolled with a one-time token dials through edgeward's own SDK (sdk/: login by certificate, Dial session,
// hello with the API session token, Connect with the session token, Data, FIN, StateClosed, end-to-end encryption);
// the wire-level facts an SDK hides (the hello's answer, latency probes, refusals and sealed frames) are checked with
// a minimal wire client beside it.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { headerValue, readHeader } from '../common/edge-protocol/header-values.ts';
import { newKeyPair, openE2eStreams } from '../common/edge-protocol/e2e-crypto.ts';
import { circuitRouterYaml, enrollRouterProcess, managementPoster, allowEveryRouter, startWelcomedRouter } from './support/circuit-routers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { startEchoServer, type EchoServer } from './support/echo-server.ts';
import { freePort } from './support/free-port.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import type { RouterRun } from './support/router-fixture.ts';
import { replyTo, WireClient } from './support/edge-wire-client.ts';
import { EdgeSdk } from '../sdk/edge-sdk.ts';
import type { EdgeConnection } from '../sdk/edge-connection.ts';
import { DialRefusedError, EdgeSdkError } from '../sdk/sdk-errors.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-sdk-edge-'));
let controller: ControllerFixture;
let admin: Record<string, string>;
let workbench: OpensslWorkbench;
let echo: EchoServer;
let router: RouterRun;
let edgePort: number;
let dialer: { cert: string; key: string; token: string };

/** Router r1's edge listener, as a client dials it. */
const edge = () => ({ port: edgePort, caPem: controller.caPem });

const post = (path: string, body: Record<string, unknown>): Promise<string> => managementPoster(controller, admin)(path, body);

/** An identity enrolled by one-time token with an openssl key, logged in with its certificate. */
async function certIdentity(name: string, roles: string[]): Promise<{ cert: string; key: string; token: string }> {
  const id = await post('/identities', { name, type: 'Device', isAdmin: false, roleAttributes: roles, enrollment: { ott: true } });
  const detail = await controller.http.get(`${controller.managementApi}/identities/${id}`, { headers: admin });
  const { keyFile, csrPem } = await workbench.keyAndCsr(name);
  const enrolled = await controller.http.post(`${controller.clientApi}/enroll/ott?token=${encodeURIComponent(detail.json.data.enrollment.ott.token)}`, { headers: { 'content-type': 'application/x-pem-file', accept: 'application/x-pem-file' }, rawBody: csrPem });
  assert.equal(enrolled.status, 200, enrolled.text);
  const cert = enrolled.text;
  const key = readFileSync(keyFile, 'utf8');
  const login = await controller.http.post(`${controller.clientApi}/authenticate?method=cert`, { body: {}, cert, key });
  assert.equal(login.status, 200, login.text);
  return { cert, key, token: login.json.data.token as string };
}

async function dialSession(identity: { token: string }, serviceId: string): Promise<string> {
  const response = await controller.http.post(`${controller.clientApi}/sessions`, { headers: { 'zt-session': identity.token }, body: { serviceId, type: 'Dial' } });
  assert.equal(response.status, 201, response.text);
  return response.json.data.token as string;
}

const sdks: EdgeSdk[] = [];
/** The SDK for the dialing identity, with the controller's CA as the identity file's `id.ca`. */
function dialerSdk(): EdgeSdk {
  const sdk = EdgeSdk.fromCredentials({ controllerUrl: controller.origin, cert: dialer.cert, key: dialer.key, ca: controller.caPem });
  sdks.push(sdk);
  return sdk;
}

/** Writes `chunks` then half-closes; resolves with everything read until the far side's FIN. */
async function exchange(connection: EdgeConnection, chunks: Buffer[]): Promise<Buffer> {
  const received: Buffer[] = [];
  const ended = new Promise<void>((resolve, reject) => {
    connection.on('data', (chunk: Buffer) => received.push(chunk));
    connection.once('end', resolve);
    connection.once('error', reject);
  });
  for (const chunk of chunks) connection.write(chunk);
  connection.end();
  const timer = setTimeout(() => connection.destroy(new Error('no end of the echo within 20 s')), 20_000);
  await ended.finally(() => clearTimeout(timer));
  return Buffer.concat(received);
}


before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  workbench = new OpensslWorkbench(join(root, 'certs'));
  echo = await startEchoServer();
  const echoPort = echo.port;
  edgePort = await freePort();
  const yaml = circuitRouterYaml({ ctrlAddress: controller.ctrlAddress, edgePort, tunnel: '{mode: host}', tail: '' });
  const { config } = await enrollRouterProcess(controller, admin, join(root, 'r1'), yaml, 'r1', { isTunnelerEnabled: true, roleAttributes: ['hosting'] });
  const hostConfig = await post('/configs', { name: 'echo-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: echoPort } });
  await post('/services', { name: 'echo', encryptionRequired: false, roleAttributes: ['echo'], configs: [hostConfig] });
  await post('/services', { name: 'other', encryptionRequired: false, roleAttributes: [], configs: [hostConfig] });
  await post('/services', { name: 'secure-echo', encryptionRequired: true, roleAttributes: ['echo'], configs: [hostConfig] });
  await post('/services', { name: 'unhosted', encryptionRequired: false, roleAttributes: ['echo'], configs: [] });
  await post('/service-policies', { name: 'bind-echo', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosting'], serviceRoles: ['#echo'], postureCheckRoles: [] });
  await post('/service-policies', { name: 'dial-echo', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#dialer'], serviceRoles: ['#echo'], postureCheckRoles: [] });
  await allowEveryRouter(post, 'sdk');
  router = await startWelcomedRouter(config, 'r1 welcomed');
  dialer = await certIdentity('sdk-dialer', ['dialer']);
});

after(async () => {
  for (const sdk of sdks) sdk.close();
  await router?.stop();
  await echo?.close();
  await controller?.dispose();
  rmSync(root, { recursive: true, force: true });
});

test('the SDK logs in with its certificate, dials the service, and data echoes through the circuit with half-close', async () => {
  const sdk = dialerSdk();
  const identity = await sdk.login();
  assert.equal(identity.name, 'sdk-dialer');
  const connection = await sdk.dial('echo');
  assert.equal(connection.encrypted, false);
  assert.ok((connection.circuitId ?? '').length > 0, 'the circuit id is sent');
  const routerClosed = new Promise<string>((resolve) => connection.once('routerClosed', resolve));
  const chunks = [Buffer.alloc(30_000, 1), Buffer.alloc(31_000, 2), Buffer.from('end of request')];
  const echoed = await exchange(connection, chunks);
  assert.ok(echoed.equals(Buffer.concat(chunks)), 'every byte echoed, in order, then the echo server half-closed');
  await routerClosed;
  assert.ok(connection.destroyed || (await new Promise((resolve) => connection.once('close', resolve)), true), 'the router closes the connection once both sides finished');

  // A second dial reuses the channel and the session, and goes through as well.
  const again = await sdk.dial('echo');
  assert.equal((await exchange(again, [Buffer.from('again')])).toString(), 'again');
});

test('an SDK says hello with its API session and certificate; the answer names the router version; a latency probe is answered', async () => {
  const client = await WireClient.open(edge(), dialer);
  const result = await client.hello(dialer.token);
  assert.ok(result, 'the hello is answered');
  assert.equal(readHeader.bool(result.headers.get(2)), true, result.body.toString());
  assert.equal(readHeader.int32(result.headers.get(1)), -1, 'the result answers the hello sequence');
  assert.match(readHeader.string(result.headers.get(4)) ?? '', /^v[^|]+\|[^|]*\|[^|]*\|linux\|/);
  const probe = client.send(3, [[128, headerValue.uint64(0x0102030405060708n)]]);
  const probed = await client.next(replyTo(probe), 'latency result');
  assert.equal(readHeader.uint64(probed?.headers.get(128)), 0x0102030405060708n);
  client.close();
});

test('the SDK reports refusals typed: a service it may not dial, one with no terminator (edge code and text); a removed session is asked again once', async () => {
  const sdk = dialerSdk();
  await assert.rejects(sdk.dial('other'), (error: unknown) => error instanceof EdgeSdkError && error.kind === 'no-such-service');
  await assert.rejects(sdk.dial('unhosted'), (error: unknown) => error instanceof DialRefusedError && error.service === 'unhosted' && error.edgeCode === 1 && /no terminators/.test(error.reason));

  assert.equal((await exchange(await sdk.dial('echo'), [Buffer.from('first')])).toString(), 'first');
  const sessions = await controller.http.get(`${controller.clientApi}/sessions`, { headers: { 'zt-session': await sdk.apiSessionToken() } });
  for (const session of sessions.json.data as Array<{ id: string }>) {
    const removed = await controller.http.delete(`${controller.clientApi}/sessions/${session.id}`, { headers: { 'zt-session': await sdk.apiSessionToken() } });
    assert.equal(removed.status, 200, removed.text);
  }
  assert.equal((await exchange(await sdk.dial('echo'), [Buffer.from('after the session was removed')])).toString(), 'after the session was removed');
});

test('the SDK logs in again when its API session is removed: service reads and dials go on', async () => {
  const sdk = dialerSdk();
  assert.equal((await exchange(await sdk.dial('echo'), [Buffer.from('before')])).toString(), 'before');
  const oldToken = await sdk.apiSessionToken();
  const current = await controller.http.get(`${controller.clientApi}/current-api-session`, { headers: { 'zt-session': oldToken } });
  const removed = await controller.http.delete(`${controller.managementApi}/api-sessions/${current.json.data.id}`, { headers: admin });
  assert.equal(removed.status, 200, removed.text);
  assert.equal(await sdk.refreshServices(), true, 'the services are read again under a new API session');
  assert.notEqual(await sdk.apiSessionToken(), oldToken);
  assert.equal((await exchange(await sdk.dial('echo'), [Buffer.from('after')])).toString(), 'after');
});

test('the SDK dials a service that requires encryption: keys exchanged with the hosting router, the echo opens to what was sent', async () => {
  const sdk = dialerSdk();
  const connection = await sdk.dial('secure-echo');
  assert.equal(connection.encrypted, true);
  const request = Buffer.alloc(200_000);
  for (let i = 0; i < request.length; i++) request[i] = (i * 31) & 0xff;
  assert.ok((await exchange(connection, [request])).equals(request));
});

test('at wire level: a Connect the controller refuses is answered StateClosed with the edge error code SDKs act on; a hello without a valid session or certificate is refused', async () => {
  const client = await WireClient.open(edge(), dialer);
  assert.equal(readHeader.bool((await client.hello(dialer.token))?.headers.get(2)), true);
  // A token that is no session and no service.
  const bogus = client.send(60783, [[1000, headerValue.uint32(1)]], 'not-a-session');
  const refused = await client.next(replyTo(bogus), 'refusal');
  assert.equal(refused?.contentType, 60785);
  assert.equal(readHeader.uint32(refused.headers.get(1014)), 3, refused.body.toString());
  assert.equal(JSON.parse(refused.headers.get(1033)!.toString()).retryHint, 2);
  // A service the identity may not dial, named by id: hidden as "not found".
  const others = await controller.http.get(`${controller.managementApi}/services?filter=${encodeURIComponent('name="other"')}`, { headers: admin });
  const denied = client.send(60783, [[1000, headerValue.uint32(2)]], others.json.data[0].id as string);
  const hidden = await client.next(replyTo(denied), 'refusal');
  assert.equal(hidden?.contentType, 60785);
  assert.equal(readHeader.uint32(hidden.headers.get(1014)), 6, hidden.body.toString());
  // No connId.
  const noId = client.send(60783, [], 'x');
  assert.equal((await client.next(replyTo(noId), 'refusal'))?.body.toString(), 'connId not set, required');
  client.close();

  const wrongToken = await WireClient.open(edge(), dialer);
  const rejected = await wrongToken.hello('not-a-token');
  assert.equal(readHeader.bool(rejected?.headers.get(2)), false);
  assert.equal(readHeader.uint32(rejected?.headers.get(13)), 2);
  wrongToken.close();

  const noCertificate = await WireClient.open(edge(), undefined);
  const noCert = await noCertificate.hello(dialer.token);
  assert.equal(readHeader.bool(noCert?.headers.get(2)), false);
  assert.match(noCert!.body.toString(), /certificate/);
  noCertificate.close();
});

test('at wire level, a service that requires encryption: a Connect without a key is refused with code 11; with one, the router hosts the other end of the key exchange and only sealed messages cross the channel', async () => {
  const services = await controller.http.get(`${controller.clientApi}/services?filter=${encodeURIComponent('name="secure-echo"')}`, { headers: { 'zt-session': dialer.token } });
  const serviceId = services.json.data[0].id as string;
  const client = await WireClient.open(edge(), dialer);
  assert.equal(readHeader.bool((await client.hello(dialer.token))?.headers.get(2)), true);

  const keyless = client.send(60783, [[1000, headerValue.uint32(1)]], await dialSession(dialer, serviceId));
  const refused = await client.next(replyTo(keyless), 'refusal');
  assert.equal(refused?.contentType, 60785);
  assert.equal(readHeader.uint32(refused.headers.get(1014)), 11, refused.body.toString());
  assert.equal(refused.body.toString(), 'encryption required on service, initiator did not send public header');

  const keys = newKeyPair();
  const connect = client.send(60783, [[1000, headerValue.uint32(2)], [1003, keys.publicKey]], await dialSession(dialer, serviceId));
  const connected = await client.next(replyTo(connect), 'connect reply');
  assert.equal(connected?.contentType, 60784, connected?.body.toString());
  const hostKey = connected.headers.get(1003);
  assert.equal(hostKey?.length, 32, 'StateConnected carries the host public key');
  const { encryptor, decryptor } = openE2eStreams('dialer', keys, hostKey!);
  client.send(60786, [[1000, headerValue.uint32(2)]], encryptor.header);
  const request = Buffer.from('a secret only the two ends read');
  client.send(60786, [[1000, headerValue.uint32(2)]], encryptor.encrypt(request));
  client.send(60786, [[1000, headerValue.uint32(2)], [1010, headerValue.uint32(1)]]);
  const first = await client.next((frame) => frame.contentType === 60786, "the host's stream header");
  assert.equal(first?.body.length, 24, 'the first Data from the host is its 24-byte stream header alone');
  assert.equal(decryptor.receive(first.body), undefined);
  const plain: Buffer[] = [];
  for (;;) {
    const frame = await client.next((candidate) => candidate.contentType === 60786, 'sealed echo');
    assert.ok(frame);
    if (((readHeader.uint32(frame.headers.get(1010)) ?? 0) & 1) === 1) break;
    assert.ok(!frame.body.includes(request), 'the echo crosses the channel sealed');
    plain.push(decryptor.receive(frame.body)!);
  }
  assert.equal(Buffer.concat(plain).toString(), request.toString(), 'the echo opens to what was sent');
  client.close();
});

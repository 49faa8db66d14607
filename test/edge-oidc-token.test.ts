// OIDC access tokens on a real router's edge listener (issue 40 item 3), across processes: a controller started in this
// process (its OIDC signing key issues the tokens, as its /oidc token endpoint would, for a real enrolled identity) and
// a real router process (`./edgeward router run`) hosting an echo service. An SDK end of the wire (edge-wire-client)
// says hello with an access token instead of a legacy session and dials; bad tokens are refused at the hello;
// UpdateToken (60803) keeps a channel past its first token's expiry, or closes it when refused; a channel whose token
// expires without an update is closed within the router's 5 s sweep; revoking the API session (or a legacy logout)
// closes its circuits and its channel.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { headerValue, readHeader } from '../common/edge-protocol/header-values.ts';
import { signJws } from '../server/oidc/compact-jws.ts';
import type { SessionClaims } from '../server/oidc/oidc-claims.ts';
import { allowEveryRouter, circuitRouterYaml, enrollRouterProcess, managementPoster, startWelcomedRouter } from './support/circuit-routers.ts';
import { startEchoServer, type EchoServer } from './support/echo-server.ts';
import { freePort } from './support/free-port.ts';
import { InProcessController } from './support/in-process-controller.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import type { RouterRun } from './support/router-fixture.ts';
import { replyTo, WireClient } from './support/edge-wire-client.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-edge-oidc-'));
/** The controller's `edge.oidc.accessTokenDuration`: short, so expiry is seen within a test. */
const accessTokenSeconds = 15;
let controller: InProcessController;
let admin: Record<string, string>;
let echo: EchoServer;
let router: RouterRun;
let edgePort: number;
let echoServiceId: string;
let dialer: { id: string; cert: string; key: string; legacyToken: string };

const edge = () => ({ port: edgePort, caPem: controller.caPem });
const post = (path: string, body: Record<string, unknown>) => managementPoster(controller, admin)(path, body);

/** The claims of a cert login of the dialing identity, in API session `asid`. */
const claimsOf = (asid: string): SessionClaims => ({
  sub: dialer.id,
  z_asid: asid,
  z_t: 'a',
  z_ia: false,
  z_ct: [],
  z_authid: 'cert',
  amr: ['cert'],
  z_ra: '127.0.0.1:40000',
  auth_time: Math.floor(Date.now() / 1000),
  azp: 'openziti',
});

/** A new login's tokens, issued by the controller as its token endpoint does. */
const login = (asid = randomUUID()) => ({ asid, ...controller.running.services.oidc.tokens.issue(claimsOf(asid)) });

/** A token signed with the controller's own key, with `changes` made to an access token's payload. */
function signedWith(changes: Record<string, unknown>): string {
  const key = controller.running.services.oidc.keys.signingKey()!;
  const nowS = Math.floor(Date.now() / 1000);
  const payload = { ...claimsOf(randomUUID()), client_id: 'openziti', iss: key.issuer, aud: ['openziti'], iat: nowS, nbf: nowS, exp: nowS + accessTokenSeconds, jti: randomUUID(), ...changes };
  return signJws({ alg: 'ES256', kid: key.kid, typ: 'JWT' }, payload, key.privateKey);
}

async function helloAccepted(token: string): Promise<WireClient> {
  const client = await WireClient.open(edge(), dialer);
  const result = await client.hello(token);
  assert.equal(readHeader.bool(result?.headers.get(2)), true, result?.body.toString());
  return client;
}

/** Connect to the echo service on `connId` (the service id as the token, as OIDC SDKs dial) and echo `text`. */
async function echoes(client: WireClient, connId: number, text: string): Promise<void> {
  const connect = client.send(60783, [[1000, headerValue.uint32(connId)]], echoServiceId);
  const connected = await client.next(replyTo(connect), 'connect reply');
  assert.equal(connected?.contentType, 60784, connected?.body.toString());
  client.send(60786, [[1000, headerValue.uint32(connId)]], text);
  const data = await client.next((frame) => frame.contentType === 60786 && readHeader.uint32(frame.headers.get(1000)) === connId, 'echo');
  assert.equal(data?.body.toString(), text);
}

/** Waits (bounded) until `done`, polling. */
async function until(done: () => boolean, withinMs: number, what: string): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not ${what} within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

before(async () => {
  controller = await InProcessController.create({ editConfig: (yaml) => yaml.replace('\nedge:\n', `\nedge:\n  oidc: {accessTokenDuration: ${accessTokenSeconds}s}\n`) });
  admin = { 'zt-session': await controller.adminToken() };
  await until(() => controller.running.services.oidc.tokens.ready, 20_000, 'an OIDC signing key committed');
  echo = await startEchoServer();
  edgePort = await freePort();
  const yaml = circuitRouterYaml({ ctrlAddress: controller.ctrlAddress, edgePort, tunnel: '{mode: host}', tail: '' });
  const { config } = await enrollRouterProcess(controller, admin, join(root, 'r1'), yaml, 'r1', { isTunnelerEnabled: true, roleAttributes: ['hosting'] });
  const hostConfig = await post('/configs', { name: 'echo-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: echo.port } });
  echoServiceId = await post('/services', { name: 'echo', encryptionRequired: false, roleAttributes: ['echo'], configs: [hostConfig] });
  await post('/service-policies', { name: 'bind-echo', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosting'], serviceRoles: ['#echo'], postureCheckRoles: [] });
  await post('/service-policies', { name: 'dial-echo', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#dialer'], serviceRoles: ['#echo'], postureCheckRoles: [] });
  await allowEveryRouter(post, 'oidc');
  router = await startWelcomedRouter(config, 'r1 welcomed');

  const workbench = new OpensslWorkbench(join(root, 'certs'));
  const id = await post('/identities', { name: 'oidc-dialer', type: 'Device', isAdmin: false, roleAttributes: ['dialer'], enrollment: { ott: true } });
  const detail = await controller.http.get(`${controller.managementApi}/identities/${id}`, { headers: admin });
  const { keyFile, csrPem } = await workbench.keyAndCsr('oidc-dialer');
  const enrolled = await controller.http.post(`${controller.clientApi}/enroll/ott?token=${encodeURIComponent(detail.json.data.enrollment.ott.token)}`, { headers: { 'content-type': 'application/x-pem-file', accept: 'application/x-pem-file' }, rawBody: csrPem });
  assert.equal(enrolled.status, 200, enrolled.text);
  const key = readFileSync(keyFile, 'utf8');
  const legacy = await controller.http.post(`${controller.clientApi}/authenticate?method=cert`, { body: {}, cert: enrolled.text, key });
  assert.equal(legacy.status, 200, legacy.text);
  dialer = { id, cert: enrolled.text, key, legacyToken: legacy.json.data.token as string };
});

after(async () => {
  await router?.stop();
  await echo?.close();
  await controller?.dispose();
  rmSync(root, { recursive: true, force: true });
});

/** The identity's `hasEdgeRouterConnection` on the management API. */
async function connected(): Promise<boolean> {
  const detail = await controller.http.get(`${controller.managementApi}/identities/${dialer.id}`, { headers: admin });
  return detail.json.data.hasEdgeRouterConnection as boolean;
}

async function untilConnected(expected: boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await connected()) !== expected) {
    if (Date.now() > deadline) throw new Error(`hasEdgeRouterConnection not ${expected} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('an SDK says hello with an OIDC access token instead of a legacy session and dials a service through the router; the channel counts as an edge router connection', async () => {
  const client = await helloAccepted(login().accessToken);
  await echoes(client, 1, 'hello over an OIDC session');
  await untilConnected(true);
  await client.close();
  await untilConnected(false);
  assert.doesNotMatch(readFileSync(controller.logFile, 'utf8'), /router edge sessions refused/, 'the router\'s report of the OIDC session is accepted');
});

test('a tampered, expired, wrong-audience, unknown-key or refresh token is refused at the hello with the failed result SDKs expect', async () => {
  const valid = login().accessToken;
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const nowS = Math.floor(Date.now() / 1000);
  const cases: Array<[string, string, RegExp]> = [
    ['tampered', `${valid.slice(0, -8)}AAAAAAAA`, /bad signature/],
    ['expired', signedWith({ iat: nowS - 120, nbf: nowS - 120, exp: nowS - 60 }), /expired/],
    ['wrong audience', signedWith({ aud: ['someone-else'] }), /wrong audience/],
    ['unknown key', signJws({ alg: 'ES256', kid: 'not-a-published-kid', typ: 'JWT' }, JSON.parse(Buffer.from(valid.split('.')[1]!, 'base64url').toString()), privateKey), /unknown signing key/],
    ['refresh token', login().refreshToken, /token type r/],
  ];
  for (const [what, token, reason] of cases) {
    const client = await WireClient.open(edge(), dialer);
    const result = await client.hello(token);
    assert.equal(readHeader.bool(result?.headers.get(2)), false, `${what}: refused`);
    assert.equal(readHeader.uint32(result?.headers.get(13)), 2, `${what}: reject class 2`);
    assert.match(result!.body.toString(), reason, what);
    await until(() => client.closed, 5_000, `${what}: the channel closed`);
  }
});

test('UpdateToken with a fresh token of the same session keeps the channel past the first token\'s expiry; without an update a channel is closed within the 5 s sweep', async (t) => {
  const first = login();
  const updated = await helloAccepted(first.accessToken);
  const idle = await helloAccepted(login().accessToken);
  const idleExpiresAt = Date.now() + accessTokenSeconds * 1000;
  // The SDK refreshes shortly before its token expires, as OpenZiti's SDKs do.
  await until(() => Date.now() >= first.accessExpiresAtMs - 2_500, 20_000, 'shortly before the first token expires');
  const fresh = controller.running.services.oidc.tokens.issue(claimsOf(first.asid));
  assert.ok(fresh.accessExpiresAtMs >= first.accessExpiresAtMs + 7_000);
  const request = updated.send(60803, [], fresh.accessToken);
  const reply = await updated.next(replyTo(request), 'UpdateToken reply');
  assert.equal(reply?.contentType, 60801, reply?.body.toString());
  assert.equal(reply.body.length, 0);

  // The router's sweep runs every 5 s: the idle channel is closed by then (and 2 s of clock tolerance on exp).
  await until(() => idle.closed, idleExpiresAt - Date.now() + 9_000, 'the idle channel closed after its token expired');
  assert.ok(Date.now() >= idleExpiresAt - 1_000, 'not before its token expired');
  t.diagnostic(`idle channel closed ${Date.now() - idleExpiresAt} ms after its token's expiry`);
  await router.waitForLog((line) => line.msg === 'edge channel closed: its access token expired without an update', 5_000, 'the expiry log line');
  // Past the first token's expiry and at least one sweep after it (the fresh token still has a few seconds).
  await until(() => Date.now() > first.accessExpiresAtMs + 5_500, 20_000, 'past the first token\'s expiry and a sweep');
  assert.equal(updated.closed, false, 'the updated channel stays up');
  // Later circuits are requested with the new token: the first one has expired by now.
  await echoes(updated, 7, 'after the update');
  await updated.close();
});

test('UpdateToken with another session\'s token gets 60802 with error code 2 and the channel closes; a legacy channel gets code 12', async () => {
  const client = await helloAccepted(login().accessToken);
  const request = client.send(60803, [], login().accessToken);
  const reply = await client.next(replyTo(request), 'UpdateToken reply');
  assert.equal(reply?.contentType, 60802);
  assert.equal(reply.body.toString(), 'API session id does not match');
  assert.equal(readHeader.uint32(reply.headers.get(1014)), 2);
  assert.deepEqual(JSON.parse(reply.headers.get(1033)!.toString()), { code: 2, message: 'API session id does not match', retryHint: 2 });
  await until(() => client.closed, 5_000, 'the channel closed after a refused update');

  const legacy = await helloAccepted(dialer.legacyToken);
  const legacyRequest = legacy.send(60803, [], login().accessToken);
  const legacyReply = await legacy.next(replyTo(legacyRequest), 'UpdateToken reply');
  assert.equal(legacyReply?.contentType, 60802);
  assert.equal(readHeader.uint32(legacyReply.headers.get(1014)), 12);
  assert.equal(JSON.parse(legacyReply.headers.get(1033)!.toString()).code, 12);
  await until(() => legacy.closed, 5_000, 'the legacy channel closed');
});

test('revoking the API session (POST /revocations API_SESSION) closes its circuits and its channel on the router', async (t) => {
  const session = login();
  const client = await helloAccepted(session.accessToken);
  const other = await helloAccepted(login().accessToken);
  await echoes(client, 3, 'before the revocation');
  // The router reports the channel's session to the controller (within 100 ms): wait until it counts.
  await untilConnected(true);
  const revoked = await controller.http.post(`${controller.managementApi}/revocations`, { headers: admin, body: { id: session.asid, type: 'API_SESSION' } });
  assert.equal(revoked.status, 201, revoked.text);
  const revokedAt = Date.now();
  const line = await router.waitForLog((candidate) => candidate.msg === 'circuits closed: revoked by the controller' && candidate.code === 'SESSION_REVOKED', 5_000, 'the revocation closing the circuit');
  assert.match(String(line.reason), /revoked/);
  await until(() => client.closed, 5_000, 'the revoked session\'s channel closed');
  t.diagnostic(`channel closed ${Date.now() - revokedAt} ms after the revocation was created`);
  const closedLine = await router.waitForLog((candidate) => candidate.msg === 'edge channels closed: their API session ended' && candidate.apiSessionId === session.asid, 5_000, 'the channel closing log line');
  assert.match(String(closedLine.reason), /revoked/);
  assert.ok(Date.now() - revokedAt < 5_000, 'within 5 s of the revocation');
  assert.equal(other.closed, false, 'another session of the identity keeps its channel');
  await echoes(other, 5, 'another session dials on');
  await other.close();
});

test('a legacy session that logs out loses its channel too, as the real router closes a removed session\'s channels', async () => {
  const login = await controller.http.post(`${controller.clientApi}/authenticate?method=cert`, { body: {}, cert: dialer.cert, key: dialer.key });
  assert.equal(login.status, 200, login.text);
  const token = login.json.data.token as string;
  const client = await helloAccepted(token);
  await untilConnected(true);
  const loggedOut = await controller.http.delete(`${controller.clientApi}/current-api-session`, { headers: { 'zt-session': token } });
  assert.equal(loggedOut.status, 200, loggedOut.text);
  await until(() => client.closed, 5_000, 'the logged-out session\'s channel closed');
});

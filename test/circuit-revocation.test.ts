// Revocation reaches live circuits, across real processes: three controllers in a cluster and three routers run as
// an operator runs them. Router 1 has an edge listener (HTTP CONNECT with an API session), router 2 hosts an echo
// service, router 3 only links to router 2. Every revoking change is made through a controller that does not hold
// router 1's control channel, so the one that closes a circuit learns of it from the raft log, as any member does.
//
// Shown here as a client and an operator see it: a CONNECT tunnel is reset within 5 s of its session's logout (or
// revocation, of the session or of its identity), of the
// removal of its Dial policy, of its identity's disabling or deletion, of the lapse of its MFA posture check, of a
// PROCESS posture check that stops passing (reported to another controller) and of its router's disabling, also
// after the router failed over to another controller (which learns of the circuits from the router); a deleted router's link is closed by the router it linked to, and its new links are refused.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { AuthenticatorApp } from './support/authenticator-app.ts';
import { allowEveryRouter, enrollTestRouter, linkListenerYaml, managementPoster, quickLinkDialer, startWelcomedRouters, terminatorsOnEveryController } from './support/circuit-routers.ts';
import { memberList, threeControllerCluster, until } from './support/cluster-helpers.ts';
import type { ControllerFixture } from './support/controller-fixture.ts';
import { startEchoServer, type EchoServer } from './support/echo-server.ts';
import { freePort } from './support/free-port.ts';
import { RouterRun, type LogLine } from './support/router-fixture.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-revocation-'));
let nodes: ControllerFixture[] = [];
/** The controller the scenario's setup goes through (another one once a test has killed it), and its admin session. */
let api: ControllerFixture;
let admin: Record<string, string>;
/** A controller other than the one router 1 is connected to, and its admin session. */
let via: ControllerFixture;
let viaAdmin: Record<string, string>;
let echo: EchoServer | undefined;
/** The echo server's open connections: what the egress router dialed for each tunnel. */
const serverSide = new Set<import('node:net').Socket>();
type RouterName = 'r1' | 'r2' | 'r3';
const routers: Record<RouterName, { id: string; config: string; edgePort: number; run?: RouterRun }> = {} as never;

const post = (path: string, body: Record<string, unknown>): Promise<string> => managementPoster(api, admin)(path, body);

async function writeRouter(name: RouterName, options: { tunneler: boolean; roles: string[]; listeners: string[]; link: string; endpoint: string }): Promise<void> {
  const spec = { endpoint: options.endpoint, quickHeartbeats: true, listeners: options.listeners, tail: options.link };
  routers[name] = await enrollTestRouter(api, admin, join(root, name), name, spec, { isTunnelerEnabled: options.tunneler, roleAttributes: options.roles });
}

const dialer = quickLinkDialer;

before(async () => {
  nodes = await threeControllerCluster(join(root, 'pki'));
  api = nodes[0]!;
  admin = { 'zt-session': await api.adminToken() };
  echo = await startEchoServer((socket) => {
    serverSide.add(socket);
    socket.on('close', () => serverSide.delete(socket));
  });
  const echoPort = echo.port;

  const r2Link = await freePort();
  await writeRouter('r1', { tunneler: false, roles: ['edge'], listeners: [], link: dialer, endpoint: nodes[1]!.ctrlAddress });
  await writeRouter('r2', {
    tunneler: true,
    roles: ['hosts'],
    listeners: ['  - binding: tunnel\n    options: {mode: host}'],
    link: linkListenerYaml(r2Link),
    endpoint: nodes[2]!.ctrlAddress,
  });
  await writeRouter('r3', { tunneler: false, roles: [], listeners: [], link: dialer, endpoint: nodes[0]!.ctrlAddress });

  const host = await post('/configs', { name: 'echo-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: echoPort } });
  await post('/services', { name: 'echo', encryptionRequired: true, roleAttributes: ['echo'], configs: [host] });
  await post('/service-policies', { name: 'hosts-bind-echo', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosts'], serviceRoles: ['#echo'] });
  await allowEveryRouter(post, 'revocation');

  await startWelcomedRouters(routers, ['r1', 'r2', 'r3']);
  await terminatorsOnEveryController(nodes, 1, 'the echo terminator on every controller');
  for (const name of ['r1', 'r3'] as const) {
    await routers[name].run!.waitForLog((line) => line.msg === 'link established' && line.destRouterId === routers.r2.id, 30_000, `${name}'s link to r2`);
  }
  const r1Controller = (await routers.r1.run!.waitForLog((line) => line.msg === 'control channel established')).controllerId;
  via = nodes.find((node) => node.id !== r1Controller)!;
  viaAdmin = { 'zt-session': await via.adminToken() };
});

after(async () => {
  await Promise.all(Object.values(routers).map((router) => router.run?.stop()));
  await echo?.close();
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(root, { recursive: true, force: true });
});

/** A user allowed to Dial the echo service by a policy of its own; its id, the policy's and a fresh session token. */
async function dialingUser(name: string): Promise<{ identityId: string; policyId: string; token: string }> {
  const identityId = await post('/identities', { name, type: 'User', isAdmin: false, roleAttributes: [name] });
  await post('/authenticators', { method: 'updb', identityId, username: name, password: `${name}-password` });
  const policyId = await post('/service-policies', { name: `${name}-dial-echo`, type: 'Dial', semantic: 'AnyOf', identityRoles: [`#${name}`], serviceRoles: ['#echo'] });
  const login = await api.http.post(`${api.clientApi}/authenticate?method=password`, { body: { username: name, password: `${name}-password` } });
  assert.equal(login.status, 200, login.text);
  return { identityId, policyId, token: login.json.data.token as string };
}

/** A CONNECT tunnel to the echo service through router 1's edge listener, proven open by one echoed line. */
async function openTunnel(token: string): Promise<TLSSocket> {
  return until('an open CONNECT tunnel to echo', () => tryTunnel(token), 30_000).catch((error: Error) => {
    throw new Error(`${error.message}; last answer: ${JSON.stringify(lastAnswer)}`);
  });
}

let lastAnswer = '';

function tryTunnel(token: string): Promise<TLSSocket | undefined> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port: routers.r1.edgePort, ca: nodes[0]!.caPem, servername: 'localhost' }, () => {
      socket.write(`CONNECT echo:80 HTTP/1.1\r\nHost: echo:80\r\nzt-session: ${token}\r\n\r\n`);
    });
    let text = '';
    let open = false;
    const fail = () => {
      lastAnswer = text.slice(0, 500);
      clearTimeout(timer);
      socket.destroy();
      resolve(undefined);
    };
    const timer = setTimeout(fail, 10_000);
    socket.on('error', fail);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (!open) {
        const end = text.indexOf('\r\n\r\n');
        if (end < 0) return;
        if (!text.startsWith('HTTP/1.1 200')) return fail();
        open = true;
        text = text.slice(end + 4);
        socket.write('ping\n');
      }
      if (text.includes('ping\n')) {
        clearTimeout(timer);
        socket.removeAllListeners('data');
        socket.removeListener('error', fail);
        resolve(socket);
      }
    });
  });
}

/** Runs `revoke` and measures how long until the tunnel is closed by the router (the socket closes: reset or end). */
async function closedWithin(socket: TLSSocket, revoke: () => Promise<void>): Promise<number> {
  const closed = new Promise<number>((resolve) => {
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(Date.now()));
  });
  // Still open before the revocation: it echoes.
  const echoed = new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.write('still here\n');
  await echoed;
  const started = Date.now();
  await revoke();
  const limit = new Promise<number>((resolve) => setTimeout(() => resolve(Number.POSITIVE_INFINITY), 15_000).unref());
  const at = await Promise.race([closed, limit]);
  socket.destroy();
  return at - started;
}

const revokedOnR1 = (code: string) => (line: LogLine) => line.msg === 'circuits closed: revoked by the controller' && line.code === code && Number(line.closed) >= 1;

test('logging out (DELETE /current-api-session) resets the session\'s CONNECT tunnel within 5 s, at both ends', async () => {
  const user = await dialingUser('logout-user');
  const tunnel = await openTunnel(user.token);
  assert.equal(serverSide.size, 1, 'the egress holds one connection to the server');
  const elapsed = await closedWithin(tunnel, async () => {
    const response = await via.http.delete(`${via.clientApi}/current-api-session`, { headers: { 'zt-session': user.token } });
    assert.equal(response.status, 200, response.text);
  });
  console.log(`logout: tunnel closed ${elapsed} ms after the DELETE was sent`);
  assert.ok(elapsed <= 5000, `closed after ${elapsed} ms`);
  await routers.r1.run!.waitForLog(revokedOnR1('SESSION_REVOKED'), 5000, 'the session revocation on r1');
  await until('the egress to close its connection to the server too', () => serverSide.size === 0, 5000);
});

test('a revocation (POST /revocations) of the API session, or of its identity, resets the tunnel within 5 s', async () => {
  const sessionUser = await dialingUser('revoked-session-user');
  const sessionId = (await api.http.get(`${api.clientApi}/current-api-session`, { headers: { 'zt-session': sessionUser.token } })).json.data.id as string;
  const bySession = await closedWithin(await openTunnel(sessionUser.token), async () => {
    const response = await via.http.post(`${via.managementApi}/revocations`, { headers: viaAdmin, body: { id: sessionId, type: 'API_SESSION' } });
    assert.equal(response.status, 201, response.text);
  });
  console.log(`API_SESSION revocation: tunnel closed after ${bySession} ms`);
  assert.ok(bySession <= 5000, `closed after ${bySession} ms`);
  await routers.r1.run!.waitForLog(revokedOnR1('SESSION_REVOKED'), 5000, 'the session revocation on r1');
  assert.equal(await tryTunnel(sessionUser.token), undefined, 'the revoked session opens no new tunnel');

  const identityUser = await dialingUser('revoked-identity-user');
  const byIdentity = await closedWithin(await openTunnel(identityUser.token), async () => {
    const response = await via.http.post(`${via.managementApi}/revocations`, { headers: viaAdmin, body: { id: identityUser.identityId, type: 'IDENTITY' } });
    assert.equal(response.status, 201, response.text);
  });
  console.log(`IDENTITY revocation: tunnel closed after ${byIdentity} ms`);
  assert.ok(byIdentity <= 5000, `closed after ${byIdentity} ms`);
});

test('removing the Dial policy resets the tunnel within 5 s, and a new tunnel is refused', async () => {
  const user = await dialingUser('policy-user');
  const tunnel = await openTunnel(user.token);
  const elapsed = await closedWithin(tunnel, async () => {
    const response = await via.http.delete(`${via.managementApi}/service-policies/${user.policyId}`, { headers: viaAdmin });
    assert.equal(response.status, 200, response.text);
  });
  console.log(`Dial policy removed: tunnel closed after ${elapsed} ms`);
  assert.ok(elapsed <= 5000, `closed after ${elapsed} ms`);
  await routers.r1.run!.waitForLog(revokedOnR1('ACCESS_REVOKED'), 5000, 'the access revocation on r1');
  assert.equal(await tryTunnel(user.token), undefined, 'no new tunnel without the policy');
});

test('disabling the identity resets its tunnel within 5 s; so does deleting another', async () => {
  const disabled = await dialingUser('disabled-user');
  const first = await openTunnel(disabled.token);
  const disabling = await closedWithin(first, async () => {
    const response = await via.http.post(`${via.managementApi}/identities/${disabled.identityId}/disable`, { headers: viaAdmin, body: { durationMinutes: 0 } });
    assert.equal(response.status, 200, response.text);
  });
  console.log(`identity disabled: tunnel closed after ${disabling} ms`);
  assert.ok(disabling <= 5000, `closed after ${disabling} ms`);
  await routers.r1.run!.waitForLog(revokedOnR1('IDENTITY_REVOKED'), 5000, 'the identity revocation on r1');

  const deleted = await dialingUser('deleted-user');
  const second = await openTunnel(deleted.token);
  const deleting = await closedWithin(second, async () => {
    const response = await via.http.delete(`${via.managementApi}/identities/${deleted.identityId}`, { headers: viaAdmin });
    assert.equal(response.status, 200, response.text);
  });
  console.log(`identity deleted: tunnel closed after ${deleting} ms`);
  assert.ok(deleting <= 5000, `closed after ${deleting} ms`);
});

test('an MFA posture check that times out closes the tunnel within seconds of its lapse (the periodic re-check)', async () => {
  const name = 'mfa-user';
  const identityId = await post('/identities', { name, type: 'User', isAdmin: false, roleAttributes: [name] });
  await post('/authenticators', { method: 'updb', identityId, username: name, password: `${name}-password` });
  const timeoutSeconds = 6;
  await post('/posture-checks', { name: 'mfa-6s', typeId: 'MFA', roleAttributes: ['mfa-6s'], timeoutSeconds });
  await post('/service-policies', { name: `${name}-dial-echo`, type: 'Dial', semantic: 'AnyOf', identityRoles: [`#${name}`], serviceRoles: ['#echo'], postureCheckRoles: ['#mfa-6s'] });
  const login = await nodes[0]!.http.post(`${nodes[0]!.clientApi}/authenticate?method=password`, { body: { username: name, password: `${name}-password` } });
  assert.equal(login.status, 200, login.text);
  const headers = { 'zt-session': login.json.data.token as string };
  const started = await nodes[0]!.http.post(`${nodes[0]!.clientApi}/current-identity/mfa`, { headers, body: {} });
  assert.equal(started.status, 201, started.text);
  const detail = await nodes[0]!.http.get(`${nodes[0]!.clientApi}/current-identity/mfa`, { headers });
  const app = AuthenticatorApp.fromUrl(detail.json.data.provisioningUrl);
  const verified = await nodes[0]!.http.post(`${nodes[0]!.clientApi}/current-identity/mfa/verify`, { headers, body: { code: await app.nextCode() } });
  assert.equal(verified.status, 200, verified.text);
  const answeredAt = Date.now();
  const tunnel = await openTunnel(headers['zt-session']);
  const closedAt = await new Promise<number>((resolve) => {
    tunnel.on('error', () => undefined);
    tunnel.once('close', () => resolve(Date.now()));
    setTimeout(() => resolve(Number.POSITIVE_INFINITY), 20_000).unref();
  });
  tunnel.destroy();
  const lapsedFor = closedAt - answeredAt - timeoutSeconds * 1000;
  console.log(`MFA posture lapsed: tunnel closed ${lapsedFor} ms after the answer's ${timeoutSeconds} s ran out`);
  assert.ok(lapsedFor <= 5000, `closed ${lapsedFor} ms after the lapse`);
  await routers.r1.run!.waitForLog(revokedOnR1('POSTURE_REVOKED'), 5000, 'the posture revocation on r1');
});

test('a PROCESS posture check that stops passing closes the tunnel and refuses the next dial, whichever controller hears of it', async () => {
  const name = 'process-user';
  const identityId = await post('/identities', { name, type: 'User', isAdmin: false, roleAttributes: [name] });
  await post('/authenticators', { method: 'updb', identityId, username: name, password: `${name}-password` });
  const checkId = await post('/posture-checks', { name: 'agent-running', typeId: 'PROCESS', roleAttributes: ['agent-running'], process: { osType: 'Linux', path: '/opt/agent', hashes: ['ab12'] } });
  await post('/service-policies', { name: `${name}-dial-echo`, type: 'Dial', semantic: 'AnyOf', identityRoles: [`#${name}`], serviceRoles: ['#echo'], postureCheckRoles: ['#agent-running'] });
  const login = await nodes[0]!.http.post(`${nodes[0]!.clientApi}/authenticate?method=password`, { body: { username: name, password: `${name}-password` } });
  assert.equal(login.status, 200, login.text);
  const headers = { 'zt-session': login.json.data.token as string };
  const report = (node: ControllerFixture, isRunning: boolean) => node.http.post(`${node.clientApi}/posture-response`, { headers, body: { id: checkId, typeId: 'PROCESS', isRunning, hash: 'AB12' } });

  assert.equal(await tryTunnel(headers['zt-session']), undefined, 'no process reported yet: the dial is refused');
  const running = await report(nodes[0]!, true);
  assert.equal(running.status, 201, running.text);
  const tunnel = await openTunnel(headers['zt-session']);
  // The client moves to another controller (not the one holding router 1's control channel) and reports the agent stopped there.
  const closing = await closedWithin(tunnel, async () => {
    const stopped = await report(via, false);
    assert.equal(stopped.status, 201, stopped.text);
  });
  console.log(`process stopped: tunnel closed after ${closing} ms`);
  assert.ok(closing <= 5000, `closed after ${closing} ms`);
  await routers.r1.run!.waitForLog(revokedOnR1('POSTURE_REVOKED'), 5000, 'the posture revocation on r1');
  assert.equal(await tryTunnel(headers['zt-session']), undefined, 'the next dial is refused');
  assert.match(lastAnswer, /posture/i, lastAnswer);
  // Reported running again (to a third controller), the dial is served again.
  assert.equal((await report(nodes[2]!, true)).status, 201);
  (await openTunnel(headers['zt-session'])).destroy();
});

test('a deleted router\'s link is closed by the router it linked to, and its new links are refused', async () => {
  const r2 = routers.r2.run!;
  const r3Id = routers.r3.id;
  const response = await via.http.delete(`${via.managementApi}/edge-routers/${r3Id}`, { headers: viaAdmin });
  assert.equal(response.status, 200, response.text);
  const closed = await r2.waitForLog((line) => line.msg === 'link closed: the peer router is revoked' && line.destRouterId === r3Id, 10_000, 'r2 closing its link from r3');
  assert.match(String(closed.reason), /deleted/);
  await routers.r3.run!.waitForLog((line) => line.msg === 'controller refused the router' && line.revoked === true, 10_000, 'r3 told it is revoked');
  // r3 still knows r2's address and dials again: r2 refuses it.
  await r2.waitForLog((line) => line.msg === 'link refused' && typeof line.reason === 'string' && line.reason.startsWith('router revoked') && line.routerId === r3Id, 15_000, 'r2 refusing r3\'s new link');
  const links = () => r2.lines.filter((line) => line.msg === 'link established' && line.destRouterId === r3Id).length;
  const before = links();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(links(), before, 'no new link from the deleted router');
});

test('after its router fails over to another controller, a circuit is still revoked within 5 s of its logout', async () => {
  const user = await dialingUser('failover-user');
  const tunnel = await openTunnel(user.token);
  const r1 = routers.r1.run!;
  const established = (line: LogLine) => line.msg === 'control channel established';
  const before = r1.lines.filter(established).length;
  const holderId = r1.lines.filter(established).at(-1)!.controllerId;
  await nodes.find((node) => node.id === holderId)!.stop('SIGKILL');
  const moved = await until('r1 welcomed by another controller', () => r1.lines.filter(established).slice(before).find((line) => line.controllerId !== holderId), 30_000);
  // The revocation goes through the third controller, once the two left have a leader.
  via = nodes.find((node) => node.id !== holderId && node.id !== moved.controllerId)!;
  api = via;
  // The killed controller may have been the leader: logins and writes wait for the two left to elect one.
  await until('a leader among the two controllers left', async () => (await memberList(via)).some((row) => row.leader && row.connected), 30_000);
  viaAdmin = { 'zt-session': await until('an admin login', () => via.adminToken(), 30_000) };
  admin = viaAdmin;
  const elapsed = await closedWithin(tunnel, async () => {
    const response = await via.http.delete(`${via.clientApi}/current-api-session`, { headers: { 'zt-session': user.token } });
    assert.equal(response.status, 200, response.text);
  });
  console.log(`after failover to ${String(moved.controllerId)}: tunnel closed ${elapsed} ms after the logout`);
  assert.ok(elapsed <= 5000, `closed after ${elapsed} ms`);
});

test('disabling the ingress router resets its CONNECT tunnel within 5 s', async () => {
  const user = await dialingUser('router-user');
  const tunnel = await openTunnel(user.token);
  const elapsed = await closedWithin(tunnel, async () => {
    const response = await via.http.patch(`${via.managementApi}/edge-routers/${routers.r1.id}`, { headers: viaAdmin, body: { disabled: true } });
    assert.equal(response.status, 200, response.text);
  });
  console.log(`ingress router disabled: tunnel closed after ${elapsed} ms`);
  assert.ok(elapsed <= 5000, `closed after ${elapsed} ms`);
  await routers.r1.run!.waitForLog((line) => line.msg === 'all circuits closed: this router was disabled or deleted', 5000, 'r1 closing everything');
  await routers.r2.run!.waitForLog((line) => line.msg === 'link closed: the peer router is revoked' && line.destRouterId === routers.r1.id, 10_000, 'r2 closing its link from r1');
});

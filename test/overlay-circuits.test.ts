// The overlay carries traffic, across real processes: three controllers in a cluster and three routers run as an
// operator runs them (`./edgeward router enroll`, `./edgeward router run`). Router 1 has a proxy-mode tunnel
// listener per service, router 3 hosts the services (host mode) in front of servers on this host, router 2 sits
// between them. Links: r1 → r2 → r3, and a slow direct r1 → r3 (through a proxy that delays every chunk), so paths
// go through r2 until the r2 → r3 link is cut.
//
// Shown here as a user sees it: curl through router 1's proxy port reaches the HTTP server behind router 3; 50 MB
// goes up and comes back intact; a half-closed connection still gets its answer; a service router 1 may not Dial is
// refused (the connection closes with nothing), as is one whose Dial policy has an MFA posture check; an identity's
// third concurrent CONNECT is refused at router 1's forwarder.maxCircuitsPerIdentity (2); cutting the
// middle link moves new circuits to the direct link; killing the hosting router removes its terminators everywhere.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startEchoServer, type EchoServer } from '../server/demo/echo-server.ts';
import { allowEveryRouter, enrollTestRouter, managementPoster, startWelcomedRouters, terminatorsOnEveryController } from './support/circuit-routers.ts';
import { threeControllerCluster, until } from './support/cluster-helpers.ts';
import type { ControllerFixture } from './support/controller-fixture.ts';
import { freePort } from './support/free-port.ts';
import type { RouterRun } from './support/router-fixture.ts';
import { TcpProxy } from './support/tcp-proxy.ts';
import { connect as tlsConnect } from 'node:tls';
import { AuthenticatorApp } from './support/authenticator-app.ts';
import { OverlaySetup } from './support/overlay-setup.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-circuits-'));
let nodes: ControllerFixture[] = [];
let admin: Record<string, string>;
let echo: EchoServer;
let tcpEcho: Server;
let tcpEchoPort: number;
const proxies: TcpProxy[] = [];
let midProxy: TcpProxy;
const routers: Record<'r1' | 'r2' | 'r3', { id: string; dir: string; config: string; edgePort: number; run?: RouterRun }> = {} as never;
const ports = { echo: 0, tcpEcho: 0, noDial: 0, mfa: 0 };
/** Alice's API session once it answered MFA (the MFA test), for the circuit cap test after it. */
let aliceAfterMfa: string | undefined;

const post = (path: string, body: Record<string, unknown>): Promise<string> => managementPoster(nodes[0]!, admin)(path, body);

function linkSection(listeners: Array<{ bind: number; advertise: number; groups: string[] }>, dialGroups: string[]): string {
  const lines = ['link:'];
  if (listeners.length > 0) {
    lines.push('  listeners:');
    for (const listener of listeners) {
      lines.push(`    - {binding: transport, bind: "tls:127.0.0.1:${listener.bind}", advertise: "tls:127.0.0.1:${listener.advertise}", groups: [${listener.groups.join(', ')}]}`);
    }
  }
  if (dialGroups.length > 0) {
    lines.push('  dialers:');
    lines.push(`    - binding: transport`);
    lines.push(`      groups: [${dialGroups.join(', ')}]`);
    lines.push('      healthyDialBackoff: {retryBackoffFactor: 2, minRetryInterval: 200ms, maxRetryInterval: 1s}');
  }
  return lines.join('\n');
}

async function writeRouter(name: 'r1' | 'r2' | 'r3', tunnel: string, link: string, endpoint: string): Promise<void> {
  const dir = join(root, name);
  const spec = {
    endpoint,
    quickHeartbeats: true,
    forwarder: '  maxCircuitsPerIdentity: 2',
    before: 'metrics: {reportInterval: 500ms, intervalAgeThreshold: 200ms}',
    listeners: tunnel ? [tunnel] : [],
    tail: link,
  };
  const enrolled = await enrollTestRouter(nodes[0]!, admin, dir, name, spec, { isTunnelerEnabled: true, roleAttributes: [name === 'r1' ? 'clients' : 'hosts'] });
  routers[name] = { ...enrolled, dir };
}

/** An HTTP request through a proxy port; the body's SHA-256 and length, streamed (so 50 MB costs little). */
function httpThrough(port: number, method: string, path: string, body?: Buffer): Promise<{ status: number; text: string; sha256: string; length: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers: body ? { 'content-length': body.length } : {} }, (response) => {
      const hash = createHash('sha256');
      let length = 0;
      const head: Buffer[] = [];
      response.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        if (length < 4096) head.push(chunk);
        length += chunk.length;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(head).toString('utf8').slice(0, 4096), sha256: hash.digest('hex'), length }));
      response.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(120_000, () => req.destroy(new Error('timed out')));
    req.end(body);
  });
}

/** A raw connection: what comes back before the connection ends (empty when it is closed at once). */
function rawExchange(port: number, payload: Buffer, halfClose: boolean, timeoutMs = 20_000): Promise<{ received: Buffer; ended: 'end' | 'reset' }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no end within ${timeoutMs} ms (received ${Buffer.concat(chunks).length} bytes)`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => {
      clearTimeout(timer);
      socket.end();
      resolve({ received: Buffer.concat(chunks), ended: 'end' });
    });
    socket.on('error', () => {
      clearTimeout(timer);
      resolve({ received: Buffer.concat(chunks), ended: 'reset' });
    });
    socket.on('connect', () => {
      socket.write(payload);
      if (halfClose) socket.end();
    });
  });
}

const circuitCreated = (line: Record<string, unknown>) => line.msg === 'circuit created';

before(async () => {
  nodes = await threeControllerCluster(join(root, 'pki'));
  admin = { 'zt-session': await nodes[0]!.adminToken() };
  echo = await startEchoServer();
  // A TCP echo that answers only once the client half-closes: what it received, reversed, then it ends.
  tcpEcho = createServer({ allowHalfOpen: true }, (socket) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => socket.end(Buffer.from(Buffer.concat(chunks).toString('utf8').split('').reverse().join(''))));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => tcpEcho.listen(0, '127.0.0.1', () => resolve()));
  tcpEchoPort = (tcpEcho.address() as { port: number }).port;

  for (const key of Object.keys(ports) as Array<keyof typeof ports>) ports[key] = await freePort();
  const [r2Link, r3Mid, r3Slow] = [await freePort(), await freePort(), await freePort()];
  midProxy = new TcpProxy(r3Mid);
  const slowProxy = new TcpProxy(r3Slow, '127.0.0.1', 25);
  proxies.push(midProxy, slowProxy);
  const [midPort, slowPort] = [await midProxy.start(), await slowProxy.start()];

  const proxyServices = [`demo-echo:${ports.echo}`, `tcp-echo:${ports.tcpEcho}`, `no-dial:${ports.noDial}`, `mfa-echo:${ports.mfa}`];
  await writeRouter('r1', `  - binding: tunnel\n    options: {mode: proxy, services: [${proxyServices.join(', ')}]}`, linkSection([], ['front', 'slow']), nodes[0]!.ctrlAddress);
  await writeRouter('r2', '', linkSection([{ bind: r2Link, advertise: r2Link, groups: ['front'] }], ['mid']), nodes[1]!.ctrlAddress);
  await writeRouter(
    'r3',
    '  - binding: tunnel\n    options: {mode: host}',
    linkSection(
      [
        { bind: r3Mid, advertise: midPort, groups: ['mid'] },
        { bind: r3Slow, advertise: slowPort, groups: ['slow'] },
      ],
      [],
    ),
    nodes[2]!.ctrlAddress,
  );

  const host = async (name: string, port: number) => post('/configs', { name: `${name}-host`, configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port } });
  await post('/services', { name: 'demo-echo', encryptionRequired: true, roleAttributes: ['echo'], configs: [await host('demo-echo', echo.port)] });
  await post('/services', { name: 'tcp-echo', encryptionRequired: true, roleAttributes: ['echo'], configs: [await host('tcp-echo', tcpEchoPort)] });
  await post('/services', { name: 'no-dial', encryptionRequired: true, roleAttributes: ['hidden'], configs: [await host('no-dial', echo.port)] });
  await post('/services', { name: 'mfa-echo', encryptionRequired: true, roleAttributes: ['guarded'], configs: [await host('mfa-echo', echo.port)] });
  await post('/service-policies', { name: 'hosts-bind-all', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosts'], serviceRoles: ['#all'] });
  await allowEveryRouter(post, 'overlay');
  await post('/service-policies', { name: 'clients-dial-echo', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#clients'], serviceRoles: ['#echo'] });
  const mfaCheck = await post('/posture-checks', { name: 'needs-mfa', typeId: 'MFA', roleAttributes: ['mfa'] });
  assert.ok(mfaCheck);
  await post('/service-policies', { name: 'clients-dial-guarded', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#clients'], serviceRoles: ['#guarded'], postureCheckRoles: ['#mfa'] });

  await startWelcomedRouters(routers, ['r1', 'r2', 'r3']);
  await terminatorsOnEveryController(nodes, 4, 'terminators for the four services on every controller');
});

after(async () => {
  await Promise.all(Object.values(routers).map((router) => router.run?.stop()));
  for (const proxy of proxies) await proxy.stop();
  await echo?.close();
  tcpEcho?.close();
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(root, { recursive: true, force: true });
});

test('curl through router 1 reaches the server behind router 3, through router 2', async () => {
  const r1 = routers.r1.run!;
  // Until every link has a latency sample the direct link may look as cheap as the path through r2.
  const answer = await until('a circuit through r2', async () => {
    const before = r1.lines.filter(circuitCreated).length;
    const result = await runCurl([`http://127.0.0.1:${ports.echo}/hello/overlay`]);
    const created = r1.lines.filter(circuitCreated).slice(before);
    return result.code === 0 && created.some((line) => (line.path as string[]).length === 3) ? result : undefined;
  });
  assert.equal(answer.stdout, 'edgeward demo echo: you asked for /hello/overlay\n');
  const line = r1.lines.filter(circuitCreated).at(-1)!;
  assert.deepEqual(line.path, [routers.r1.id, routers.r2.id, routers.r3.id]);
});

test('50 MB goes up and comes back intact', async () => {
  const body = randomBytes(50 * 1024 * 1024);
  const sent = createHash('sha256').update(body).digest('hex');
  const started = Date.now();
  const echoed = await httpThrough(ports.echo, 'POST', '/echo-body', body);
  assert.equal(echoed.status, 200);
  assert.equal(echoed.length, body.length);
  assert.equal(echoed.sha256, sent);
  console.log(`50 MB up and back through three routers in ${Date.now() - started} ms`);
});

test('a half-closed connection still gets its answer, and the circuit ends cleanly', async () => {
  const result = await rawExchange(ports.tcpEcho, Buffer.from('overlay half-close'), true);
  assert.equal(result.ended, 'end');
  assert.equal(result.received.toString('utf8'), 'esolc-flah yalrevo');
  await routers.r1.run!.waitForLog((line) => line.msg === 'circuit closed' && line.graceful === true, 10_000, 'a graceful close');
});

test('a service router 1 may not Dial is refused, and so is one whose policy needs MFA', async () => {
  const r1 = routers.r1.run!;
  const refused = await rawExchange(ports.noDial, Buffer.from('GET / HTTP/1.0\r\n\r\n'), false);
  assert.equal(refused.received.length, 0, 'nothing comes back');
  const line = await r1.waitForLog((entry) => entry.msg === 'circuit refused' && entry.service === 'no-dial', 10_000, 'the refusal');
  assert.equal(line.code, 'NO_DIAL_POLICY');
  const guarded = await rawExchange(ports.mfa, Buffer.from('GET / HTTP/1.0\r\n\r\n'), false);
  assert.equal(guarded.received.length, 0);
  const posture = await r1.waitForLog((entry) => entry.msg === 'circuit refused' && entry.service === 'mfa-echo', 10_000, 'the posture refusal');
  assert.equal(posture.code, 'INVALID_POSTURE');
  assert.match(String(posture.reason), /needs-mfa/);
});

/** CONNECT through router 1's edge listener: the status line and body of a refusal, or the open tunnel. */
function connectThrough(target: string, headers: Record<string, string>): Promise<{ status: number; body: string; socket: import('node:tls').TLSSocket }> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port: routers.r1.edgePort, ca: nodes[0]!.caPem, servername: 'localhost' }, () => {
      socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${Object.entries(headers).map(([key, value]) => `${key}: ${value}\r\n`).join('')}\r\n`);
    });
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no CONNECT answer: ${text}`)), 20_000);
    socket.on('error', reject);
    socket.on('data', function onData(chunk: Buffer) {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const status = Number(text.slice(9, 12));
      const length = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (status === 200 || text.length >= end + 4 + length) {
        clearTimeout(timer);
        socket.removeListener('data', onData);
        resolve({ status, body: text.slice(end + 4, end + 4 + length), socket });
      }
    });
  });
}

test('an edge client dials as its own identity: no session or no Dial policy is refused, MFA posture refuses until the session did MFA', async () => {
  const setup = await OverlaySetup.create(nodes[0]!);
  await setup.createUser('alice', 'alice-password', { roleAttributes: ['people'] });
  await setup.createUser('bobby', 'bobby-password', { roleAttributes: ['strangers'] });
  await post('/service-policies', { name: 'people-dial-guarded', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#people'], serviceRoles: ['#guarded'], postureCheckRoles: ['#mfa'] });
  const login = async (name: string) => {
    const response = await nodes[0]!.http.post(`${nodes[0]!.clientApi}/authenticate?method=password`, { body: { username: name, password: `${name}-password` } });
    assert.equal(response.status, 200, response.text);
    return response.json.data.token as string;
  };
  const [alice, bob] = [await login('alice'), await login('bobby')];

  const anonymous = await connectThrough('mfa-echo:80', {});
  assert.equal(anonymous.status, 407);
  assert.equal(JSON.parse(anonymous.body).error.code, 'INVALID_SESSION');
  const forged = await connectThrough('mfa-echo:80', { 'zt-session': 'not-a-session' });
  assert.equal(forged.status, 407);
  // No Dial policy and no such service read the same: a client cannot probe which services exist. The controller's
  // log keeps the true cause for the operator.
  const stranger = await connectThrough('mfa-echo:80', { 'Proxy-Authorization': `Bearer ${bob}` });
  const unknown = await connectThrough('no-such-service:80', { 'zt-session': alice });
  assert.equal(stranger.status, 404);
  assert.deepEqual([unknown.status, unknown.body], [stranger.status, stranger.body]);
  assert.equal(JSON.parse(stranger.body).error.code, 'SERVICE_NOT_FOUND');
  // The controller tells the router no more than the client: the router's line for Bob's dial says SERVICE_NOT_FOUND.
  const edgeRefusal = (entry: Record<string, unknown>) => entry.msg === 'circuit refused' && entry.service === 'mfa-echo' && String(entry.listener).startsWith('edge') && entry.code !== 'INVALID_SESSION';
  assert.equal((await routers.r1.run!.waitForLog(edgeRefusal, 10_000, "the router's line for the stranger")).code, 'SERVICE_NOT_FOUND');
  const controllerLines = () => nodes.flatMap((node) => node.readLog().split('\n')).filter((line) => line.includes('"msg":"circuit refused"'));
  await until("the controller's line with the true cause", async () => controllerLines().some((line) => line.includes('"service":"mfa-echo"') && line.includes('"code":"NO_DIAL_POLICY"')) || undefined, 10_000);
  const beforeMfa = await connectThrough('mfa-echo:80', { 'zt-session': alice });
  assert.equal(beforeMfa.status, 403);
  assert.equal(JSON.parse(beforeMfa.body).error.code, 'INVALID_POSTURE');

  // Alice enrolls in MFA and verifies it in this session: the same session may now dial.
  const headers = { 'zt-session': alice };
  const started = await nodes[0]!.http.post(`${nodes[0]!.clientApi}/current-identity/mfa`, { headers, body: {} });
  assert.equal(started.status, 201, started.text);
  const detail = await nodes[0]!.http.get(`${nodes[0]!.clientApi}/current-identity/mfa`, { headers });
  const app = AuthenticatorApp.fromUrl(detail.json.data.provisioningUrl);
  const verified = await nodes[0]!.http.post(`${nodes[0]!.clientApi}/current-identity/mfa/verify`, { headers, body: { code: await app.nextCode() } });
  assert.equal(verified.status, 200, verified.text);

  const caFile = join(root, 'ca.pem');
  writeFileSync(caFile, nodes[0]!.caPem);
  const proxy = `https://localhost:${routers.r1.edgePort}`;
  const answer = await until('the dial after MFA', async () => {
    const result = await runCurl(['-p', '--proxy', proxy, '--proxy-cacert', caFile, '--proxy-header', `zt-session: ${alice}`, 'http://mfa-echo/after/mfa']);
    return result.code === 0 ? result : undefined;
  }, 20_000);
  assert.equal(answer.stdout, 'edgeward demo echo: you asked for /after/mfa\n');
  const routed = routers.r1.run!.lines.filter(circuitCreated).at(-1)!;
  assert.equal(routed.service, 'mfa-echo');
  aliceAfterMfa = alice;
});

test('forwarder.maxCircuitsPerIdentity (2 on router 1): the third CONNECT of one identity is answered 429, and one closed tunnel makes room', async () => {
  assert.ok(aliceAfterMfa, 'the MFA test ran first');
  const headers = { 'zt-session': aliceAfterMfa };
  const open = [await connectThrough('mfa-echo:80', headers), await connectThrough('mfa-echo:80', headers)];
  try {
    assert.deepEqual(open.map((tunnel) => tunnel.status), [200, 200]);
    const third = await connectThrough('mfa-echo:80', headers);
    third.socket.destroy();
    assert.equal(third.status, 429);
    assert.deepEqual(JSON.parse(third.body).error, { code: 'IDENTITY_CIRCUIT_LIMIT', message: 'this identity has as many circuits through the router as it may (forwarder.maxCircuitsPerIdentity: 2)' });
    const refused = await routers.r1.run!.waitForLog((entry) => entry.msg === 'circuit refused' && entry.code === 'IDENTITY_CIRCUIT_LIMIT', 5_000, 'the cap refusal in router 1\'s log');
    assert.equal(refused.limit, 'forwarder.maxCircuitsPerIdentity');

    open.shift()!.socket.destroy();
    const again = await until('a CONNECT once a tunnel closed', async () => {
      const attempt = await connectThrough('mfa-echo:80', headers);
      if (attempt.status === 200) return attempt;
      attempt.socket.destroy();
      return undefined;
    }, 10_000);
    open.push(again);
  } finally {
    for (const tunnel of open) tunnel.socket.destroy();
  }
});

test('circuit events and metrics: created, deleted with bytes, failed with its cause, and counters on /metrics', async () => {
  const { readFileSync, existsSync } = await import('node:fs');
  const events = () =>
    nodes.flatMap((node) => (existsSync(node.eventsFile) ? readFileSync(node.eventsFile, 'utf8').split('\n').filter((line) => line.includes('"namespace":"circuit"')).map((line) => JSON.parse(line)) : []));
  const all = await until('circuit events in the controllers\' event files', async () => {
    const found = events();
    return found.some((event) => event.event_type === 'deleted') && found.some((event) => event.event_type === 'failed') ? found : undefined;
  }, 20_000);
  const created = all.find((event) => event.event_type === 'created' && event.path.nodes.length === 3)!;
  assert.ok(created, 'a created event for a circuit through r2');
  assert.deepEqual(created.path.nodes, [routers.r1.id, routers.r2.id, routers.r3.id]);
  assert.equal(created.path.ingress_id, routers.r1.id);
  assert.equal(created.path.egress_id, routers.r3.id);
  assert.equal(created.link_count, 2);
  assert.equal(created.client_id, routers.r1.id, 'dialed as the router\'s identity');
  assert.ok(created.creation_timespan > 0);
  const big = all.find((event) => event.event_type === 'deleted' && event.bytes_in >= 50 * 1024 * 1024);
  assert.ok(big, 'the 50 MB circuit is deleted with its bytes');
  assert.ok(big.bytes_out >= 50 * 1024 * 1024);
  assert.ok(big.duration > 0);
  const failures = all.filter((event) => event.event_type === 'failed').map((event) => event.failure_cause);
  assert.ok(failures.includes('NO_DIAL_POLICY') && failures.includes('INVALID_POSTURE') && failures.includes('INVALID_SESSION'), failures.join(','));

  const metrics = (await Promise.all(nodes.map(async (node) => (await node.http.get(`${node.origin}/metrics`)).text))).join('\n');
  const total = (pattern: RegExp) => [...metrics.matchAll(pattern)].reduce((sum, match) => sum + Number(match[1]), 0);
  assert.ok(total(/^edgeward_circuit_failures_total\{[^}]*cause="NO_DIAL_POLICY"[^}]*\} (\d+)/gm) >= 1);
  assert.ok(total(/^edgeward_circuit_events_total\{[^}]*event_type="created"[^}]*\} (\d+)/gm) >= 3);
  await until('router gauges for circuits and link bytes', async () => {
    const text = (await Promise.all(nodes.map(async (node) => (await node.http.get(`${node.origin}/metrics`)).text))).join('\n');
    return new RegExp(`edgeward_router_circuit_created\\{router_id="${routers.r1.id}"\\} [1-9]`).test(text) && /edgeward_router_link_bytes_sent\{/.test(text);
  }, 20_000);
});

/** POSTs `body` to /echo-body through the proxy a megabyte at a time, calling `midway` after `midwayAt` bytes. */
function echoSlowly(port: number, body: Buffer, midwayAt: number, midway: () => void): Promise<{ status: number; sha256: string; length: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/echo-body', agent: false, headers: { 'content-length': body.length } }, (response) => {
      const hash = createHash('sha256');
      let length = 0;
      response.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        length += chunk.length;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, sha256: hash.digest('hex'), length }));
      response.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(120_000, () => req.destroy(new Error('timed out')));
    let offset = 0;
    let called = false;
    const step = 1024 * 1024;
    const next = () => {
      if (offset >= body.length) return void req.end();
      req.write(body.subarray(offset, offset + step));
      offset += step;
      if (!called && offset >= midwayAt) {
        called = true;
        midway();
      }
      setTimeout(next, 40);
    };
    next();
  });
}

test('cutting the middle link moves a live transfer to the direct link intact, and new circuits take it', async () => {
  const r1 = routers.r1.run!;
  const body = randomBytes(24 * 1024 * 1024);
  // The cut lands on a live circuit: once the client has written 6 MiB and r1 has its circuit up over the middle link
  // (under load the setup can take longer than those writes; a cut before it is a failed setup, not a move).
  const createdBefore = r1.lines.filter(circuitCreated).length;
  const upOverR2 = () => r1.lines.filter(circuitCreated).slice(createdBefore).some((line) => (line.path as string[]).length === 3);
  const cutWhenUp = async () => {
    const deadline = Date.now() + 30_000;
    while (!upOverR2() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    // Not up within 30 s: nothing is cut, and the test fails waiting for the re-route.
    if (upOverR2()) midProxy.cut();
  };
  const echoed = await echoSlowly(ports.echo, body, 6 * 1024 * 1024, () => void cutWhenUp()).catch((error: Error) => {
    const circuitLines = (run: RouterRun) => run.lines.filter((line) => String(line.msg).includes('circuit')).slice(-12).map((line) => JSON.stringify(line));
    throw new Error(`${error.message}\nr1:\n${circuitLines(r1).join('\n')}\nr3:\n${circuitLines(routers.r3.run!).join('\n')}`);
  });
  assert.equal(echoed.status, 200);
  assert.equal(echoed.length, body.length, 'nothing lost');
  assert.equal(echoed.sha256, createHash('sha256').update(body).digest('hex'), 'nothing doubled or reordered');
  const moved = await r1.waitForLog((line) => line.msg === 'circuit re-routed', 10_000, 'the re-route');
  assert.deepEqual(moved.path, [routers.r1.id, routers.r3.id]);
  const { readFileSync, existsSync } = await import('node:fs');
  await until('a pathUpdated event', async () =>
    nodes.some((node) => existsSync(node.eventsFile) && readFileSync(node.eventsFile, 'utf8').split('\n').some((line) => line.includes('"event_type":"pathUpdated"') && line.includes(String(moved.circuitId)))) || undefined,
  20_000);
  const answer = await until('a circuit over the direct link', async () => {
    const before = r1.lines.filter(circuitCreated).length;
    const result = await runCurl([`http://127.0.0.1:${ports.echo}/after/the/cut`]);
    const created = r1.lines.filter(circuitCreated).slice(before);
    return result.code === 0 && created.some((line) => (line.path as string[]).length === 2) ? result : undefined;
  });
  assert.equal(answer.stdout, 'edgeward demo echo: you asked for /after/the/cut\n');
  assert.deepEqual(r1.lines.filter(circuitCreated).at(-1)!.path, [routers.r1.id, routers.r3.id]);
});

test('killing the hosting router removes its terminators on every controller, and circuits are refused', async () => {
  routers.r3.run!.child.kill('SIGKILL');
  await routers.r3.run!.exited;
  await until('no terminators anywhere', async () => {
    for (const node of nodes) {
      const list = await node.http.get(`${node.managementApi}/terminators`, { headers: { 'zt-session': await node.adminToken() } });
      if (list.json?.data?.length !== 0) return false;
    }
    return true;
  });
  const result = await rawExchange(ports.echo, Buffer.from('GET / HTTP/1.0\r\n\r\n'), false);
  assert.equal(result.received.length, 0);
  const line = await routers.r1.run!.waitForLog((entry) => entry.msg === 'circuit refused' && entry.code === 'NO_TERMINATORS', 10_000, 'no terminators');
  assert.equal(line.service, 'demo-echo');
});

function runCurl(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('curl', ['--silent', '--show-error', '--max-time', '20', ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

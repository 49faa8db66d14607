// The control port's limits before it knows who is connecting, as configured under ctrl.options on a real
// controller process: a first frame over maxHelloBytes is cut off at once, a connection that sends nothing after
// helloTimeout (a router's certificate or a controller's alike), a raw TCP client that never handshakes after
// handshakeTimeout, and connections past maxConnectionsPerSource from one address at accept; each logged, while the
// two-controller cluster keeps taking writes.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connect } from 'node:tls';
import { encodeJsonFrame } from '../common/framing/frame-codec.ts';
import { createClientCertificate } from '../common/pki/client-certificate.ts';
import { controllerPaths, initPki, issueControllerCertificate, loadIssuer, pkiPaths } from '../common/pki/pki-directory.ts';
import { agent, memberList, until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { LogWatch } from './support/log-watch.ts';

const pkiRoot = mkdtempSync(join(tmpdir(), 'edgeward-control-port-'));
const fixtures: ControllerFixture[] = [];
let ctrl1: ControllerFixture;
let ctrl2: ControllerFixture;

const limited = (yaml: string) =>
  yaml
    .replace('\n    handshakeTimeout: 10s\n', '\n    handshakeTimeout: 1s\n')
    .replace('\n    helloTimeout: 10s\n', '\n    helloTimeout: 1s\n')
    .replace('\n    maxConnectionsPerSource: 128', '\n    maxConnectionsPerSource: 6');

before(async () => {
  await initPki(pkiRoot, { trustDomain: 'edgeward.test' });
  ctrl1 = await ControllerFixture.create({ pkiDir: pkiRoot, id: 'ctrl1', editConfig: limited });
  fixtures.push(ctrl1);
  assert.match(readFileSync(ctrl1.configFile, 'utf8'), /\n {4}helloTimeout: 1s\n[^]*maxConnectionsPerSource: 6/, 'the limits are configured');
  ctrl2 = await ControllerFixture.create({ pkiDir: pkiRoot, id: 'ctrl2', initAdmin: false });
  fixtures.push(ctrl2);
  await agent(ctrl1, 'cluster.add', { address: ctrl2.ctrlAddress, voter: true });
  await until('two connected voters', async () => (await memberList(ctrl1)).filter((row) => row.voter && row.connected).length === 2);
});
after(async () => {
  await Promise.all(fixtures.map((fixture) => fixture.dispose()));
  rmSync(pkiRoot, { recursive: true, force: true });
});

const port = () => Number(ctrl1.ctrlAddress.split(':').pop());

/** When `socket` closed (Date.now()), or Infinity if it is still open after `ms` (it is then destroyed). */
function closedWithin(socket: { once(event: 'close', listener: () => void): unknown; destroy(): void }, ms = 10_000): Promise<number> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(Number.POSITIVE_INFINITY);
    }, ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now());
    });
  });
}

/** A TLS connection to ctrl1's control port with a certificate of the PKI; resolves once the handshake is done. */
async function tlsClient(certPem: string, keyPem: string) {
  const socket = connect({ host: '127.0.0.1', port: port(), cert: certPem, key: keyPem, ca: readFileSync(pkiPaths(pkiRoot).bundle), checkServerIdentity: () => undefined });
  socket.on('error', () => undefined);
  socket.resume();
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  const closed = closedWithin(socket);
  return { socket, closed, at: Date.now() };
}

/** A TLS connection with a controller certificate of the cluster's PKI that is not a member's. */
let intruderIssued: Promise<unknown> | undefined;
async function intruder() {
  await (intruderIssued ??= issueControllerCertificate(pkiRoot, { id: 'intruder', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }));
  const paths = controllerPaths(pkiRoot, 'intruder');
  return tlsClient(readFileSync(paths.chain, 'utf8'), readFileSync(paths.key, 'utf8'));
}

/** A write through the follower: forwarded to the leader over the peer channel, so the cluster works end to end. */
async function writeThroughFollower(name: string): Promise<void> {
  const headers = { 'zt-session': await ctrl2.adminToken() };
  const created = await ctrl2.http.post(`${ctrl2.managementApi}/identities`, { headers, body: { name, isAdmin: false } });
  assert.equal(created.status, 201, created.text);
}

test('a first frame over maxHelloBytes is cut off at once, a silent connection after helloTimeout, router or controller certificate alike', async () => {
  const watch = new LogWatch(ctrl1.logFile);
  const mark = watch.mark();
  const router = await createClientCertificate(await loadIssuer(pkiRoot), { commonName: 'router-like' });
  const big = await tlsClient(router.chainPem, router.keyPem);
  const oversize = JSON.stringify({ type: 'router.hello', routerId: 'router-like', pad: 'x'.repeat(1024 * 1024) });
  big.socket.write(encodeJsonFrame(oversize));
  assert.ok((await big.closed) - big.at < 900, 'cut off before helloTimeout');

  const silent = await intruder();
  const silentFor = (await silent.closed) - silent.at;
  assert.ok(silentFor >= 900 && silentFor < 5000, `closed after ${silentFor} ms (helloTimeout: 1s)`);

  // The controller appends its log asynchronously: its lines may land just after the client saw the close.
  const closedLines = () => watch.since(mark).filter((line) => line.msg === 'control connection closed before its hello');
  const lines = await until('both closures in the log', () => closedLines().length >= 2 && closedLines(), 3000).catch(() => closedLines());
  assert.deepEqual(
    lines.map((line) => [line.certificate, line.reason]),
    [
      ['router-like', `first frame refused: peer sent a frame of ${Buffer.byteLength(oversize)} bytes (limit 8192)`],
      ['intruder', 'no hello within 1000 ms (ctrl.options.helloTimeout)'],
    ],
  );
  await writeThroughFollower('after-hello-limits');
});

test('raw TCP that never handshakes is closed after handshakeTimeout; past maxConnectionsPerSource one address is refused at accept', async () => {
  const watch = new LogWatch(ctrl1.logFile);
  const mark = watch.mark();
  const openedAt = Date.now();
  const sockets = Array.from({ length: 10 }, () => createConnection({ host: '127.0.0.1', port: port() }).on('error', () => undefined));
  const closedAfter = sockets.map(async (socket) => (await closedWithin(socket)) - openedAt);
  // While they are open, the cluster's own channel (opened earlier) carries on.
  await writeThroughFollower('during-connection-flood');
  const times = await Promise.all(closedAfter);
  const refused = times.filter((ms) => ms < 700).length;
  const timedOut = times.filter((ms) => ms >= 900 && ms < 5000).length;
  // ctrl2's channel holds one or two of the six places.
  assert.ok(refused >= 4 && refused <= 6 && refused + timedOut === 10, `closed after ${times.join(', ')} ms`);
  const tooMany = await watch.waitFor(mark, (line) => line.msg === 'control connection refused: too many connections from one address');
  assert.equal(tooMany.maxConnectionsPerSource, 6);
  assert.equal(watch.since(mark).filter((line) => line.msg === 'control connection refused: too many connections from one address').length, 1, 'logged once per address and interval');
  await watch.waitFor(mark, (line) => line.msg === 'peer TLS handshake failed' && line.error === 'TLS handshake timeout');
  // Their places are free again: a new connection gets the controller's hello.
  const again = await intruder();
  const hello = await new Promise<string>((resolve) => again.socket.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))));
  assert.match(hello, /"type":"hello","hello":\{"id":"ctrl1"/);
  again.socket.destroy();
  await writeThroughFollower('after-connection-flood');
});

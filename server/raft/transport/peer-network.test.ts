// Controller channels over real TLS on loopback: identity from certificates, raft messages, calls, heartbeats,
// unresponsive peers closed, and the documented texts when a stranger tries to connect.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createMemoryLogger } from '../../../common/log/logger.ts';
import { createClientCertificate } from '../../../common/pki/client-certificate.ts';
import { controllerPaths, initPki, issueControllerCertificate, loadIssuer, pkiPaths } from '../../../common/pki/pki-directory.ts';
import { freePort } from '../../../test/support/free-port.ts';
import type { Message } from '../core/types.ts';
import { encodeFrame, encodeJsonFrame } from '../../../common/framing/frame-codec.ts';
import { listenForPeers, type ListeningPeersOptions } from './listening-peers.ts';

let root: string;
const tlsOf = (dir: string, id: string) => {
  const paths = controllerPaths(dir, id);
  return { certPem: readFileSync(paths.chain, 'utf8'), keyPem: readFileSync(paths.key, 'utf8'), caPem: readFileSync(pkiPaths(dir).bundle, 'utf8') };
};

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'edgeward-peers-'));
  await initPki(join(root, 'pki'), { trustDomain: 'edgeward.test' });
  await initPki(join(root, 'other-pki'), { trustDomain: 'edgeward.test' });
  for (const id of ['p1', 'p2', 'p3']) await issueControllerCertificate(join(root, 'pki'), { id, dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  await issueControllerCertificate(join(root, 'other-pki'), { id: 'stranger', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
});
after(() => rmSync(root, { recursive: true, force: true }));

const quickHeartbeat = { sendIntervalMs: 50, checkIntervalMs: 20, closeUnresponsiveTimeoutMs: 1000 };

async function network(id: string, pki = 'pki', heartbeat = quickHeartbeat, extra: Partial<ListeningPeersOptions> = {}) {
  const port = await freePort();
  const logger = createMemoryLogger();
  const latencies: number[] = [];
  const listening = await listenForPeers({
    self: { id, address: `tls:127.0.0.1:${port}`, version: 'v1.0.0', preferred: id === 'p1' },
    listen: { host: '127.0.0.1', port },
    tls: tlsOf(join(root, pki), id),
    trustDomain: 'edgeward.test',
    heartbeat,
    logger,
    onLatency: (_channel, ms) => latencies.push(ms),
    ...extra,
  });
  return { net: listening.peers, stop: () => listening.shutdown(), logger, latencies, port };
}

const until = async (what: string, probe: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

test('two controllers exchange raft messages and calls, identified by their certificates', async () => {
  const a = await network('p1');
  const b = await network('p2');
  try {
    const received: Message[] = [];
    b.net.listen('p2', (message) => received.push(message));
    b.net.onRequest(async (from, body) => ({ echo: body, from: from.id }));
    a.net.setAddresses({ p2: `tls:127.0.0.1:${b.port}` });
    b.net.setConfiguration({ voters: ['p1', 'p2'], nonVoters: [] });
    const hello = await a.net.probe(`tls:127.0.0.1:${b.port}`);
    assert.deepEqual(hello, { id: 'p2', address: `tls:127.0.0.1:${b.port}`, version: 'v1.0.0', preferred: false });
    a.net.send({ type: 'Heartbeat', from: 'p1', to: 'p2', term: 3, commit: 7 });
    await until('the raft message', () => received.length === 1);
    assert.deepEqual(received[0], { type: 'Heartbeat', from: 'p1', to: 'p2', term: 3, commit: 7 });
    assert.deepEqual(await a.net.request('p2', { ping: 1 }, 2000), { echo: { ping: 1 }, from: 'p1' });
    await until('heartbeat round trips', () => a.latencies.length > 0 && b.latencies.length > 0);
    assert.ok(a.latencies.every((ms) => ms >= 0 && ms < 1000));
    const peer = a.net.peers().find((candidate) => candidate.id === 'p2')!;
    assert.equal(peer.connected, true);
    assert.equal(peer.version, 'v1.0.0');
    assert.ok(a.logger.lines.some((line) => line.msg === 'peer connected' && line.peerId === 'p2'));
  } finally {
    await a.stop();
    await b.stop();
  }
});

test('a peer that goes silent is closed after closeUnresponsiveTimeout and logged as disconnected', async () => {
  const a = await network('p1', 'pki', { sendIntervalMs: 60_000, checkIntervalMs: 20, closeUnresponsiveTimeoutMs: 300 });
  const b = await network('p2', 'pki', { sendIntervalMs: 60_000, checkIntervalMs: 60_000, closeUnresponsiveTimeoutMs: 60_000 });
  try {
    await a.net.probe(`tls:127.0.0.1:${b.port}`);
    await until('the silent channel to close', () => a.logger.lines.some((line) => line.msg === 'peer disconnected'), 3000);
    const line = a.logger.lines.find((candidate) => candidate.msg === 'peer disconnected')!;
    assert.match(String(line.reason), /closeUnresponsiveTimeout/);
  } finally {
    await a.stop();
    await b.stop();
  }
});

test('when a member goes, the others are dialled at once: two followers that never talked can vote without a dial', async () => {
  const leader = await network('p1');
  const a = await network('p2');
  const b = await network('p3');
  try {
    const configuration = {
      voters: ['p1', 'p2', 'p3'],
      nonVoters: [],
      addresses: { p1: `tls:127.0.0.1:${leader.port}`, p2: `tls:127.0.0.1:${a.port}`, p3: `tls:127.0.0.1:${b.port}` },
    };
    for (const each of [leader, a, b]) each.net.setConfiguration(configuration);
    // Followers talk to their leader only.
    a.net.send({ type: 'AppendResp', from: 'p2', to: 'p1', term: 1, index: 1, reject: false, rejectHint: 0, hintTerm: 0 });
    b.net.send({ type: 'AppendResp', from: 'p3', to: 'p1', term: 1, index: 1, reject: false, rejectHint: 0, hintTerm: 0 });
    await until('both followers connected to the leader', () => a.net.isConnected('p1') && b.net.isConnected('p1'));
    assert.equal(a.net.isConnected('p3'), false, 'no channel between the followers yet');
    await leader.stop();
    await until('each follower to reach the other', () => a.net.isConnected('p3') && b.net.isConnected('p2'));
    assert.ok(a.logger.lines.some((line) => line.msg === 'peer disconnected' && line.peerId === 'p1'));
    assert.ok(a.logger.lines.some((line) => line.msg === 'peer connected' && line.peerId === 'p3'));
    assert.equal(a.net.isConnected('p1'), false, 'the member that went is not dialled back in a loop');
  } finally {
    await Promise.all([leader.stop(), a.stop(), b.stop()]);
  }
});

test('a controller from another PKI, or a client without a certificate, is refused with the documented texts', async () => {
  const a = await network('p1');
  const stranger = await network('stranger', 'other-pki');
  try {
    await assert.rejects(stranger.net.probe(`tls:127.0.0.1:${a.port}`, 3000));
    await until('the unknown-authority line', () => a.logger.lines.some((line) => String(line.msg).includes('x509: certificate signed by unknown authority')) || stranger.logger.lines.some((line) => String(line.msg).includes('x509: certificate signed by unknown authority')));

    await new Promise<void>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: a.port, rejectUnauthorized: false });
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
    });
    await until('the no-certs line', () => a.logger.lines.some((line) => String(line.msg).includes('no certs presented matched the CA for this node')));
  } finally {
    await a.stop();
    await stranger.stop();
  }
});

test('with onRouter, a verified certificate that is not a controller\'s is handed over; controllers still pair and no certificate is still refused', async () => {
  const port = await freePort();
  const logger = createMemoryLogger();
  const handed: string[] = [];
  const a = await listenForPeers({
    self: { id: 'p1', address: `tls:127.0.0.1:${port}`, version: 'v1.0.0', preferred: false },
    listen: { host: '127.0.0.1', port },
    tls: tlsOf(join(root, 'pki'), 'p1'),
    trustDomain: 'edgeward.test',
    heartbeat: { sendIntervalMs: 50, checkIntervalMs: 20, closeUnresponsiveTimeoutMs: 1000 },
    logger,
    onRouter: (socket) => {
      handed.push(String(socket.getPeerCertificate().subject?.CN));
      socket.end('taken');
    },
  });
  const b = await network('p2');
  try {
    const router = await createClientCertificate(await loadIssuer(join(root, 'pki')), { commonName: 'router-1' });
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      const socket = connect({ host: '127.0.0.1', port, cert: router.chainPem, key: router.keyPem, ca: tlsOf(join(root, 'pki'), 'p1').caPem, servername: 'localhost' });
      socket.on('data', (chunk) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', () => undefined);
    });
    assert.equal(answer, 'taken');
    assert.deepEqual(handed, ['router-1']);
    assert.equal((await b.net.probe(`tls:127.0.0.1:${port}`)).id, 'p1', 'a controller is still a peer');
    await new Promise<void>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
    });
    await until('the no-certs line', () => logger.lines.some((line) => String(line.msg).includes('no certs presented matched the CA for this node')));
    assert.deepEqual(handed, ['router-1'], 'nothing else was handed over');
  } finally {
    await a.shutdown();
    await b.stop();
  }
});

test('a snapshot many frame limits long arrives whole, in parts, beside other raft messages; a copy sent meanwhile is dropped', async () => {
  const limit = 64 * 1024;
  const a = await network('p1', 'pki', quickHeartbeat, { maxFrameBytes: limit });
  const b = await network('p2', 'pki', quickHeartbeat, { maxFrameBytes: limit });
  try {
    const received: Message[] = [];
    b.net.listen('p2', (message) => received.push(message));
    a.net.setAddresses({ p2: `tls:127.0.0.1:${b.port}` });
    await a.net.probe(`tls:127.0.0.1:${b.port}`);
    const identities = Array.from({ length: 20_000 }, (_, i) => ({ id: `identity-${i}`, name: `name ${i}`, roleAttributes: ['all'], isAdmin: false }));
    const snapshot = {
      type: 'Snapshot', from: 'p1', to: 'p2', term: 4,
      snapshot: { meta: { index: 20_010, term: 3, configuration: { voters: ['p1', 'p2'], learners: [] } }, data: { appliedIndex: 20_010, tables: { identities, routers: [] } } },
    } as unknown as Message;
    assert.ok(JSON.stringify(snapshot).length > 20 * limit);
    a.net.send(snapshot);
    a.net.send(snapshot);
    a.net.send({ type: 'Heartbeat', from: 'p1', to: 'p2', term: 4, commit: 20_010 });
    await until('the snapshot', () => received.some((message) => message.type === 'Snapshot'), 20_000);
    assert.deepEqual(received.map((message) => message.type), ['Heartbeat', 'Snapshot'], 'the heartbeat did not wait for the snapshot');
    assert.deepEqual(received[1], snapshot);
    const sent = a.logger.lines.find((line) => line.msg === 'raft snapshot sent')!;
    assert.equal(sent.peerId, 'p2');
    assert.equal(sent.index, 20_010);
    assert.ok(Number(sent.parts) > 20, `${String(sent.parts)} parts`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(received.filter((message) => message.type === 'Snapshot').length, 1);
    assert.equal(a.logger.lines.filter((line) => line.msg === 'raft snapshot sent').length, 1, 'the copy sent while the first streamed was dropped, not sent');
    a.net.send(snapshot);
    await until('a later snapshot', () => received.filter((message) => message.type === 'Snapshot').length === 2, 20_000);
    assert.equal(a.net.peers().find((peer) => peer.id === 'p2')!.connected, true);
  } finally {
    await a.stop();
    await b.stop();
  }
});

test('a snapshot transfer that does not add up closes the channel it came on', async () => {
  const b = await network('p2');
  const tls = tlsOf(join(root, 'pki'), 'p1');
  const socket = connect({ host: '127.0.0.1', port: b.port, cert: tls.certPem, key: tls.keyPem, ca: tls.caPem, checkServerIdentity: () => undefined });
  try {
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    const message = { type: 'Snapshot', from: 'p1', to: 'p2', term: 1, snapshot: { meta: { index: 5, term: 1, configuration: { voters: ['p1'], learners: [] } }, data: { tables: { identities: [] } } } };
    socket.write(encodeFrame({ type: 'hello', hello: { id: 'p1', address: 'tls:127.0.0.1:1', version: 'v1.0.0', preferred: false } }));
    socket.write(encodeFrame({ type: 'snapBegin', tid: 't1', message }));
    socket.write(encodeFrame({ type: 'snapPart', tid: 't1', path: ['tables', 'routers'], items: [{ id: 'r' }] }));
    await until('the channel to close', () => b.logger.lines.some((line) => line.msg === 'peer disconnected'));
    const line = b.logger.lines.find((candidate) => candidate.msg === 'peer disconnected')!;
    assert.match(String(line.reason), /bad snapshot transfer: snapshot part for \["tables","routers"\], which is not an array in the snapshot/);
  } finally {
    socket.destroy();
    await b.stop();
  }
});

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

/** A TLS connection to `port` with controller `id`'s certificate, once its handshake is done. */
async function rawPeer(id: string, port: number) {
  const tls = tlsOf(join(root, 'pki'), id);
  const socket = connect({ host: '127.0.0.1', port, cert: tls.certPem, key: tls.keyPem, ca: tls.caPem, checkServerIdentity: () => undefined });
  socket.on('error', () => undefined);
  // Read (and drop) what the controller sends, or the end of the stream, and so 'close', is never seen.
  socket.resume();
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  const closed = closedWithin(socket);
  return { socket, closed };
}

const refusalsOf = (logger: { lines: Array<Record<string, unknown>> }, msg: string) => logger.lines.filter((line) => line.msg === msg);

test('membership authorizes: a non-member\'s raft messages and requests are refused and logged once, open requests pass, a new node takes raft from anyone', async () => {
  const a = await network('p1');
  const b = await network('p2', 'pki', quickHeartbeat, { openToNonMembers: (body) => (body as { type?: string }).type === 'state' });
  try {
    const received: Message[] = [];
    b.net.listen('p2', (message) => received.push(message));
    b.net.onRequest(async (_from, body) => ({ answered: body }));
    a.net.setAddresses({ p2: `tls:127.0.0.1:${b.port}` });
    await a.net.probe(`tls:127.0.0.1:${b.port}`);

    // Without a configuration of its own (a new node) p2 takes raft messages from any controller, and no requests
    // but the open ones.
    a.net.send({ type: 'Heartbeat', from: 'p1', to: 'p2', term: 1, commit: 0 });
    await until('the raft message to a new node', () => received.length === 1);
    await assert.rejects(a.net.request('p2', { type: 'transfer' }, 2000), /p2 refused the request: p1 is not a member of its cluster/);

    b.net.setConfiguration({ voters: ['p2', 'p3'], nonVoters: [] });
    a.net.send({ type: 'RequestVote', from: 'p1', to: 'p2', term: 99, lastIndex: 0, lastTerm: 0 } as unknown as Message);
    a.net.send({ type: 'Heartbeat', from: 'p1', to: 'p2', term: 99, commit: 0 });
    await assert.rejects(a.net.request('p2', { type: 'configChange' }, 2000), /p2 refused the request: p1 is not a member of its cluster/);
    assert.deepEqual(await a.net.request('p2', { type: 'state' }, 2000), { answered: { type: 'state' } }, 'an open request is answered');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(received.length, 1, 'no raft message from a non-member reached raft');
    const refusals = refusalsOf(b.logger, 'peer refused: not a member of this cluster');
    assert.equal(refusals.length, 1, 'one line for the whole burst, not one per message');
    assert.equal(refusals[0]!.peerId, 'p1');
    assert.match(String(refusals[0]!.refused), /^(request transfer|raft RequestVote)$/);

    // A member's channel may carry only its own raft messages.
    b.net.setConfiguration({ voters: ['p1', 'p2', 'p3'], nonVoters: [] });
    a.net.send({ type: 'Heartbeat', from: 'p3', to: 'p2', term: 99, commit: 0 });
    a.net.send({ type: 'Heartbeat', from: 'p1', to: 'p2', term: 99, commit: 0 });
    await until('the member\'s own message', () => received.length === 2);
    assert.equal(received[1]!.from, 'p1');
    const spoofed = refusalsOf(b.logger, 'peer refused: its raft message names another sender');
    assert.deepEqual(spoofed.map((line) => [line.peerId, line.claimed]), [['p1', 'p3']]);
    assert.deepEqual(await a.net.request('p2', { type: 'configChange' }, 2000), { answered: { type: 'configChange' } }, 'a member\'s request is served');
  } finally {
    await a.stop();
    await b.stop();
  }
});

test('a frame past the depth or the keys-and-items limit closes the channel with a logged reason; the network carries on', async () => {
  const b = await network('p2');
  try {
    b.net.setConfiguration({ voters: ['p1', 'p2'], nonVoters: [] });
    const hello = encodeFrame({ type: 'hello', hello: { id: 'p1', address: 'tls:127.0.0.1:1', version: 'v1.0.0', preferred: false } });
    const deep = await rawPeer('p1', b.port);
    deep.socket.write(hello);
    deep.socket.write(encodeJsonFrame(`{"type":"raft","message":{"from":"p1","x":${'['.repeat(200)}${']'.repeat(200)}}}`));
    assert.ok(Number.isFinite(await deep.closed), 'the channel was closed');
    const wide = await rawPeer('p1', b.port);
    wide.socket.write(hello);
    wide.socket.write(encodeJsonFrame(`{"type":"req","rid":"r","body":[${'0,'.repeat(8 * 1024 * 1024)}0]}`));
    assert.ok(Number.isFinite(await wide.closed), 'the channel was closed');
    const reasons = refusalsOf(b.logger, 'peer channel closed: it sent a frame over the limits or not JSON').map((line) => String(line.reason));
    assert.equal(reasons.length, 2);
    assert.match(reasons[0]!, /^bad frame: peer sent a frame that nests deeper than 128 levels of objects and arrays \(at message\.x\.0\.0/);
    assert.match(reasons[1]!, /^bad frame: peer sent a frame that has more than 8388608 keys and items in all \(at body\.\d+\)$/);
    const a = await network('p1');
    try {
      assert.equal((await a.net.probe(`tls:127.0.0.1:${b.port}`)).id, 'p2', 'the controller still takes channels');
    } finally {
      await a.stop();
    }
  } finally {
    await b.stop();
  }
});

test('before its hello a connection must finish its handshake, send a small first frame in time, and share its address\'s connection limit', async () => {
  const controlPort = { handshakeTimeoutMs: 400, helloTimeoutMs: 400, maxHelloBytes: 1024, maxConnectionsPerSource: 3 };
  const b = await network('p2', 'pki', quickHeartbeat, { controlPort });
  try {
    const big = await rawPeer('p1', b.port);
    const sentAt = Date.now();
    big.socket.write(encodeJsonFrame(JSON.stringify({ type: 'hello', hello: { id: 'p1', address: 'x'.repeat(1024 * 1024), version: 'v', preferred: false } })));
    assert.ok((await big.closed) - sentAt < 300, 'a first frame over maxHelloBytes is cut off at once');
    const silent = await rawPeer('p1', b.port);
    const connectedAt = Date.now();
    assert.ok((await silent.closed) - connectedAt >= 350, 'a silent connection has helloTimeout to speak');
    const cutOffs = refusalsOf(b.logger, 'control connection closed before its hello');
    assert.equal(cutOffs.length, 1, 'one line per address and interval');
    assert.match(String(cutOffs[0]!.reason), /^first frame refused: peer sent a frame of \d+ bytes \(limit 1024\)$/);
    assert.equal(b.net.peers().length, 0, 'neither became a peer');

    // Raw TCP that never starts a handshake: the first three are held until handshakeTimeout, the rest refused.
    const sockets = Array.from({ length: 5 }, () => createConnection({ host: '127.0.0.1', port: b.port }));
    for (const socket of sockets) socket.on('error', () => undefined);
    const closedAt = await Promise.all(sockets.map((socket) => closedWithin(socket)));
    const openedAt = Math.min(...closedAt) - 100;
    const late = closedAt.filter((at) => at - openedAt >= 300).length;
    assert.equal(late, 3, `three held until the handshake timeout (${closedAt.map((at) => at - openedAt).join(', ')} ms)`);
    await until('the handshake timeout line', () => b.logger.lines.some((line) => line.msg === 'peer TLS handshake failed' && line.error === 'TLS handshake timeout'));
    assert.equal(refusalsOf(b.logger, 'control connection refused: too many connections from one address')[0]?.maxConnectionsPerSource, 3);
    const a = await network('p1');
    try {
      assert.equal((await a.net.probe(`tls:127.0.0.1:${b.port}`)).id, 'p2', 'once they are gone, a controller connects again');
    } finally {
      await a.stop();
    }
  } finally {
    await b.stop();
  }
});

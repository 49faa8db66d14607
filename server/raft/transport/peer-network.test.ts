// Controller channels over real TLS on loopback: identity from certificates, raft messages, calls, heartbeats,
// unresponsive peers closed, and the documented texts when a stranger tries to connect.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createMemoryLogger } from '../../../common/log/logger.ts';
import { createClientCertificate } from '../../pki/client-certificate.ts';
import { controllerPaths, initPki, issueControllerCertificate, loadIssuer, pkiPaths } from '../../pki/pki-directory.ts';
import { freePort } from '../../../test/support/free-port.ts';
import type { Message } from '../core/types.ts';
import { PeerNetwork } from './peer-network.ts';

let root: string;
const tlsOf = (dir: string, id: string) => {
  const paths = controllerPaths(dir, id);
  return { certPem: readFileSync(paths.chain, 'utf8'), keyPem: readFileSync(paths.key, 'utf8'), caPem: readFileSync(pkiPaths(dir).bundle, 'utf8') };
};

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'edgeward-peers-'));
  await initPki(join(root, 'pki'), { trustDomain: 'edgeward.test' });
  await initPki(join(root, 'other-pki'), { trustDomain: 'edgeward.test' });
  for (const id of ['p1', 'p2']) await issueControllerCertificate(join(root, 'pki'), { id, dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  await issueControllerCertificate(join(root, 'other-pki'), { id: 'stranger', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
});
after(() => rmSync(root, { recursive: true, force: true }));

async function network(id: string, pki = 'pki', heartbeat = { sendIntervalMs: 50, checkIntervalMs: 20, closeUnresponsiveTimeoutMs: 1000 }) {
  const port = await freePort();
  const logger = createMemoryLogger();
  const latencies: number[] = [];
  const net = new PeerNetwork({
    self: { id, address: `tls:127.0.0.1:${port}`, version: 'v1.0.0', preferred: id === 'p1' },
    listen: { host: '127.0.0.1', port },
    tls: tlsOf(join(root, pki), id),
    trustDomain: 'edgeward.test',
    heartbeat,
    logger,
    onLatency: (_channel, ms) => latencies.push(ms),
  });
  await net.start();
  return { net, logger, latencies, port };
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
    await a.net.shutdown();
    await b.net.shutdown();
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
    await a.net.shutdown();
    await b.net.shutdown();
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
    await a.net.shutdown();
    await stranger.net.shutdown();
  }
});

test('with acceptOther, a verified certificate that is not a controller\'s is handed over; controllers still pair and no certificate is still refused', async () => {
  const port = await freePort();
  const logger = createMemoryLogger();
  const handed: string[] = [];
  const a = new PeerNetwork({
    self: { id: 'p1', address: `tls:127.0.0.1:${port}`, version: 'v1.0.0', preferred: false },
    listen: { host: '127.0.0.1', port },
    tls: tlsOf(join(root, 'pki'), 'p1'),
    trustDomain: 'edgeward.test',
    heartbeat: { sendIntervalMs: 50, checkIntervalMs: 20, closeUnresponsiveTimeoutMs: 1000 },
    logger,
    acceptOther: (socket) => {
      handed.push(String(socket.getPeerCertificate().subject?.CN));
      socket.end('taken');
    },
  });
  await a.start();
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
    await b.net.shutdown();
  }
});

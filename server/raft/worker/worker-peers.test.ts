// The peer channels' mirror on the controller's thread, against a scripted raft thread on the other end of a
// MessageChannel: requests and probes answered or failed, a peer's request answered by the handler (or its error),
// the peer list and certificates mirrored, events heard after the list they describe, and a router's connection
// relayed both ways as a stream until either side closes it.
import assert from 'node:assert/strict';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { after, test } from 'node:test';
import type { ProxiedSocket } from './proxied-socket.ts';
import { WorkerPeers } from './worker-peers.ts';
import type { FromPeerThread, ToPeerThread } from './worker-protocol.ts';

const self = { id: 'ctrl1', address: 'tls:127.0.0.1:1', version: 'v1', preferred: false };
const ports: MessagePort[] = [];
after(() => ports.forEach((port) => port.close()));

function pair(acceptSocket?: (socket: ProxiedSocket) => void) {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  const peers = new WorkerPeers(self, port1, acceptSocket);
  const toMain = (message: FromPeerThread) => port2.postMessage(message);
  const fromMain: ToPeerThread[] = [];
  const waiters: Array<() => void> = [];
  port2.on('message', (message: ToPeerThread) => {
    fromMain.push(message);
    waiters.splice(0).forEach((wake) => wake());
  });
  const next = async (type: ToPeerThread['type']): Promise<ToPeerThread> => {
    for (;;) {
      const index = fromMain.findIndex((message) => message.type === type);
      if (index >= 0) return fromMain.splice(index, 1)[0]!;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { peers, toMain, next };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

test('requests and probes go over and resolve or reject with the raft thread\'s answer', async () => {
  const { peers, toMain, next } = pair();
  const asked = peers.request('ctrl2', { type: 'state' }, 500);
  const request = (await next('request')) as Extract<ToPeerThread, { type: 'request' }>;
  assert.deepEqual([request.peer, request.body, request.timeoutMs], ['ctrl2', { type: 'state' }, 500]);
  toMain({ type: 'answer', call: request.call, ok: true, value: { initialized: true } });
  assert.deepEqual(await asked, { initialized: true });
  const probed = peers.probe('tls:127.0.0.1:2');
  const probe = (await next('probe')) as Extract<ToPeerThread, { type: 'probe' }>;
  toMain({ type: 'answer', call: probe.call, ok: false, error: 'could not reach a controller at tls:127.0.0.1:2' });
  await assert.rejects(probed, /could not reach a controller/);
});

test('a peer\'s request is answered by the handler here, and its error goes back as the message', async () => {
  const { peers, toMain, next } = pair();
  peers.onRequest(async (from, body) => {
    if ((body as { type: string }).type === 'bad') throw new Error('unknown cluster request');
    return { from: from.id };
  });
  toMain({ type: 'peerRequest', rid: 7, from: { ...self, id: 'ctrl3' }, body: { type: 'state' } });
  assert.deepEqual(await next('requestAnswer'), { type: 'requestAnswer', rid: 7, ok: true, value: { from: 'ctrl3' } });
  toMain({ type: 'peerRequest', rid: 8, from: { ...self, id: 'ctrl3' }, body: { type: 'bad' } });
  assert.deepEqual(await next('requestAnswer'), { type: 'requestAnswer', rid: 8, ok: false, error: 'unknown cluster request' });
});

test('the peer list and certificates are mirrored; an event is heard with the list it came with', async () => {
  const { peers, toMain } = pair();
  const seen: Array<[string, boolean]> = [];
  peers.onPeerEvent((event, peer) => seen.push([event, peers.isConnected(peer.id)]));
  const ctrl2 = { id: 'ctrl2', address: 'tls:127.0.0.1:2', version: 'v1', preferred: true };
  toMain({ type: 'peers', peers: [{ ...ctrl2, connected: true, latencyMs: 1.5 }], certificates: ['PEM2'] });
  toMain({ type: 'peerEvent', event: 'connected', peer: ctrl2 });
  toMain({ type: 'peers', peers: [{ ...ctrl2, connected: false }] });
  toMain({ type: 'peerEvent', event: 'disconnected', peer: ctrl2 });
  await settle();
  assert.deepEqual(seen, [
    ['connected', true],
    ['disconnected', false],
  ]);
  assert.deepEqual(peers.peers(), [{ ...ctrl2, connected: false }]);
  assert.deepEqual(peers.presentedCertificates(), ['PEM2'], 'kept when a list comes without them');
});

test('a router\'s connection is a stream here: bytes both ways, the certificate and address it came with, closed from either side', async () => {
  const accepted: ProxiedSocket[] = [];
  const { toMain, next } = pair((socket) => accepted.push(socket));
  toMain({ type: 'socketOpen', sid: 4, remoteAddress: '127.0.0.9', remotePort: 4444, commonName: 'router-a', raw: new Uint8Array([1, 2, 3]) });
  await settle();
  const socket = accepted[0]!;
  assert.equal(socket.remoteAddress, '127.0.0.9');
  assert.equal(socket.remotePort, 4444);
  const certificate = socket.getPeerCertificate();
  assert.equal(certificate.subject?.CN, 'router-a');
  assert.deepEqual([...certificate.raw!], [1, 2, 3]);
  const received: string[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk.toString()));
  toMain({ type: 'socketData', sid: 4, chunk: Buffer.from('hello') });
  await settle();
  assert.deepEqual(received, ['hello']);
  socket.write(Buffer.from('welcome'));
  const written = (await next('socketWrite')) as Extract<ToPeerThread, { type: 'socketWrite' }>;
  assert.equal(Buffer.from(written.chunk).toString(), 'welcome');
  const closed = new Promise((resolve) => socket.once('close', resolve));
  toMain({ type: 'socketClosed', sid: 4 });
  await closed;
  assert.equal(socket.destroyed, true);

  toMain({ type: 'socketOpen', sid: 5 });
  await settle();
  accepted[1]!.destroy();
  assert.deepEqual(await next('socketDestroy'), { type: 'socketDestroy', sid: 5 });
});

test('without a taker a router\'s connection is closed at once; closing the mirror refuses what is still asked', async () => {
  const { peers, toMain, next } = pair();
  toMain({ type: 'socketOpen', sid: 9 });
  assert.deepEqual(await next('socketDestroy'), { type: 'socketDestroy', sid: 9 });
  const asked = peers.request('ctrl2', {}, 1000);
  await next('request');
  peers.close();
  await assert.rejects(asked, /closed/);
  await assert.rejects(peers.request('ctrl2', {}, 1000), /closed/);
});

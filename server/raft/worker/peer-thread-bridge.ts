// The raft thread's side of the peer channels' port (WorkerPeers is the other): the controller's thread's requests
// and probes run on the PeerNetwork here and are answered; a peer's request goes over to be answered there; the
// peer list (and certificates, when they changed) goes over on every status interval and before every peer event;
// routers' control connections are relayed as streams of bytes.
import type { TLSSocket } from 'node:tls';
import type { PeerNetwork } from '../transport/peer-network.ts';
import type { FromPeerThread, Port, ToPeerThread } from './worker-protocol.ts';

export interface PeerThreadBridge {
  /** For PeerNetworkOptions.acceptOther: a router's control connection, relayed to the controller's thread. */
  relaySocket(socket: TLSSocket): void;
  /** For PeerNetworkOptions.onLatency and onQueueTime. */
  timing(kind: 'latency' | 'queue'): (channelId: string, ms: number) => void;
  /** Serves the controller's thread from `peers`: its requests, its answers to peers, the list and the events. */
  attach(peers: PeerNetwork): void;
  /** The channels as they are now (the raft host sends it every status interval). */
  sendPeerList(): void;
  /** Ends the relayed router connections (after the channels shut down). */
  destroySockets(): void;
}

export function createPeerThreadBridge(port: Port<FromPeerThread, ToPeerThread>): PeerThreadBridge {
  const send = (message: FromPeerThread) => port.postMessage(message);
  const peerRequests = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const sockets = new Map<number, TLSSocket>();
  let nextId = 1;
  let attached: PeerNetwork | undefined;
  let lastCertificates = '';

  const answer = (call: number, work: Promise<unknown>): void => {
    work.then(
      (value) => send({ type: 'answer', call, ok: true, value }),
      (error: Error) => send({ type: 'answer', call, ok: false, error: error.message }),
    );
  };

  const sendPeerList = (): void => {
    if (!attached) return;
    const certificates = attached.presentedCertificates();
    const joined = certificates.join('\n');
    const changed = joined !== lastCertificates;
    lastCertificates = joined;
    send({ type: 'peers', peers: attached.peers(), ...(changed ? { certificates } : {}) });
  };

  return {
    relaySocket(socket) {
      const sid = nextId++;
      sockets.set(sid, socket);
      const presented = socket.getPeerCertificate(false);
      const commonName = presented?.subject?.CN;
      send({
        type: 'socketOpen',
        sid,
        ...(socket.remoteAddress ? { remoteAddress: socket.remoteAddress } : {}),
        ...(socket.remotePort ? { remotePort: socket.remotePort } : {}),
        ...(commonName ? { commonName: Array.isArray(commonName) ? commonName[0]! : commonName } : {}),
        ...(presented?.raw ? { raw: new Uint8Array(presented.raw) } : {}),
      });
      let failure: string | undefined;
      socket.on('data', (chunk: Buffer) => send({ type: 'socketData', sid, chunk }));
      socket.on('error', (error) => (failure = error.message));
      socket.on('close', () => {
        sockets.delete(sid);
        send({ type: 'socketClosed', sid, ...(failure ? { error: failure } : {}) });
      });
    },

    timing: (kind) => (channelId, ms) => send({ type: 'timing', kind, channelId, ms }),

    attach(peers) {
      attached = peers;
      // A peer's request (a forwarded write, a join, a router hub's message) is the controller's to answer.
      peers.onRequest(
        (from, body) =>
          new Promise((resolve, reject) => {
            const rid = nextId++;
            peerRequests.set(rid, { resolve, reject });
            send({ type: 'peerRequest', rid, from, body });
          }),
      );
      // The list first: what hears the event looks at the peers as they are now.
      peers.onPeerEvent((event, peer) => {
        sendPeerList();
        send({ type: 'peerEvent', event, peer });
      });
      port.on('message', (message: ToPeerThread) => {
        switch (message.type) {
          case 'request':
            answer(message.call, peers.request(message.peer, message.body, message.timeoutMs));
            return;
          case 'probe':
            answer(message.call, peers.probe(message.address, message.timeoutMs));
            return;
          case 'requestAnswer': {
            const pending = peerRequests.get(message.rid);
            peerRequests.delete(message.rid);
            if (message.ok) pending?.resolve(message.value);
            else pending?.reject(new Error(message.error ?? 'failed'));
            return;
          }
          case 'socketWrite':
            sockets.get(message.sid)?.write(message.chunk);
            return;
          case 'socketEnd':
            sockets.get(message.sid)?.end();
            return;
          case 'socketDestroy':
            sockets.get(message.sid)?.destroy();
            sockets.delete(message.sid);
            return;
        }
      });
    },

    sendPeerList,

    destroySockets() {
      for (const socket of sockets.values()) socket.destroy();
    },
  };
}

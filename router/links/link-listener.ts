// One link listener (`link.listeners[]`, binding `transport`): a TLS server on `bind` presenting the router's
// server certificate and requiring a client certificate that chains to `ca`. The dialer's first frame on each
// connection must be `link.hello`; the remote router is the common name of its client certificate, which must equal
// the hello's routerId (else the connection is closed and logged), and which must be that router's certificate
// (peer-router-certificate.ts: its router SPIFFE id, or the fingerprint the controller reported; never a
// controller's), else it is refused and logged too. A `single` connection (or a hello without
// connType) is a link at once; the `payload` and `ack` halves of a split link are paired by link id
// (split-link-pairing.ts) and the first one waits at most the handshake timeout for the other. The listener answers
// `link.welcome {routerId}` on every connection of the link once it is complete and hands the link over as accepted.

import type { Socket } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { HostPort } from '../../common/config/address.ts';
import type { Logger } from '../../common/log/logger.ts';
import { FramedSocket, frameType } from './framed-socket.ts';
import { parseLinkHello, type ParsedHello } from './link-hello.ts';
import { closeLinkSockets, connectionsOf, type LinkSockets } from './link-sockets.ts';
import { peerRouterCertificateProblem } from './peer-router-certificate.ts';
import { SplitLinkPairing, type LinkHalf } from './split-link-pairing.ts';
import { linkCiphers } from './link-tls-ciphers.ts';

export interface AcceptedHello {
  readonly routerId: string;
  readonly linkId: string;
}

export interface LinkListenerOptions {
  readonly selfId: string;
  readonly bind: HostPort;
  readonly serverCertPem: string;
  readonly serverKeyPem: string;
  readonly caPem: string;
  /** The trust domains of `caPem` (identity.ca); empty when it declares none. */
  readonly trustDomains: readonly string[];
  /** The fingerprint of a router's client certificate as the controller reported it, if it did. */
  readonly clientFingerprintOf: (routerId: string) => string | undefined;
  /** ms for the dialer's hello after TLS, and for the second half of a split link after the first. */
  readonly handshakeTimeoutMs: number;
  readonly logger: Logger;
  /** Decides on a hello whose certificate matched: return a reason to refuse it, or undefined to accept. */
  readonly admit: (hello: AcceptedHello) => string | undefined;
  /** An accepted link, after the welcome was sent on each of its connections. */
  readonly onLink: (sockets: LinkSockets, hello: AcceptedHello) => void;
}

export class LinkListenerServer {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly pairing = new SplitLinkPairing<FramedSocket>();
  /** The partner deadline of each waiting half. */
  private readonly partnerTimers = new Map<FramedSocket, NodeJS.Timeout>();
  private bound: HostPort | undefined;

  constructor(private readonly options: LinkListenerOptions) {}

  async start(): Promise<void> {
    const { options } = this;
    const server = createServer(
      {
        cert: options.serverCertPem,
        key: options.serverKeyPem,
        ca: options.caPem,
        requestCert: true,
        rejectUnauthorized: true,
        minVersion: 'TLSv1.2',
        // The link's own preference (link-tls-ciphers.ts), whatever order the dialer lists.
        ciphers: linkCiphers,
        honorCipherOrder: true,
      },
      (socket) => void this.accept(socket),
    );
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('tlsClientError', (error: Error & { code?: string }, socket: TLSSocket) => {
      options.logger.warn('link TLS handshake failed', { remote: socket.remoteAddress, code: error.code, error: error.message });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.bind.port, options.bind.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (error) => options.logger.error('link listener error', { error }));
    const address = server.address();
    this.bound = typeof address === 'object' && address !== null ? { host: options.bind.host, port: address.port } : options.bind;
    this.server = server;
  }

  /** The address actually bound (the port a bind to port 0 got). */
  get address(): HostPort | undefined {
    return this.bound;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const timer of this.partnerTimers.values()) clearTimeout(timer);
    this.partnerTimers.clear();
    for (const half of this.pairing.drain()) half.connection.close('listener stopping');
    for (const socket of this.sockets) socket.destroy();
    if (server === undefined) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async accept(socket: TLSSocket): Promise<void> {
    const { options } = this;
    const remote = socket.remoteAddress;
    const certificateRouterId = commonNameOf(socket);
    const framed = new FramedSocket(socket);
    let frame: unknown;
    try {
      frame = await framed.next(options.handshakeTimeoutMs);
    } catch (error) {
      options.logger.warn('link refused: no link.hello', { remote, certificateRouterId, error: (error as Error).message });
      framed.close('no hello');
      return;
    }
    const hello = parseLinkHello(frame);
    if (hello === undefined) {
      options.logger.warn('link refused: the first frame is not a valid link.hello', { remote, certificateRouterId, type: frameType(frame) });
      framed.close('bad hello');
      return;
    }
    if (certificateRouterId === undefined || certificateRouterId !== hello.routerId) {
      options.logger.warn('link refused: the client certificate names another router than the hello', {
        remote,
        certificateRouterId: certificateRouterId ?? null,
        helloRouterId: hello.routerId,
        linkId: hello.linkId,
        connType: hello.connType,
      });
      framed.close('certificate does not match hello');
      return;
    }
    const problem = peerRouterCertificateProblem(socket.getPeerX509Certificate(), {
      routerId: hello.routerId,
      fingerprint: options.clientFingerprintOf(hello.routerId),
      trustDomains: options.trustDomains,
      role: 'client',
    });
    if (problem !== undefined) {
      options.logger.warn("link refused: the client certificate is not that router's", { remote, routerId: hello.routerId, linkId: hello.linkId, connType: hello.connType, reason: problem });
      framed.close('certificate is not the router\'s');
      return;
    }
    const refusal = this.refusalOf(hello);
    if (refusal !== undefined) {
      // The refusal quotes the hello's link id: a field, never the msg.
      options.logger.warn('link refused', { remote, routerId: hello.routerId, linkId: hello.linkId, connType: hello.connType, reason: refusal });
      framed.close(refusal);
      return;
    }
    if (hello.connType === 'single') this.welcome({ shape: 'single', single: framed }, hello);
    else this.pair({ routerId: hello.routerId, linkId: hello.linkId, connType: hello.connType, connection: framed }, remote);
  }

  /** Why a hello is refused (the manager's say, or a link id taken by a waiting half), or undefined. */
  private refusalOf(hello: ParsedHello): string | undefined {
    const refusal = this.options.admit({ routerId: hello.routerId, linkId: hello.linkId });
    if (refusal !== undefined) return refusal;
    // A single connection must not reuse the id of a split link being assembled (the pairing refuses a second half).
    if (hello.connType === 'single' && this.pairing.has(hello.linkId)) return `duplicate link id ${hello.linkId}`;
    return undefined;
  }

  private pair(half: LinkHalf<FramedSocket>, remote: string | undefined): void {
    const { options } = this;
    const framed = half.connection;
    const outcome = this.pairing.offer(half);
    if (outcome.kind === 'refused') {
      options.logger.warn('link refused', { remote, routerId: half.routerId, linkId: half.linkId, connType: half.connType, reason: outcome.reason });
      framed.close(outcome.reason);
      return;
    }
    if (outcome.kind === 'waiting') {
      const timer = setTimeout(() => {
        this.partnerTimers.delete(framed);
        if (!this.pairing.withdraw(half)) return;
        options.logger.warn('link refused: the other connection of a split link did not arrive', {
          remote,
          routerId: half.routerId,
          linkId: half.linkId,
          connType: half.connType,
          waitedMs: options.handshakeTimeoutMs,
        });
        framed.close('the other connection of the split link did not arrive');
      }, options.handshakeTimeoutMs);
      this.partnerTimers.set(framed, timer);
      framed.onClose((reason) => {
        clearTimeout(timer);
        this.partnerTimers.delete(framed);
        if (this.pairing.withdraw(half)) {
          options.logger.info('split link connection closed while waiting for its partner', { remote, routerId: half.routerId, linkId: half.linkId, connType: half.connType, reason });
        }
      });
      return;
    }
    for (const waited of [outcome.payload, outcome.ack]) {
      clearTimeout(this.partnerTimers.get(waited.connection));
      this.partnerTimers.delete(waited.connection);
    }
    const sockets: LinkSockets = { shape: 'split', payload: outcome.payload.connection, ack: outcome.ack.connection };
    // The manager's answer may have changed while the first half waited (a link with this id came up, or stopping).
    const refusal = options.admit({ routerId: half.routerId, linkId: half.linkId });
    if (refusal !== undefined) {
      options.logger.warn('link refused', { remote, routerId: half.routerId, linkId: half.linkId, connType: 'split', reason: refusal });
      closeLinkSockets(sockets, refusal);
      return;
    }
    this.welcome(sockets, half);
  }

  private welcome(sockets: LinkSockets, hello: AcceptedHello): void {
    for (const { framed } of connectionsOf(sockets)) framed.send({ type: 'link.welcome', routerId: this.options.selfId });
    this.options.onLink(sockets, { routerId: hello.routerId, linkId: hello.linkId });
  }
}

/** The single common name of the peer's certificate (a router's id), undefined when absent or ambiguous. */
function commonNameOf(socket: TLSSocket): string | undefined {
  const subject = socket.getPeerCertificate()?.subject as { CN?: string | string[] } | undefined;
  const cn = subject?.CN;
  return typeof cn === 'string' && cn !== '' ? cn : undefined;
}

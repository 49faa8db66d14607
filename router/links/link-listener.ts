// One link listener (`link.listeners[]`, binding `transport`): a TLS server on `bind` presenting the router's
// server certificate and requiring a client certificate that chains to `ca`. The dialer's first frame must be
// `link.hello`; the remote router is the common name of its client certificate, which must equal the hello's
// routerId (else the connection is closed and logged). The listener answers `link.welcome {routerId}` and hands
// the connection over as an accepted link.

import type { Socket } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { HostPort } from '../../common/config/address.ts';
import type { Logger } from '../../common/log/logger.ts';
import { FramedSocket, frameType } from './framed-socket.ts';

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
  /** ms for the dialer's hello after TLS. */
  readonly handshakeTimeoutMs: number;
  readonly logger: Logger;
  /** Decides on a hello whose certificate matched: return a reason to refuse it, or undefined to accept. */
  readonly admit: (hello: AcceptedHello) => string | undefined;
  /** An accepted link, after the welcome was sent. */
  readonly onLink: (framed: FramedSocket, hello: AcceptedHello) => void;
}

const maxIdLength = 512;

export class LinkListenerServer {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
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
    const hello = frame as { routerId?: unknown; linkId?: unknown };
    if (frameType(frame) !== 'link.hello' || !isId(hello.routerId) || !isId(hello.linkId)) {
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
      });
      framed.close('certificate does not match hello');
      return;
    }
    const accepted = { routerId: hello.routerId, linkId: hello.linkId };
    const refusal = options.admit(accepted);
    if (refusal !== undefined) {
      options.logger.warn(`link refused: ${refusal}`, { remote, routerId: accepted.routerId, linkId: accepted.linkId });
      framed.close(refusal);
      return;
    }
    framed.send({ type: 'link.welcome', routerId: options.selfId });
    options.onLink(framed, accepted);
  }
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= maxIdLength;
}

/** The single common name of the peer's certificate (a router's id), undefined when absent or ambiguous. */
function commonNameOf(socket: TLSSocket): string | undefined {
  const subject = socket.getPeerCertificate()?.subject as { CN?: string | string[] } | undefined;
  const cn = subject?.CN;
  return typeof cn === 'string' && cn !== '' ? cn : undefined;
}

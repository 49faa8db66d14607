// Dials one link: for `split: false` one `single` connection, for `split: true` a `payload` and an `ack` connection
// at once, with the same link id; the link is up when every connection is. Each connection: mutual TLS to a remote
// router's link listener (this router's client certificate; the server's certificate must chain to `ca` and name
// the dialed host, as with Go's TLS and OpenZiti's advertise rule), then `link.hello {routerId, linkId, connType}`
// and the answer `link.welcome {routerId}`, which must name the router we meant to dial. Before the hello, the
// listener's certificate must be that router's (peer-router-certificate.ts), or the connection is refused and no
// hello is sent. Everything within one
// timeout; cancel() ends it early. When one connection of a split link fails, the other is closed and the dial
// fails once, with the first error.

import { isIP } from 'node:net';
import { connect } from 'node:tls';
import type { HostPort } from '../../common/config/address.ts';
import { FramedSocket, frameType } from './framed-socket.ts';
import { connTypesFor, linkHello, type LinkConnType } from './link-hello.ts';
import { linkSocketsOf, type LinkSockets } from './link-sockets.ts';
import { peerRouterCertificateProblem } from './peer-router-certificate.ts';
import { linkCiphers } from './link-tls-ciphers.ts';

export interface DialLinkOptions {
  readonly selfId: string;
  readonly expectedRouterId: string;
  readonly linkId: string;
  readonly address: HostPort;
  /** Local address to dial from (the dialer's resolved `bind`). */
  readonly localAddress?: string;
  readonly certPem: string;
  readonly keyPem: string;
  readonly caPem: string;
  /** The trust domains of `caPem` (identity.ca); empty when it declares none. */
  readonly trustDomains: readonly string[];
  /** The expected router's server certificate fingerprint, when the controller reported it. */
  readonly serverFingerprint?: string;
  /** Connect, TLS handshake and welcome together. */
  readonly timeoutMs: number;
  /** The dialer's `split`: a payload and an ack connection, or one single connection. */
  readonly split: boolean;
}

export interface PendingDial {
  readonly result: Promise<LinkSockets>;
  cancel(): void;
}

interface PendingConnection {
  readonly result: Promise<FramedSocket>;
  cancel(): void;
}

export class LinkDialError extends Error {
  constructor(
    message: string,
    readonly code: 'CONNECT' | 'TIMEOUT' | 'REFUSED' | 'CANCELLED',
  ) {
    super(message);
    this.name = 'LinkDialError';
  }
}

export function dialLink(options: DialLinkOptions): PendingDial {
  const connTypes = connTypesFor(options.split);
  const dials = connTypes.map((connType) => ({ connType, pending: dialConnection(options, connType) }));
  // Errors of a split link's connections say which one failed; a single connection's keep their old text.
  const named = (connType: LinkConnType, error: LinkDialError) =>
    connTypes.length === 1 || error.code === 'CANCELLED' ? error : new LinkDialError(`${connType} connection: ${error.message}`, error.code);
  let fail: (error: LinkDialError) => void = () => undefined;
  const result = new Promise<LinkSockets>((resolve, reject) => {
    const up = new Map<LinkConnType, FramedSocket>();
    let done = false;
    fail = (error) => {
      if (done) return;
      done = true;
      for (const { pending } of dials) pending.cancel();
      const reason = error.code === 'CANCELLED' ? error.message : 'the other connection of the link failed';
      for (const framed of up.values()) framed.close(reason);
      reject(error);
    };
    for (const { connType, pending } of dials) {
      pending.result.then(
        (framed) => {
          if (done) {
            framed.close('the other connection of the link failed');
            return;
          }
          up.set(connType, framed);
          // A connection that is up but drops while its partner is still dialing fails the whole dial.
          framed.onClose((reason) => fail(named(connType, new LinkDialError(`closed before the link was up: ${reason}`, 'CONNECT'))));
          const sockets = up.size === connTypes.length ? linkSocketsOf(up) : undefined;
          if (sockets === undefined) return;
          done = true;
          resolve(sockets);
        },
        (error: LinkDialError) => fail(named(connType, error)),
      );
    }
  });
  return { result, cancel: () => fail(new LinkDialError('dial cancelled', 'CANCELLED')) };
}

/** One connection of a link: TLS, hello with `connType`, welcome. */
function dialConnection(options: DialLinkOptions, connType: LinkConnType): PendingConnection {
  const { address } = options;
  const socket = connect({
    host: address.host,
    port: address.port,
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
    ...(isIP(address.host) === 0 ? { servername: address.host } : {}),
    cert: options.certPem,
    key: options.keyPem,
    ca: options.caPem,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.2',
    ciphers: linkCiphers,
  });
  let settle: ((error: LinkDialError | undefined, framed?: FramedSocket) => void) | undefined;
  const result = new Promise<FramedSocket>((resolve, reject) => {
    const timer = setTimeout(() => fail(new LinkDialError(`no link within ${options.timeoutMs}ms`, 'TIMEOUT')), options.timeoutMs);
    let done = false;
    const fail = (error: LinkDialError) => settle!(error);
    settle = (error, framed) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (error === undefined && framed !== undefined) {
        resolve(framed);
        return;
      }
      socket.destroy();
      reject(error);
    };
    const onError = (error: Error & { code?: string }) => fail(new LinkDialError(error.code ? `${error.code}: ${error.message}` : error.message, 'CONNECT'));
    const onClose = () => fail(new LinkDialError('connection closed before TLS was established', 'CONNECT'));
    socket.once('error', onError);
    socket.once('close', onClose);
    socket.once('secureConnect', () => {
      // From here the framed socket reports errors and closing; both mean the listener refused the hello.
      socket.off('error', onError);
      socket.off('close', onClose);
      const problem = peerRouterCertificateProblem(socket.getPeerX509Certificate(), {
        routerId: options.expectedRouterId,
        fingerprint: options.serverFingerprint,
        trustDomains: options.trustDomains,
        role: 'server',
      });
      if (problem !== undefined) {
        fail(new LinkDialError(`the listener's certificate is not router "${options.expectedRouterId}"'s: ${problem}`, 'REFUSED'));
        return;
      }
      const framed = new FramedSocket(socket);
      framed.send(linkHello(options.selfId, options.linkId, connType));
      framed.next(options.timeoutMs).then(
        (frame) => {
          const routerId = frameType(frame) === undefined ? undefined : (frame as { routerId?: unknown }).routerId;
          if (frameType(frame) !== 'link.welcome' || typeof routerId !== 'string') {
            fail(new LinkDialError(`expected link.welcome, got ${JSON.stringify(frameType(frame) ?? frame)}`, 'REFUSED'));
          } else if (routerId !== options.expectedRouterId) {
            fail(new LinkDialError(`the listener is router "${routerId}", not "${options.expectedRouterId}"`, 'REFUSED'));
          } else {
            settle!(undefined, framed);
          }
        },
        (error: Error) => fail(new LinkDialError(`link refused before welcome: ${error.message}`, 'REFUSED')),
      );
    });
  });
  return { result, cancel: () => settle?.(new LinkDialError('dial cancelled', 'CANCELLED')) };
}

// The router's edge listeners serve clients that dial a service as their own identity, without an SDK: an HTTP
// CONNECT proxy over TLS (the router's server certificate). The client names the service as the CONNECT target's
// host (`CONNECT demo-echo:80`; the port is not used: the service's terminator decides where bytes go) and proves
// who it is with an API session token of the edge client API, in a `zt-session` header or as
// `Proxy-Authorization: Bearer <token>`. The controller checks that session (live, fully authenticated), the
// identity's Dial policy and its posture checks (an MFA check passes once the session answered MFA); then the answer
// is `200 Connection Established` and the connection is the circuit. A refusal is an HTTP status with the error
// envelope's `{error: {code, message}}`: 407 for a missing or invalid session, 404 for a service that does not exist
// or that the identity may not dial (one answer for both: a client cannot probe which services exist), 403 for failed
// posture, 502/503 when the overlay cannot reach the service, 503 when the router is at
// forwarder.maxCircuits, 429 when the identity is at forwarder.maxCircuitsPerIdentity or once its source address
// was refused too often (refusal-budget.ts). E.g.:
//
//   curl -p --proxy https://router1:3022 --proxy-cacert ca.pem --proxy-header "zt-session: $TOKEN" http://demo-echo/
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket } from 'node:tls';
import type { Logger } from '../../common/log/logger.ts';
import { systemClock } from '../../common/time/clock.ts';
import type { DialOptions } from './forwarder.ts';
import { RefusalBudget } from './refusal-budget.ts';

export interface EdgeConnectTarget {
  dial(service: string, socket: Socket, listener: string, options: DialOptions): Promise<void>;
}

export interface EdgeListenerSpec {
  readonly host: string;
  readonly port: number;
}

/** HTTP status for a refusal code. */
export function statusForRefusal(code: string): number {
  switch (code) {
    case 'INVALID_SESSION':
      return 407;
    case 'SERVICE_NOT_FOUND':
      return 404;
    case 'NO_DIAL_POLICY':
    case 'INVALID_POSTURE':
    case 'NO_EDGE_ROUTER_POLICY':
    case 'NO_SERVICE_EDGE_ROUTER_POLICY':
      return 403;
    case 'INVALID_REQUEST':
      return 400;
    case 'CONTROLLER_UNAVAILABLE':
    case 'CIRCUIT_LIMIT':
      return 503;
    case 'IDENTITY_CIRCUIT_LIMIT':
      return 429;
    default:
      return 502;
  }
}

const reasons: Record<number, string> = { 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 407: 'Proxy Authentication Required', 429: 'Too Many Requests', 502: 'Bad Gateway', 503: 'Service Unavailable' };

/** A controller's refusal as the client sees it: an unknown service and one it may not dial read the same. */
export function clientRefusal(code: string, message: string): { readonly status: number; readonly code: string; readonly message: string } {
  if (code === 'SERVICE_NOT_FOUND' || code === 'NO_DIAL_POLICY') return { status: 404, code: 'SERVICE_NOT_FOUND', message: 'no such service, or this identity may not dial it' };
  return { status: statusForRefusal(code), code, message };
}

/** The token a CONNECT carries: `zt-session`, or a Bearer Proxy-Authorization. */
export function sessionTokenOf(headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined {
  const header = headers['zt-session'];
  const direct = Array.isArray(header) ? header[0] : header;
  if (direct && direct.trim() !== '') return direct.trim();
  const proxy = headers['proxy-authorization'];
  const value = Array.isArray(proxy) ? proxy[0] : proxy;
  const match = value ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
  return match ? match[1] : undefined;
}

/** The service a CONNECT target names: its host part (`svc:443`, `[svc]:443`, or bare `svc`). */
export function serviceOfTarget(target: string): string | undefined {
  const match = /^\[?([^\][:/\s]+)\]?(?::\d{1,5})?$/.exec(target);
  return match ? match[1] : undefined;
}

/** Whether a connection's first bytes are an OpenZiti channel frame (magic 03 06 09 xx) rather than HTTP. */
export function isChannelFrameStart(first: Buffer): boolean {
  return first[0] === 0x03 && (first.length < 2 || first[1] === 0x06);
}

/** Serves an SDK's channel on an edge listener (router/edge/sdk-edge-channel.ts); `refused` counts a refused hello
 * against the source's budget, as CONNECT refusals count. */
export type SdkChannelHandler = (socket: TLSSocket, listener: string, refused: () => void) => void;

export class EdgeConnectListeners {
  private readonly servers: TlsServer[] = [];
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly specs: readonly EdgeListenerSpec[],
    private readonly tls: { readonly certPem: string; readonly keyPem: string },
    private readonly target: EdgeConnectTarget,
    private readonly logger: Logger,
    /** Refused dials per source address: beyond its budget a source is answered 429. */
    private readonly refusals: RefusalBudget = new RefusalBudget(systemClock),
    /** SDKs speaking OpenZiti's edge protocol on the same listener, told apart by their first bytes. */
    private readonly sdk?: SdkChannelHandler,
  ) {}

  async start(): Promise<void> {
    for (const spec of this.specs) {
      const name = `edge ${spec.host}:${spec.port}`;
      const http = createHttpServer((request, response) => {
        const body = JSON.stringify({ error: { code: 'METHOD_NOT_ALLOWED', message: 'this is an edge listener: CONNECT <service>:<port> with a zt-session header dials a service' } });
        response.writeHead(405, { 'content-type': 'application/json', allow: 'CONNECT' }).end(body);
        request.resume();
      });
      http.headersTimeout = 10_000;
      http.requestTimeout = 15_000;
      // The TLS server asks for a client certificate (an SDK proves its identity with one; a CONNECT client need not
      // send one) and speaks ALPN `ziti-edge` (what the C SDK offers) or HTTP/1.1.
      const server = createTlsServer({ cert: this.tls.certPem, key: this.tls.keyPem, minVersion: 'TLSv1.2', requestCert: true, rejectUnauthorized: false, ALPNProtocols: ['ziti-edge', 'http/1.1'] }, (socket) => {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
        socket.setTimeout(10_000, () => socket.destroy());
        socket.once('data', (first: Buffer) => {
          socket.setTimeout(0);
          socket.pause();
          socket.unshift(first);
          if (isChannelFrameStart(first)) {
            const source = socket.remoteAddress;
            // A source refused too often is cut before its hello reaches the controller.
            if (!this.sdk || this.refusals.retryAfterSeconds(source) > 0) return void socket.destroy();
            this.sdk(socket, name, () => {
              if (this.refusals.spend(source)) this.logger.warn('edge listener limiting a source: too many refused hellos', { listener: name, source, retryAfterSeconds: this.refusals.retryAfterSeconds(source) });
            });
          } else {
            http.emit('connection', socket);
          }
          socket.resume();
        });
      });
      server.on('tlsClientError', () => undefined);
      http.on('connect', (request, socket: Socket, head: Buffer) => {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
        const source = socket.remoteAddress;
        const answer = (status: number, code: string, message: string, extra = '') => {
          const body = JSON.stringify({ error: { code, message } });
          socket.end(`HTTP/1.1 ${status} ${reasons[status] ?? 'Error'}\r\n${extra}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
        };
        const refuse = (status: number, code: string, message: string) => {
          // The client's own mistakes count against its source; the overlay's (502, 503) do not.
          if (status < 500 && this.refusals.spend(source)) {
            this.logger.warn('edge listener limiting a source: too many refused dials', { listener: name, source, retryAfterSeconds: this.refusals.retryAfterSeconds(source) });
          }
          answer(status, code, message, status === 407 ? 'Proxy-Authenticate: Bearer realm="edgeward"\r\n' : '');
        };
        const wait = this.refusals.retryAfterSeconds(source);
        if (wait > 0) return answer(429, 'RATE_LIMITED', `too many refused dials from this address: retry after ${wait} s`, `Retry-After: ${wait}\r\n`);
        const service = serviceOfTarget(request.url ?? '');
        if (!service) return refuse(400, 'INVALID_REQUEST', 'CONNECT names no service: CONNECT <service>:<port>');
        const token = sessionTokenOf(request.headers);
        if (!token) return refuse(407, 'INVALID_SESSION', 'a zt-session header (or Proxy-Authorization: Bearer <token>) with an API session token is required');
        socket.pause();
        if (head.length > 0) socket.unshift(head);
        void this.target
          .dial(service, socket, name, {
            apiSession: token,
            onRefused: (code, message) => {
              const refusal = clientRefusal(code, message);
              refuse(refusal.status, refusal.code, refusal.message);
            },
            onReady: () => socket.write('HTTP/1.1 200 Connection Established\r\n\r\n'),
          })
          .catch((error: Error) => {
            this.logger.error('edge connection failed', { listener: name, error: error.message });
            socket.destroy();
          });
      });
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(spec.port, spec.host, () => {
            server.removeListener('error', reject);
            resolve();
          });
        });
      } catch (error) {
        await this.stop();
        throw new Error(`edge listener ${spec.host}:${spec.port} cannot listen: ${(error as Error).message}`);
      }
      server.on('error', (error) => this.logger.error('edge listener error', { listener: name, error: error.message }));
      this.servers.push(server);
      this.logger.info('edge listener started: SDKs speak the edge protocol, other clients dial services with HTTP CONNECT and an API session', { address: `${spec.host}:${spec.port}` });
    }
  }

  /** The ports the listeners are bound to (a spec's port 0 is chosen by the system). */
  ports(): number[] {
    return this.servers.map((server) => (server.address() as AddressInfo).port);
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(
      this.servers.splice(0).map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
          }),
      ),
    );
  }
}

// The controller's control port: one mutually authenticated TLS listener that both other controllers and routers
// dial. Before it knows who is connecting it limits every connection (control-port-limits.ts): the TLS handshake in
// time, so many connections per address, a small first frame in time (pre-hello-guard.ts). Then the certificate
// decides: one naming a controller of this trust domain goes to the peer network, one naming no controller (a
// router's, its chain already verified) to the router hub, anything else is refused. Refusals are logged at most
// once per 30 s per source, under the logger's component (the alert rules read the peer TLS failure lines).
import type { Socket } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { Logger } from '../../common/log/logger.ts';
import { spiffeIdOf } from '../../common/pki/spiffe-id.ts';
import { defaultControlPortLimits, type ControlPortLimits } from './control-port-limits.ts';
import { guardFirstFrame } from './pre-hello-guard.ts';
import { RefusalLog, suppressedField } from './refusal-log.ts';
import { SourceConnections } from './source-connections.ts';
import { presentedPem } from './presented-pem.ts';
import { tlsFailureLine } from './tls-failure-text.ts';

export interface ControlPortOptions {
  readonly listen: { readonly host: string; readonly port: number };
  readonly tls: { readonly certPem: string; readonly keyPem: string; readonly caPem: string };
  readonly trustDomain: string;
  /** Limits before a connection is known (defaults: defaultControlPortLimits). */
  readonly limits?: Partial<ControlPortLimits>;
  readonly logger: Logger;
  /** A connection whose certificate names a controller of this trust domain: a peer's channel. */
  readonly onController: (socket: TLSSocket) => void;
  /** A verified certificate naming no controller: a router's control channel. Unset, such connections are refused. */
  readonly onRouter?: (socket: TLSSocket) => void;
}

/** A refusal of the same source is logged at most this often. */
const refusalLogIntervalMs = 30_000;

export class ControlPort {
  private server: Server | undefined;
  private readonly limits: ControlPortLimits;
  private readonly sources: SourceConnections;
  private readonly refusals = new RefusalLog(refusalLogIntervalMs, Date.now);
  /** Every accepted TCP connection, handshakes included: closing the port ends them all. */
  private readonly rawSockets = new Set<Socket>();
  private closed = false;

  constructor(private readonly options: ControlPortOptions) {
    this.limits = { ...defaultControlPortLimits, ...(options.limits ?? {}) };
    this.sources = new SourceConnections(this.limits.maxConnectionsPerSource);
  }

  async start(): Promise<void> {
    const { tls } = this.options;
    const { handshakeTimeoutMs } = this.limits;
    const serverOptions = { cert: tls.certPem, key: tls.keyPem, ca: tls.caPem, requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.2' as const, handshakeTimeout: handshakeTimeoutMs };
    const server = createServer(serverOptions, (socket) => this.accepted(socket));
    const refusedAtAccept = new WeakSet<Socket>();
    // Counted from TCP accept, so half-open handshakes count.
    server.on('connection', (socket: Socket) => {
      const source = socket.remoteAddress ?? '?';
      if (!this.sources.add(source)) {
        refusedAtAccept.add(socket);
        socket.destroy();
        this.logRefusal(`sources|${source}`, 'control connection refused: too many connections from one address', { remote: source, maxConnectionsPerSource: this.limits.maxConnectionsPerSource });
        return;
      }
      this.rawSockets.add(socket);
      socket.once('close', () => {
        this.rawSockets.delete(socket);
        this.sources.remove(source);
      });
    });
    server.on('tlsClientError', (error: Error & { code?: string }, socket) => {
      // Node leaves the connection open after a handshake timeout.
      socket.destroy();
      // A connection refused at accept fails its handshake too; it was logged as refused.
      const raw = (socket as unknown as { _parent?: Socket })._parent;
      if (raw !== undefined && refusedAtAccept.has(raw)) return;
      const failure = tlsFailureLine(error);
      this.logRefusal(`tls|${socket.remoteAddress}|${failure.msg}`, failure.msg, { remote: socket.remoteAddress, ...failure.fields });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.listen.port, this.options.listen.host, () => resolve());
    });
    this.server = server;
  }

  /** Stops listening and ends every connection the port accepted (channels on them end with them). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const socket of this.rawSockets) socket.destroy();
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accepted(socket: TLSSocket): void {
    // The first frame must be small and come in time, whoever this is (a peer or a router).
    const remote = socket.remoteAddress;
    const certificate = commonNameOf(socket);
    const { helloTimeoutMs, maxHelloBytes } = this.limits;
    guardFirstFrame(socket, { helloTimeoutMs, maxHelloBytes }, (reason) => this.logRefusal(`hello|${remote}|${certificate}`, 'control connection closed before its hello', { remote, certificate, reason }));
    if (this.closed) {
      socket.destroy();
      return;
    }
    // The handshake already checked the chain; the certificate must also name a controller of our domain, or none.
    const kind = certificateKind(socket, this.options.trustDomain);
    if (kind === 'peer') {
      this.options.onController(socket);
      return;
    }
    if (kind === 'other' && this.options.onRouter) {
      this.options.onRouter(socket);
      return;
    }
    this.logRefusal(`nocert|${remote}`, 'peer connection refused: no certs presented matched the CA for this node', { remote });
    socket.destroy();
  }

  /** A warning, at most once per refusalLogIntervalMs for each `source`, counting the ones left out. */
  private logRefusal(source: string, msg: string, fields: Record<string, unknown>): void {
    const suppressed = this.refusals.admit(source);
    if (suppressed !== undefined) this.options.logger.warn(msg, { ...fields, ...suppressedField(suppressed) });
  }
}

/** `peer`: a controller of this trust domain; `other`: a certificate naming no controller (of any domain); `none`. */
function certificateKind(socket: TLSSocket, trustDomain: string): 'peer' | 'other' | 'none' {
  const pem = presentedPem(socket);
  if (pem === undefined) return 'none';
  try {
    const spiffe = spiffeIdOf(pem);
    if (spiffe?.kind !== 'controller') return 'other';
    return spiffe.trustDomain === trustDomain ? 'peer' : 'none';
  } catch {
    return 'none';
  }
}

/** The common name of the presented certificate (a router's id), for the log. */
function commonNameOf(socket: TLSSocket): string | undefined {
  const name = socket.getPeerCertificate(false)?.subject?.CN;
  return (Array.isArray(name) ? name[0] : name) || undefined;
}

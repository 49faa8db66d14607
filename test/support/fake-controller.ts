// A stand-in controller for router tests, written to the control-channel contract
// (common/control-channel/control-messages.ts) while the real controller side (server/routers/) is being built:
// a mutual-TLS control listener that welcomes (or refuses) routers and answers heartbeats and pings, and an HTTPS
// listener with the enrollment endpoints a router needs (`/.well-known/est/cacerts`,
// `/edge/client/v1/enroll/erott`). Its PKI is a real edgeward PKI folder (common/pki), shared by the fake
// controllers of one test cluster.

import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { randomBytes, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket } from 'node:tls';
import { SignJWT } from 'jose';
import type { ControllerEndpoint, ControllerToRouter, RouterInfo, RouterToController } from '../../common/control-channel/control-messages.ts';
import { encodeFrame, FrameDecoder } from '../../common/framing/frame-codec.ts';
import { signCertificateRequest } from '../../common/pki/client-certificate.ts';
import { controllerPaths, issueControllerCertificate, loadIssuer, pkiPaths } from '../../common/pki/pki-directory.ts';
import { parseCertificates, x509 } from '../../common/pki/x509-runtime.ts';
import { freePort } from './free-port.ts';

export interface FakeControllerOptions {
  readonly id: string;
  /** A folder made by initPki. */
  readonly pkiDir: string;
  /** Router ids this controller welcomes; others are refused. Undefined: welcome every router with a valid cert. */
  readonly allowedRouters?: Set<string>;
  /** Members announced in ctrl.welcome; default: this controller alone. */
  members?: ControllerEndpoint[];
  /** Routers announced in ctrl.welcome. */
  routers?: RouterInfo[];
  /** Answer router heartbeats (default true). */
  answerHeartbeats?: boolean;
  /** Answer ping requests (default true). */
  answerPings?: boolean;
  /** Present this certificate (and sign JWTs with its key) instead of a controller certificate: an impostor. */
  readonly certificate?: { readonly chainPem: string; readonly keyPem: string };
}

export interface ReceivedMessage {
  readonly routerId: string;
  readonly message: RouterToController;
  readonly at: number;
}

interface Enrollment {
  readonly routerId: string;
  readonly token: string;
  used: boolean;
}

export class FakeController {
  readonly received: ReceivedMessage[] = [];
  readonly channels = new Map<string, TLSSocket>();
  readonly enrolled: string[] = [];
  private readonly sockets = new Set<TLSSocket>();
  private readonly enrollments = new Map<string, Enrollment>();
  private readonly waiters: { predicate: (message: ReceivedMessage) => boolean; resolve: (message: ReceivedMessage) => void }[] = [];

  private constructor(
    readonly options: FakeControllerOptions,
    readonly ctrlAddress: string,
    readonly origin: string,
    private readonly ctrlServer: TlsServer,
    private readonly webServer: HttpsServer,
    readonly bundlePem: string,
    private readonly keyPem: string,
  ) {}

  get id(): string {
    return this.options.id;
  }

  get member(): ControllerEndpoint {
    return { id: this.options.id, address: this.ctrlAddress };
  }

  static async start(options: FakeControllerOptions): Promise<FakeController> {
    let chainPem = options.certificate?.chainPem;
    let keyPem = options.certificate?.keyPem;
    if (chainPem === undefined || keyPem === undefined) {
      await issueControllerCertificate(options.pkiDir, { id: options.id, dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], force: true });
      const paths = controllerPaths(options.pkiDir, options.id);
      chainPem = readFileSync(paths.chain, 'utf8');
      keyPem = readFileSync(paths.key, 'utf8');
    }
    const bundlePem = readFileSync(pkiPaths(options.pkiDir).bundle, 'utf8');
    const [ctrlPort, webPort] = [await freePort(), await freePort()];
    const ctrlServer = createTlsServer({ cert: chainPem, key: keyPem, ca: bundlePem, requestCert: true, rejectUnauthorized: true });
    const webServer = createHttpsServer({ cert: chainPem, key: keyPem });
    const controller = new FakeController(options, `tls:127.0.0.1:${ctrlPort}`, `https://127.0.0.1:${webPort}`, ctrlServer, webServer, bundlePem, keyPem);
    ctrlServer.on('secureConnection', (socket) => controller.accept(socket));
    ctrlServer.on('tlsClientError', () => undefined);
    webServer.on('request', (request, response) => void controller.web(request, response));
    await Promise.all([
      new Promise<void>((resolve) => ctrlServer.listen(ctrlPort, '127.0.0.1', resolve)),
      new Promise<void>((resolve) => webServer.listen(webPort, '127.0.0.1', resolve)),
    ]);
    return controller;
  }

  /** An edge-router enrollment JWT as the controller issues it, signed with this controller's TLS key. */
  async createEnrollmentJwt(routerId: string, options: { expiresInSeconds?: number; method?: string; ctrlAddresses?: string[] } = {}): Promise<string> {
    const token = randomBytes(24).toString('base64url');
    this.enrollments.set(token, { routerId, token, used: false });
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ em: options.method ?? 'erott', ctrls: [this.origin], ctrlAddresses: options.ctrlAddresses ?? [this.ctrlAddress] })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .setIssuer(this.origin)
      .setSubject(routerId)
      .setAudience('')
      .setJti(token)
      .setIssuedAt(now)
      .setExpirationTime(now + (options.expiresInSeconds ?? 600))
      .sign(createPrivateKey(this.keyPem));
  }

  /** Sends a message to a connected router; false when it is not connected. */
  send(routerId: string, message: ControllerToRouter): boolean {
    const socket = this.channels.get(routerId);
    if (!socket || socket.destroyed) return false;
    socket.write(encodeFrame(message));
    return true;
  }

  /** The first message (already received or still to come) that matches. */
  waitFor(predicate: (message: ReceivedMessage) => boolean, timeoutMs = 10_000, what = 'a message'): Promise<ReceivedMessage> {
    const found = this.received.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.id}: no ${what} within ${timeoutMs} ms; received: ${this.received.map((m) => m.message.type).join(', ')}`)), timeoutMs);
      this.waiters.push({
        predicate,
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
      });
    });
  }

  messages<T extends RouterToController['type']>(type: T): Extract<RouterToController, { type: T }>[] {
    return this.received.filter((entry) => entry.message.type === type).map((entry) => entry.message as Extract<RouterToController, { type: T }>);
  }

  /** Stops both listeners and cuts every connection, as a controller that dies. */
  async kill(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.webServer.closeAllConnections();
    await Promise.all([new Promise<void>((resolve) => this.ctrlServer.close(() => resolve())), new Promise<void>((resolve) => this.webServer.close(() => resolve()))]);
  }

  private accept(socket: TLSSocket): void {
    this.sockets.add(socket);
    const peer = socket.getPeerX509Certificate();
    const cn = peer?.subject.split('\n').find((line) => line.startsWith('CN='))?.slice(3) ?? '';
    const decoder = new FrameDecoder();
    let routerId: string | undefined;
    socket.on('data', (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) {
        const message = frame as RouterToController;
        const entry = { routerId: routerId ?? cn, message, at: Date.now() };
        this.received.push(entry);
        for (const waiter of [...this.waiters]) {
          if (waiter.predicate(entry)) {
            this.waiters.splice(this.waiters.indexOf(waiter), 1);
            waiter.resolve(entry);
          }
        }
        this.handle(socket, message, cn, (id) => (routerId = id));
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.sockets.delete(socket);
      if (routerId && this.channels.get(routerId) === socket) this.channels.delete(routerId);
    });
  }

  private handle(socket: TLSSocket, message: RouterToController, cn: string, identify: (id: string) => void): void {
    const write = (reply: ControllerToRouter) => socket.write(encodeFrame(reply));
    switch (message.type) {
      case 'router.hello': {
        const refusal =
          message.routerId !== cn ? `hello names router ${message.routerId} but the certificate is ${cn}` : this.options.allowedRouters && !this.options.allowedRouters.has(cn) ? `router ${cn} is not enrolled` : undefined;
        if (refusal) {
          write({ type: 'ctrl.refused', reason: refusal });
          socket.end();
          return;
        }
        identify(cn);
        this.channels.set(cn, socket);
        write({ type: 'ctrl.welcome', controllerId: this.id, members: this.options.members ?? [this.member], routers: this.options.routers ?? [] });
        return;
      }
      case 'hb':
        if (this.options.answerHeartbeats !== false) write({ type: 'hbAck', sentAt: message.sentAt });
        return;
      case 'req':
        if (message.body.op === 'ping' && this.options.answerPings !== false) write({ type: 'res', rid: message.rid, ok: true, value: 'pong' });
        return;
      default:
        return;
    }
  }

  private async web(request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.origin);
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.method === 'GET' && url.pathname === '/.well-known/est/cacerts') {
      response.writeHead(200, { 'Content-Type': 'application/pkcs7-mime' });
      response.end(new x509.X509Certificates(parseCertificates(this.bundlePem)).export('base64'));
      return;
    }
    if (request.method === 'POST' && url.pathname === '/edge/client/v1/enroll/erott') {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const enrollment = this.enrollments.get(url.searchParams.get('token') ?? '');
      if (!enrollment || enrollment.used) return json(400, { error: { code: 'INVALID_ENROLLMENT_TOKEN', message: 'The supplied token is not valid' }, meta: {} });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { certCsr?: string; serverCertCsr?: string };
      if (!body.certCsr || !body.serverCertCsr) return json(400, { error: { code: 'COULD_NOT_VALIDATE', message: 'certCsr and serverCertCsr are required' }, meta: {} });
      const issuer = await loadIssuer(this.options.pkiDir);
      const sans = requestSans(body.serverCertCsr);
      const cert = await signCertificateRequest(issuer, body.certCsr, { commonName: enrollment.routerId, usage: 'client' });
      const serverCert = await signCertificateRequest(issuer, body.serverCertCsr, { commonName: enrollment.routerId, usage: 'server', dnsNames: sans.dns, ipAddresses: sans.ip });
      enrollment.used = true;
      this.enrolled.push(enrollment.routerId);
      return json(200, { data: { cert: cert.chainPem, serverCert: serverCert.chainPem, ca: this.bundlePem }, meta: {} });
    }
    json(404, { error: { code: 'NOT_FOUND', message: 'not found' }, meta: {} });
  }
}

/** The DNS and IP SANs a CSR asks for. */
export function requestSans(csrPem: string): { dns: string[]; ip: string[]; email: string[]; uri: string[]; subject: string } {
  const request = new x509.Pkcs10CertificateRequest(csrPem);
  const extension = request.extensions.find((candidate): candidate is x509.SubjectAlternativeNameExtension => candidate instanceof x509.SubjectAlternativeNameExtension);
  const names: x509.JsonGeneralNames = extension?.names.toJSON() ?? [];
  const pick = (type: string) => names.filter((name) => name.type === type).map((name) => name.value);
  return { dns: pick('dns'), ip: pick('ip'), email: pick('email'), uri: pick('url'), subject: request.subject };
}

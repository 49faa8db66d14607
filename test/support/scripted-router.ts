// A small scripted router for the controller's router control channel: mutual TLS to a control address with a
// given certificate, length-prefixed JSON frames (common/framing), and helpers to wait for the frames the
// controller sends. It does what a test tells it to and nothing else (no automatic heartbeats or answers).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { encodeFrame, FrameDecoder } from '../../common/framing/frame-codec.ts';
import type { ControllerFixture } from './controller-fixture.ts';
import type { OpensslWorkbench } from './openssl-workbench.ts';

export interface Frame {
  readonly type: string;
  readonly [key: string]: any;
}

export interface RouterCredentials {
  readonly certPem: string;
  readonly keyPem: string;
}

export class ScriptedRouter {
  private readonly frames: Frame[] = [];
  private readonly waiters: Array<() => void> = [];
  private readonly decoder = new FrameDecoder();
  closed = false;
  readonly closedPromise: Promise<void>;

  private constructor(readonly socket: TLSSocket) {
    socket.on('data', (chunk: Buffer) => {
      for (const frame of this.decoder.push(chunk)) this.frames.push(frame as Frame);
      this.wake();
    });
    this.closedPromise = new Promise((resolve) => {
      socket.once('close', () => {
        this.closed = true;
        this.wake();
        resolve();
      });
      socket.on('error', () => undefined);
    });
  }

  /** Opens TLS to `tls:<host>:<port>` with this certificate; resolves once the handshake is done (or failed). */
  static connect(ctrlAddress: string, caPem: string, credentials: RouterCredentials): Promise<ScriptedRouter> {
    const [, host, port] = /^tls:([^:]+):(\d+)$/.exec(ctrlAddress)!;
    return new Promise((resolve) => {
      const socket = tlsConnect({ host, port: Number(port), cert: credentials.certPem, key: credentials.keyPem, ca: caPem, servername: 'localhost' });
      const router = new ScriptedRouter(socket);
      socket.once('secureConnect', () => resolve(router));
      void router.closedPromise.then(() => resolve(router));
    });
  }

  send(frame: unknown): void {
    this.socket.write(encodeFrame(frame));
  }

  /** A request on this channel; its answer. Frames on one channel are handled in order, so it also waits for them. */
  async request(body: Record<string, unknown>, timeoutMs = 10_000): Promise<Frame> {
    const rid = ++ScriptedRouter.lastRid;
    this.send({ type: 'req', rid, body });
    for (;;) {
      const answer = await this.next('res', timeoutMs);
      if (answer.rid === rid) return answer;
    }
  }

  private static lastRid = 100;

  hello(routerId: string, extra: Record<string, unknown> = {}): void {
    this.send({ type: 'router.hello', routerId, version: 'v0.1.0-test', linkListeners: [], ...extra });
  }

  /** The next frame of this type (frames of other types stay queued), or a failure after `timeoutMs`. */
  async next(type: string, timeoutMs = 5000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.frames.findIndex((frame) => frame.type === type);
      if (index >= 0) return this.frames.splice(index, 1)[0]!;
      if (this.closed) throw new Error(`channel closed before a ${type} frame; frames queued: ${JSON.stringify(this.frames.map((frame) => frame.type))}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${type} frame within ${timeoutMs} ms; frames queued: ${JSON.stringify(this.frames.map((frame) => frame.type))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Every queued frame of this type, taken out of the queue. */
  take(type: string): Frame[] {
    const taken = this.frames.filter((frame) => frame.type === type);
    for (const frame of taken) this.frames.splice(this.frames.indexOf(frame), 1);
    return taken;
  }

  async waitClosed(timeoutMs = 5000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([this.closedPromise, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`channel still open after ${timeoutMs} ms`)), timeoutMs)))]);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
}

export interface EnrolledRouter extends RouterCredentials {
  readonly id: string;
  readonly serverCertPem: string;
  readonly ca: string;
}

let csrCount = 0;

/** A new EC P-256 key and a CSR made by openssl, optionally asking for subject alternative names (`DNS:x,IP:y`). */
export async function keyAndCsr(workbench: OpensslWorkbench, commonName: string, sans?: string): Promise<{ keyPem: string; csrPem: string }> {
  const name = `router-csr-${++csrCount}`;
  const config = workbench.write(`${name}.cnf`, '[req]\ndistinguished_name=dn\n[dn]\n');
  const keyFile = join(workbench.dir, `${name}.key`);
  const csrFile = join(workbench.dir, `${name}.csr`);
  await workbench.openssl([
    'req', '-config', config, '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile,
    '-subj', `/CN=${commonName}`, ...(sans ? ['-addext', `subjectAltName=${sans}`] : []), '-out', csrFile,
  ]);
  return { keyPem: readFileSync(keyFile, 'utf8'), csrPem: readFileSync(csrFile, 'utf8') };
}

let enrolledCount = 0;

/**
 * Redeems a router's enrollment token at `/enroll/erott` of `controller` with two fresh CSRs. The default names are
 * a DNS name of this router's own (no two routers may hold one) and the loopback names every router may share.
 */
export async function enrollRouter(
  controller: ControllerFixture,
  workbench: OpensslWorkbench,
  id: string,
  token: string,
  sans = `DNS:router-${++enrolledCount}.example.test,DNS:localhost,IP:127.0.0.1`,
): Promise<EnrolledRouter> {
  const clientCsr = await keyAndCsr(workbench, 'router-client');
  const serverCsr = await keyAndCsr(workbench, 'router-server', sans);
  const response = await controller.http.post(`${controller.clientApi}/enroll/erott`, { body: { token, certCsr: clientCsr.csrPem, serverCertCsr: serverCsr.csrPem } });
  if (response.status !== 200) throw new Error(`erott failed: ${response.status} ${response.text}`);
  const { cert, serverCert, ca } = response.json.data;
  return { id, certPem: cert, keyPem: clientCsr.keyPem, serverCertPem: serverCert, ca };
}

/** Enrolls the router `id` made through the Management API (its erott `token`), connects it and waits for the welcome. */
export async function welcomedScriptedRouter(controller: ControllerFixture, workbench: OpensslWorkbench, id: string, token: string): Promise<{ enrolled: EnrolledRouter; channel: ScriptedRouter }> {
  const enrolled = await enrollRouter(controller, workbench, id, token);
  const channel = await ScriptedRouter.connect(controller.ctrlAddress, controller.caPem, enrolled);
  channel.hello(id);
  await channel.next('ctrl.welcome');
  return { enrolled, channel };
}

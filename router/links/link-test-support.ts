// Test support for the link tests: a throwaway PKI (common/pki), per-router TLS material, link configs, a
// listener that only counts connections, a counting TCP relay in front of a link listener, a hand-driven link
// client and a scripted link listener (raw frames over TLS), and polling with a deadline. Not used by the router.

import { mkdtemp, rm } from 'node:fs/promises';
import { connect as connectTcp, createServer, type Server, type Socket } from 'node:net';
import { connect as connectTls, createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { CertificateIssuer } from '../../common/pki/certificate-signer.ts';
import { createClientCertificate, signCertificateRequest } from '../../common/pki/client-certificate.ts';
import { createControllerCertificate } from '../../common/pki/controller-certificate.ts';
import { generateKeyPair, privateKeyToPem } from '../../common/pki/key-pair.ts';
import { initPki } from '../../common/pki/pki-directory.ts';
import { ecdsaWithSha256, x509 } from '../../common/pki/x509-runtime.ts';
import { encodeFrame, FrameDecoder } from '../../common/framing/frame-codec.ts';
import { parseRouterConfig, type DialBackoffConfig, type ForwarderConfig, type LinkDialerConfig, type LinkListenerConfig, type RouterConfig } from '../config/router-config.ts';
import type { LinkTlsMaterial } from './link-manager-api.ts';

export interface TestPki {
  readonly issuer: CertificateIssuer;
  readonly caPem: string;
  readonly trustDomain: string;
  /**
   * Client certificate `CN=<clientName>` (default: the router id) and server certificate for 127.0.0.1, each with
   * the router SPIFFE id of its common name, as the controller issues them; `spiffe: false` leaves the SPIFFE ids
   * out, as certificates enrolled before routers got them.
   */
  routerTls(routerId: string, clientName?: string, options?: { spiffe?: boolean }): Promise<LinkTlsMaterial>;
  /** A controller's certificate (SPIFFE id `controller/<id>`, client and server use, 127.0.0.1) as both link certificates. */
  controllerTls(controllerId: string): Promise<LinkTlsMaterial>;
  dispose(): Promise<void>;
}

export async function createTestPki(): Promise<TestPki> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeward-links-'));
  const pki = await initPki(dir);
  const issuer = pki.intermediate;
  const spiffeIdOf = (id: string, spiffe: boolean) => (spiffe ? { spiffeId: `spiffe://${pki.trustDomain}/router/${id}` } : {});
  return {
    issuer,
    caPem: pki.bundlePem,
    trustDomain: pki.trustDomain,
    async routerTls(routerId, clientName = routerId, options = {}) {
      const spiffe = options.spiffe ?? true;
      const client = await createClientCertificate(issuer, { commonName: clientName, validityDays: 1, ...spiffeIdOf(clientName, spiffe) });
      const keys = await generateKeyPair();
      const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: `CN=${routerId}`, keys, signingAlgorithm: ecdsaWithSha256 });
      const server = await signCertificateRequest(issuer, csr.toString('pem'), {
        usage: 'server',
        commonName: routerId,
        ipAddresses: ['127.0.0.1'],
        validityDays: 1,
        ...spiffeIdOf(routerId, spiffe),
      });
      return {
        certPem: client.certPem,
        keyPem: client.keyPem,
        serverCertPem: server.chainPem,
        serverKeyPem: await privateKeyToPem(keys.privateKey),
        caPem: pki.bundlePem,
      };
    },
    async controllerTls(controllerId) {
      const issued = await createControllerCertificate(issuer, { id: controllerId, trustDomain: pki.trustDomain, dnsNames: [], ipAddresses: ['127.0.0.1'], validityDays: 1 });
      return { certPem: issued.chainPem, keyPem: issued.keyPem, serverCertPem: issued.chainPem, serverKeyPem: issued.keyPem, caPem: pki.bundlePem };
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

export function backoff(minRetryInterval: number, retryBackoffFactor: number, maxRetryInterval: number): DialBackoffConfig {
  return { minRetryInterval, maxRetryInterval, retryBackoffFactor };
}

export interface TestLinkConfig {
  /** Groups of one link listener on 127.0.0.1 (port `port`, default 0); omit for no listener. */
  readonly listener?: { readonly groups: readonly string[]; readonly port?: number };
  /** One link dialer; omit for none. */
  readonly dialer?: Partial<Omit<LinkDialerConfig, 'binding'>>;
  /** Forwarder keys the link manager reads (link dial queue and workers, latencyProbeInterval); defaults otherwise. */
  readonly forwarder?: Partial<ForwarderConfig>;
}

/** The forwarder section as the config loader fills it in for a file that leaves it out: the spec's defaults. */
export const defaultForwarder: ForwarderConfig = (() => {
  const yaml = ['v: 3', 'identity:', '  cert: router.cert', '  key: router.key', 'ctrl:', '  endpoint: tls:127.0.0.1:6262'].join('\n');
  const { config } = parseRouterConfig(yaml, { file: '/etc/edgeward/router.yml', env: {} });
  if (!config) throw new Error('the minimal router config did not load');
  return config.forwarder;
})();

/** A RouterConfig with the sections the link manager reads, `link` and `forwarder`, filled in. */
export function linkRouterConfig(spec: TestLinkConfig): RouterConfig {
  const listeners: LinkListenerConfig[] = spec.listener
    ? [
        {
          binding: 'transport',
          bind: { protocol: 'tls', host: '127.0.0.1', port: spec.listener.port ?? 0 },
          advertise: { protocol: 'tls', host: '127.0.0.1', port: spec.listener.port ?? 0 },
          groups: spec.listener.groups,
          options: {},
        },
      ]
    : [];
  const dialers: LinkDialerConfig[] = spec.dialer
    ? [
        {
          binding: 'transport',
          split: true,
          groups: ['default'],
          options: {},
          healthyDialBackoff: backoff(5_000, 1.5, 300_000),
          unhealthyDialBackoff: backoff(60_000, 10, 3_600_000),
          ...spec.dialer,
        },
      ]
    : [];
  return { link: { listeners, dialers }, forwarder: { ...defaultForwarder, ...spec.forwarder } } as Partial<RouterConfig> as RouterConfig;
}

/** A TCP listener that records when each connection arrives and drops it: every link dial to it fails. */
export async function countingListener(): Promise<{ port: number; attempts: number[]; close(): Promise<void> }> {
  const attempts: number[] = [];
  const server: Server = createServer((socket) => {
    attempts.push(performance.now());
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { port, attempts, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A TCP listener that records when each connection arrives and holds it without a word: a link dial to it hangs until its timeout. */
export async function silentListener(): Promise<{ port: number; attempts: number[]; close(): Promise<void> }> {
  const attempts: number[] = [];
  const held = new Set<Socket>();
  const server: Server = createServer((socket) => {
    attempts.push(performance.now());
    held.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => held.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of held) socket.destroy();
      server.close(() => resolve());
    });
  return { port, attempts, close };
}

/** Polls `condition` every 5 ms until it holds; fails after `timeoutMs` with `what`. */
export async function waitFor(what: string, condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One TCP connection through a relay: the dialer's source port, and a way to cut it (both sides at once). */
export interface RelayedConnection {
  readonly clientPort: number;
  readonly open: boolean;
  cut(): void;
}

/**
 * A TCP relay on 127.0.0.1 to `targetPort`: dialers given its port reach the listener behind it (TLS passes
 * through untouched), and the test sees every TCP connection made and can cut any one of them.
 */
export async function countingRelay(targetPort: number): Promise<{ port: number; connections: RelayedConnection[]; close(): Promise<void> }> {
  const connections: RelayedConnection[] = [];
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server: Server = createServer((client) => {
    const upstream = connectTcp({ host: '127.0.0.1', port: targetPort });
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    let open = true;
    const cut = () => {
      open = false;
      client.destroy();
      upstream.destroy();
    };
    client.once('close', cut);
    upstream.once('close', cut);
    connections.push({
      clientPort: client.remotePort ?? 0,
      get open() {
        return open;
      },
      cut,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    connections,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A link connection driven by hand: TLS with `tls`'s client certificate, raw frames in and out. */
export interface LinkTestClient {
  readonly frames: unknown[];
  /** performance.now() when the connection closed, undefined while open. */
  readonly closedAt: number | undefined;
  /** The TLS cipher suite negotiated (its standard name). */
  readonly cipher: string;
  send(frame: unknown): void;
  destroy(): void;
}

export async function linkTestClient(port: number, tls: LinkTlsMaterial): Promise<LinkTestClient> {
  const socket = connectTls({ host: '127.0.0.1', port, cert: tls.certPem, key: tls.keyPem, ca: tls.caPem });
  const decoder = new FrameDecoder();
  const frames: unknown[] = [];
  let closedAt: number | undefined;
  socket.on('data', (chunk: Buffer) => frames.push(...decoder.push(chunk)));
  socket.on('error', () => undefined);
  socket.once('close', () => (closedAt = performance.now()));
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', () => resolve());
    socket.once('close', () => reject(new Error('the link test client closed before TLS was up')));
  });
  return {
    frames,
    get closedAt() {
      return closedAt;
    },
    cipher: socket.getCipher().standardName,
    send: (frame) => void socket.write(encodeFrame(frame)),
    destroy: () => void socket.destroy(),
  };
}

/**
 * A link listener on 127.0.0.1 that reads each connection's hello and lets `answer` decide: `welcome` (as router
 * `routerId`) or `close`. It records every hello and can tell which of its connections are still open.
 */
export async function scriptedLinkListener(
  tls: LinkTlsMaterial,
  routerId: string,
  answer: (hello: { connType?: string; linkId?: string }) => 'welcome' | 'close',
): Promise<{ port: number; hellos: Array<{ connType?: string; linkId?: string }>; ciphers: string[]; openCount(): number; close(): Promise<void> }> {
  const hellos: Array<{ connType?: string; linkId?: string }> = [];
  /** The TLS cipher suite of each connection (standard names): the first of the dialer's that it supports. */
  const ciphers: string[] = [];
  const open = new Set<TLSSocket>();
  // It takes the dialer's order of cipher suites (Node's servers otherwise impose their own), as Go's servers do.
  const server = createTlsServer({ cert: tls.serverCertPem, key: tls.serverKeyPem, ca: tls.caPem, requestCert: true, rejectUnauthorized: true, honorCipherOrder: false }, (socket) => {
    open.add(socket);
    ciphers.push(socket.getCipher().standardName);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    const decoder = new FrameDecoder();
    socket.on('data', (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) {
        const hello = frame as { type?: string; connType?: string; linkId?: string };
        if (hello.type !== 'link.hello') continue;
        hellos.push(hello);
        if (answer(hello) === 'welcome') socket.write(encodeFrame({ type: 'link.welcome', routerId }));
        else socket.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    hellos,
    ciphers,
    openCount: () => open.size,
    close: () => {
      for (const socket of open) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

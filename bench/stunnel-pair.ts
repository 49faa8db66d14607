// The like-for-like baseline for the overlay's two routers: a pair of Debian stunnel relays with one TLS hop between
// them. Relay A (client mode) takes plain TCP and speaks TLS to relay B (server mode), which speaks plain TCP to the
// upstream. Each relay is one `stunnel4` process in the foreground, its config written to the given folder, with a
// throwaway self-signed P-256 certificate (openssl) that relay A verifies (chain and host name), TLS 1.3 only.
// One service per upstream port, and on relay A a probe service logging at info level, through which one connection
// learns what A and B negotiated (the measured services log at stunnel's default level, to their log file only).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

export const stunnelBinary = '/usr/bin/stunnel4';

export interface StunnelService {
  /** Names the service in both configs ([name]); letters, digits and dashes. */
  readonly name: string;
  /** Where clients connect: relay A's plain TCP port on 127.0.0.1. */
  readonly acceptPort: number;
  /** Relay B's TLS port on 127.0.0.1 for this service. */
  readonly tlsPort: number;
  /** The upstream's port on 127.0.0.1, which relay B connects to. */
  readonly upstreamPort: number;
}

export interface StunnelPair {
  readonly a: ChildProcess;
  readonly b: ChildProcess;
  /** `stunnel 5.68 (OpenSSL 3.0.19)`. */
  readonly version: string;
  /** What relay A's probe connection negotiated with relay B: `TLSv1.3`, `TLS_AES_256_GCM_SHA384`, `X25519`. */
  readonly protocol: string;
  readonly cipher: string;
  readonly keyExchange: string;
  /** Both relays' log files (stderr). */
  readonly logs: { readonly a: string; readonly b: string };
}

/** `stunnel 5.68 (OpenSSL 3.0.19)`, from `stunnel4 -version`; a clear error when stunnel4 is not installed. */
export function stunnelVersion(): string {
  const result = spawnSync(stunnelBinary, ['-version'], { encoding: 'utf8', timeout: 10_000 });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') throw new Error(`${stunnelBinary} is not installed: apt-get install stunnel4`);
  const text = `${result.stdout}${result.stderr}`;
  const stunnel = /stunnel (\d\S*)/.exec(text)?.[1];
  const openssl = /Running\s+with OpenSSL (\S+)/.exec(text)?.[1];
  if (!stunnel) throw new Error(`${stunnelBinary} -version printed no version: ${text.slice(0, 200)}`);
  return `stunnel ${stunnel}${openssl ? ` (OpenSSL ${openssl})` : ''}`;
}

/** A throwaway key and self-signed certificate for CN=localhost (SAN localhost and 127.0.0.1) in `dir`. */
function writeCertificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'stunnel-cert.pem');
  const key = join(dir, 'stunnel-key.pem');
  const made = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
    { encoding: 'utf8', timeout: 30_000 },
  );
  if (made.status !== 0) throw new Error(`openssl could not make the stunnel certificate: ${made.error?.message ?? made.stderr}`);
  return { cert, key };
}

const clientService = (name: string, accept: number, connectTo: number, cert: string, extra: string[] = []) =>
  [`[${name}]`, 'client = yes', `accept = 127.0.0.1:${accept}`, `connect = 127.0.0.1:${connectTo}`, `CAfile = ${cert}`, 'verifyChain = yes', 'checkHost = localhost', 'sslVersionMin = TLSv1.3', ...extra].join('\n');

const serverService = (name: string, accept: number, connectTo: number, cert: string, key: string) =>
  [`[${name}]`, `accept = 127.0.0.1:${accept}`, `connect = 127.0.0.1:${connectTo}`, `cert = ${cert}`, `key = ${key}`, 'sslVersionMin = TLSv1.3'].join('\n');

/** The two configs: global options, then one service per upstream port (and A's probe, to `probe.via`'s TLS port). */
export function stunnelConfigs(services: readonly StunnelService[], probe: { port: number; via: StunnelService }, files: { cert: string; key: string; trust: string }): { a: string; b: string } {
  // syslog = no: stunnel logs to syslog as well as stderr by default, and where no syslog daemon listens glibc writes
  // each line to the console instead (a serial one here): that cost 5 ms of CPU per connection in each relay.
  const global = ['foreground = yes', 'pid =', 'syslog = no', 'debug = notice'].join('\n');
  const a = [global, ...services.map((service) => clientService(service.name, service.acceptPort, service.tlsPort, files.trust)), clientService('probe', probe.port, probe.via.tlsPort, files.trust, ['debug = info'])];
  const b = [global, ...services.map((service) => serverService(service.name, service.tlsPort, service.upstreamPort, files.cert, files.key))];
  return { a: `${a.join('\n\n')}\n`, b: `${b.join('\n\n')}\n` };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** One message through `port`, echoed back whole (the probe's upstream must be an echo server). */
function echoThrough(port: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const payload = Buffer.from('stunnel-pair probe');
    let received = 0;
    const timer = setTimeout(() => finish(new Error(`no echo through stunnel's probe port ${port} within ${timeoutMs} ms`)), timeoutMs);
    const finish = (error?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };
    socket.once('connect', () => socket.write(payload));
    socket.on('data', (data: Buffer) => {
      received += data.length;
      if (received >= payload.length) finish();
    });
    socket.once('error', (error) => finish(new Error(`stunnel's probe through port ${port} failed: ${error.message}`)));
    socket.once('close', () => finish(received >= payload.length ? undefined : new Error(`stunnel's probe through port ${port} closed after ${received} bytes`)));
  });
}

function startRelay(config: string, log: string): ChildProcess {
  const fd = openSync(log, 'a');
  try {
    return spawn(stunnelBinary, [config], { stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
}

/** Starts relay B, then relay A, waits until every port accepts, and probes the TLS they negotiate. `track` is given
 * each process as soon as it exists, so that the caller stops it whatever happens next. */
export async function startStunnelPair(options: {
  readonly dir: string;
  readonly services: readonly StunnelService[];
  /** A's probe port; the probe goes through this service's TLS port, whose upstream must echo. */
  readonly probe: { readonly port: number; readonly via: StunnelService };
  readonly track: (child: ChildProcess) => void;
  readonly timeoutMs?: number;
  /** The certificate relay A trusts (its CAfile); by default relay B's own, so that B's verifies. */
  readonly trust?: string;
}): Promise<StunnelPair> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const version = stunnelVersion();
  const files = writeCertificate(options.dir);
  const configs = stunnelConfigs(options.services, options.probe, { ...files, trust: options.trust ?? files.cert });
  const paths = { a: join(options.dir, 'stunnel-a.conf'), b: join(options.dir, 'stunnel-b.conf') };
  const logs = { a: join(options.dir, 'stunnel-a.log'), b: join(options.dir, 'stunnel-b.log') };
  writeFileSync(paths.a, configs.a);
  writeFileSync(paths.b, configs.b);
  const b = startRelay(paths.b, logs.b);
  options.track(b);
  const a = startRelay(paths.a, logs.a);
  options.track(a);
  const ports = [...options.services.flatMap((service) => [service.tlsPort, service.acceptPort]), options.probe.port];
  const deadline = Date.now() + timeoutMs;
  for (const port of ports) {
    while (!(await accepts(port))) {
      for (const [name, child] of [['B', b], ['A', a]] as const) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`stunnel relay ${name} exited (${child.signalCode ?? child.exitCode}): ${readFileSync(logs[name === 'A' ? 'a' : 'b'], 'utf8').slice(-600)}`);
      }
      if (Date.now() > deadline) throw new Error(`stunnel's port ${port} did not accept connections within ${timeoutMs} ms`);
      await sleep(50);
    }
  }
  await echoThrough(options.probe.port, timeoutMs);
  // A logs the negotiated suite during the handshake, before any byte goes through; the file may lag a little.
  let negotiated: RegExpExecArray | null = null;
  while (!(negotiated = /(TLSv[\d.]+) ciphersuite: (\S+)/.exec(readFileSync(logs.a, 'utf8')))) {
    if (Date.now() > deadline) throw new Error(`stunnel relay A logged no ciphersuite for its probe connection: ${readFileSync(logs.a, 'utf8').slice(-600)}`);
    await sleep(50);
  }
  const keyExchange = /Peer temporary key: ([^,\s]+)/.exec(readFileSync(logs.a, 'utf8'))?.[1] ?? 'not logged';
  return { a, b, version, protocol: negotiated[1]!, cipher: negotiated[2]!, keyExchange, logs };
}

// The HTTPS an enrolling client needs before it trusts anything: the controller's TLS certificate read without
// verification (its key checks the enrollment JWT), requests pinned to that very certificate (the CA bundle
// fetch), and requests verified against the bundle once it is known. Every call is bounded in time and size.
import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { connect, type PeerCertificate, type TLSSocket } from 'node:tls';

const maxResponseBytes = 1024 * 1024;

/** The TLS server certificate at https://host:port, unverified (any certificate, any name). */
export function unverifiedServerCertificate(origin: string, timeoutMs: number): Promise<X509Certificate> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostOf(url), port: Number(url.port || 443), servername: serverName(hostOf(url)), rejectUnauthorized: false }, () => {
      const raw = socket.getPeerCertificate().raw;
      socket.end();
      if (!raw) reject(new Error('the server presented no certificate'));
      else resolve(new X509Certificate(raw));
    });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no TLS handshake within ${timeoutMs} ms`)));
    socket.on('error', reject);
  });
}

export interface HttpsExchange {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Verify the server against this PEM bundle (and its name), or accept only the certificate `pinned`. */
  readonly trust: { readonly caPem: string } | { readonly pinned: X509Certificate };
  readonly timeoutMs: number;
}

export interface HttpsAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

export function httpsExchange(exchange: HttpsExchange): Promise<HttpsAnswer> {
  const url = new URL(exchange.url);
  const pinned = 'pinned' in exchange.trust ? exchange.trust.pinned : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostOf(url),
        port: Number(url.port || 443),
        path: `${url.pathname}${url.search}`,
        method: exchange.method,
        servername: serverName(hostOf(url)),
        agent: false,
        headers: { ...(exchange.headers ?? {}), ...(exchange.body !== undefined ? { 'content-length': String(Buffer.byteLength(exchange.body)) } : {}) },
        ...('caPem' in exchange.trust ? { ca: exchange.trust.caPem } : { rejectUnauthorized: false }),
      },
      (response) => {
        if (pinned) {
          // Unverified by the chain, so held to the one certificate whose key signed the JWT.
          const presented = (response.socket as TLSSocket).getPeerCertificate() as PeerCertificate;
          if (!presented.raw || !new X509Certificate(presented.raw).raw.equals(pinned.raw)) {
            response.destroy();
            reject(new Error('the server presented another certificate than the one that signed the enrollment token'));
            return;
          }
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxResponseBytes) response.destroy(new Error(`the answer is over ${maxResponseBytes} bytes`));
          else chunks.push(chunk);
        });
        response.on('error', reject);
        response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.setTimeout(exchange.timeoutMs, () => req.destroy(new Error(`no answer within ${exchange.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(exchange.body);
  });
}

/** SNI takes host names only, never an IP address. */
function serverName(hostname: string): string | undefined {
  return /^[\d.]+$/.test(hostname) || hostname.includes(':') ? undefined : hostname;
}

/** The host to connect to: an IPv6 literal without its URL brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

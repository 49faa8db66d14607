// The HTTPS calls of enrollment: fetching the controller's CA bundle before any trust exists (the server is not
// verified: the bundle is only believed once the JWT's signature checks out against a certificate that chains to
// it), reading the controller's verified certificate, and the enroll POST, verified against that bundle.

import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { isIP } from 'node:net';
import { connect } from 'node:tls';

export interface HttpsResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
  /** The Retry-After header, when the answer has one. */
  readonly retryAfter?: string;
}

export interface HttpsCall {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly json?: unknown;
  /** Trusted CA bundle (PEM); undefined: the server is not verified (bootstrap only). */
  readonly caPem?: string;
  readonly timeoutMs?: number;
}

export function httpsCall(call: HttpsCall): Promise<HttpsResponse> {
  const url = new URL(call.url);
  const body = call.json === undefined ? undefined : Buffer.from(JSON.stringify(call.json), 'utf8');
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: call.method ?? 'GET',
        agent: false,
        ...(call.caPem === undefined ? { rejectUnauthorized: false } : { ca: call.caPem, rejectUnauthorized: true }),
        ...(isIP(url.hostname.replace(/^\[|\]$/g, '')) ? {} : { servername: url.hostname }),
        headers: { Accept: 'application/json', ...(body ? { 'Content-Type': 'application/json', 'Content-Length': String(body.length) } : {}) },
        timeout: call.timeoutMs ?? 15_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        const retryAfter = response.headers['retry-after'];
        response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? ''), body: Buffer.concat(chunks), ...(retryAfter === undefined ? {} : { retryAfter }) }));
        response.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url.origin} within ${call.timeoutMs ?? 15_000} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The certificate the server at `origin` presents, verified against `caPem` (chain and host name). Throws with
 * Node's reason when it does not chain to the bundle.
 */
export function verifiedServerCertificate(origin: string, caPem: string, timeoutMs = 15_000): Promise<X509Certificate> {
  const url = new URL(origin);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || 443);
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, ca: caPem, rejectUnauthorized: true, ...(isIP(host) ? {} : { servername: host }) });
    const timer = setTimeout(() => socket.destroy(new Error(`no TLS handshake with ${origin} within ${timeoutMs} ms`)), timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const certificate = socket.getPeerX509Certificate();
      socket.end();
      if (certificate) resolve(certificate);
      else reject(new Error(`${origin} presented no certificate`));
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

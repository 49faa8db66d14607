// A `fetch` over node:https that trusts the test's CA, for clients that call `fetch` themselves (the OpenZiti browser
// edge client takes one as `globalThis._ziti_realFetch`, the hook its browser runtime uses). Every exchange is kept,
// so a test can check the statuses and bodies the client saw (the client itself hands back only parsed bodies).
import { request } from 'node:https';

export interface FetchedExchange {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

type HeaderValue = string | readonly string[];

export function httpsFetch(caPem: string, exchanges: FetchedExchange[], timeoutMs = 30_000) {
  return (url: string, init: { method?: string; headers?: Record<string, HeaderValue>; body?: string } = {}): Promise<Response> => {
    const method = init.method ?? 'GET';
    // Generated code sets some headers to one-element arrays, which fetch would join with ", ".
    const headers = Object.fromEntries(Object.entries(init.headers ?? {}).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value as string)]));
    const body = init.body;
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    return new Promise((resolve, reject) => {
      const outgoing = request(url, { method, headers, ca: caPem, timeout: timeoutMs }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = incoming.statusCode ?? 0;
          const contentType = String(incoming.headers['content-type'] ?? '');
          exchanges.push({ method, url, status, contentType, text });
          resolve(new Response(text, { status, headers: { 'content-type': contentType } }));
        });
      });
      outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${url}: no answer in ${timeoutMs} ms`)));
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  };
}

// The page's server's one way to the network: a request with a deadline and a size limit, over HTTPS verified
// against the cluster's CA bundle (or plain HTTP), on keep-alive connections. A frozen controller accepts the TCP
// connection and then says nothing: the deadline destroys the request and its socket, so the next poll starts afresh.

import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  readonly json: unknown;
  /** Lower-case names; repeated headers joined with ", " (an OIDC login reads `location`). */
  readonly headers: Readonly<Record<string, string | undefined>>;
}

export interface HttpRequestOptions {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON. */
  readonly body?: unknown;
  /** Sent as it is, with the caller's content-type (a form for the OIDC token endpoint); instead of `body`. */
  readonly rawBody?: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

export class HttpClient {
  private readonly httpsAgent: HttpsAgent;
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 4 });

  constructor(caPem: string | undefined) {
    this.httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 4, ...(caPem === undefined ? {} : { ca: caPem }) });
  }

  request(url: string, options: HttpRequestOptions): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        reject(new Error(`not a URL: ${url}`));
        return;
      }
      const secure = target.protocol === 'https:';
      const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
      const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.5', ...(options.headers ?? {}) };
      if (payload !== undefined) {
        if (options.rawBody === undefined) headers['content-type'] = 'application/json';
        headers['content-length'] = String(Buffer.byteLength(payload));
      }
      const req = (secure ? httpsRequest : httpRequest)(target, { method: options.method ?? 'GET', agent: secure ? this.httpsAgent : this.httpAgent, headers });
      let settled = false;
      const finish = (error: Error | undefined, answer?: HttpAnswer) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        if (error) reject(error);
        else resolve(answer!);
      };
      const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
      req.on('error', (error) => finish(error));
      req.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) req.destroy(new Error(`answer larger than ${options.maxBytes} bytes`));
          else chunks.push(chunk);
        });
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          const answerHeaders: Record<string, string | undefined> = {};
          for (const [name, value] of Object.entries(response.headers)) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
          finish(undefined, { status: response.statusCode ?? 0, text, json, headers: answerHeaders });
        });
        response.on('error', (error) => finish(error));
        response.on('aborted', () => finish(new Error('the answer was cut off')));
      });
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  close(): void {
    this.httpsAgent.destroy();
    this.httpAgent.destroy();
  }
}

/** A short, single-line reason for a failed request ("connect ECONNREFUSED 127.0.0.1:1280", "no answer within 1500 ms"). */
export function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.slice(0, 300);
}

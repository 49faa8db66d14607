// An HTTPS client for tests that talks to the controller as an API client would: our CA, real TLS, raw bodies.
import { request as httpsRequest, Agent } from 'node:https';

export interface HttpResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  readonly json: any;
}

export interface RequestOptions {
  readonly headers?: Record<string, string>;
  /** A value to send as JSON. */
  readonly body?: unknown;
  /** Bytes or text to send exactly as given. */
  readonly rawBody?: string | Buffer;
  readonly cert?: string;
  readonly key?: string;
  /** The local address to connect from (any 127.x.y.z on loopback), to look like another client to the server. */
  readonly localAddress?: string;
}

export class HttpsClient {
  private readonly agent: Agent;

  constructor(private readonly caPem: string) {
    // With a timeout set, the agent honours the server's `Keep-Alive: timeout=N` and closes a free socket a second
    // before the server would (Node ignores the hint when the agent has no timeout): otherwise a request sent on a
    // socket the server is closing that moment fails with ECONNRESET, which a busy machine makes likely.
    this.agent = new Agent({ ca: caPem, keepAlive: true, maxSockets: 64, timeout: 60_000 });
  }

  request(method: string, url: string, options: RequestOptions = {}): Promise<HttpResponse> {
    const payload = options.rawBody !== undefined ? options.rawBody : options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = { accept: 'application/json', ...(options.headers ?? {}) };
    // Node sends GET and DELETE bodies with no length header at all unless told, which no real client does.
    if (payload !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length')) headers['content-length'] = String(Buffer.byteLength(payload));
    if (payload !== undefined && options.body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        url,
        { method, headers, agent: options.cert ? undefined : this.agent, ca: this.caPem, cert: options.cert, key: options.key, ...(options.localAddress ? { localAddress: options.localAddress } : {}) },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            try {
              json = text === '' ? undefined : JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
          });
        },
      );
      req.on('error', reject);
      req.setTimeout(30_000, () => req.destroy(new Error(`timeout: ${method} ${url}`)));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  get = (url: string, options?: RequestOptions) => this.request('GET', url, options);
  post = (url: string, options?: RequestOptions) => this.request('POST', url, options);
  put = (url: string, options?: RequestOptions) => this.request('PUT', url, options);
  patch = (url: string, options?: RequestOptions) => this.request('PATCH', url, options);
  delete = (url: string, options?: RequestOptions) => this.request('DELETE', url, options);

  close(): void {
    this.agent.destroy();
  }
}

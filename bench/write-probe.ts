// One-off HTTP(S) writes for the failover trials and health checks: keep-alive sockets without a cap (so a write
// hanging on a dead leader never queues the next one behind it), a time limit per request, and close() aborting
// whatever is still in flight.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface ProbeAnswer {
  readonly status: number;
  readonly text: string;
  /** The Retry-After header, when the answer has one (a 429 or 503 that says when to come back). */
  readonly retryAfter?: string;
}

export class ProbeClient {
  private readonly httpAgent = new HttpAgent({ keepAlive: true });
  private readonly httpsAgent: HttpsAgent;
  private readonly inFlight = new Set<ClientRequest>();

  constructor(private readonly caPem?: string) {
    this.httpsAgent = new HttpsAgent({ keepAlive: true, ...(caPem === undefined ? {} : { ca: caPem }) });
  }

  request(method: string, url: string, body: string | undefined, headers: Readonly<Record<string, string>> = {}, timeoutMs = 10_000): Promise<ProbeAnswer> {
    const secure = url.startsWith('https:');
    const send = secure ? httpsRequest : httpRequest;
    const allHeaders: Record<string, string> = { accept: 'application/json', ...headers };
    if (body !== undefined) {
      allHeaders['content-type'] ??= 'application/json';
      allHeaders['content-length'] = String(Buffer.byteLength(body));
    }
    return new Promise((resolve, reject) => {
      const req = send(url, { method, headers: allHeaders, agent: secure ? this.httpsAgent : this.httpAgent, ...(secure && this.caPem !== undefined ? { ca: this.caPem } : {}) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          this.inFlight.delete(req);
          const retryAfter = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ...(retryAfter === undefined ? {} : { retryAfter }) });
        });
        res.on('error', reject);
      });
      this.inFlight.add(req);
      req.on('error', (error) => {
        this.inFlight.delete(req);
        reject(error);
      });
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms: ${method} ${url}`)));
      req.end(body);
    });
  }

  post(url: string, body: string, headers?: Readonly<Record<string, string>>, timeoutMs?: number): Promise<ProbeAnswer> {
    return this.request('POST', url, body, headers, timeoutMs);
  }

  get(url: string, headers?: Readonly<Record<string, string>>, timeoutMs?: number): Promise<ProbeAnswer> {
    return this.request('GET', url, undefined, headers, timeoutMs);
  }

  /** Aborts every request still in flight and closes the pooled sockets. */
  close(): void {
    for (const req of this.inFlight) req.destroy(new Error('probe client closed'));
    this.inFlight.clear();
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/** Polls `probe` every `intervalMs` (and once at once) until it returns a truthy value, or fails after `timeoutMs`
 * with the last error. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs: number, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
      last = undefined;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

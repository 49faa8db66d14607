// One HTTPS request from the demo to one of its own processes (a controller's management API, a health-checks
// API), verified against the demo's CA bundle, with a JSON body out and the answer's text and JSON back.
import { request } from 'node:https';

export interface HttpsJsonOptions {
  readonly ca: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  /** Sent as JSON. */
  readonly body?: unknown;
  readonly timeoutMs?: number;
}

export interface HttpsJsonResponse {
  readonly status: number;
  readonly text: string;
  /** The parsed body, or undefined when it is not JSON. */
  readonly json: unknown;
}

export function httpsJson(url: string, options: HttpsJsonOptions): Promise<HttpsJsonResponse> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { accept: 'application/json', ...(options.headers ?? {}) };
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers, ca: options.ca, timeout: options.timeoutMs ?? 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let json: unknown;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, json });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

// curl as the API client, for what a user does with a certificate and key on disk: `curl --cert --key`.
// Each call is a new process, so a new TLS handshake: no session resumption hides the presented chain.
import { runTool } from './run-tool.ts';

export interface CurlOptions {
  /** PEM file trusted for the server (the controller's CA bundle). */
  readonly caFile: string;
  /** PEM file with the client certificate, optionally followed by its intermediates. */
  readonly certFile?: string;
  readonly keyFile?: string;
  readonly method?: string;
  /** A body sent as given; with `contentType` (default application/json). No body at all when undefined. */
  readonly body?: string;
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
  readonly timeoutMs?: number;
}

export interface CurlResponse {
  readonly status: number;
  /** Header names lower-cased; the last value wins. */
  readonly headers: Record<string, string>;
  readonly text: string;
  readonly json: any;
}

export async function curl(url: string, options: CurlOptions): Promise<CurlResponse> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const args = ['--silent', '--show-error', '--include', '--max-time', String(Math.ceil(timeoutMs / 1000)), '--cacert', options.caFile, '-X', options.method ?? 'POST'];
  if (options.certFile) args.push('--cert', options.certFile);
  if (options.keyFile) args.push('--key', options.keyFile);
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`);
  if (options.body !== undefined) args.push('-H', `content-type: ${options.contentType ?? 'application/json'}`, '--data-binary', options.body);
  args.push(url);
  const { stdout } = await runTool('curl', args, timeoutMs + 2_000);
  return parseIncluded(stdout);
}

/** Splits `curl --include` output into status, headers and body (skipping any 1xx interim responses). */
function parseIncluded(output: string): CurlResponse {
  let rest = output;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`curl output has no header block: ${output.slice(0, 200)}`);
    const [statusLine, ...headerLines] = rest.slice(0, end).split('\r\n');
    const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(statusLine ?? '')?.[1]);
    if (!Number.isInteger(status)) throw new Error(`unreadable status line: ${statusLine}`);
    rest = rest.slice(end + 4);
    if (status >= 100 && status < 200) continue;
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let json: unknown;
    try {
      json = rest === '' ? undefined : JSON.parse(rest);
    } catch {
      json = undefined;
    }
    return { status, headers, text: rest, json };
  }
}

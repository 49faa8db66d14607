// The Edge Management API over HTTPS, as `edgeward edge` uses it: the session token in `zt-session`, JSON bodies,
// the API's envelopes unwrapped (`data` out, the error envelope thrown as an ApiFailure), lists followed page by
// page. The transport is injected, so paging and envelope handling are tested without a network.
import { Agent, request as httpsRequest } from 'node:https';
import { ApiFailure, EdgeFailure, UnreachableFailure, type ApiErrorCause } from './edge-errors.ts';
import type { OidcHttpAnswer, OidcHttpRequest } from '../../../common/oidc-client/oidc-pkce-client.ts';

/** One HTTP exchange, the same shape the OIDC client sends over this transport (lower-case header names in the
 * answer; repeated headers joined with ", "). */
export type HttpRequest = OidcHttpRequest;
export type HttpAnswer = OidcHttpAnswer;

export interface Transport {
  send(request: HttpRequest): Promise<HttpAnswer>;
  close(): void;
}

export interface ApiAnswer {
  readonly status: number;
  readonly data: unknown;
  readonly meta: Record<string, unknown>;
  readonly headers: Readonly<Record<string, string | undefined>>;
}

/** What a list returned: the items, and the pagination the API reported. */
export interface ListResult {
  readonly items: Record<string, unknown>[];
  readonly totalCount: number;
  readonly offset: number;
}

/** The largest page the API serves. */
const pageSize = 500;

export class ManagementClient {
  constructor(
    readonly baseUrl: string,
    private readonly transport: Transport,
    private readonly token?: string,
  ) {}

  async call(method: string, path: string, options: { query?: Record<string, string>; body?: unknown; headers?: Record<string, string> } = {}): Promise<ApiAnswer> {
    const query = new URLSearchParams(options.query ?? {}).toString();
    const url = `${this.baseUrl}${path}${query ? `?${query}` : ''}`;
    const headers: Record<string, string> = { accept: 'application/json', ...(options.headers ?? {}) };
    if (this.token) headers['zt-session'] = this.token;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const answer = await this.transport.send({ method, url, headers, ...(body !== undefined ? { body } : {}) });
    return unwrap(method, url, answer);
  }

  async get(path: string): Promise<Record<string, unknown>> {
    return asObject((await this.call('GET', path)).data);
  }

  async create(path: string, body: unknown): Promise<Record<string, unknown>> {
    return asObject((await this.call('POST', path, { body })).data);
  }

  async patch(path: string, body: unknown): Promise<Record<string, unknown>> {
    return asObject((await this.call('PATCH', path, { body })).data);
  }

  async delete(path: string): Promise<Record<string, unknown>> {
    return asObject((await this.call('DELETE', path)).data);
  }

  /**
   * Every item of a list that matches `filter` (passed to the API as written), following the pages, or the first
   * `max`. A filter with its own `skip` or `limit` clause is sent alone, once: its clauses choose the page, as they
   * do in the API (the `limit` and `offset` parameters would override them).
   */
  async list(path: string, filter: string | undefined, max?: number): Promise<ListResult> {
    const filterQuery: Record<string, string> = filter !== undefined && filter.trim() !== '' ? { filter } : {};
    if (filter !== undefined && hasPagingClause(filter)) {
      const answer = await this.call('GET', path, { query: filterQuery });
      const items = asItems(answer.data);
      const pagination = paginationOf(answer.meta);
      return { items: max === undefined ? items : items.slice(0, max), totalCount: pagination.totalCount ?? items.length, offset: pagination.offset ?? 0 };
    }
    const items: Record<string, unknown>[] = [];
    let totalCount = 0;
    for (;;) {
      const want = Math.min(pageSize, max === undefined ? pageSize : max - items.length);
      const answer = await this.call('GET', path, { query: { ...filterQuery, limit: String(want), offset: String(items.length) } });
      const page = asItems(answer.data);
      totalCount = paginationOf(answer.meta).totalCount ?? items.length + page.length;
      items.push(...page);
      if (page.length === 0 || items.length >= totalCount || (max !== undefined && items.length >= max)) break;
    }
    return { items, totalCount, offset: 0 };
  }
}

/** Whether a ZitiQL filter ends in a `skip` or `limit` clause (text inside string literals does not count). */
export function hasPagingClause(filter: string): boolean {
  const outsideStrings = filter.replace(/"(?:[^"\\]|\\.)*"?/g, '""');
  return /\b(skip|limit)\b/i.test(outsideStrings);
}

/** A name or id as a ZitiQL string literal. */
export function zitiQlString(text: string): string {
  const escapes: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\f': '\\f' };
  return `"${text.replace(/["\\\n\r\t\f]/g, (char) => escapes[char]!)}"`;
}

function unwrap(method: string, url: string, answer: HttpAnswer): ApiAnswer {
  let json: unknown;
  try {
    json = answer.body === '' ? undefined : JSON.parse(answer.body);
  } catch {
    json = undefined;
  }
  const envelope = json !== null && typeof json === 'object' ? (json as Record<string, unknown>) : undefined;
  if (answer.status >= 400) {
    const error = envelope?.error;
    if (error !== null && typeof error === 'object' && typeof (error as Record<string, unknown>).code === 'string') {
      const fields = error as Record<string, unknown>;
      const cause = fields.cause !== null && typeof fields.cause === 'object' ? (fields.cause as ApiErrorCause) : undefined;
      throw new ApiFailure(
        answer.status,
        fields.code as string,
        typeof fields.message === 'string' ? fields.message : '',
        typeof fields.requestId === 'string' ? fields.requestId : undefined,
        cause,
        answer.headers['www-authenticate'],
      );
    }
    throw new EdgeFailure(`${method} ${url} was answered ${answer.status} without the API's error envelope: is this an edgeward controller's Management API?`);
  }
  if (!envelope || !('data' in envelope)) {
    throw new EdgeFailure(`${method} ${url} was answered ${answer.status} without the API's envelope: is this an edgeward controller's Management API?`);
  }
  const meta = envelope.meta !== null && typeof envelope.meta === 'object' ? (envelope.meta as Record<string, unknown>) : {};
  return { status: answer.status, data: envelope.data, meta, headers: answer.headers };
}

function asObject(data: unknown): Record<string, unknown> {
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

function asItems(data: unknown): Record<string, unknown>[] {
  if (!Array.isArray(data)) throw new EdgeFailure('the list was answered without an array in data');
  return data.map(asObject);
}

function paginationOf(meta: Record<string, unknown>): { totalCount?: number; offset?: number } {
  const pagination = meta.pagination as Record<string, unknown> | undefined;
  return {
    ...(typeof pagination?.totalCount === 'number' ? { totalCount: pagination.totalCount } : {}),
    ...(typeof pagination?.offset === 'number' ? { offset: pagination.offset } : {}),
  };
}

const untrustedCodes = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);

/** What went wrong on the way to the controller, in words an operator can act on. */
export function connectionProblem(origin: string, error: NodeJS.ErrnoException): EdgeFailure {
  const code = error.code ?? '';
  if (untrustedCodes.has(code)) {
    return new EdgeFailure(`the certificate of ${origin} is not trusted (${code}): pass --ca <pem file> to 'edgeward edge login' with the CA bundle that signed it`);
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return new EdgeFailure(`the certificate of ${origin} does not name that host (${error.message}): use an address the certificate names`);
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return new EdgeFailure(`the certificate of ${origin} is not valid now (${code})`);
  if (code === 'ECONNREFUSED') return new UnreachableFailure(`cannot connect to ${origin}: connection refused (is the controller running, and is this its web address?)`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new EdgeFailure(`cannot connect to ${origin}: the host name does not resolve`);
  if (code === 'ETIMEDOUT' || code === 'EDGE_TIMEOUT') return new UnreachableFailure(`no answer from ${origin}: ${error.message}`);
  if (code === 'EPROTO' || code.startsWith('ERR_SSL')) return new EdgeFailure(`cannot talk TLS with ${origin} (${code}): is this the controller's HTTPS address?`);
  if (code === 'ECONNRESET' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EPIPE') return new UnreachableFailure(`cannot reach ${origin}: ${code}: ${error.message}`);
  return new EdgeFailure(`cannot reach ${origin}: ${code ? `${code}: ` : ''}${error.message}`);
}

/** HTTPS with Node's own TLS; `caPem` replaces the system's trusted roots when given, as `--ca` does. */
export function httpsTransport(caPem: string | undefined, timeoutMs = 30_000): Transport {
  // The timeout makes the agent honour the server's `Keep-Alive: timeout=N` (Node ignores it otherwise) and close
  // an idle socket before the server does, so a request is never sent on a socket being closed.
  const agent = new Agent({ keepAlive: true, maxSockets: 4, timeout: timeoutMs, ...(caPem ? { ca: caPem } : {}) });
  return {
    send(request) {
      return new Promise<HttpAnswer>((resolve, reject) => {
        const origin = new URL(request.url).origin;
        const headers: Record<string, string> = { ...request.headers };
        if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
        const req = httpsRequest(request.url, { method: request.method, headers, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (error: NodeJS.ErrnoException) => reject(connectionProblem(origin, error)));
          res.on('end', () => {
            const answerHeaders: Record<string, string | undefined> = {};
            for (const [name, value] of Object.entries(res.headers)) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
            resolve({ status: res.statusCode ?? 0, headers: answerHeaders, body: Buffer.concat(chunks).toString('utf8') });
          });
        });
        req.on('error', (error: NodeJS.ErrnoException) => reject(connectionProblem(origin, error)));
        req.setTimeout(timeoutMs, () => {
          const timeout = Object.assign(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`), { code: 'EDGE_TIMEOUT' });
          req.destroy(timeout);
        });
        if (request.body !== undefined) req.write(request.body);
        req.end();
      });
    },
    close() {
      agent.destroy();
    },
  };
}

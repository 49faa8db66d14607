// The Edge Client API calls an SDK makes (the fact sheet's §3a), over HTTPS with the identity's certificate: log in by
// certificate, the identity, its services (paged, every config type), the service-update marker, Dial sessions and
// their edge routers. Every request is bounded in time; every failure is a ControllerApiError.
import { request } from 'node:https';
import { ControllerApiError } from './sdk-errors.ts';

export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
  readonly ca: string;
}

export interface ApiSession {
  readonly token: string;
  /** When the controller says it ends without activity (ISO time), when it says. */
  readonly expiresAt?: string;
}

export interface CurrentIdentity {
  readonly id: string;
  readonly name: string;
}

/** A service as the client API lists it: what the SDK and the tunneler use of it. */
export interface EdgeService {
  readonly id: string;
  readonly name: string;
  readonly encryptionRequired: boolean;
  readonly permissions: readonly string[];
  /** Config data by config type name (`intercept.v1`, `host.v1`, ...). */
  readonly config: Readonly<Record<string, unknown>>;
}

export interface SessionEdgeRouter {
  readonly name: string;
  /** `tls://host:port` (supportedProtocols.tls, else urls.tls). */
  readonly tlsUrl: string;
}

export interface ServiceSession {
  readonly id: string;
  readonly token: string;
  readonly edgeRouters: readonly SessionEdgeRouter[];
}

const pageSize = 25;
/** Most pages read of one listing: 25 × 400 = 10,000 services. */
const maxPages = 400;

type Json = Record<string, unknown>;

export class ControllerClient {
  constructor(
    /** `https://host:port/edge/client/v1` */
    readonly baseUrl: string,
    private readonly tls: TlsMaterial,
    private readonly timeoutMs = 10_000,
  ) {}

  /** `POST /authenticate?method=cert` over mutual TLS. */
  async authenticateWithCertificate(): Promise<ApiSession> {
    const data = (await this.call('POST', '/authenticate?method=cert', undefined, { sdkInfo: { type: 'edgeward-sdk' }, envInfo: { os: process.platform, arch: process.arch } })) as Json;
    if (typeof data.token !== 'string') throw new ControllerApiError(200, 'INVALID_RESPONSE', 'the controller answered a login without a token');
    return { token: data.token, ...(typeof data.expiresAt === 'string' ? { expiresAt: data.expiresAt } : {}) };
  }

  async currentIdentity(token: string): Promise<CurrentIdentity> {
    const data = (await this.call('GET', '/current-identity', token)) as Json;
    return { id: String(data.id ?? ''), name: String(data.name ?? '') };
  }

  /** Every service the identity may use, with all config types, read `limit=25` a page until `totalCount`. */
  async services(token: string): Promise<EdgeService[]> {
    const services: EdgeService[] = [];
    for (let page = 0; page < maxPages; page++) {
      const { data, meta } = await this.callWithMeta('GET', `/services?configTypes=all&limit=${pageSize}&offset=${page * pageSize}`, token);
      const rows = Array.isArray(data) ? (data as Json[]) : [];
      for (const row of rows) services.push(serviceOf(row));
      const total = Number((meta as { pagination?: { totalCount?: unknown } } | undefined)?.pagination?.totalCount ?? services.length);
      if (rows.length < pageSize || services.length >= total) break;
    }
    return services;
  }

  /** `lastChangeAt` of `GET /current-api-session/service-updates`: when the identity's service list last moved. */
  async serviceUpdates(token: string): Promise<string> {
    const data = (await this.call('GET', '/current-api-session/service-updates', token)) as Json;
    return String(data.lastChangeAt ?? '');
  }

  /** `POST /sessions` for a Dial (or Bind) of a service: its token and the edge routers to use it through. */
  async createSession(token: string, serviceId: string, type: 'Dial' | 'Bind'): Promise<ServiceSession> {
    const data = (await this.call('POST', '/sessions', token, { serviceId, type })) as Json;
    if (typeof data.token !== 'string') throw new ControllerApiError(201, 'INVALID_RESPONSE', 'the controller answered a session without a token');
    const routers = Array.isArray(data.edgeRouters) ? (data.edgeRouters as Json[]) : [];
    const edgeRouters = routers.flatMap((router): SessionEdgeRouter[] => {
      const url = (router.supportedProtocols as Json | undefined)?.tls ?? (router.urls as Json | undefined)?.tls;
      return typeof url === 'string' ? [{ name: String(router.name ?? ''), tlsUrl: url }] : [];
    });
    return { id: String(data.id ?? ''), token: data.token, edgeRouters };
  }

  private async call(method: string, path: string, token: string | undefined, body?: unknown): Promise<unknown> {
    return (await this.callWithMeta(method, path, token, body)).data;
  }

  private callWithMeta(method: string, path: string, token: string | undefined, body?: unknown): Promise<{ data: unknown; meta: unknown }> {
    const url = new URL(`${this.baseUrl}${path}`);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          cert: this.tls.cert,
          key: this.tls.key,
          ca: this.tls.ca,
          timeout: this.timeoutMs,
          headers: {
            accept: 'application/json',
            ...(token ? { 'zt-session': token } : {}),
            ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (error) => reject(new ControllerApiError(0, 'UNREACHABLE', `${method} ${url.pathname}: ${error.message}`, { cause: error })));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            let json: Json | undefined;
            try {
              json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
            } catch {
              json = undefined;
            }
            if (status < 200 || status > 299) {
              const error = (json?.error ?? {}) as Json;
              reject(new ControllerApiError(status, String(error.code ?? 'HTTP_' + status), `${method} ${url.pathname} answered ${status}: ${String(error.message ?? error.code ?? 'no error envelope')}`));
              return;
            }
            if (!json) {
              reject(new ControllerApiError(status, 'INVALID_RESPONSE', `${method} ${url.pathname} answered ${status} without a JSON body`));
              return;
            }
            resolve({ data: json.data, meta: json.meta });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (error) => reject(new ControllerApiError(0, 'UNREACHABLE', `${method} ${url.pathname}: ${error.message}`, { cause: error })));
      req.end(payload);
    });
  }
}

function serviceOf(row: Json): EdgeService {
  const config = row.config && typeof row.config === 'object' && !Array.isArray(row.config) ? (row.config as Record<string, unknown>) : {};
  return {
    id: String(row.id ?? ''),
    name: String(row.name ?? ''),
    encryptionRequired: row.encryptionRequired !== false,
    permissions: Array.isArray(row.permissions) ? row.permissions.map(String) : [],
    config,
  };
}

// The parameters of an OIDC request: the query, then a form or JSON body (OpenZiti's login steps take either; the
// C SDK posts the authorization request with every parameter in the query and an empty body). Repeated keys keep
// every value (configTypes may repeat). Bodies are size-limited as every other.
import { EdgeError } from '../../edge/edge-error.ts';
import type { ApiContext } from '../koa-state.ts';
import { parseJsonBody, readRawBody } from '../request-body.ts';

export class OidcParams {
  constructor(private readonly values: ReadonlyMap<string, readonly string[]>) {}

  /** The first value of `name`, or undefined; never longer than `maxLength` (longer: refused as invalid). */
  get(name: string, maxLength = 4096): string | undefined {
    const value = this.values.get(name)?.[0];
    if (value !== undefined && value.length > maxLength) throw EdgeError.validation(name, `must be at most ${maxLength} characters`);
    return value;
  }

  all(name: string): readonly string[] {
    return this.values.get(name) ?? [];
  }
}

const formType = 'application/x-www-form-urlencoded';

/** Reads the query and, for a request with a body, the body. `bodyTypes`: which media types the body may be. */
export async function readOidcParams(ctx: ApiContext, maxBodyBytes: number, bodyTypes: 'form' | 'form-or-json'): Promise<OidcParams> {
  const values = new Map<string, string[]>();
  const add = (key: string, value: string) => {
    const list = values.get(key);
    if (list) list.push(value);
    else values.set(key, [value]);
  };
  for (const [key, value] of new URLSearchParams(ctx.querystring)) add(key, value);
  if (ctx.method === 'GET' || ctx.method === 'HEAD') return new OidcParams(values);
  const raw = await readRawBody(ctx.req, maxBodyBytes);
  if (raw.length === 0) return new OidcParams(values);
  const mediaType = (ctx.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType === formType) {
    for (const [key, value] of new URLSearchParams(raw.toString('utf8'))) add(key, value);
  } else if (bodyTypes === 'form-or-json' && (mediaType === 'application/json' || mediaType === '')) {
    const body = parseJsonBody(raw, 'application/json');
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) throw EdgeError.validation('(root)', 'the body must be a JSON object');
    for (const [key, value] of Object.entries((body ?? {}) as Record<string, unknown>)) {
      if (typeof value === 'string') add(key, value);
      else if (Array.isArray(value)) for (const item of value) if (typeof item === 'string') add(key, item);
    }
  } else {
    throw new EdgeError('UNSUPPORTED_MEDIA_TYPE', { field: 'Content-Type', reason: bodyTypes === 'form' ? `expected ${formType}` : `expected ${formType} or application/json`, value: mediaType });
  }
  return new OidcParams(values);
}

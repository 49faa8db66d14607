// A small router for the Edge APIs: exact paths are one map lookup, parameterised ones a short list of patterns.
// Unknown paths fall through (404 later); a known path with another method is 405. It replaces a general router
// on the hot path, where every request used to be matched against every route of every router in turn.
import type { Middleware, Next, ParameterizedContext } from 'koa';
import { ApiError } from './api-error.ts';
import type { MatchedRoute, RequestState } from './koa-state.ts';

export type RouteContext = ParameterizedContext<RequestState> & { params: Record<string, string> };
export type RouteMiddleware = (ctx: RouteContext, next: Next) => unknown;

type Chain = readonly RouteMiddleware[];

interface Pattern {
  readonly path: string;
  readonly regex: RegExp;
  readonly keys: readonly string[];
  readonly methods: Map<string, Chain>;
  readonly route: MatchedRoute;
}

interface ExactPath {
  readonly methods: Map<string, Chain>;
  readonly route: MatchedRoute;
}

/** One registered route: its method and full path as written (`/edge/management/v1/identities/:id`). */
export interface RouteEntry {
  readonly method: string;
  readonly path: string;
}

/** The table behind each middleware() function, so what an app mounted can be listed (routeTableOf). */
const tablesByMiddleware = new WeakMap<object, RouteTable>();

/** The table a middleware came from, or undefined for any other middleware. */
export function routeTableOf(middleware: object): RouteTable | undefined {
  return tablesByMiddleware.get(middleware);
}

export class RouteTable {
  private readonly exact = new Map<string, ExactPath>();
  private readonly patterns: Pattern[] = [];

  constructor(private readonly prefix = '') {}

  get(path: string, ...chain: RouteMiddleware[]): this {
    return this.add('GET', path, chain);
  }
  post(path: string, ...chain: RouteMiddleware[]): this {
    return this.add('POST', path, chain);
  }
  put(path: string, ...chain: RouteMiddleware[]): this {
    return this.add('PUT', path, chain);
  }
  patch(path: string, ...chain: RouteMiddleware[]): this {
    return this.add('PATCH', path, chain);
  }
  delete(path: string, ...chain: RouteMiddleware[]): this {
    return this.add('DELETE', path, chain);
  }

  /** The Koa middleware that dispatches to the routes. */
  middleware(): Middleware<RequestState> {
    const dispatch: Middleware<RequestState> = (ctx, next) => {
      const routeCtx = ctx as RouteContext;
      const found = this.find(ctx.path);
      if (!found) return next();
      ctx.state.route = found.route;
      const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
      const chain = found.methods.get(method);
      if (!chain) throw new ApiError('METHOD_NOT_ALLOWED').withHeader('Allow', [...found.methods.keys()].join(', '));
      routeCtx.params = found.params;
      return run(chain, routeCtx, 0);
    };
    tablesByMiddleware.set(dispatch, this);
    return dispatch;
  }

  /** Every route registered, read-only: for tests and tools that must cover them all without a list of their own. */
  routes(): RouteEntry[] {
    const entries: RouteEntry[] = [];
    for (const [path, { methods }] of this.exact) for (const method of methods.keys()) entries.push({ method, path });
    for (const pattern of this.patterns) for (const method of pattern.methods.keys()) entries.push({ method, path: pattern.path });
    return entries;
  }

  private find(path: string): { methods: Map<string, Chain>; params: Record<string, string>; route: MatchedRoute } | undefined {
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const exact = this.exact.get(trimmed);
    if (exact) return { methods: exact.methods, params: {}, route: exact.route };
    for (const pattern of this.patterns) {
      const match = pattern.regex.exec(trimmed);
      if (!match) continue;
      const params: Record<string, string> = {};
      pattern.keys.forEach((key, i) => {
        try {
          params[key] = decodeURIComponent(match[i + 1]!);
        } catch {
          params[key] = match[i + 1]!;
        }
      });
      return { methods: pattern.methods, params, route: pattern.route };
    }
    return undefined;
  }

  private add(method: string, path: string, chain: RouteMiddleware[]): this {
    const full = `${this.prefix}${path === '/' ? '' : path}` || '/';
    if (!full.includes(':')) {
      let exact = this.exact.get(full);
      if (!exact) this.exact.set(full, (exact = { methods: new Map(), route: this.routeOf(full) }));
      exact.methods.set(method, chain);
      return this;
    }
    const keys: string[] = [];
    const source = full.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\?:([A-Za-z0-9_]+)/g, (_, key: string) => {
      keys.push(key);
      return '([^/]+)';
    });
    let pattern = this.patterns.find((candidate) => candidate.path === full);
    if (!pattern) this.patterns.push((pattern = { path: full, regex: new RegExp(`^${source}$`), keys, methods: new Map(), route: this.routeOf(full) }));
    pattern.methods.set(method, chain);
    return this;
  }

  private routeOf(template: string): MatchedRoute {
    return Object.freeze({ template, label: template.slice(this.prefix.length) || '/' });
  }
}

function run(chain: Chain, ctx: RouteContext, index: number): Promise<unknown> {
  const step = chain[index];
  if (!step) return Promise.resolve();
  return Promise.resolve(step(ctx, () => run(chain, ctx, index + 1)));
}

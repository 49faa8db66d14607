// Routes on @koa/router, set up the way the Edge APIs need: case-sensitive paths (as the Go controller matches
// them), a trailing slash naming the same path, a literal path preferred over a parameterised one that also
// matches, a known path asked with another method answered 405 in the API's envelope, naming the allowed ones,
// and a request shown only the routes that share its first path segment.
import Router, { type RouterContext, type RouterMiddleware } from '@koa/router';
import type { Middleware } from 'koa';
import { EdgeError } from '../edge/edge-error.ts';
import type { MatchedRoute, RequestState } from './koa-state.ts';

export type RouteContext = RouterContext<RequestState>;
export type RouteMiddleware = RouterMiddleware<RequestState>;

/** One registered route: its method and full path as written (`/edge/management/v1/identities/:id`). */
export interface RouteEntry {
  readonly method: string;
  readonly path: string;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * The routes under one prefix (`/edge/client/v1`; none: the host's root), kept on one @koa/router per first path
 * segment under the prefix (`identities` for `/identities/:id`): the router tests every one of its routes' patterns
 * on every request and composes the matched route's chain anew, so a request is shown only the few routes that share
 * its first segment, found by one map lookup. A route's first segment is therefore literal.
 */
export class ApiRouter {
  private readonly segments = new Map<string, { readonly router: Router<RequestState>; readonly dispatch: Middleware<RequestState> }>();

  constructor(readonly prefix = '') {}

  get(path: string, ...middleware: RouteMiddleware[]): this {
    return this.add('get', path, middleware);
  }
  post(path: string, ...middleware: RouteMiddleware[]): this {
    return this.add('post', path, middleware);
  }
  put(path: string, ...middleware: RouteMiddleware[]): this {
    return this.add('put', path, middleware);
  }
  patch(path: string, ...middleware: RouteMiddleware[]): this {
    return this.add('patch', path, middleware);
  }
  delete(path: string, ...middleware: RouteMiddleware[]): this {
    return this.add('delete', path, middleware);
  }

  /**
   * The middleware to mount: runs the router for the request's first segment; a path it knows, asked with a method
   * it does not serve, is 405 with an Allow header; anything else goes on to the next middleware.
   */
  middleware(): Middleware<RequestState> & { readonly apiRouter: ApiRouter } {
    const dispatch: Middleware<RequestState> = (ctx, next) => {
      const key = requestSegment(ctx.path, this.prefix);
      const segment = key === undefined ? undefined : this.segments.get(key);
      if (!segment) return next();
      return segment.dispatch(ctx, () => refuseOtherMethods(ctx as unknown as RouteContext, segment.router, next));
    };
    return Object.assign(dispatch, { apiRouter: this });
  }

  /** Every route, without the HEAD each GET also answers. */
  routes(): RouteEntry[] {
    return [...this.segments.values()].flatMap(({ router }) =>
      router.stack.flatMap((layer) =>
        typeof layer.path !== 'string' ? [] : layer.methods.filter((method) => method !== 'HEAD').map((method) => ({ method, path: layer.path as string })),
      ),
    );
  }

  private add(method: Method, path: string, middleware: RouteMiddleware[]): this {
    const segment = firstSegment(path);
    if (/[:*(){}?+]/.test(segment)) throw new Error(`route ${path}: its first path segment must be literal`);
    let entry = this.segments.get(segment);
    if (!entry) {
      const router = new Router<RequestState>({ ...(this.prefix ? { prefix: this.prefix } : {}), sensitive: true, exclusive: 'specificity' });
      entry = { router, dispatch: router.routes() as Middleware<RequestState> };
      this.segments.set(segment, entry);
    }
    entry.router[method](path, ...middleware);
    return this;
  }
}

/** A router for the routes under `prefix` (`/edge/client/v1`; none: routes at the host's root). */
export function apiRouter(prefix = ''): ApiRouter {
  return new ApiRouter(prefix);
}

/** `identities` for `/identities/:id`, `` for `/`. */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return path.slice(1, end === -1 ? undefined : end);
}

/** The first segment of a request path under `prefix`, or undefined when the path is not under it. */
function requestSegment(path: string, prefix: string): string | undefined {
  if (!path.startsWith(prefix)) return undefined;
  if (path.length === prefix.length) return '';
  if (path.charCodeAt(prefix.length) !== 47 /* / */) return undefined;
  const end = path.indexOf('/', prefix.length + 1);
  return path.slice(prefix.length + 1, end === -1 ? undefined : end);
}

/** The routes behind a middleware an app mounted (an ApiRouter's), without the HEAD each GET also answers; none
 * for any other middleware. For tests and tools that must cover every route without a list of their own. */
export function routesOf(middleware: object): RouteEntry[] {
  return (middleware as { apiRouter?: ApiRouter }).apiRouter?.routes() ?? [];
}

/**
 * Called when `router` matched no route for the path and method. The router records in ctx.matched every layer whose
 * path matched, whatever its method: if any did, the path is known and the method is refused.
 */
function refuseOtherMethods(ctx: RouteContext, router: Router<RequestState>, next: () => Promise<unknown>): Promise<unknown> {
  if (!ctx.matched || ctx.router !== router) return next();
  const allowed = new Set<string>();
  for (const layer of ctx.matched) for (const method of layer.methods) allowed.add(method);
  if (allowed.size === 0) return next();
  ctx.set('Allow', [...allowed].join(', '));
  throw new EdgeError('METHOD_NOT_ALLOWED');
}

/** Made once per template: every request on a route shares it. */
const routesByTemplate = new Map<string, MatchedRoute>();

/**
 * The route a request matched (its template whole, and within its router's prefix: a metric label), or undefined
 * when none did. A 405 names the route whose path matched.
 */
export function matchedRoute(ctx: object): MatchedRoute | undefined {
  const routed = ctx as Partial<Pick<RouteContext, '_matchedRoute' | 'matched' | 'router'>>;
  const template =
    typeof routed._matchedRoute === 'string' ? routed._matchedRoute : routed.matched?.find((layer) => layer.methods.length > 0 && typeof layer.path === 'string')?.path;
  if (typeof template !== 'string') return undefined;
  let route = routesByTemplate.get(template);
  if (!route) {
    const prefix = routed.router?.opts.prefix ?? '';
    route = Object.freeze({ template, label: template.slice(prefix.length) || '/' });
    routesByTemplate.set(template, route);
  }
  return route;
}

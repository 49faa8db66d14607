// Routes on @koa/router, set up the way the Edge APIs need: case-sensitive paths (as the Go controller matches
// them), a trailing slash naming the same path, a literal path preferred over a parameterised one that also
// matches, and a known path asked with another method answered 405 in the API's envelope, naming the allowed ones.
import Router, { type RouterContext, type RouterMiddleware } from '@koa/router';
import type { Middleware } from 'koa';
import { ApiError } from './api-error.ts';
import type { MatchedRoute, RequestState } from './koa-state.ts';

export type ApiRouter = Router<RequestState>;
export type RouteContext = RouterContext<RequestState>;
export type RouteMiddleware = RouterMiddleware<RequestState>;

/** A router for the routes under `prefix` (`/edge/client/v1`; none: routes at the host's root). */
export function apiRouter(prefix = ''): ApiRouter {
  return new Router<RequestState>({ ...(prefix ? { prefix } : {}), sensitive: true, exclusive: 'specificity' });
}

/** One registered route: its method and full path as written (`/edge/management/v1/identities/:id`). */
export interface RouteEntry {
  readonly method: string;
  readonly path: string;
}

/** The routes behind a middleware an app mounted (a router's routes()), without the HEAD each GET also answers;
 * none for any other middleware. For tests and tools that must cover every route without a list of their own. */
export function routesOf(middleware: object): RouteEntry[] {
  const router = (middleware as { router?: ApiRouter }).router;
  if (!router) return [];
  return router.stack.flatMap((layer) =>
    typeof layer.path !== 'string' ? [] : layer.methods.filter((method) => method !== 'HEAD').map((method) => ({ method, path: layer.path as string })),
  );
}

/**
 * Mounted right after `router`'s routes: a path it knows, asked with a method it does not serve, is 405 with an
 * Allow header. The router records in ctx.matched every layer whose path matched, whatever its method; a router
 * mounted earlier that matched the path would have answered or refused it already, so these layers are this one's.
 */
export function methodNotAllowed(router: ApiRouter): Middleware<RequestState> {
  return (ctx, next) => {
    const routed = ctx as unknown as RouteContext;
    if (!routed.matched || routed.router !== router) return next();
    const allowed = new Set<string>();
    for (const layer of routed.matched) for (const method of layer.methods) allowed.add(method);
    if (allowed.size === 0) return next();
    throw new ApiError('METHOD_NOT_ALLOWED').withHeader('Allow', [...allowed].join(', '));
  };
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

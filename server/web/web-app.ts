// Builds the Koa application for one `web` entry of the controller config from the APIs it binds.
import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from '../../common/log/logger.ts';
import type { EdgeServices } from '../edge/edge-services.ts';
import type { HealthChecker } from '../health/health-checker.ts';
import type { ControllerMetrics } from '../telemetry/controller-metrics.ts';
import { errorHandler } from './error-handler.ts';
import type { RequestState } from './koa-state.ts';
import { apiSessionRoutes } from './routes/api-session-routes.ts';
import { authenticationRoutes } from './routes/authentication-routes.ts';
import { authenticatorRoutes, ownAuthenticatorRoutes } from './routes/authenticator-routes.ts';
import { healthRoutes } from './routes/health-routes.ts';
import { identityRoutes } from './routes/identity-routes.ts';
import { routeKit } from './routes/route-kit.ts';
import { apiPaths, versionBody, versionRoutes, type ApiBinding } from './routes/version-routes.ts';
import { sessionGuard } from './session-guard.ts';
import type { VersionInfo } from './version-info.ts';

export interface WebAppDeps {
  readonly services: EdgeServices;
  readonly health: HealthChecker;
  readonly metrics: ControllerMetrics;
  readonly version: VersionInfo;
  /** For each API, the origins (https://host:port) where it is bound, across every web entry. */
  readonly baseUrls: Partial<Record<ApiBinding, readonly string[]>>;
  readonly raftState: () => { isRaftEnabled: boolean; isLeader: boolean };
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  readonly requestTimeoutMs?: number;
}

export function buildWebApp(bindings: readonly ApiBinding[], deps: WebAppDeps): Koa<RequestState> {
  const app = new Koa<RequestState>();
  app.silent = true;
  app.use(errorHandler({ logger: deps.logger, serverHeader: `edgeward-controller/${deps.version.version}`, requestTimeoutMs: deps.requestTimeoutMs ?? 10_000 }));
  app.use(async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const api = bindings.find((binding) => ctx.path.startsWith(apiPaths[binding])) ?? 'root';
      deps.metrics.httpDuration.record((performance.now() - started) / 1000, { api, status_class: `${Math.floor(ctx.status / 100)}xx` });
    }
  });
  // The legacy client prefix is an alias of the client API.
  app.use(async (ctx, next) => {
    if (ctx.path === '/edge/v1' || ctx.path.startsWith('/edge/v1/')) ctx.path = apiPaths['edge-client'] + ctx.path.slice('/edge/v1'.length);
    await next();
  });

  const kit = routeKit(deps.maxBodyBytes);
  const guard = sessionGuard(deps.services.sessions, deps.services.identities);
  const version = () => versionBody(deps.version, deps.baseUrls);
  const mount = (router: Router<RequestState>) => {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: true }));
  };

  const edgeApis = bindings.filter((binding): binding is 'edge-client' | 'edge-management' => binding === 'edge-client' || binding === 'edge-management');
  if (edgeApis.length > 0) mount(versionRoutes(['/', '/version'], version));
  for (const binding of edgeApis) {
    const api = new Router<RequestState>({ prefix: apiPaths[binding] });
    for (const routes of [versionRoutes(['/', '/version'], version), authenticationRoutes(deps.services, kit, guard)]) api.use(routes.routes(), routes.allowedMethods({ throw: true }));
    if (binding === 'edge-client') {
      const own = ownAuthenticatorRoutes(deps.services, kit, guard('full'));
      api.use(own.routes(), own.allowedMethods({ throw: true }));
    } else {
      const admin = guard('admin');
      for (const routes of [identityRoutes(deps.services, kit, admin), authenticatorRoutes(deps.services, kit, admin), apiSessionRoutes(deps.services, admin)]) {
        api.use(routes.routes(), routes.allowedMethods({ throw: true }));
      }
    }
    mount(api);
  }
  if (bindings.includes('health-checks')) mount(healthRoutes(deps.health, deps.raftState));
  if (bindings.includes('metrics')) {
    const router = new Router<RequestState>();
    router.get('/metrics', (ctx) => {
      ctx.respond = false;
      deps.metrics.serve(ctx.req, ctx.res);
    });
    mount(router);
  }
  return app;
}
